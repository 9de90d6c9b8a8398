"""The library's front door: build a problem and count its optimal concept maps.

>>> count("xor3").count
24
"""
from __future__ import annotations

import dataclasses
import functools
import itertools
import math
import threading
import time
from pathlib import Path
from typing import Callable, Mapping, Optional, Sequence

import numpy as np

from . import support as supports
from .counters import COUNTERS, Options, get_counter
from .counters.base import Cancelled, Deadline, race
from .counters.generic.enumerate import models
from .dispatch import HEAD_START, Plan, check_mode, generic_counters, generic_step, plan
from .encoding import encode
from .errors import BackendError, CountTimeout, EncodingError, SupportError, TaskError, brief
from .multitask import count_tasks, is_several, per_task, support_per_task
from .limits import check_megabytes, check_seconds, time_limit
from .problem import Problem, for_class, make_supervision
from .result import CountResult, Tally, format_count
from .spec import parse_groups
from .support import Support
from .task import Task
from .tasks import get_task

__all__ = ["count", "make_problem", "make_problems", "tasks_from_spec", "count_problem", "plan", "Plan", "choose_backend", "choose_backends",
           "resolve_task"]


def resolve_task(task, params: dict | None = None, concepts=None) -> Task:
    """Return ``task`` itself, the library task of that name built with ``params``, or the task of sympy
    expressions (one, a list or a mapping label -> expression) over ``concepts``."""
    if isinstance(task, Task):
        return task
    if isinstance(task, Problem):
        raise TypeError("a Problem is counted with rscount.count_problem(problem); count() takes a task")
    if isinstance(task, str):
        if concepts is not None:
            raise EncodingError("concepts= goes with sympy expressions; for knowledge text use "
                                "rscount.task_from_text(text, concepts)")
        return get_task(task, **(params or {}))
    from .spec import task_from_sympy
    from .sympy_bridge import is_sympy
    items = list(task.values()) if isinstance(task, Mapping) else task if isinstance(task, (list, tuple)) else [task]
    if not items or not all(is_sympy(e) for e in items):
        raise TypeError(f"a task is a library task name ('xor3'), a Task, or sympy expressions (one, a list or a "
                        f"mapping label -> expression), not {type(task).__name__} {brief(task, 40)}; knowledge text "
                        f"goes to rscount.task_from_text(text, concepts)")
    if params:
        raise EncodingError("params= goes with a library task name, not with sympy expressions")
    return task_from_sympy(task, concepts)


def make_problem(task: str | Task, *, map_class: str = "complete", support: Support | str | Sequence | None = None,
                 subsample=None, seed: int = 0, support_file: str | Path | None = None,
                 concept_sup=None, supervise: Sequence[str] = (), params: dict | None = None,
                 groups=None, concepts=None, inference: str = "knowledge") -> Problem:
    """Assemble a :class:`Problem` from a task and the support and supervision options.

    ``support`` is a Support, ``"exhaustive"``, ``"by-label:N"`` (N vectors drawn
    label first, as rsbench's generators do), explicit text ``"1,1;0,1"`` or a
    list of vectors; ``None`` means the task's default support. ``subsample``
    (a fraction or a count) then samples that support with ``seed``. ``groups`` (``"d1,d2;s1,s2"`` or a list
    of lists) replaces the task's concept groups; class ``shared`` on a task without groups gives every concept
    of one domain one classifier, as rsbench's shared extractor does, and says so in the result's warnings.
    ``inference`` is ``"knowledge"`` (the model reasons with K) or ``"learned"`` (it learns its label head).
    """
    task = resolve_task(task, params, concepts)
    if groups is not None:
        task = dataclasses.replace(task, groups=parse_groups(groups))
    task = for_class(task, map_class)
    if support_file is not None and support is not None:
        raise EncodingError("give either an explicit support or a support file, not both")
    if support_file is not None:
        base = supports.from_file(task, support_file)
    elif isinstance(support, Support):
        base = support
    elif support is None:
        base = None if subsample is not None and task.default_support is None else supports.default(task)
    elif isinstance(support, str) and support.strip() == "exhaustive":
        base = None if subsample is not None else supports.exhaustive(task)
    elif isinstance(support, str) and support.strip().startswith("by-label:"):
        size = support.strip().split(":", 1)[1]
        if not (size.isascii() and size.isdigit()) or len(size) > 12:
            raise SupportError(f"support {support!r}: write by-label:N with N a number of vectors")
        base = supports.by_label(task, int(size), seed)
    elif isinstance(support, str):
        base = supports.explicit(task, support)
    elif isinstance(support, (list, tuple, np.ndarray)):
        base = supports.from_rows(task, support.tolist() if isinstance(support, np.ndarray) else list(support))
    else:
        raise TypeError(f"support= takes a Support, 'exhaustive', 'by-label:N', vectors as text ('1,1;0,1') or a "
                        f"list of vectors, not {type(support).__name__}")
    if subsample is not None:
        base = supports.subsample(task, subsample, seed, base)
    if isinstance(supervise, str):
        supervise = (supervise,)  # one concept (or value), not its letters
    if not isinstance(supervise, (list, tuple)) or not all(isinstance(s, str) for s in supervise):
        raise TypeError(f"supervise= takes a concept name ('d1'), a value ('d1=4') or a list of them, not "
                        f"{brief(supervise, 40)}")
    supervision = make_supervision(task, base, concept_sup, supervise, seed)
    return Problem(task, base, map_class, supervision, inference)


def tasks_from_spec(spec: Mapping | str | Path) -> list:
    """The tasks of a spec (data or a file): its ``tasks:`` (task specs or library names), else the one task."""
    from .spec import load_spec, spec_tasks, task_from_spec
    data = spec if isinstance(spec, Mapping) else load_spec(spec)
    items = spec_tasks(data)
    if items is None:
        return [task_from_spec(data)]
    out = []
    for item in items:
        if isinstance(item, str):
            out.append(get_task(item))
        elif "task" in item:  # a library task with its parameters
            extra = sorted(set(item) - {"task", "params"})
            if extra or not isinstance(item.get("params", {}), Mapping):
                raise TaskError(f"a library task item holds 'task' and a mapping 'params', not "
                                f"{extra[0] if extra else 'params ' + repr(item.get('params'))!r}")
            out.append(get_task(str(item["task"]), **dict(item.get("params") or {})))
        else:
            out.append(task_from_spec(item))
    return out


def make_problems(tasks: Sequence, *, map_class: str = "complete", support=None, subsample=None, seed: int = 0,
                  support_file=None, concept_sup=None, supervise=(), params=None, groups=None, concepts=None,
                  inference: str = "knowledge") -> list:
    """One :class:`Problem` per task of several over shared concepts (see :func:`make_problem`): each option is
    one value for every task or a list of one per task (a concept named in ``supervise`` is supervised in the
    tasks that have it)."""
    if not isinstance(tasks, (list, tuple)) or not tasks:
        raise TaskError("no tasks given; name at least one")
    n = len(tasks)
    supports = support_per_task(support, n)
    files = per_task(support_file, n, "support_file=")
    subsamples = per_task(subsample, n, "subsample=")
    sups = per_task(concept_sup, n, "concept_sup=")
    params_of = per_task(params, n, "params=", lambda v: not isinstance(v, (list, tuple)))
    if isinstance(supervise, str) or (isinstance(supervise, (list, tuple)) and
                                      all(isinstance(s, str) for s in supervise)):
        wanted = [supervise] * n
        names = [supervise] if isinstance(supervise, str) else list(supervise)
    else:
        wanted, names = per_task(supervise, n, "supervise="), []
    resolved = [resolve_task(t, p, concepts) for t, p in zip(tasks, params_of)]
    for item in names:  # supervision for all tasks: each task that has the concept
        concept = str(item).partition("=")[0].strip()
        if not any(concept in t._index for t in resolved):
            raise TaskError(f"supervise={item}: no task has a concept {concept!r}")
    out = []
    for t, task in enumerate(resolved):
        mine = wanted[t] if not names else [s for s in names if str(s).partition("=")[0].strip() in task._index]
        out.append(make_problem(task, map_class=map_class, support=supports[t], subsample=subsamples[t],
                                seed=seed, support_file=files[t], concept_sup=sups[t], supervise=mine,
                                groups=groups, inference=inference))
    return out


def choose_backends(problem: Problem, exact: bool | None = None, approx: bool = False) -> tuple:
    """The generic counters :func:`count_problem` falls back on, in order (see :func:`dispatch.generic_counters`)."""
    return generic_counters(problem, exact, approx)


def choose_backend(problem: Problem, exact: bool | None = None, approx: bool = False) -> str:
    """The first counter :func:`count_problem` runs: the plan's first step ("split" or "as" where it hands the
    problem on)."""
    return plan(problem, exact=exact, approx=approx).first_counter


def count_problem(problem: Problem, backend: str | None = None, *, exact: bool | None = None,
                  approx: bool = False, epsilon: float = 0.8, delta: float = 0.2, seed: int = 1,
                  timeout: float | None = None, memory_mb: int | None = None,
                  progress: Optional[Callable[[str], None]] = None) -> CountResult:
    """Count the optimal maps of ``problem`` by executing its :class:`~rscount.dispatch.Plan` (``backend``: the
    one counter to use, else each step is chosen)."""
    if not isinstance(problem, Problem):
        raise TypeError(f"count_problem() takes a Problem (rscount.make_problem(...)), not {type(problem).__name__}")
    timeout, memory_mb = check_seconds(timeout), check_megabytes(memory_mb)
    result = _execute(problem, backend, exact=exact, approx=approx, epsilon=epsilon, delta=delta, seed=seed,
                      timeout=timeout, memory_mb=memory_mb, progress=progress)
    from .counters.generic.bruteforce import number_of_candidates
    return dataclasses.replace(result, notes=problem.task.notes + result.notes,
                               _class_size=functools.partial(number_of_candidates, problem))


def _execute(problem: Problem, backend: str | None = None, *, exact: bool | None = None, approx: bool = False,
             epsilon: float = 0.8, delta: float = 0.2, seed: int = 1, timeout: float | None = None,
             memory_mb: int | None = None, progress: Optional[Callable[[str], None]] = None) -> CountResult:
    check_mode(exact, approx)
    if backend is not None and approx and COUNTERS.get(backend, COUNTERS["ganak"]).exact:
        raise EncodingError(f"approx=True uses approxmc or estimate; it cannot be combined with backend={backend}")
    if backend is not None and exact and not COUNTERS.get(backend, COUNTERS["ganak"]).exact:
        raise EncodingError(f"exact=True asks for an exact count but backend={backend} approximates")
    steps = plan(problem, backend, exact=exact, approx=approx, decide_generic=False)
    began = time.perf_counter()
    notes: list = []
    gave_up: list = []
    timed_out: list = []  # what the try steps said when their share of the time ran out
    for n, step in enumerate(steps.steps):
        if step.kind == "as":
            same = _execute(step.problems[0], exact=exact, approx=approx, epsilon=epsilon, delta=delta,
                                 seed=seed, timeout=timeout, memory_mb=memory_mb, progress=progress)
            if step.factor != 1:  # the other problem lacks free concepts: scale, and list maps of this one
                same = dataclasses.replace(
                    same, **_described(problem), count=same.count * step.factor,
                    lower=None if same.lower is None else same.lower * step.factor,
                    upper=None if same.upper is None else same.upper * step.factor,
                    _enumerate=_enumerator(problem, None, same.count * step.factor if same.exact else None))
            return dataclasses.replace(same, map_class=problem.map_class, notes=same.notes + (step.reason,),
                                       plan=steps, answered=n)
        if step.kind == "parts":
            result = _count_parts(problem, list(step.problems), timeout=timeout, memory_mb=memory_mb,
                                  progress=progress, approx=(epsilon, delta, seed) if approx else None,
                                  backend=backend)
            return dataclasses.replace(result, plan=steps, answered=n)
        if step.kind == "try":
            name, tried = step.counters[0], time.perf_counter()
            share = None if timeout is None else timeout / 2
            try:
                if step.problems:  # automorphism over the shared parts
                    result = _count_shared_parts(problem, list(step.problems), timeout=share)
                else:
                    light = name in ("weight", "valuemaps")  # in this process: no memory limit, no status
                    result = _execute(problem, name, approx=name == "estimate", epsilon=epsilon, delta=delta,
                                           seed=seed, timeout=share, memory_mb=None if light else memory_mb,
                                           progress=None if light else progress)
                return dataclasses.replace(result, notes=tuple(notes) + result.notes, plan=steps, answered=n)
            except BackendError as exc:  # too little structure or out of its share of time: the next step
                what = "automorphism on the shared parts" if step.problems else name
                notes.append(f"{what} gave up ({exc}); counted generically")
                gave_up.append(what)
                if isinstance(exc, CountTimeout):
                    timed_out.append(str(exc).partition("; ")[0])
                if timeout is not None:
                    timeout -= time.perf_counter() - tried
            continue
        if step.kind == "generic":
            step = generic_step(problem, exact=exact, approx=approx)
            steps = dataclasses.replace(steps, steps=steps.steps[:n] + (step,))
        try:
            result = _count_generic(problem, step.counters, backend is None, timeout=timeout, memory_mb=memory_mb,
                                    epsilon=epsilon, delta=delta, seed=seed, progress=progress, gave_up=gave_up)
        except BackendError as exc:
            if not timed_out or isinstance(exc, CountTimeout):
                raise
            raise CountTimeout(f"{'; '.join(timed_out)} (half of the time limit), and the generic counters cannot "
                               f"take this problem ({exc}); raise timeout=") from None
        return dataclasses.replace(result, seconds=time.perf_counter() - began,
                                   notes=tuple(notes) + result.notes, plan=steps, answered=n)
    raise BackendError(f"no step of the plan counted {problem.describe()}")


def _count_generic(problem: Problem, names: tuple, chosen: bool, *, timeout, memory_mb, epsilon, delta, seed,
                   progress, gave_up: list) -> CountResult:
    """Run one generic counter, or race two (keeping the first answer); ``chosen``: not named by the user."""
    counters = [get_counter(name) for name in names]
    start = time.perf_counter()
    lock, built = threading.Lock(), {}

    def encoding_for(counter, cancel):
        if not _wants_cnf(counter, problem):
            return None
        with lock:
            if "cnf" not in built:
                built["cnf"] = encode(problem, _encoding_progress(progress, problem.support.length),
                                      deadline=Deadline(timeout, f"encoding {problem.support.length} support vectors",
                                                        "raise timeout= or count a smaller support "
                                                        "(subsample=N)", cancel))
            return built["cnf"]

    def attempt(counter):
        def go(cancel=None) -> Tally:
            enc = encoding_for(counter, cancel)
            left = None if timeout is None else max(timeout - (time.perf_counter() - start), 0.001)
            return counter.count(problem, enc, Options(timeout=left, memory_mb=memory_mb, epsilon=epsilon,
                                                       delta=delta, seed=seed, progress=progress, cancel=cancel))
        return go

    notes: list = []
    quick = getattr(counters[0], "quick", None) if chosen and len(names) > 1 else None
    tally = quick(problem) if quick is not None else None
    try:
        if tally is not None:
            name = names[0]
        elif len(names) == 1:
            name, tally = names[0], attempt(counters[0])()
        else:
            name, tally, lost = race([(n, attempt(c)) for n, c in zip(names, counters)],
                                     head_start=HEAD_START if names[-1] == "ganak" else 0.0)
            others = [n for n in names if n != name]
            failed = {n: e for n, e in lost.items() if not isinstance(e, Cancelled)}
            notes.append(f"{' and '.join(names)} ran side by side; {name} finished first"
                         + "".join(f"; {n} gave up ({e})" for n, e in failed.items())
                         + ("" if failed else f" and {' and '.join(others)} "
                                              f"{'was' if len(others) == 1 else 'were'} stopped"))
    except CountTimeout as exc:
        if not gave_up:
            raise
        what, _, advice = str(exc).partition("; ")  # say where the rest of --timeout went
        raise CountTimeout(f"{' and '.join(gave_up)} gave up, then {what} (the rest of the time limit); "
                           f"{advice}") from None
    encoding = built.get("cnf")
    if tally.count < 1:
        raise BackendError(f"{name} returned {tally.count}, but the identity map is always optimal; "
                           f"please report this with the task and options")
    return CountResult(
        **_described(problem),
        count=tally.count, exact=tally.exact, backend=name, seconds=time.perf_counter() - start,
        lower=tally.lower, upper=tally.upper, epsilon=tally.epsilon, delta=tally.delta,
        encoding=encoding.size if encoding is not None and _wants_cnf(get_counter(name), problem) else tally.encoding,
        notes=tuple(notes) + tally.notes, warnings=problem.task.warnings,
        _enumerate=_enumerator(problem, encoding, tally.count if tally.exact else None),
        _renamed=_renamer(problem, tally.count) if problem.inference == "learned" and tally.exact else None)


def _renamer(problem: Problem, count: int):
    def renamed(timeout=None) -> int:
        from .heads import up_to_renaming
        return up_to_renaming(problem, count, timeout)
    return renamed


def _described(problem: Problem) -> dict:
    """The fields of a CountResult that say what was counted."""
    return dict(task=problem.task.name, map_class=problem.map_class, support=problem.support.kind,
                support_size=problem.support.length, supervision=problem.supervision.describe(problem.task),
                inference=problem.inference)


def _count_parts(problem: Problem, parts: list, *, timeout, memory_mb, progress, approx=None,
                 backend: str | None = None) -> CountResult:
    """Count independent sub-problems one by one and multiply (see :mod:`rscount.split`).

    With ``approx`` = (epsilon, delta, seed) each part is estimated; a part
    gets an equal share of what the parts before it left of the accuracy
    (factors 1 + epsilon multiply, deltas add), so exact parts cost nothing.
    ``backend`` counts every part (None: each part's own choice).
    """
    start = time.perf_counter()
    results = []
    factor, risk = 1 + approx[0] if approx else 1, approx[1] if approx else 0
    for n, part in enumerate(parts):
        left = None if timeout is None else max(timeout - (time.perf_counter() - start), 0.001)
        if approx is None:
            results.append(count_problem(part, backend, timeout=left, memory_mb=memory_mb, progress=progress))
            continue
        share = factor ** (1 / (len(parts) - n))
        r = count_problem(part, backend, approx=True, epsilon=share - 1, delta=risk / (len(parts) - n),
                          seed=approx[2], timeout=left, memory_mb=memory_mb, progress=progress)
        if not r.exact:
            factor, risk = factor / share, risk - r.delta
        results.append(r)
    total = 1
    for r in results:
        total *= r.count
    exact = all(r.exact for r in results)
    bounds = {}
    if not exact:
        lower = math.prod(r.count if r.exact else r.lower for r in results)
        upper = math.prod(r.count if r.exact else r.upper for r in results)
        bounds = dict(lower=lower, upper=upper, delta=approx[1] - risk,
                      epsilon=max(approx[0], upper / total - 1, total / lower - 1))
    names = " | ".join(f"{r.task}: {format_count(r.count)} ({r.backend})" for r in results)
    why = ("the support is exhaustive" if problem.support.exhaustive
           else "on this support no optimal map lets a part read another part's concepts"
           if problem.map_class in ("complete", "permutation")
           else f"each {problem.map_class} map reads each part's concepts alone")
    note = (f"split: the labels read {len(parts)} disjoint sets of concepts and {why}, so "
            f"the count is the product of the parts' counts ({names})")
    backends = "+".join(dict.fromkeys(r.backend for r in results))
    return CountResult(
        **_described(problem),
        count=total, exact=exact, **bounds, backend=f"split({backends})", seconds=time.perf_counter() - start,
        notes=(note,) + _part_notes(problem, results), warnings=problem.task.warnings,
        parts=tuple(results), _enumerate=_enumerator(problem, None))


def _part_notes(problem: Problem, results: list) -> tuple:
    """Each part's own notes once, named by the part (the task's notes come once, from the whole)."""
    return tuple(dict.fromkeys(f"{r.task}: {n}" for r in results for n in r.notes if n not in problem.task.notes))


def _count_shared_parts(problem: Problem, parts: list, *, timeout) -> CountResult:
    """Shared maps optimal on every label part at once (see
    :func:`rscount.counters.symmetry.automorphism.count_shared_parts`)."""
    from .counters.symmetry.automorphism import count_shared_parts
    start = time.perf_counter()
    total, boxes = count_shared_parts(problem, parts, Deadline(timeout, "automorphism"))
    note = (f"shared parts: the labels read {len(parts)} disjoint sets of concepts but the concept groups cross "
            f"them, so the count intersects each part's optimal shared maps ({boxes} boxes of maps)")
    return CountResult(
        **_described(problem),
        count=total, exact=True, backend="automorphism", seconds=time.perf_counter() - start,
        notes=(note,), warnings=problem.task.warnings, _enumerate=_enumerator(problem, None))


def count(task: str | Task, *, exact: bool | None = None, approx: bool = False, backend: str | None = None,
          map_class: str = "complete", support=None, subsample=None, seed: int = 0,
          support_file=None, concept_sup=None, supervise: Sequence[str] = (),
          epsilon: float = 0.8, delta: float = 0.2, timeout: float | None = None,
          memory_mb: int | None = None, params: dict | None = None, groups=None, concepts=None,
          progress: Optional[Callable[[str], None]] = None, inference: str = "knowledge") -> CountResult:
    """Return the number of optimal concept maps of ``task`` as a :class:`CountResult`.

    >>> r = count("and3")
    >>> r.count, r.rs_count, r.exact
    (6, 5, True)
    """
    timeout, memory_mb = check_seconds(timeout), check_megabytes(memory_mb)
    if is_several(task):
        with time_limit(timeout, "counting"):
            problems = make_problems(task, map_class=map_class, support=support, subsample=subsample, seed=seed,
                                     support_file=support_file, concept_sup=concept_sup, supervise=supervise,
                                     params=params, groups=groups, concepts=concepts, inference=inference)
            return count_tasks(problems, backend, exact=exact, approx=approx, epsilon=epsilon, delta=delta,
                               timeout=timeout, memory_mb=memory_mb, progress=progress)
    with time_limit(timeout, "counting"):  # building the task and support counts against the limit too
        problem = make_problem(task, map_class=map_class, support=support, subsample=subsample, seed=seed,
                               support_file=support_file, concept_sup=concept_sup, supervise=supervise,
                               params=params, groups=groups, concepts=concepts, inference=inference)
        return count_problem(problem, backend, exact=exact, approx=approx, epsilon=epsilon, delta=delta,
                             timeout=timeout, memory_mb=memory_mb, progress=progress)


def _wants_cnf(counter, problem: Problem) -> bool:
    """Whether ``counter`` needs the CNF encoding for this problem (some have other paths)."""
    wants = getattr(counter, "wants_cnf", None)
    return wants(problem) if wants is not None else counter.needs_cnf


def _enumerator(problem: Problem, encoding, count: int | None = None):
    def maps(limit, timeout=None):
        if problem.map_class == "joint":
            return COUNTERS["closed-form"].enumerate(problem, None, limit)
        if encoding is None and problem.inference == "knowledge" and COUNTERS["automorphism"].applies(problem):
            return COUNTERS["automorphism"].enumerate(problem, None, limit,
                                                      Deadline(timeout, "listing maps", "ask for fewer maps"))
        found = _optimal_everywhere(problem, limit)
        if len(found) == limit or len(found) == count:
            return iter(found)
        deadline = Deadline(timeout, "listing maps", "raise timeout= or ask for fewer maps")
        enc = encoding if encoding is not None else encode(problem, deadline=deadline)
        more = (m for m in map(enc.decode, models(enc, None, deadline, interruptible=True)) if m not in found)
        return itertools.chain(found, itertools.islice(more, None if limit is None else limit - len(found)))
    return maps


def _optimal_everywhere(problem: Problem, limit) -> list:
    """Up to ``limit`` maps optimal on every concept vector, hence on any sample (none under supervision).

    SAT enumeration over a sample can take long to find even one map of a
    large complete problem (Kand-Logic by-label:1000); these come from the
    knowledge's symmetries at once, and often are all the maps there are.
    """
    if problem.support.exhaustive or problem.supervision or limit == 0 or problem.inference != "knowledge":
        return []
    every = supports.exhaustive(problem.task)  # read off the knowledge: its vectors are never listed
    full = Problem(problem.task, every, problem.map_class)
    if not COUNTERS["automorphism"].applies(full):
        return []
    return list(itertools.islice(COUNTERS["automorphism"].enumerate(full, None, limit), limit))


def _encoding_progress(progress, n: int):
    if progress is None or n < 2000:
        return None
    step = max(1, n // 10)

    def report(done: int, total: int) -> None:
        if done % step == 0:
            progress(f"encoding: {done}/{total} support vectors")
    return report
