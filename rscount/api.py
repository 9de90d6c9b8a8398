"""The library's front door: build a problem and count its optimal concept maps.

>>> count("xor3").count
24
"""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Callable, Mapping, Optional, Sequence

import numpy as np

from .errors import EncodingError, SupportError, TaskError, brief
from .model import support as supports
from .model.support import Support
from .model.task import Task
from .planning.dispatch import Plan, generic_counters, plan
from .planning.execute import count_problem
from .planning.multitask import count_tasks, is_several, per_task, support_per_task
from .problems.problem import Problem, for_class, make_supervision
from .readers.spec import parse_groups
from .results.count import CountResult
from .runtime.limits import check_confidence, check_megabytes, check_seconds, check_seed, time_limit
from .tasks.named import looks_like_file, tasks_from_spec, tasks_named

__all__ = ["count", "make_problem", "make_problems", "tasks_from_spec", "tasks_named", "expand_file", "count_problem", "plan", "Plan", "choose_backend", "choose_backends",
           "resolve_task"]


def resolve_task(task, params: dict | None = None, concepts=None) -> Task:
    """Return ``task`` itself, the library task of that name built with ``params``, or the task of sympy
    expressions (one, a list or a mapping label -> expression) over ``concepts``."""
    if isinstance(task, Task):
        return task
    if isinstance(task, Problem):
        raise TypeError("a Problem is counted with rscount.count_problem(problem); count() takes a task")
    if isinstance(task, Path):
        task = str(task)
    if isinstance(task, str):
        if concepts is not None:
            raise EncodingError("concepts= goes with sympy expressions; for knowledge text use "
                                "rscount.task_from_text(text, concepts)")
        found = tasks_named(task, params)
        if len(found) > 1:
            raise TaskError(f"{task} holds {len(found)} tasks; count them together with rscount.count({task!r}) "
                            f"or pick one with rscount.tasks_from_spec({task!r})[i]")
        return found[0]
    from .language.sympy_bridge import is_sympy
    from .readers.spec import task_from_sympy
    items = list(task.values()) if isinstance(task, Mapping) else task if isinstance(task, (list, tuple)) else [task]
    if not items or not all(is_sympy(e) for e in items):
        raise TypeError(f"a task is a library task name ('xor3'), a Task, or sympy expressions (one, a list or a "
                        f"mapping label -> expression), not {type(task).__name__} {brief(task, 40)}; knowledge text "
                        f"goes to rscount.task_from_text(text, concepts)")
    if params:
        raise EncodingError("params= goes with a library task name, not with sympy expressions")
    return task_from_sympy(task, concepts)


def expand_file(task, params: dict | None = None):
    """A path (or a shipped example's name) becomes its task, or the list of them where the file holds several,
    so that count() and audit() take the tasks together; anything else is returned as it is."""
    if isinstance(task, Path) or isinstance(task, str) and looks_like_file(task):
        try:
            found = tasks_named(str(task), params)
        except TaskError:
            return task  # resolve_task says what is wrong, in its place
        return found if len(found) > 1 else found[0]  # read once: resolve_task takes the Task as it is
    return task


def _identified(task: Task, item):
    """A supervision item naming a concept as its program writes it (``digit(a)=3``) named as the task does
    (``digit_a=3``); any other item as it is."""
    if not task.shown or not isinstance(item, str):
        return item
    back = {text: ident for ident, text in task.shown}
    name, eq, value = item.rpartition("=")
    if not eq:
        name = item
    ident = back.get(name.strip())
    return item if ident is None else ident + (f"={value}" if eq else "")


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
    seed = check_seed(seed)
    if params and isinstance(task, (Task, Problem)):
        raise TaskError(f"params= builds a library task by name; {task.name if isinstance(task, Task) else 'a Problem'} "
                        f"is built already (change the Task itself, or pass its name)")
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
    elif hasattr(support, "columns") and hasattr(support, "to_numpy"):
        base = supports.from_frame(task, support)
    else:
        raise TypeError(f"support= takes a Support, 'exhaustive', 'by-label:N', vectors as text ('1,1;0,1'), a "
                        f"pandas DataFrame (a column per concept) or a "
                        f"list of vectors, not {type(support).__name__}")
    if subsample is not None:
        base = supports.subsample(task, subsample, seed, base)
    if isinstance(supervise, str):
        supervise = (supervise,)  # one concept (or value), not its letters
    if not isinstance(supervise, (list, tuple)) or not all(isinstance(s, str) for s in supervise):
        raise TypeError(f"supervise= takes a concept name ('d1'), a value ('d1=4') or a list of them, not "
                        f"{brief(supervise, 40)}")
    supervise = [_identified(task, item) for item in supervise]
    supervision = make_supervision(task, base, concept_sup, supervise, seed)
    return Problem(task, base, map_class, supervision, inference)


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
    grouped = _groups_per_task(groups, resolved)
    out = []
    for t, task in enumerate(resolved):
        mine = wanted[t] if not names else [s for s in names if str(s).partition("=")[0].strip() in task._index]
        out.append(make_problem(task, map_class=map_class, support=supports[t], subsample=subsamples[t],
                                seed=seed, support_file=files[t], concept_sup=sups[t], supervise=mine,
                                groups=grouped[t], inference=inference))
    return out


def _groups_per_task(groups, tasks: list) -> list:
    """``groups`` over several tasks: each task gets the part of every group it has (the union merges them back
    where they overlap); a concept no task has, or a group whose parts no task joins, is refused."""
    if groups is None or len(tasks) == 1:
        return [groups] * len(tasks)
    from .problems.union import task_names
    parsed = parse_groups(groups)
    out: list = [[] for _ in tasks]
    for group in parsed:
        missing = [n for n in group if not any(n in t._index for t in tasks)]
        if missing:
            raise TaskError(f"groups= names concept {missing[0]!r}, which none of the tasks "
                            f"({', '.join(task_names(tasks))}) has")
        pieces = [set(n for n in group if n in t._index) for t in tasks]
        joined = next((p for p in pieces if p), set())
        grew = True
        while grew:
            grew = False
            for p in pieces:
                if p & joined and not p <= joined:
                    joined |= p
                    grew = True
        if joined != set(group):
            raise TaskError(f"group {list(group)} spans tasks of which none reads two of its concepts together, "
                            f"so the tasks cannot share it; declare the group in one task's spec")
        for t, p in enumerate(pieces):
            if p:
                out[t].append([n for n in group if n in p])
    return [g or () for g in out]


def choose_backends(problem: Problem, exact: bool | None = None, approx: bool = False) -> tuple:
    """The generic counters :func:`count_problem` falls back on, in order (see :func:`dispatch.generic_counters`)."""
    return generic_counters(problem, exact, approx)


def choose_backend(problem: Problem, exact: bool | None = None, approx: bool = False) -> str:
    """The first counter :func:`count_problem` runs: the plan's first step ("split" or "as" where it hands the
    problem on)."""
    return plan(problem, exact=exact, approx=approx).first_counter


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
    epsilon, delta = check_confidence(epsilon, delta)
    task = expand_file(task, params)
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
