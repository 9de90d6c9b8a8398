"""Sweep grids: a YAML file (or a mapping) whose list-valued keys are crossed into points.

    tasks:                       # task sources, as a spec or the command line names them
      - {task: mnadd-half}
      - {knowledge: "a ^ b ^ c", concepts: "a,b,c"}
      - {task: xor, param: {k: 4}}
    map_class: [complete, disentangled]
    subsample: [2, 4, 8]         # fractions or counts of the support
    seeds: [0, 1, 2]             # support draws (and training seeds for job train)
    supervise: [[], [d1]]        # each item one supervision setting
    job: count                   # count | audit | train
    timeout: 30                  # per point (not crossed: a scalar)
    train: {model: dpl, epochs: 5}   # or a list of such mappings, crossed
    train_seeds: [0, 1]          # job train: training seeds (default: the support seed)
    grids:                       # several grids in one file: each over the keys above
      - {tasks: [{task: xor3}], train: {model: sl}}

Every task source is loaded here, before any work starts, so that a grid that
cannot run is refused at once; points carry the loaded tasks to the workers
(files need not exist where they run).
"""
from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from ..errors import RscountError, TaskError, brief
from ..files.reading import load_data, read_text
from ..model.task import Task
from ..problems.problem import MAP_CLASSES
from ..version import __version__

__all__ = ["Point", "Grid", "load_grid", "grid_from_mapping", "GRID_KEYS", "JOBS", "SweepError"]

JOBS = ("count", "audit", "train")
CROSSED = ("map_class", "support", "subsample", "seeds", "supervise", "concept_sup", "backend", "job", "train",
           "train_seeds")
OPTIONS = ("timeout", "memory_mb", "name", "grids")
GRID_KEYS = ("tasks",) + CROSSED + OPTIONS
TOP_ONLY = ("timeout", "memory_mb", "name", "grids")  # not inside one of several grids
SOURCE_KEYS = ("task", "param", "knowledge", "concepts", "groups", "spec", "config", "cnf", "problog", "table", "name")
MAX_POINTS = 1_000_000


class SweepError(TaskError):
    """A sweep grid is malformed: an unknown key, an empty list, a task source that does not load."""


@dataclass(frozen=True)
class Point:
    """One point of a grid: a task and the options of one count, audit or training run."""

    task: Task = field(repr=False, compare=False)
    source: str  # the task source as JSON (what the point is keyed by)
    job: str = "count"
    map_class: str = "complete"
    support: str | None = None
    subsample: float | int | None = None
    seed: int = 0
    supervise: tuple = ()
    concept_sup: float | int | None = None
    backend: str | None = None
    train: tuple = ()  # job train: TrainConfig options as sorted (name, value) pairs
    train_seed: int | None = None  # job train: the training seed (None: ``seed``)

    @property
    def params(self) -> dict:
        """The point's parameters as plain values (a row's first columns)."""
        return {"task": self.task.name, "source": self.source, "job": self.job, "map_class": self.map_class,
                "support": self.support, "subsample": self.subsample, "seed": self.seed,
                "supervise": ";".join(self.supervise), "concept_sup": self.concept_sup, "backend": self.backend,
                "train": json.dumps(dict(self.train), sort_keys=True) if self.train else "",
                "train_seed": self.train_seed}

    @property
    def key(self) -> str:
        """A stable key for resuming: the parameters and the package version, hashed."""
        text = json.dumps({**self.params, "version": __version__}, sort_keys=True, default=str)
        return hashlib.sha1(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Grid:
    """The crossed points of a grid and the options shared by every point."""

    points: tuple
    timeout: float | None = 60.0
    memory_mb: int | None = None
    name: str = "sweep"


def load_grid(path: str | Path) -> Grid:
    """Read a sweep grid file; task files it names are read relative to the grid's folder."""
    path = Path(path)
    data = load_data(read_text(path, "sweep grid", SweepError), f"sweep grid {str(path)!r}", SweepError,
                     "json" if path.suffix == ".json" else "yaml")
    return grid_from_mapping(data, path.parent, default_name=path.stem)


def grid_from_mapping(data, folder: str | Path = ".", default_name: str = "sweep") -> Grid:
    """Check a grid given as data and cross its lists into points (every task source loaded now); with
    ``grids``, each listed grid is crossed over the keys around it and the points are joined."""
    top = _checked_keys(data, "a sweep grid")
    subs = [top]
    if "grids" in top:
        listed = top["grids"]
        if not isinstance(listed, list) or not listed:
            raise SweepError("sweep key 'grids' is a non-empty list of grids (mappings of the keys above)")
        subs = [_merged(top, _checked_keys(sub, "each of 'grids'", inner=True)) for sub in listed]
    points, seen = [], set()
    for sub in subs:
        for point in _crossed(sub, Path(folder)):
            if point.key not in seen:
                seen.add(point.key)
                points.append(point)
            if len(points) > MAX_POINTS:
                raise SweepError(f"the grid crosses into more than {MAX_POINTS:,} points; split it into several")
    if any(p.job == "train" for p in points):
        _check_train({p.train for p in points if p.job == "train"})
        from ..harness.train import check_seeds
        try:
            check_seeds({p.train_seed for p in points if p.job == "train" and p.train_seed is not None} or {0})
        except RscountError as exc:
            raise SweepError(f"sweep key 'train_seeds': {exc}") from None
    timeout = top.get("timeout", 60.0)
    if timeout is not None:
        from ..runtime.limits import check_seconds
        try:
            timeout = check_seconds(timeout, "sweep key 'timeout'")
        except (TypeError, RscountError) as exc:
            raise SweepError(str(exc)) from None
    memory = top.get("memory_mb")
    if memory is not None and (isinstance(memory, bool) or not isinstance(memory, int) or memory <= 0):
        raise SweepError(f"sweep key 'memory_mb' must be a positive number of MB, not {brief(memory, 30)}")
    return Grid(tuple(points), timeout, memory, str(top.get("name", default_name)))


def _checked_keys(data, what: str, inner: bool = False) -> Mapping:
    if not isinstance(data, Mapping):
        raise SweepError(f"{what} is a mapping of keys ({', '.join(GRID_KEYS)}), not {brief(data, 40)}")
    unknown = sorted(set(map(str, data)) - set(GRID_KEYS))
    if unknown:
        raise SweepError(f"unknown sweep key {unknown[0]!r}; known keys: {', '.join(GRID_KEYS)}")
    misplaced = sorted(set(map(str, data)) & set(TOP_ONLY)) if inner else []
    if misplaced:
        raise SweepError(f"sweep key {misplaced[0]!r} belongs to the whole file, not to one of 'grids'")
    if not inner and "grids" not in data and "tasks" not in data:
        raise SweepError("a sweep grid needs 'tasks': a list of task sources such as {task: xor3}")
    return data


def _merged(top: Mapping, sub: Mapping) -> dict:
    """A listed grid over the keys around it: its own keys win; training options merge name by name."""
    out = {k: v for k, v in top.items() if k not in TOP_ONLY}
    out.update(sub)
    if "train" in top and "train" in sub:
        out["train"] = [{**_options(top["train"])[0], **t} for t in _options(sub["train"])]
    if "tasks" not in out:
        raise SweepError("each of 'grids' needs 'tasks' (its own, or one around it)")
    return out


def _options(value) -> list:
    """The training option mappings of a ``train`` value (one mapping, or a list of them)."""
    values = value if isinstance(value, list) else [value]
    if not values:
        raise SweepError("sweep key 'train' is an empty list; give at least one mapping of training options")
    for v in values:
        if not isinstance(v, Mapping):
            raise SweepError(f"sweep key 'train' takes mappings of training options, not {brief(v, 40)}")
    if len(values) > 1 and not isinstance(value, list):
        raise SweepError("sweep key 'train' is one mapping or a list of them")
    return [dict(v) for v in values]


def _crossed(data: Mapping, folder: Path) -> list:
    """The points of one grid (no ``grids`` inside)."""
    sources = data["tasks"] if isinstance(data["tasks"], list) else [data["tasks"]]
    if not sources:
        raise SweepError("sweep key 'tasks' is an empty list; name at least one task source")
    tasks = [_load_source(s, folder) for s in sources]
    axes = {key: _axis(data, key) for key in CROSSED}
    for job in axes["job"]:
        if job not in JOBS:
            raise SweepError(f"sweep job {brief(job, 30)} does not exist; choose one of {', '.join(JOBS)}")
    for cls in axes["map_class"]:
        if cls not in MAP_CLASSES:
            raise SweepError(f"map class {brief(cls, 30)} does not exist; choose one of {', '.join(MAP_CLASSES)}")
    if axes["backend"] != [None]:
        from ..counters import COUNTERS
        bad = [b for b in axes["backend"] if b is not None and b not in COUNTERS]
        if bad:
            raise SweepError(f"backend {brief(bad[0], 30)} does not exist; choose one of {', '.join(COUNTERS)}")
    for name in ("seeds", "train_seeds"):
        for seed in axes[name]:
            if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 1 << 63):
                raise SweepError(f"seed {brief(seed, 30)} must be a whole number from 0 to 2^63 - 1")
    from ..model.support import parse_amount
    for name in ("subsample", "concept_sup"):
        for amount in axes[name]:
            if amount is not None:
                try:
                    parse_amount(amount, f"sweep key {name!r}:")
                except RscountError as exc:
                    raise SweepError(str(exc)) from None
    supervise = [_supervision(s) for s in axes["supervise"]]
    settings = _options({} if data.get("train") is None else data["train"])
    trains = [tuple(sorted((str(k), v) for k, v in t.items())) for t in settings]
    total = len(tasks) * math.prod(len(values) for key, values in axes.items() if key != "train") * len(trains)
    if total > MAX_POINTS:
        raise SweepError(f"the grid crosses into {total:,} points (limit {MAX_POINTS:,}); split it into several")
    return [Point(task, source, job, cls, sup, sub, seed, sv, csup, backend, train, tseed)
            for (task, source), job, cls, sup, sub, seed, sv, csup, backend, train, tseed in itertools.product(
                tasks, axes["job"], axes["map_class"], axes["support"], axes["subsample"], axes["seeds"], supervise,
                axes["concept_sup"], axes["backend"], trains, axes["train_seeds"])]


def _check_train(settings: set) -> None:
    """Every training setting builds a TrainConfig (a wrong option is refused now, not in each row)."""
    try:
        from ..harness import TrainConfig
    except ImportError as exc:
        raise SweepError(f"job train needs the train extra ({exc.name} is missing): pip install 'rscount[train]'") \
            from None
    known = [f.name for f in dataclasses.fields(TrainConfig)]
    for setting in settings:
        unknown = sorted(set(dict(setting)) - set(known))
        if unknown:
            raise SweepError(f"unknown training option {unknown[0]!r}; known options: {', '.join(known)}")
        try:
            TrainConfig(**dict(setting))
        except (TypeError, RscountError) as exc:
            raise SweepError(f"training options {brief(dict(setting), 60)}: {exc}") from None


_DEFAULTS = {"map_class": "complete", "support": None, "subsample": None, "seeds": 0, "supervise": (),
             "concept_sup": None, "backend": None, "job": "count", "train": {}, "train_seeds": None}


def _axis(data: Mapping, key: str) -> list:
    """The values a crossed key takes: its list, or its one scalar, or its default."""
    if key not in data:
        return [_DEFAULTS[key]]
    if key == "train":
        return [data[key]]  # crossed by _options
    value = data[key]
    if key == "supervise" and isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        value = [value]  # supervise: [d1, d2] is one setting with two items; [[], [d1]] crosses two settings
    values = value if isinstance(value, list) else [value]
    if not values:
        raise SweepError(f"sweep key {key!r} is an empty list; give at least one value or leave the key out")
    return values


def _supervision(value) -> tuple:
    if value is None or value == ():
        return ()
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)) or not all(isinstance(v, str) for v in items):
        raise SweepError(f"a supervise setting is a list of concept names or values, not {brief(value, 40)}")
    return tuple(items)


def _load_source(source, folder: Path) -> tuple:
    """(Task, the source as canonical JSON) for one task source; a source that does not load is refused."""
    from ..readers.dimacs import read_dimacs, task_from_cnf
    from ..readers.rsbench import load_config
    from ..readers.spec import load_spec, task_from_spec, task_from_text
    from ..tasks.named import tasks_named
    if isinstance(source, str):
        source = {"task": source}
    if not isinstance(source, Mapping):
        raise SweepError(f"a task source is a mapping such as {{task: xor3}}, not {brief(source, 40)}")
    unknown = sorted(set(map(str, source)) - set(SOURCE_KEYS))
    kinds = [k for k in ("task", "knowledge", "spec", "config", "cnf", "problog", "table") if k in source]
    if unknown or len(kinds) != 1:
        raise SweepError(f"task source {brief(dict(source), 60)} needs exactly one of task, knowledge, spec, "
                         f"config, cnf, problog, table" + (f" (unknown key {unknown[0]!r})" if unknown else ""))
    kind = kinds[0]
    keyed = dict(source)
    named = source[kind].get("file") if kind in ("problog", "table") and isinstance(source[kind], Mapping) else \
        source[kind] if kind in ("spec", "config", "cnf") else None
    if named is not None:  # keyed by content too: an edited file is a new point, not a done one
        try:
            keyed["sha1"] = hashlib.sha1((folder / str(named)).read_bytes()).hexdigest()[:16]
        except OSError:
            pass  # the loader below names the problem
    canonical = json.dumps(keyed, sort_keys=True, default=str)
    try:
        if kind == "task":
            params = source.get("param") or {}
            if not isinstance(params, Mapping):
                raise SweepError(f"'param' of task source {brief(dict(source), 60)} must be a mapping")
            found = tasks_named(str(source["task"]), {str(k): str(v) for k, v in params.items()}, folder)
            if len(found) != 1:
                raise SweepError(f"task {source['task']} holds {len(found)} tasks; a grid point counts one task "
                                 f"(list them as sources, or 'spec:' one of them)")
            task = found[0]
        elif kind == "knowledge":
            task = task_from_text(source["knowledge"], source.get("concepts"), groups=source.get("groups"))
        elif kind == "spec":
            task = task_from_spec(load_spec(folder / str(source["spec"])))
        elif kind == "config":
            task = load_config(folder / str(source["config"]))
        elif kind == "cnf":
            task = task_from_cnf(read_dimacs(folder / str(source["cnf"])), name=f"cnf:{source['cnf']}")
        else:
            from ..readers.entries import task_from_entry
            task = task_from_entry(kind, source[kind], folder)
    except (RscountError, TypeError) as exc:
        raise SweepError(f"task source {brief(dict(source), 60)} does not load: {exc}") from None
    if "name" in source:
        task = dataclasses.replace(task, name=str(source["name"]))
    return task, canonical
