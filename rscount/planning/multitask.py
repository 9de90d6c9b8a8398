"""Count several tasks over shared concepts: jointly, each alone, and as a sequence in the order given.

The joint count is that of one problem (:func:`rscount.problems.union.join`); each task alone is counted over its own
concepts and over every task's concepts (comparable with the joint count); the cumulative counts after tasks
1..t never increase, and ``forgets[t]`` counts the maps optimal for task t alone that break an earlier task:
where a model that forgets the earlier tasks may drift.
"""
from __future__ import annotations

import dataclasses
import time
from typing import Callable, Mapping, Optional, Sequence

import numpy as np

from ..errors import CountTimeout, SupportError, TaskError
from ..model.support import Support
from ..model.task import Task
from ..problems.problem import Problem
from ..problems.union import join, merged_groups, task_names, union_concepts
from ..results.count import CountResult, TaskCount, format_count
from ..runtime.limits import GRACE
from .execute import count_problem

__all__ = ["is_several", "per_task", "count_tasks"]


def is_several(task) -> bool:
    """Whether ``task`` names several tasks: a list of library names, Tasks, or lists/mappings of sympy
    expressions (a list of sympy expressions alone is one task with several labels)."""
    if not isinstance(task, (list, tuple)) or not task:
        return False
    return all(isinstance(t, (str, Task, list, tuple, Mapping)) for t in task)


def _is_vector(x) -> bool:
    if hasattr(x, "shape"):
        return len(x.shape) == 1
    return isinstance(x, (list, tuple)) and all(
        isinstance(v, (int, str, np.integer, np.str_)) and not isinstance(v, (bool, np.bool_)) for v in x)


def per_task(value, n: int, what: str, one_form=lambda v: not isinstance(v, (list, tuple))) -> list:
    """``value`` for each of ``n`` tasks: one value for all, or a list of one per task."""
    if one_form(value):
        return [value] * n
    if len(value) != n:
        raise SupportError(f"{what} lists {len(value)} values for {n} tasks; give one for all tasks or one per task")
    return list(value)


def support_per_task(support, n: int) -> list:
    """One support for each task: ``support`` for all, or a list of one per task (a list of vectors is one
    support for all)."""
    def one(v):
        return v is None or isinstance(v, (str, Support)) or hasattr(v, "shape") or (
            isinstance(v, (list, tuple)) and all(_is_vector(x) for x in v))
    return per_task(support, n, "support=", one)


JOB_MARGIN = 2 * GRACE  # seconds the counts after the joint one leave to the whole command's limit: a count that
# overruns its share by its backstop's grace is then stopped as itself, not as the whole command
RETRY_SECONDS = 5.0  # a count that missed its share is tried again where the others left this much each
UNTIMED_EXTRAS = 120.0  # seconds the counts besides the joint one share where no timeout is given: the joint
# count is the answer, and it waited hours on ConCon's tasks alone at 4 objects, which no counter finishes


def count_tasks(problems: Sequence[Problem], backend: str | None = None, *, exact: bool | None = None,
                approx: bool = False, epsilon: float = 0.8, delta: float = 0.2, seed: int = 1,
                timeout: float | None = None, memory_mb: int | None = None,
                progress: Optional[Callable[[str], None]] = None) -> CountResult:
    """The joint count of ``problems`` (one per task, one map class), with each task alone and the counts after
    each task in the order given. The joint count comes first; with a ``timeout``, the others share what is left
    of it, and one that does not finish in its share is None (said in a note), not a failure of the whole; without
    one they share UNTIMED_EXTRAS seconds after the joint count."""
    problems = list(problems)
    if not problems:
        raise TaskError("no tasks given; name at least one")
    began = time.perf_counter()
    finished: list = []  # what was counted, shown if the time runs out
    missed: list = []  # the counts besides the joint one that did not finish in their share

    limit = timeout  # the whole command's seconds; after the joint count, without a timeout, its extras' time

    def run(make: Callable[[], Problem], what: str, pending: int = 0) -> CountResult | None:
        """Count the problem ``make`` builds (after the time check: a join lists a union of supports); with
        ``pending`` counts still to come, this one gets its share of the time left, and None where it misses."""
        left = None if limit is None else limit - (time.perf_counter() - began)
        if left is not None and pending:  # its own time limit must fire before the whole command's
            left -= JOB_MARGIN
        if left is not None and left <= 0:
            if pending:
                missed.append(what)
                return None
            raise CountTimeout(f"counting {len(problems)} tasks ran out of time before {what}; raise timeout=",
                               finished)
        if progress is not None and len(problems) > 1:
            progress(f"several tasks: {what}")
        try:
            r = count_problem(make(), backend, exact=exact, approx=approx, epsilon=epsilon, delta=delta,
                              seed=seed, timeout=left if left is None or not pending else left / pending,
                              memory_mb=memory_mb, progress=progress)
        except CountTimeout as exc:
            if pending:
                missed.append(what)
                return None
            raise CountTimeout(f"{str(exc).split(';')[0]} while counting {what}; raise timeout=", finished) from None
        finished.append(f"{what}: {'' if r.exact else '~'}{format_count(r.count, short=True)}")
        return r

    if len(problems) == 1:
        return run(lambda: problems[0], "the task")
    every = union_concepts([p.task for p in problems])
    groups = merged_groups([p.task for p in problems])  # one grouping for every count of the sequence
    names = task_names([p.task for p in problems])
    joint = run(lambda: join(problems, every, groups), f"tasks 1..{len(problems)} together")
    if timeout is None:
        limit = time.perf_counter() - began + UNTIMED_EXTRAS
    if progress is not None:
        progress(f"several tasks: together {'' if joint.exact else '~'}{format_count(joint.count, short=True)}; "
                 f"now each task alone and the sequence")
    n = len(problems)
    same = [{c.name for c in p.task.concepts} == {c.name for c in every} and (
        p.map_class != "shared" or {frozenset(g) for g in p.task.groups} == {frozenset(g) for g in groups})
        for p in problems]  # a task over every concept already: alone over them is its own count
    jobs = [(("upto", t), lambda t=t: join(problems[:t + 1], every, groups), f"tasks 1..{t + 1} together")
            for t in range(n - 1) if t or not same[0]]
    jobs += [(("own", t), lambda p=p: p, f"task {names[t]} alone") for t, p in enumerate(problems)]
    jobs += [(("alone", t), lambda p=p: join([p], every, groups), f"task {names[t]} over every concept")
             for t, p in enumerate(problems) if t and not same[t]]
    got = {key: run(make, what, len(jobs) - i) for i, (key, make, what) in enumerate(jobs)}
    retry = [(key, make, what) for key, make, what in jobs if got[key] is None]
    for i, (key, make, what) in enumerate(retry):  # what the others left over, to the ones that missed their share
        if limit - (time.perf_counter() - began) - JOB_MARGIN < RETRY_SECONDS * (len(retry) - i):
            break
        missed.remove(what)
        got[key] = run(make, what, len(retry) - i)
    got.setdefault(("upto", 0), got[("own", 0)])
    cumulative = [got[("upto", t)] for t in range(n - 1)] + [joint]
    own = [got[("own", t)] for t in range(n)]
    alone = [cumulative[0] if t == 0 else got.get(("alone", t), own[t]) for t in range(n)]
    counted = [r for r in cumulative + own + alone if r is not None]
    exact_all = all(r.exact for r in counted) and not missed
    tasks = tuple(TaskCount(name, None if o is None else o.count, None if a is None else a.count,
                            o is not None and a is not None and o.exact and a.exact)
                  for name, o, a in zip(names, own, alone))
    forgets = tuple(a.count - c.count if exact_all else None for a, c in zip(alone, cumulative))
    note = (f"{len(problems)} tasks: a map counts when it is optimal for every task (each row keeps its own "
            f"task's labels)")
    if missed:
        note += (f"; not counted in their share of the time left after the joint count: {', '.join(missed)} "
                 + ("(raise timeout= for them)" if timeout is not None else
                    f"(without timeout= they share {UNTIMED_EXTRAS:g} s; give one for more)"))
    return dataclasses.replace(joint, seconds=time.perf_counter() - began, per_task=tasks,
                               cumulative=tuple(None if r is None else r.count for r in cumulative), forgets=forgets,
                               cumulative_exact=tuple(r is not None and r.exact for r in cumulative),
                               notes=(note,) + joint.notes)
