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
    train: {model: dpl, epochs: 5}

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
from ..problem import MAP_CLASSES
from ..task import Task
from ..textfiles import load_data, read_text
from ..version import __version__

__all__ = ["Point", "Grid", "load_grid", "grid_from_mapping", "GRID_KEYS", "JOBS", "SweepError"]

JOBS = ("count", "audit", "train")
CROSSED = ("map_class", "support", "subsample", "seeds", "supervise", "concept_sup", "backend", "job")
OPTIONS = ("timeout", "memory_mb", "train", "name")
GRID_KEYS = ("tasks",) + CROSSED + OPTIONS
SOURCE_KEYS = ("task", "param", "knowledge", "concepts", "groups", "spec", "config", "cnf", "name")
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

    @property
    def params(self) -> dict:
        """The point's parameters as plain values (a row's first columns)."""
        return {"task": self.task.name, "source": self.source, "job": self.job, "map_class": self.map_class,
                "support": self.support, "subsample": self.subsample, "seed": self.seed,
                "supervise": ";".join(self.supervise), "concept_sup": self.concept_sup, "backend": self.backend}

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
    train: Mapping = field(default_factory=dict)
    name: str = "sweep"


def load_grid(path: str | Path) -> Grid:
    """Read a sweep grid file; task files it names are read relative to the grid's folder."""
    path = Path(path)
    data = load_data(read_text(path, "sweep grid", SweepError), f"sweep grid {str(path)!r}", SweepError,
                     "json" if path.suffix == ".json" else "yaml")
    return grid_from_mapping(data, path.parent, default_name=path.stem)


def grid_from_mapping(data, folder: str | Path = ".", default_name: str = "sweep") -> Grid:
    """Check a grid given as data and cross its lists into points (every task source loaded now)."""
    if not isinstance(data, Mapping):
        raise SweepError(f"a sweep grid is a mapping of keys ({', '.join(GRID_KEYS)}), not {brief(data, 40)}")
    unknown = sorted(set(map(str, data)) - set(GRID_KEYS))
    if unknown:
        raise SweepError(f"unknown sweep key {unknown[0]!r}; known keys: {', '.join(GRID_KEYS)}")
    if "tasks" not in data:
        raise SweepError("a sweep grid needs 'tasks': a list of task sources such as {task: xor3}")
    sources = data["tasks"] if isinstance(data["tasks"], list) else [data["tasks"]]
    if not sources:
        raise SweepError("sweep key 'tasks' is an empty list; name at least one task source")
    tasks = [_load_source(s, Path(folder)) for s in sources]
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
    for seed in axes["seeds"]:
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 1 << 63:
            raise SweepError(f"seed {brief(seed, 30)} must be a whole number from 0 to 2^63 - 1")
    supervise = [_supervision(s) for s in axes["supervise"]]
    total = len(tasks) * math.prod(len(values) for values in axes.values())
    if total > MAX_POINTS:
        raise SweepError(f"the grid crosses into {total:,} points (limit {MAX_POINTS:,}); split it into several")
    points = []
    for (task, source), job, cls, sup, sub, seed, sv, csup, backend in itertools.product(
            tasks, axes["job"], axes["map_class"], axes["support"], axes["subsample"], axes["seeds"], supervise,
            axes["concept_sup"], axes["backend"]):
        points.append(Point(task, source, job, cls, sup, sub, seed, sv, csup, backend))
    timeout = data.get("timeout", 60.0)
    if timeout is not None:
        from ..limits import check_seconds
        try:
            timeout = check_seconds(timeout, "sweep key 'timeout'")
        except (TypeError, RscountError) as exc:
            raise SweepError(str(exc)) from None
    train = data.get("train") or {}
    if not isinstance(train, Mapping):
        raise SweepError(f"sweep key 'train' must be a mapping of training options, not {brief(train, 40)}")
    memory = data.get("memory_mb")
    if memory is not None and (isinstance(memory, bool) or not isinstance(memory, int) or memory <= 0):
        raise SweepError(f"sweep key 'memory_mb' must be a positive number of MB, not {brief(memory, 30)}")
    return Grid(tuple(points), timeout, memory, dict(train), str(data.get("name", default_name)))


_DEFAULTS = {"map_class": "complete", "support": None, "subsample": None, "seeds": 0, "supervise": (),
             "concept_sup": None, "backend": None, "job": "count"}


def _axis(data: Mapping, key: str) -> list:
    """The values a crossed key takes: its list, or its one scalar, or its default."""
    if key not in data:
        return [_DEFAULTS[key]]
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
    from ..config import load_config
    from ..dimacs import read_dimacs, task_from_cnf
    from ..spec import load_spec, task_from_spec, task_from_text
    from ..tasks import get_task
    if isinstance(source, str):
        source = {"task": source}
    if not isinstance(source, Mapping):
        raise SweepError(f"a task source is a mapping such as {{task: xor3}}, not {brief(source, 40)}")
    unknown = sorted(set(map(str, source)) - set(SOURCE_KEYS))
    kinds = [k for k in ("task", "knowledge", "spec", "config", "cnf") if k in source]
    if unknown or len(kinds) != 1:
        raise SweepError(f"task source {brief(dict(source), 60)} needs exactly one of task, knowledge, spec, "
                         f"config, cnf" + (f" (unknown key {unknown[0]!r})" if unknown else ""))
    kind = kinds[0]
    canonical = json.dumps(dict(source), sort_keys=True, default=str)
    try:
        if kind == "task":
            params = source.get("param") or {}
            if not isinstance(params, Mapping):
                raise SweepError(f"'param' of task source {brief(dict(source), 60)} must be a mapping")
            task = get_task(str(source["task"]), **{str(k): str(v) for k, v in params.items()})
        elif kind == "knowledge":
            task = task_from_text(source["knowledge"], source.get("concepts"), groups=source.get("groups"))
        elif kind == "spec":
            task = task_from_spec(load_spec(folder / str(source["spec"])))
        elif kind == "config":
            task = load_config(folder / str(source["config"]))
        else:
            task = task_from_cnf(read_dimacs(folder / str(source["cnf"])), name=f"cnf:{source['cnf']}")
    except (RscountError, TypeError) as exc:
        raise SweepError(f"task source {brief(dict(source), 60)} does not load: {exc}") from None
    if "name" in source:
        task = dataclasses.replace(task, name=str(source["name"]))
    return task, canonical
