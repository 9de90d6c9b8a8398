"""Several tasks over shared concepts as one problem: the union task, and which rows show which labels.

A concept map is optimal for several tasks when it is optimal for each: every support row of task t keeps
task t's labels and task t's supervision. The union task holds every task's labels over the union of their
concepts (shared by name, with one domain); a :class:`~rscount.problems.problem.Part` names each task's labels, concepts
and rows, so the counters see one problem. A row of task t leaves the concepts t does not read unobserved:
under the local classes (disentangled, shared) nothing of t reads them, so one filler value stands for all;
under the others a predicted concept may read any ground-truth concept, so the row is read with every value of
them (the inputs of t may show anything there).
"""
from __future__ import annotations

import dataclasses
import itertools
import weakref
from typing import Sequence

import numpy as np

from ..errors import EncodingError, SupportError, TaskError
from ..model.support import Support, exhaustive, row_ids
from ..model.task import Concept, Label, Task, domain_text
from .problem import IMPLICIT_GROUPS, Part, Problem, Supervision, domain_groups

__all__ = ["union_task", "merged_groups", "join", "as_single", "task_names", "MAX_LIFTED"]

MAX_LIFTED = 1 << 20  # rows a task's support may grow to when read with every value of concepts it lacks
LOCAL = ("disentangled", "shared")


def task_names(tasks: Sequence[Task]) -> list:
    """The tasks' names, made distinct (``xor3``, ``xor3#2``) so that labels and results can name them."""
    out: list = []
    for task in tasks:
        name, n = task.name, 2
        while name in out:
            name, n = f"{task.name}#{n}", n + 1
        out.append(name)
    return out


def union_concepts(tasks: Sequence[Task]) -> tuple:
    """Every task's concepts by name, in order of first appearance; a shared concept must keep one domain."""
    seen: dict = {}
    for task, name in zip(tasks, task_names(tasks)):
        for c in task.concepts:
            first = seen.setdefault(c.name, (c, name))
            if first[0].domain != c.domain:
                raise TaskError(f"concept {c.name!r} has domain {domain_text(first[0].domain)} in task {first[1]} "
                                f"but {domain_text(c.domain)} in task {name}; shared concepts need one domain "
                                f"(rename one of them if they are different concepts)")
    return tuple(c for c, _ in seen.values())


def merged_groups(tasks: Sequence[Task]) -> tuple:
    """The concept groups the tasks declare, those sharing a concept merged (one classifier reads them all).
    Where some task declares groups, the concepts no declared group holds keep one classifier per domain, as a
    task without groups reads them alone; where none does, () (the union makes its own, per domain)."""
    groups: list = []
    for g in (set(g) for task in tasks if IMPLICIT_GROUPS not in task.warnings for g in task.groups):
        overlapping = [h for h in groups if h & g]
        for h in overlapping:
            groups.remove(h)
            g |= h
        groups.append(g)
    concepts = union_concepts(tasks)
    if groups:
        held = set().union(*groups)
        by_domain: dict = {}
        for c in concepts:
            if c.name not in held:
                by_domain.setdefault(c.domain, set()).add(c.name)
        groups += by_domain.values()
    order = {c.name: n for n, c in enumerate(concepts)}
    return tuple(sorted((tuple(sorted(g, key=order.get)) for g in groups), key=lambda g: order[g[0]]))


def union_task(tasks: Sequence[Task], concepts: tuple | None = None, groups: tuple | None = None) -> Task:
    """One task with every task's labels (named ``task:label``) over ``concepts`` (default: the union) with
    ``groups`` (default: those the tasks declare, merged)."""
    if not tasks:
        raise TaskError("no tasks given; name at least one")
    concepts = union_concepts(tasks) if concepts is None else concepts
    names = task_names(tasks)
    labels = tuple(Label(f"{name}:{lab.name}", lab.expr, lab.text) for task, name in zip(tasks, names)
                   for lab in task.labels)
    warnings = tuple(dict.fromkeys(w for t in tasks for w in t.warnings if w != IMPLICIT_GROUPS))
    notes = tuple(dict.fromkeys(n for t in tasks for n in t.notes))
    return Task(" + ".join(names), tuple(concepts), labels, merged_groups(tasks) if groups is None else groups,
                description=f"{len(tasks)} tasks over shared concepts: {', '.join(names)}",
                warnings=warnings, notes=notes)


def join(problems: Sequence[Problem], concepts: Sequence[Concept] | None = None, groups: tuple | None = None) -> Problem:
    """One problem whose optimal maps are those optimal for every one of ``problems`` (each a task with its own
    support and supervision, one map class), over ``concepts`` (default: the union of theirs) with concept
    ``groups`` (default: those the tasks declare, merged; a sequence of counts passes those of all its tasks)."""
    problems = list(problems)
    if not problems:
        raise TaskError("no tasks given; name at least one")
    classes = {p.map_class for p in problems}
    if len(classes) > 1:
        raise EncodingError(f"the tasks are counted in one map class, not {', '.join(sorted(classes))}")
    if any(p.inference != "knowledge" for p in problems):
        raise EncodingError("several tasks are counted with the knowledge K (inference='knowledge'); learned "
                            "heads over several tasks are not counted yet")
    cls = problems[0].map_class
    tasks = [p.task for p in problems]
    everything = union_concepts(tasks) if concepts is None else tuple(concepts)
    union = union_task(tasks, everything, groups)
    if cls == "shared" and not union.groups:
        union = dataclasses.replace(union, groups=domain_groups(union), warnings=union.warnings + (IMPLICIT_GROUPS,))
    index = {c.name: i for i, c in enumerate(union.concepts)}
    rows, parts, label_at, start = [], [], 0, 0
    for p, name in zip(problems, task_names(tasks)):
        own = [index[c.name] for c in p.task.concepts]
        lifted, copies = _lift(p, own, union, cls, name)
        rows.append(lifted)
        n = len(lifted)
        sup_rows = frozenset(start + r * copies + c for r in p.supervision.vectors for c in range(copies))
        sup_concepts = tuple((own[i], u) for i, u in p.supervision.concepts)
        labels = tuple(range(label_at, label_at + len(p.task.labels)))
        parts.append(Part(name, labels, tuple(own), range(start, start + n), Supervision(sup_rows, sup_concepts)))
        label_at, start = label_at + len(p.task.labels), start + n
    vectors = np.concatenate(rows)
    kinds = "; ".join(f"{p.task.name}: {p.support.kind}" for p in problems)
    support = Support(vectors, f"{len(problems)} tasks ({kinds})")
    every = Supervision(frozenset().union(*(part.supervision.vectors for part in parts)),
                        tuple(sorted({item for part in parts for item in part.supervision.concepts},
                                     key=lambda p: (p[0], -1 if p[1] is None else p[1]))))
    return Problem(union, support, cls, every, "knowledge", tuple(parts))


def _lift(problem: Problem, own: list, union: Task, cls: str, name: str) -> tuple:
    """A task's support rows over the union's concepts, and how many union rows each of its rows became."""
    own_rows = problem.support.vectors
    missing = [i for i in range(union.k) if i not in own]
    if not missing or cls in LOCAL:
        out = np.zeros((len(own_rows), union.k), dtype=np.int64)
        out[:, own] = own_rows
        return out, 1
    copies = int(np.prod([union.sizes[i] for i in missing], dtype=object))
    if copies * len(own_rows) > MAX_LIFTED:
        raise SupportError(f"task {name} does not read {', '.join(union.concepts[i].name for i in missing)}; under "
                           f"class {cls} its {len(own_rows)} rows are read with every value of them "
                           f"({copies * len(own_rows):,} rows, limit {MAX_LIFTED:,}); count class disentangled or "
                           f"shared, or give the tasks the same concepts")
    fill = np.array(list(itertools.product(*[range(union.sizes[i]) for i in missing])), dtype=np.int64)
    out = np.zeros((len(own_rows) * copies, union.k), dtype=np.int64)
    out[:, own] = np.repeat(own_rows, copies, axis=0)
    out[:, missing] = np.tile(fill, (len(own_rows), 1))
    return out, copies


_SINGLE: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # problem -> its as_single answer


def as_single(problem: Problem) -> tuple | None:
    """The same count as a problem of one task, where one exists: (problem, why) or None (kept per problem:
    building the single task compiles its knowledge).

    Tasks with the same knowledge over the same concepts are one task on the union of their supports; tasks
    with the same support and supervision are one task with all their labels. Every counter then applies.
    """
    if not problem.parts:
        return None
    if problem not in _SINGLE:
        _SINGLE[problem] = _as_single(problem)
    return _SINGLE[problem]


def _as_single(problem: Problem) -> tuple | None:
    parts, task = problem.parts, problem.task
    every = tuple(range(task.k))
    if any(part.concepts != every for part in parts) and any(part.supervision.vectors for part in parts):
        return None  # a row's supervision covers its own concepts only
    rows = problem.support.vectors
    added = problem.added_items()
    texts = [tuple(repr(task.labels[t].expr) for t in part.labels) for part in parts]
    same_concepts = len({part.concepts for part in parts}) == 1
    if same_concepts and len(set(texts)) == 1 and len({part.supervision.concepts for part in parts}) == 1:
        index = np.concatenate([np.arange(part.rows.start, part.rows.stop) for part in parts])
        ids, first = row_ids(rows[index])
        order = np.argsort(first, kind="stable")  # the distinct rows in the order they first occur
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        vectors = np.asarray(rows[index[first[order]]], dtype=np.int64).reshape(-1, task.k)
        offsets = np.cumsum([0] + [len(part.rows) for part in parts])
        which = {int(rank[ids[offset + r - part.rows.start]]) for part, offset in zip(parts, offsets)
                 for r in part.supervision.vectors if r in part.rows}
        one = dataclasses.replace(task, labels=tuple(task.labels[t] for t in parts[0].labels), groups=task.groups)
        sup = Supervision(frozenset(which), parts[0].supervision.concepts + added)
        support = exhaustive(one) if len(vectors) == one.space_size else Support(vectors, f"union of {len(parts)} supports")
        single = Problem(one, support, problem.map_class, sup)
        return single, (f"the {len(parts)} tasks have the same knowledge over the same concepts: one task on the "
                        f"union of their supports ({len(vectors)} vectors)")
    first = parts[0]
    same_rows = all(np.array_equal(rows[part.rows.start:part.rows.stop], rows[first.rows.start:first.rows.stop])
                    for part in parts)
    shifted = [frozenset(r - part.rows.start for r in part.supervision.vectors) for part in parts]
    if same_concepts and same_rows and len(set(shifted)) == 1 and len({p.supervision.concepts for p in parts}) == 1:
        vectors = rows[first.rows.start:first.rows.stop]
        sup = Supervision(shifted[0], first.supervision.concepts + added)
        full = len(vectors) == task.space_size and len(np.unique(vectors, axis=0)) == len(vectors)
        single = Problem(task, exhaustive(task) if full else Support(vectors, problem.support.kind),
                         problem.map_class, sup)
        return single, (f"the {len(parts)} tasks have the same support and supervision: one task with all "
                        f"{len(task.labels)} labels")
    return None


_PARTS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # problem -> {t: its part_problem}


def part_problem(problem: Problem, t: int) -> Problem | None:
    """Task t of a problem of several alone, over every concept of the problem: a problem of one task (every
    counter applies), or None where its rows carry supervision on concepts it does not read."""
    done = _PARTS.setdefault(problem, {})
    if t not in done:
        done[t] = _part_problem(problem, t)
    return done[t]


def _part_problem(problem: Problem, t: int) -> Problem | None:
    part, task = problem.parts[t], problem.task
    if part.supervision.vectors and part.concepts != tuple(range(task.k)):
        return None
    rows = problem.support.vectors[part.rows.start:part.rows.stop]
    items = tuple(i for i in part.supervision.concepts + problem.added_items() if i[0] in part.concepts)
    one = dataclasses.replace(task, name=part.name, labels=tuple(task.labels[i] for i in part.labels))
    sup = Supervision(frozenset(r - part.rows.start for r in part.supervision.vectors), tuple(dict.fromkeys(items)))
    return Problem(one, Support(rows, f"{part.name}'s support"), problem.map_class, sup)


def keeps(problem: Problem, m) -> bool:
    """Whether concept map ``m`` (a ConceptMap) keeps, on every row, the labels the row shows and its supervised
    concepts, every predicted concept one-hot."""
    rows = problem.support.vectors
    n, k = rows.shape
    out = np.full((n, k), -1, dtype=np.int64)
    for j in range(k):
        target = np.array([i for i, _ in m.assign[j]])[rows[:, j]]
        value = np.array([v for _, v in m.assign[j]])[rows[:, j]]
        for i in np.unique(target):
            at = target == i
            if ((out[at, i] != -1) & (out[at, i] != value[at])).any():
                return False
            out[at, i] = value[at]
    if (out < 0).any():
        return False
    shown, pinned = _masks(problem)
    if ((out != rows) & pinned).any():
        return False
    return not ((problem.task.evaluate(out) != problem.labels) & shown).any()


_MASKS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _masks(problem: Problem) -> tuple:
    """(labels each row shows, concepts each row has supervised) as boolean arrays, kept per problem."""
    if problem not in _MASKS:
        rows = problem.support.vectors
        shown = np.zeros((len(rows), len(problem.task.labels)), dtype=bool)
        pinned = np.zeros(rows.shape, dtype=bool)
        for r, g in enumerate(rows.tolist()):
            shown[r, list(problem.observed(r))] = True
            pinned[r, list(problem.supervised(r, g))] = True
        _MASKS[problem] = (shown, pinned)
    return _MASKS[problem]
