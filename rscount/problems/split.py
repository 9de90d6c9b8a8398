"""Split a problem whose labels read disjoint sets of concepts into independent sub-problems.

On the exhaustive support (a product of the concept domains), with no
supervision tied to single support vectors, the optimal maps of such a
problem are tuples of optimal maps of its parts, so the count is the product
of the parts' counts. For ``disentangled`` this needs only disjoint label
variables. For ``complete`` and ``permutation`` a map could also send a
ground-truth concept of one part to a predicted concept of another; on the
exhaustive support such a map is never optimal, because each label's
predicted value would ignore a concept its true value changes with (checked
on the knowledge; the concepts no label changes with must share one part). ``shared`` splits when every concept
group lies inside one part.

On any other support the maps of ``disentangled`` and ``shared`` (groups
inside parts) still factor: each support vector's labels hold iff each
part's labels hold on its projection, so each part counts on the projected
support (a vector supervised in full stays supervised on every projection).
So do ``complete`` and ``permutation`` maps on a listed support when the
support itself keeps every part's sources inside the part (see
:func:`sources_stay_apart`).
"""
from __future__ import annotations

import dataclasses
import functools

import numpy as np

from ..language.logic import variables
from ..model.support import Support, distinct, exhaustive, grid, label_ids, row_codes, row_ids
from ..model.task import Task
from .problem import Problem, Supervision, free_is_complete
from .quotient import MAX_TABLE, quotient

__all__ = ["components", "essential", "grid_labels", "sources_stay_apart", "split_problem", "split_shared",
           "unread_concepts", "unread_if_apart", "without_unread", "bijection_weight", "keeping", "clash_masks"]

MAX_LABEL_GRID = 1 << 22
MAX_HITTING_NODES = 20_000  # search nodes of one candidate search in a part's rigidity proof
MAX_HITTING_ROUNDS = 256  # candidates checked on the rows; past either limit the part counts as not rigid
SPLIT_CLASSES = ("complete", "permutation", "disentangled", "shared")


def components(task: Task) -> list:
    """Groups of label indices connected through shared concepts, with their concept indices."""
    reads = [sorted(task.index(n) for n in variables(lab.expr)) for lab in task.labels]
    parent = list(range(len(reads)))

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    owner: dict = {}
    for n, cs in enumerate(reads):
        for c in cs:
            if c in owner:
                parent[find(n)] = find(owner[c])
            else:
                owner[c] = n
    parts: dict = {}
    for n in range(len(reads)):
        parts.setdefault(find(n), []).append(n)
    return [(tuple(ls), tuple(sorted({c for n in ls for c in reads[n]}))) for ls in parts.values()]


def grid_labels(task: Task, concepts) -> np.ndarray:
    """Label codes, shape (n, labels), of every value tuple of ``concepts`` in grid order (the others at 0).

    Only the labels that read no other concept are meaningful.
    """
    sub = grid(tuple(task.sizes[c] for c in concepts))
    full = np.zeros((len(sub), task.k), dtype=np.int64)
    full[:, list(concepts)] = sub
    return task.evaluate(full)


def essential(task: Task, label: int) -> frozenset | None:
    """The concepts label ``label`` really changes with (None: its mentioned concepts are too many to check)."""
    cs = sorted(task.index(n) for n in variables(task.labels[label].expr))
    sizes = tuple(task.sizes[c] for c in cs)
    if int(np.prod(sizes, dtype=np.int64)) > MAX_LABEL_GRID:
        return None
    values = grid_labels(task, cs)[:, label].reshape(sizes)
    return frozenset(c for a, c in enumerate(cs) if np.any(np.diff(values, axis=a) != 0))


def _parts_are_closed(task: Task, where: dict) -> bool:
    """Whether every complete map with an optimal chance keeps each part's concepts inside it.

    On the exhaustive support an optimal map sends each label's essential
    concepts onto themselves, hence each part's essential concepts too; the
    concepts no label depends on stay together, so they must lie in one part.
    """
    used: set = set()
    for n in range(len(task.labels)):
        e = essential(task, n)
        if e is None:
            return False
        used |= e
    idle = {where[c] for c in range(task.k) if c not in used}
    return len(idle) <= 1


def _label_parts(problem: Problem) -> tuple:
    """The label components of a problem whose parts may be counted apart (see the module), and each concept's part.

    (None, None) unless the components cover every concept and the support
    allows a split: the exhaustive support without per-vector supervision, or
    a listed support.
    """
    task = problem.task
    if problem.map_class not in SPLIT_CLASSES or len(task.labels) < 2:
        return None, None
    if problem.support.exhaustive:
        if problem.supervision.vectors:
            return None, None
    elif not problem.support.listed:
        return None, None
    parts = components(task)
    constant = tuple(n for ls, cs in parts if not cs for n in ls)  # labels that read no concept hold anywhere
    parts = [p for p in parts if p[1]]
    if constant and parts:
        parts[0] = (tuple(sorted(parts[0][0] + constant)), parts[0][1])
    covered = {c for _, cs in parts for c in cs}
    if len(parts) < 2 or len(covered) != task.k:
        return None, None
    return parts, {c: n for n, (_, cs) in enumerate(parts) for c in cs}


def _crosses(task: Task, where: dict) -> bool:
    return any(len({where[task.index(x)] for x in g}) > 1 for g in task.groups)


def split_problem(problem: Problem) -> list | None:
    """The independent sub-problems of ``problem``, or None when it does not split (a learned head reads all the
    labels at once: two vectors apart on one part's labels stay apart)."""
    if problem.inference != "knowledge" or problem.parts:  # several tasks: rows show only their own labels
        return None
    task = problem.task
    parts, where = _label_parts(problem)
    if parts is None:
        return None
    if problem.map_class == "shared" and _crosses(task, where):
        return None
    if problem.map_class in ("complete", "permutation"):
        closed = _parts_are_closed(task, where) if problem.support.exhaustive else sources_stay_apart(problem, parts)
        if not closed:
            return None
    return _sub_problems(problem, parts)


def sources_stay_apart(problem: Problem, parts: list) -> bool:
    """Whether every optimal complete map on the listed support has each label part read its own concepts.

    A complete map gives each predicted concept one source concept, all
    different, so the predicted concepts of a part P read a set T of |P|
    sources, and P's labels must be a function of T's values on the support
    (two rows that agree on T but want different labels defeat every value
    map). P is *rigid* when its own concepts are the only such set of at
    most |P| concepts; when every part but one is rigid, the last one gets
    the concepts left over, which are its own.
    """
    task = problem.task
    if task.k > 62:
        return False
    G = np.asarray(problem.support.vectors, dtype=np.int64)
    full = row_codes(G, list(task.sizes))
    rigid = loose = 0
    for labels, concepts in sorted(parts, key=lambda p: len(p[1])):
        if rigid == len(parts) - 1:
            break  # the one part left gets the concepts left: its own
        wanted, _ = label_ids(problem.labels[:, list(labels)])
        if _rigid(G, full, wanted, task.sizes, sum(1 << c for c in concepts), len(concepts)):
            rigid += 1
        else:
            loose += 1
            if loose > 1:
                return False
    return True


def _rigid(G: np.ndarray, full: np.ndarray, wanted: np.ndarray, sizes: tuple, own: int, most: int) -> bool:
    """Whether ``own`` (a bit mask of concepts) is the only set of at most ``most`` concepts whose values on the
    rows of ``G`` determine ``wanted``.

    A set determines the labels iff it hits the difference mask of every
    pair of rows that want different labels. The masks are found lazily: a
    candidate set that hits the masks known so far is checked on the rows,
    and the pairs it cannot tell apart add their masks, until no candidate
    other than ``own`` is left (rigid) or one checks out (not rigid).
    """
    masks: list = []
    for _ in range(MAX_HITTING_ROUNDS):
        other = _other_hitting_set(masks, own, most)
        if other is None:
            return True
        if other is False:
            return False  # out of search nodes: not proven
        found = clash_masks(G, full, wanted, sizes, [c for c in range(G.shape[1]) if other >> c & 1])
        if not found:
            return False
        masks.extend(sorted(found, key=int.bit_count)[:8])
    return False


def clash_masks(G: np.ndarray, full: np.ndarray, wanted: np.ndarray, sizes: tuple, cols: list) -> set:
    """The columns (a bit mask each) in which two rows of ``G`` alike on ``cols`` but with different labels
    (``wanted``) differ; empty where ``cols`` determine the labels. Rows alike on ``cols`` are sorted by their
    full codes (``full``), so the pairs compared are near each other: small masks."""
    keys = row_codes(G[:, cols], [sizes[c] for c in cols])
    order = np.lexsort((full, keys))
    k, w = keys[order], wanted[order]
    clash = np.flatnonzero((k[1:] == k[:-1]) & (w[1:] != w[:-1]))
    bits = np.int64(1) << np.arange(G.shape[1], dtype=np.int64)
    return {int(m) for m in (G[order[clash]] != G[order[clash + 1]]) @ bits}


def _other_hitting_set(masks: list, own: int, most: int):
    """A set of at most ``most`` concepts, not ``own``, that hits every mask; None if there is none, False if the
    search ran out of nodes. Each branch takes one concept of the least-covered mask and rules out the ones
    tried before it, so no set is visited twice."""
    budget = [MAX_HITTING_NODES]

    def go(chosen: int, ruled_out: int, size: int):
        budget[0] -= 1
        if budget[0] < 0:
            return False
        best = None
        for m in masks:
            if not m & chosen:
                m &= ~ruled_out
                if not m:
                    return None
                if best is None or m.bit_count() < best.bit_count():
                    best = m
        if best is None:
            return None if chosen == own else chosen
        if size == most:
            return None
        while best:
            b = best & -best
            best ^= b
            found = go(chosen | b, ruled_out, size + 1)
            if found is not None:
                return found
            ruled_out |= b
        return None

    return go(0, 0, 0)


def split_shared(problem: Problem) -> list | None:
    """Under ``shared``, the label parts of a problem whose concept groups cross them (None otherwise).

    The parts are not independent (a group's one value map serves several),
    so their maps must be intersected, not multiplied; each part keeps the
    members of every group it holds.
    """
    if problem.parts:
        return None
    parts, where = _label_parts(problem)
    if (parts is None or problem.map_class != "shared" or not _crosses(problem.task, where)
            or not problem.support.exhaustive):
        return None
    return _sub_problems(problem, parts, keep_partial_groups=True)


def _sub_problems(problem: Problem, parts: list, keep_partial_groups: bool = False) -> list:
    task = problem.task
    out = []
    for n, (labels, cs) in enumerate(parts):
        index = {c: m for m, c in enumerate(cs)}
        names = {task.concepts[c].name for c in cs}
        sub = Task(name=f"{task.name}[{','.join(task.labels[l].name for l in labels)}]",
                   concepts=tuple(task.concepts[c] for c in cs), labels=tuple(task.labels[l] for l in labels),
                   groups=tuple(tuple(x for x in g if x in names) for g in task.groups
                                if (set(g) & names if keep_partial_groups else set(g) <= names)))
        concepts = tuple((index[i], u) for i, u in problem.supervision.concepts if i in index)
        if problem.support.exhaustive:
            out.append(Problem(sub, exhaustive(sub), problem.map_class, Supervision(concepts=concepts)))
            continue
        support, rows = _project(problem.support, cs, problem.supervision.vectors)
        if not rows and support.length == sub.space_size:  # the projection holds every vector: counters see that
            support = dataclasses.replace(exhaustive(sub), kind=f"{support.kind}, every vector")
        out.append(Problem(sub, support, problem.map_class, Supervision(rows, concepts)))
    return out


def _project(support: Support, concepts: tuple, supervised: frozenset) -> tuple:
    """The distinct rows of ``support`` on ``concepts``, and which of them some supervised row projects to."""
    rows, inverse = np.unique(support.vectors[:, list(concepts)], axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    kept = frozenset(int(inverse[r]) for r in supervised)
    return Support(rows, f"{support.kind}, projected"), kept


def unread_concepts(problem: Problem) -> tuple | None:
    """Under ``disentangled`` and ``shared`` with K: (indices of the concepts no label reads, the number of value
    maps they may take), or None where every concept is read or the class mixes concepts (see
    :func:`_unread_complete` for ``free``, ``complete`` and ``permutation``).

    A concept no label reads (and, under shared, no member of its group) has a value map that changes no label:
    it is free except where supervision pins a value (f(u) = u for every supervised value u shown on the
    support), so the count is the rest's count times prod d^(d - pinned). Several tasks: no task's label reads it.
    """
    if problem.map_class in ("free", "complete", "permutation") and problem.inference == "knowledge":
        return _unread_complete(problem)
    if problem.map_class not in ("disentangled", "shared") or problem.inference != "knowledge":
        return None
    task = problem.task
    read = set(task.read)
    units = [sorted(set(task.group_of(i))) if problem.map_class == "shared" else [i] for i in range(task.k)]
    free = sorted(i for i in range(task.k) if not set(units[i]) & read)
    whole = problem.support.exhaustive and not problem.supervision.vectors and not problem.parts
    if not free or len(free) == task.k or not (whole or problem.support.listed):
        return None
    pinned: dict = {}  # value-map unit -> values pinned by supervision
    items = [(i, u) for i, u in problem.supervision.concepts if i in free]
    if whole:
        for i, u in items:
            pinned.setdefault(units[i][0], set()).update(range(task.sizes[i]) if u is None else (u,))
    elif problem.supervision.vectors or items:
        for r, g in enumerate(problem.support.vectors.tolist()):
            for i in problem.supervised(r, g):
                if i in free:
                    pinned.setdefault(units[i][0], set()).add(g[i])
    return free, _free_factor(task, units, free, pinned)


def _unread_complete(problem: Problem) -> tuple | None:
    """Under ``complete`` / ``permutation`` (and ``free`` where its maps are the complete ones), nothing
    supervised, where every concept a label reads *tells labels apart*: two support vectors that differ in it
    alone have different labels (on the exhaustive support: every concept that changes some label; CLE4EVR,
    SDD-OIA-ambulance, ConCon's three tasks together). Returns (the unread concepts, the bijections between
    them with any value maps). A read source given to an unread predicted concept would leave those two vectors
    one prediction on every read concept, so the read concepts read the read sources and the unread ones the
    rest: the count is the read concepts' count (on the rows projected on them) times that factor."""
    task = problem.task
    if problem.supervision.vectors or problem.supervision.concepts or problem.parts:
        return None
    whole = problem.support.exhaustive
    if whole and task.space_size > MAX_TABLE or not whole and not problem.support.listed:
        return None
    if problem.map_class == "free" and not free_is_complete(problem):
        return None
    read = task.read
    free = [i for i in range(task.k) if i not in read]
    if not free or not read:
        return None
    if whole:
        classes = quotient(task).classes
        if any(len(classes[i]) < 2 for i in read):
            return None
    else:
        codes = label_ids(problem.labels)[0]
        if not all(tells_labels_apart(problem.support.vectors, codes, i) for i in read):
            return None
    sizes = tuple(task.sizes[i] for i in free)
    return free, bijection_weight(sizes, sizes)


def tells_labels_apart(rows: np.ndarray, codes: np.ndarray, column: int) -> bool:
    """Whether two rows that differ in ``column`` alone have different labels (``codes``: each row's label code,
    as :func:`~rscount.model.support.label_ids` gives them)."""
    rest = np.delete(np.asarray(rows), column, axis=1)
    ids = row_ids(rest)[0] if rest.shape[1] else np.zeros(len(codes), dtype=np.int64)
    return len(distinct(ids * (int(codes.max(initial=0)) + 1) + codes)) > len(distinct(ids))


def bijection_weight(targets: tuple, sources: tuple) -> int:
    """Sum over bijections targets -> sources of prod size_t ** size_s (the value maps of every pairing)."""
    return _bijection_weight(tuple(sorted(targets)), tuple(sorted(sources)))  # the sum is the same in any order


@functools.lru_cache(maxsize=1 << 12)
def _bijection_weight(targets: tuple, sources: tuple) -> int:
    kinds = sorted(set(sources))
    counts = tuple(sources.count(s) for s in kinds)
    memo: dict = {}

    def go(t: int, left: tuple) -> int:
        if t == len(targets):
            return 1
        if (t, left) in memo:
            return memo[(t, left)]
        total = 0
        for a, c in enumerate(left):
            if c:
                total += c * targets[t] ** kinds[a] * go(t + 1, left[:a] + (c - 1,) + left[a + 1:])
        memo[(t, left)] = total
        return total
    return go(0, counts)


def unread_if_apart(problem: Problem) -> tuple | None:
    """Under ``complete`` / ``permutation`` with K, nothing supervised, on a listed support: (the concepts no label
    reads, the bijections between them with any value maps), the factor the count has *if* every optimal map
    gives the read concepts the read sources, which the caller proves by counts (the whole count equals the read
    concepts' count times this factor). None where there are no unread concepts or the class mixes them."""
    task = problem.task
    if (problem.map_class not in ("complete", "permutation") or problem.inference != "knowledge" or problem.parts
            or problem.supervision or not problem.support.listed):
        return None
    free = [i for i in range(task.k) if i not in task.read]
    if not free or not task.read:
        return None
    sizes = tuple(task.sizes[i] for i in free)
    return free, bijection_weight(sizes, sizes)


def without_unread(problem: Problem, found: tuple | None = None) -> tuple | None:
    """(the problem without the concepts no label reads, the number of value maps those concepts may take, their
    names), or None where :func:`unread_concepts` finds none (``found``: those concepts and that number, known
    otherwise: :func:`unread_if_apart`). The rest counts on the support's rows projected on the read concepts
    (equal projections merged: they constrain the maps alike)."""
    if found is None:
        found = None if problem.parts else unread_concepts(problem)
    if found is None:
        return None
    free, factor = found
    task = problem.task
    keep = [i for i in range(task.k) if i not in free]
    sup_rows = problem.supervision.vectors
    whole = problem.support.exhaustive and not sup_rows
    index = {old: new for new, old in enumerate(keep)}
    sub_task = keeping(task, keep)
    sub_items = tuple((index[i], u) for i, u in problem.supervision.concepts if i in index)
    names = [task.concepts[i].name for i in free]
    if whole:  # the projection of the whole space is the whole space of the rest: nothing to list
        sub = Problem(sub_task, exhaustive(sub_task), problem.map_class, Supervision(frozenset(), sub_items))
        return sub, factor, names
    unique, inverse = np.unique(problem.support.vectors[:, keep], axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    sub_rows = frozenset(int(inverse[r]) for r in sup_rows)
    full = len(unique) == sub_task.space_size
    support = exhaustive(sub_task) if full and not sub_rows else Support(unique, problem.support.kind)
    sub = Problem(sub_task, support, problem.map_class, Supervision(sub_rows, sub_items))
    return sub, factor, names


def keeping(task: Task, keep) -> Task:
    """``task`` with only the concepts ``keep`` (indices, in order) and its groups cut to them."""
    names = {task.concepts[i].name for i in keep}
    return dataclasses.replace(
        task, concepts=tuple(task.concepts[i] for i in keep), default_support=None,
        groups=tuple(g for g in (tuple(n for n in grp if n in names) for grp in task.groups) if g))


def _free_factor(task: Task, units: list, free: list, pinned: dict) -> int:
    """Value maps of the free units: d choices for each value not pinned by supervision."""
    factor = 1
    for unit in {units[i][0] for i in free}:
        d = task.sizes[unit]
        factor *= d ** (d - len(pinned.get(unit, ())))
    return factor

