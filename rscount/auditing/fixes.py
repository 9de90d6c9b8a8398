"""Fixes, each a problem counted by the same counters: supervision, more data, another extractor, fewer labels.

Supervision sets are found as hitting sets: supervising an item removes
exactly the optimal maps that get it wrong somewhere on the support, so a set
leaves count 1 iff it hits every shortcut. With every map listed the smallest
such set is one MaxSAT call (proven minimal); otherwise an implicit hitting
set loop alternates a smallest set for the shortcuts seen so far with an
exact count that either proves it or shows a shortcut it misses (proven
minimal when it ends); past its budget a greedy choice by exact counts, said
as such.
"""
from __future__ import annotations

import dataclasses
import itertools
import math
import time
from dataclasses import dataclass

import numpy as np

from ..errors import BackendError, CountTimeout, RscountError
from ..language.logic import variables
from ..model.support import Support, exhaustive, grid
from ..problems.problem import MAP_CLASSES, Problem, Supervision, for_class
from ..results.count import short_count
from .maps import identity, kills

__all__ = ["SupervisionFix", "DataFix", "supervision_fix", "data_fix", "class_counts", "label_subsets",
           "with_items", "item_text"]

ROUNDS = 40  # implicit hitting set rounds before the greedy choice takes over
CANDIDATES = 4096  # vectors outside the support scored per data step (all of them where there are fewer)
POOL = 2000  # optimal maps held to score candidate vectors when not all are listed


@dataclass(frozen=True)
class SupervisionFix:
    """A set of supervision items and the exact count it leads to."""

    items: tuple  # "name=value" or "name"
    count: int | None  # None where no count under supervision could be had
    exact: bool
    minimal: bool
    method: str
    reaches_one: bool


@dataclass(frozen=True)
class DataFix:
    """Vectors to add to the support, greedily, with the count after each one."""

    vectors: tuple  # value tuples, as the task names them
    counts: tuple  # the count after adding each vector in turn
    reaches_one: bool
    floor: int | None  # the count on the exhaustive support: no data gets below it
    note: str


def item_text(task, item: tuple) -> str:
    i, u = item
    c = task.concepts[i]
    return c.name if u is None else f"{c.name}={c.domain[u]}"


def with_items(problem: Problem, items) -> Problem:
    """``problem`` with the supervision items (concept index, value index or None) added."""
    sup = problem.supervision
    merged = tuple(sorted(set(sup.concepts) | set(items), key=lambda p: (p[0], -1 if p[1] is None else p[1])))
    return dataclasses.replace(problem, supervision=Supervision(sup.vectors, merged))


def _count(problem: Problem, seconds: float | None):
    from ..planning.execute import count_problem
    return count_problem(problem, timeout=None if seconds is None else max(seconds, 0.5))


# --- supervision ---------------------------------------------------------------------------------------------

def _items(problem: Problem, by: str) -> list:
    """The items worth supervising: values that occur in the support (or whole concepts), not yet supervised."""
    task, have = problem.task, set(problem.supervision.concepts)
    whole = {i for i, u in have if u is None}
    if by == "concept":
        return [(i, None) for i in range(task.k) if i not in whole]
    from .relation import _seen
    seen = _seen(problem)
    return [(i, u) for i in range(task.k) if i not in whole for u in range(task.sizes[i])
            if seen[i][u] and (i, u) not in have]


def _kill_sets(problem: Problem, maps, items: list) -> list:
    """For each map, the items it gets wrong somewhere on the support (supervising one of them removes it)."""
    from .relation import realised
    present = realised(problem, list(maps))
    sizes = problem.task.sizes
    off = [~np.eye(d, dtype=bool) for d in sizes]
    wrong = {}
    for it in items:
        i, u = it
        d = sizes[i]
        cells = off[i] if u is None else np.zeros((d, d), bool)
        if u is not None:
            cells[u] = off[i][u]
        wrong[it] = present[i][:, cells.reshape(-1)].any(axis=1)
    return [frozenset(it for it in items if wrong[it][m]) for m in range(len(present[0]))]


def min_hitting_set(sets, items: list) -> tuple:
    """A smallest set of items meeting every set (RC2 MaxSAT; exact)."""
    from pysat.examples.rc2 import RC2
    from pysat.formula import WCNF
    sets = {s for s in sets if s}
    if not sets:
        return ()
    var = {it: n + 1 for n, it in enumerate(items)}
    wcnf = WCNF()
    for s in sets:
        wcnf.append([var[it] for it in s])
    for it in items:
        wcnf.append([-var[it]], weight=1)
    with RC2(wcnf) as rc2:
        model = rc2.compute()
    chosen = {v for v in model if v > 0}
    return tuple(it for it in items if var[it] in chosen)


def supervision_fix(problem: Problem, count: int, maps: list | None, *, by: str = "value",
                    seconds: float | None = 30.0) -> SupervisionFix:
    """The smallest set of values (``by="value"``) or concepts (``by="concept"``) to supervise for count 1.

    ``maps``: every optimal map when listed (then one MaxSAT call decides it).
    """
    from .relation import independent_parts
    parts = independent_parts(problem)
    if parts is not None:
        return _parts_fix(problem, parts, by, seconds)
    start = time.monotonic()
    items = _items(problem, by)
    ident = identity(problem)
    if maps is not None and ident not in maps:  # a restricted head (learned:linear) that cannot fit the intended map
        return SupervisionFix((), None, True, False, "the intended map is not among the counted ones: "
                              "supervision only removes maps, it cannot make the intended one fit", False)
    if count == 1:
        return SupervisionFix((), 1, True, True, "the count is already 1", True)
    if problem.map_class == "joint":
        return _joint_fix(problem, items, seconds)
    if maps is not None:
        shortcuts = [m for m in maps if m != ident]
        sets = _kill_sets(problem, shortcuts, items)
        chosen = min_hitting_set(sets, items)
        left = 1 + sum(not (s & set(chosen)) for s in sets)
        return _verified(problem, chosen, True, f"smallest hitting set over all {len(maps)} optimal maps (MaxSAT)",
                         seconds, left)
    forced = _unread_items(problem, items)
    if forced:
        return _after_unread(problem, forced, by, seconds)
    by_group = _group_fix(problem, items, by, count, seconds)
    if by_group is not None:
        return by_group
    try:
        return _implicit(problem, items, ident, start, seconds)
    except (RscountError, MemoryError, NotImplementedError):  # also a support too large to encode (MNMath-B.1)
        left = None if seconds is None else seconds - (time.monotonic() - start)
        return _greedy(problem, items, count, left)


def _unread_items(problem: Problem, items: list) -> list:
    """The items on concepts no label reads, where each is needed in every fix: the map that is the intended one
    except that it predicts another value for that concept's value keeps every label and every other item
    (under K, a class whose value maps are each concept's own: not shared; no rows supervised in full)."""
    task = problem.task
    if (problem.inference != "knowledge" or problem.parts or problem.supervision.vectors
            or problem.map_class not in ("free", "complete", "permutation", "disentangled")):
        return []
    read = {task.index(n) for lab in task.labels for n in variables(lab.expr)}
    return [(i, u) for i, u in items if i not in read and task.sizes[i] > 1]


def _after_unread(problem: Problem, forced: list, by: str, seconds) -> SupervisionFix:
    """The items on unread concepts (each needed: :func:`_unread_items`), then a smallest fix of the read concepts
    under them: together a smallest fix where that one is."""
    start = time.monotonic()
    base = with_items(problem, forced)
    names = tuple(item_text(problem.task, it) for it in forced)
    why = f"{len(forced)} items on concepts no label reads, each needed (a map moving that value alone keeps " \
          f"every label)"
    try:
        r = _count(base, seconds)
    except RscountError as exc:
        return SupervisionFix(names, None, False, False, f"{why}; no count under them could be had "
                              f"({str(exc).split(';')[0][:120]})", False)
    if r.count == 1 and r.exact:
        return SupervisionFix(names, 1, True, True, why, True)
    left = None if seconds is None else max(seconds - (time.monotonic() - start), 0.5)
    rest = _read_part_fix(base, r, forced, by, left) if r.exact else None
    if rest is None:
        left = None if seconds is None else max(seconds - (time.monotonic() - start), 0.5)
        rest = supervision_fix(base, r.count, None, by=by, seconds=left)
    return SupervisionFix(names + rest.items, rest.count, rest.exact, rest.minimal, f"{why}; then {rest.method}",
                          rest.reaches_one)


def _read_part_fix(base: Problem, result, forced: list, by: str, seconds) -> SupervisionFix | None:
    """With every item on the unread concepts supervised (``base``): where its count is the read concepts' own
    count on their projected rows times the value maps of the values of unread concepts no row shows (which go
    anywhere), the unread concepts are pinned and the read ones read their own sources, so a smallest fix of
    that smaller problem (its maps listed) is one of ``base``, leaving that many times its count. None where
    the counts differ, or under free maps with values unshown (those may go to any concept)."""
    from ..planning.execute import count_problem
    from ..problems.split import without_unread
    from .maps import list_maps
    from .relation import LIST_LIMIT, _seen
    unread = sorted({i for i, _ in forced})
    seen, sizes = _seen(base), base.task.sizes
    unshown = math.prod(sizes[i] ** int((~seen[i]).sum()) for i in unread)
    if base.map_class == "free" and unshown > 1:
        return None
    bare = dataclasses.replace(base, supervision=Supervision(frozenset(), tuple(
        it for it in base.supervision.concepts if it[0] not in unread)))
    sub = without_unread(bare, (unread, 1))[0]
    try:
        r = count_problem(sub, timeout=seconds)
    except RscountError:
        return None
    if not r.exact or r.count * unshown != result.count:
        return None
    fix = supervision_fix(sub, r.count, list_maps(sub, r, LIST_LIMIT, seconds), by=by, seconds=seconds)
    if fix.count is None or unshown == 1:
        return fix
    return dataclasses.replace(fix, count=fix.count * unshown, reaches_one=False, method=(
        f"{fix.method}; times the {unshown:,} maps of the unread concepts' values no vector shows"))


def _group_fix(problem: Problem, items: list, by: str, count: int, seconds) -> SupervisionFix | None:
    """Where the optimal maps are a permutation group on (concept, value) points (exhaustive support, nothing
    supervised: Kand-Logic), a smallest base of it is the cheapest supervision (:mod:`.bases`); None elsewhere."""
    from ..counters.base import Deadline
    from ..counters.symmetry.automorphism import point_group
    from .bases import smallest_base
    deadline = Deadline(seconds, "the supervision search", "raise timeout=")
    try:
        found = point_group(problem, deadline)
        if found is None:
            return None
        gens, offsets = found
        from sympy.combinatorics import Permutation, PermutationGroup
        group = PermutationGroup([Permutation(g.tolist()) for g in gens]) if gens else None
        if (1 if group is None else group.order()) != count:
            return None  # not the group of every optimal map: leave it to the counts
        every = {(i, None) for i in range(problem.task.k)} if by == "concept" else \
            {(i, u) for i in range(problem.task.k) for u in range(int(offsets[i + 1] - offsets[i]))}
        if set(items) != every:
            return None
        fix = smallest_base(gens, offsets, by, every, deadline, group)
    except (CountTimeout, MemoryError):
        return None
    if fix is None:
        return None
    return SupervisionFix(tuple(item_text(problem.task, it) for it in fix.items), 1, True, True,
                          f"smallest base of the group the {count:,} optimal maps form ({fix.nodes} stabilizers "
                          f"searched, one item per orbit)", True)


JOINT_SETS = 20_000  # distinct kill sets the joint hitting set takes


def _joint_fix(problem: Problem, items: list, seconds) -> SupervisionFix:
    """The joint class sends each support vector g to any vector of E(g) (its label, its supervised values):
    count 1 needs, for every v != g in E(g), a supervised item on which v and g differ. One MaxSAT call over
    those sets gives a smallest set, counted afresh (vectors off the support still go anywhere)."""
    if problem.inference != "knowledge" and all(u is None for _, u in items):
        return _greedy(problem, items, _count(problem, seconds).count, seconds)
    if problem.inference != "knowledge":
        return SupervisionFix((), None, False, False, "not decided: under a learned head the joint class is "
                              "counted with whole concepts supervised, not single values", False)
    from ..counters.base import Deadline
    from ..counters.symmetry.closedform import _classes, target_keys, target_mask
    deadline = Deadline(seconds, "the joint class's supervision search", "raise timeout=")
    grid, labels = _classes(problem)
    vectors, which, keys = target_keys(problem)
    chosen_of = {it: n for n, it in enumerate(items)}
    masks = [target_mask(key, grid, labels) for key in keys]  # the images each key's vectors may take
    forced = _forced_items(problem.task, vectors, which, masks, items)
    if forced == set(items):  # every item alone keeps some support vector from a neighbour it could take
        return _verified(problem, tuple(items), True, f"every one of the {len(items)} items is needed: each alone "
                         "tells some support vector from a vector of its label that differs only there", seconds)
    sets: set = {frozenset([it]) for it in forced}
    for g, k in zip(vectors, which.tolist()):
        try:
            deadline.check()
        except CountTimeout:
            return SupervisionFix((), None, False, False, f"not found: the time ran out with {len(sets):,} ways a "
                                  f"joint map moves a support vector (raise timeout=)", False)
        differ = np.unique(grid[masks[k]] != g, axis=0)
        for d in differ:
            if not d.any():
                continue
            at = np.flatnonzero(d).tolist()
            sets.add(frozenset(it for it in ((i, None) if (i, None) in chosen_of else (i, int(g[i])) for i in at)
                               if it in chosen_of))
            if len(sets) > JOINT_SETS:
                return SupervisionFix((), None, False, False, f"not found: over {JOINT_SETS:,} distinct ways a "
                                      "joint map moves a support vector; supervise concepts and count", False)
    if frozenset() in sets:
        return SupervisionFix((), None, True, False, "no supervision removes every shortcut: some vector of the "
                              "same label differs from a support vector only on concepts already supervised", False)
    chosen = min_hitting_set(sets, items)
    every = tuple(range(problem.task.k))
    proven = all(part.concepts == every for part in problem.parts)  # else an item binds only its tasks' rows
    return _verified(problem, chosen, proven, f"smallest hitting set over the joint class's {len(sets):,} ways to "
                     "move a support vector (MaxSAT)" if proven else "hitting set over the ways to move a support "
                     "vector, for tasks over different concepts (not proven smallest)", seconds)


def _forced_items(task, vectors: np.ndarray, which: np.ndarray, masks: list, items: list) -> set:
    """The items that alone tell some support vector g from a vector of E(g) differing from g at that concept
    only (each such item is in every supervision that leaves count 1): per concept and value, one lookup in
    the grid for all vectors at once."""
    strides = np.cumprod((1,) + task.sizes[:0:-1], dtype=np.int64)[::-1]
    at = vectors @ strides
    wanted = set(items)
    out = set()
    stacked = np.stack(masks) if len(masks) * len(masks[0]) <= 1 << 28 else None
    for i, d in enumerate(task.sizes):
        hit = np.zeros(len(vectors), dtype=bool)
        for u in range(d):
            moved = at + (u - vectors[:, i]) * strides[i]
            other = vectors[:, i] != u
            hit |= other & (stacked[which, moved] if stacked is not None else
                            np.array([masks[k][m] for k, m in zip(which.tolist(), moved.tolist())], dtype=bool))
        for u in np.unique(vectors[hit, i]).tolist():
            for it in ((i, None), (i, int(u))):
                if it in wanted:
                    out.add(it)
    return out


def _implicit(problem: Problem, items: list, ident, start: float, seconds: float | None) -> SupervisionFix:
    sets: set = set()
    for rounds in range(1, ROUNDS + 1):
        chosen = min_hitting_set(sets, items)
        left = None if seconds is None else seconds - (time.monotonic() - start)
        if left is not None and left <= 0:
            raise CountTimeout("the implicit hitting set ran out of time")
        r = _count(with_items(problem, chosen), left)
        if r.count == 1 and r.exact:
            return SupervisionFix(tuple(item_text(problem.task, it) for it in chosen), 1, True, True,
                                  f"implicit hitting set: {rounds} exact counts, {len(sets)} shortcuts", True)
        found = [m for m in r.maps(8, left) if m != ident]
        new = set(_kill_sets(problem, found, items)) - sets
        if not new or frozenset() in new:  # a shortcut no supervision removes, or no progress: let greedy say
            raise BackendError("no supervision removes every shortcut")
        sets |= new
    raise BackendError(f"no proof within {ROUNDS} rounds")


def _greedy(problem: Problem, items: list, count: int, seconds: float | None) -> SupervisionFix:
    """Add the item whose supervision leaves the smallest exact count, until 1 or no item helps."""
    start, chosen, current, exact, failed = time.monotonic(), [], count, True, None
    out_of_time = False
    while current > 1 and not out_of_time:
        best = None
        for it in items:
            if it in chosen:
                continue
            left = None if seconds is None else seconds - (time.monotonic() - start)
            if left is not None and left <= 0:
                out_of_time = True
                break
            try:
                r = _count(with_items(problem, chosen + [it]), left)
            except RscountError as exc:
                failed = failed or str(exc).split(";")[0]
                continue
            if best is None or r.count < best[1]:
                best = (it, r.count, r.exact)
        if out_of_time:
            break
        if best is None and failed:
            return SupervisionFix((), None, False, False, f"not found: no count under supervision could be had "
                                  f"({failed})", False)
        if best is None or best[1] >= current:
            break
        chosen.append(best[0])
        current, exact = best[1], exact and best[2]
    if out_of_time and current > 1:
        shown = f" after {len(chosen)} items" if chosen else ""
        return SupervisionFix(tuple(item_text(problem.task, it) for it in chosen), current if chosen else None,
                              exact, False, f"not found: the time ran out{shown} (each count under supervision is "
                              "slow here; raise timeout=)", False)
    return SupervisionFix(tuple(item_text(problem.task, it) for it in chosen), current, exact, False,
                          "greedy by exact counts (too many maps to prove a smallest set)", current == 1)


def _verified(problem: Problem, chosen: tuple, minimal: bool, method: str, seconds,
              listed: int | None = None) -> SupervisionFix:
    """The count under the chosen items: ``listed`` where every optimal map was listed (the maps the items
    leave), else counted afresh; where neither can be had, say so."""
    if listed is not None:
        count, exact = listed, True
    else:
        try:
            r = _count(with_items(problem, chosen), seconds)
            count, exact = r.count, r.exact
        except RscountError as exc:
            return SupervisionFix(tuple(item_text(problem.task, it) for it in chosen), None, False, False,
                                  f"{method}; no count under this supervision could be had ({str(exc)[:120]})",
                                  False)
    return SupervisionFix(tuple(item_text(problem.task, it) for it in chosen), count, exact,
                          minimal and exact, method if count == 1 else
                          method + f"; {short_count(count - 1)} shortcuts agree with the intended map wherever "
                          "supervision can see, so no supervision removes them", count == 1)


def _parts_fix(problem: Problem, parts: list, by: str, seconds) -> SupervisionFix:
    """Parts read disjoint concepts, so the union of each part's smallest set is a smallest set, and the count
    it leaves is the product of the parts' counts."""
    from ..planning.execute import count_problem
    from .maps import list_maps
    from .relation import LIST_LIMIT
    fixes = []
    for part in parts:
        r = count_problem(part, timeout=seconds)
        fixes.append(supervision_fix(part, r.count, list_maps(part, r, LIST_LIMIT, seconds), by=by, seconds=seconds))
    method = "per independent part: " + "; ".join(f"{p.task.name}: {f.method}" for p, f in zip(parts, fixes))
    items = tuple(i for f in fixes for i in f.items)
    if any(f.count is None for f in fixes):
        return SupervisionFix(items, None, False, False, method, False)
    count = math.prod(f.count for f in fixes)
    return SupervisionFix(items, count, all(f.exact for f in fixes), all(f.minimal for f in fixes), method,
                          count == 1)


# --- data ----------------------------------------------------------------------------------------------------

def data_fix(problem: Problem, count: int, maps: list | None, *, steps: int = 20, seed: int = 0,
             seconds: float | None = 30.0) -> DataFix:
    """Add, one at a time, the vector outside the support that removes the most optimal maps, recounting after
    each; stop at count 1, when no vector helps, or after ``steps`` vectors."""
    start = time.monotonic()
    task = problem.task
    floor = _floor(problem, seconds)
    if problem.support.exhaustive:
        return DataFix((), (), count == 1, count, "the support already holds every concept vector")
    if count == 1:
        return DataFix((), (), True, floor, "the count is already 1")
    if problem.map_class == "joint":
        return DataFix((), (), False, floor, "the joint class maps each vector on its own: a new vector adds its "
                       "own choices and removes none, so no data lowers the count")
    if floor is not None and floor > 1:
        why = (f"no data can reach 1: even the exhaustive support leaves {floor} optimal maps "
               + ("(a learned head absorbs renamings of the predicted values: supervise concepts)"
                  if problem.inference == "learned" else "(the knowledge itself has these symmetries)"))
    else:
        why = ""
    current, added, counts = problem, [], []
    complete_pool = maps is not None
    pool = [m for m in maps] if maps is not None else None
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        left = None if seconds is None else seconds - (time.monotonic() - start)
        if left is not None and left <= 0 or count == 1 or (floor is not None and count <= floor):
            break
        if pool is None:
            try:
                pool = list(_count(current, left).maps(POOL, left))
            except (BackendError, CountTimeout, MemoryError, NotImplementedError):
                break
        cand, every = _candidates(current, rng)
        if not len(cand):
            break
        labels = task.evaluate(cand)
        killed = np.zeros(len(cand), dtype=np.int64)
        for m in pool:
            killed += kills(m, current, cand, labels)
        best = int(np.argmax(killed))
        if killed[best] == 0:
            if complete_pool:
                if not every:
                    why = why or (f"none of {len(cand):,} vectors drawn outside the support (of "
                                  f"{short_count(task.space_size)}; half of them next to support vectors) "
                                  f"lowers the count: not every vector was tried")
                break  # every map left survives every vector tried
            pool = None  # the pool saw no difference; refresh it from the new problem once more
            continue
        x = cand[best]
        given = np.vstack([current.support.vectors, x[None, :]])
        current = dataclasses.replace(current, support=Support(given, f"{problem.support.kind} + {len(added) + 1}"))
        try:
            r = _count(current, None if seconds is None else seconds - (time.monotonic() - start))
        except (BackendError, CountTimeout, MemoryError) as exc:
            why = why or f"the count with one more vector did not finish ({str(exc).split(';')[0]})"
            break
        added.append(tuple(c.domain[u] for c, u in zip(task.concepts, x.tolist())))
        counts.append(r.count)
        count = r.count
        if pool is not None:
            keep = ~np.array([kills(m, current, x[None, :], labels[best:best + 1])[0] for m in pool])
            pool = [m for m, k in zip(pool, keep) if k]
            if not complete_pool:
                pool = None
    note = why or ("count 1 reached" if count == 1 else "no further vector lowers the count"
                   if len(added) < steps else f"stopped after {steps} vectors")
    return DataFix(tuple(added), tuple(counts), count == 1, floor, note)


def _floor(problem: Problem, seconds) -> int | None:
    """The count on the exhaustive support (the least any data can give), where it can be counted."""
    if problem.supervision.vectors:
        return None  # supervised rows are rows of this support; a bigger one would observe others
    full = dataclasses.replace(problem, support=exhaustive(problem.task))
    try:
        r = _count(full, seconds)
    except RscountError:
        return None
    return r.count if r.exact else None


def _candidates(problem: Problem, rng) -> tuple:
    """(vectors outside the support, whether they are all of them): all when few, else a seeded sample, half
    drawn uniformly and half support vectors with one concept changed (near the support, where labels vary:
    RAVEN's random puzzles almost all answer candidate 0)."""
    task = problem.task
    n = task.space_size
    have = set(map(tuple, problem.support.vectors.tolist()))
    if n <= CANDIDATES * 4:
        every = grid(task.sizes)
        return every[[tuple(r) not in have for r in every.tolist()]], True
    half = CANDIDATES // 2
    if n < 1 << 62:
        rows = grid(task.sizes, rng.choice(n, half))
    else:  # past numpy's integers (RAVEN: 3^48 vectors): each concept drawn on its own
        rows = np.stack([rng.integers(s, size=half) for s in task.sizes], axis=1)
    near = problem.support.vectors[rng.integers(problem.support.length, size=half)].copy()
    which = rng.integers(task.k, size=half)
    sizes = np.asarray(task.sizes)
    near[np.arange(half), which] = (near[np.arange(half), which] + 1 + rng.integers(1 << 30, size=half)
                                    % np.maximum(sizes[which] - 1, 1)) % sizes[which]
    rows = np.unique(np.vstack([rows, near]), axis=0)
    return np.array([r for r in rows.tolist() if tuple(r) not in have], dtype=np.int64).reshape(-1, task.k), False


# --- architecture and knowledge ------------------------------------------------------------------------------

JOINT_SPACE = 1 << 9  # the joint count is at most N^N: past 512 vectors it can exceed the 4,300 digits JSON may print


def class_counts(problem: Problem, seconds: float | None = 10.0, known=None, maps: list | None = None) -> dict:
    """The count under every map class (None with the reason where it cannot be had in time); ``known`` is the
    result already counted for the problem's own class, ``maps`` its optimal maps where all are listed (a
    narrower class's count is then those of its maps, counted without a new count)."""
    out, start = {}, time.monotonic()
    listed = known is not None and known.exact and maps is not None and len(maps) == known.count
    for cls in NARROWER.get(problem.map_class, ()) if listed else ():
        out[cls] = (sum(in_class(m, cls, problem.task) for m in maps), True, "")
    same = _same_as_complete(problem)
    # narrow classes first: they are quick where the wide ones may spend their whole share and fail
    todo = [c for c in NARROW_FIRST if c not in same]
    weight = {c: 1 + (c == "complete") * len(same) for c in todo}  # complete's count is also theirs
    for n, cls in enumerate(todo):
        share = weight[cls] / sum(weight[c] for c in todo[n:])
        left = None if seconds is None else max(seconds - (time.monotonic() - start), 0.0) * share
        if cls in out:
            continue
        if known is not None and cls == problem.map_class:
            out[cls] = (known.count, known.exact, "")
            continue
        if _lifted_apart(problem, cls):
            out[cls] = (None, False, "the tasks read different concepts, whose rows this class reads otherwise: "
                                     "count it with --map-class")
            continue
        if cls == "joint" and problem.task.space_size > JOINT_SPACE:
            out[cls] = (None, False, f"{_joint_size(problem)} maps: too many digits to write (over {JOINT_SPACE} "
                                     f"concept vectors)")
            continue
        try:
            r = _count(dataclasses.replace(problem, map_class=cls, task=for_class(problem.task, cls)), left)
            out[cls] = (r.count, r.exact, "")
        except RscountError as exc:
            out[cls] = (None, False, str(exc).split(";")[0])
    for cls in same:
        count, exact, why = out["complete"]
        out[cls] = (count, exact, why or "")
    if problem.inference == "knowledge" and not problem.parts:
        for cls, (count, exact, why) in list(out.items()):
            if count is None and cls in NARROWER:
                out[cls] = (None, False, class_bounds(problem, cls, out) + why)
    return {cls: out[cls] for cls in MAP_CLASSES}


def in_class(m, cls: str, task) -> bool:
    """Whether the map ``m`` (a :class:`~rscount.results.count.ConceptMap`) belongs to the map class ``cls``
    (one of the value-map classes narrower than free): the class's maps that are optimal are the wider class's
    optimal maps that belong to it."""
    readers = [{i for i, _ in row} for row in m.assign]
    if any(len(r) != 1 for r in readers):
        return False  # every class narrower than free sends all values of a concept to one concept
    targets = [min(r) for r in readers]
    if cls in ("complete", "permutation"):
        return cls == "complete" or len(set(targets)) == len(targets)
    if targets != list(range(len(targets))):
        return False
    if cls == "disentangled":
        return True
    shared = for_class(task, "shared")
    values = [tuple(v for _, v in row) for row in m.assign]
    return all(values[j] == values[shared.group_of(j)[0]] for j in range(len(values)))


NARROW_FIRST = ("shared", "disentangled", "complete", "permutation", "free", "joint")
NARROWER = {"free": ("complete", "permutation", "disentangled", "shared"), "complete": ("permutation",
            "disentangled", "shared"), "permutation": ("disentangled", "shared"), "disentangled": ("shared",)}


def class_bounds(problem: Problem, cls: str, counted: dict) -> str:
    """Where a class's count lies when it has none: the largest exact count of a class inside it (their maps are
    its maps) and the class's size; said as a prefix of the reason."""
    from ..counters.generic.bruteforce import number_of_candidates
    inner = [(counted[c][0], c) for c in NARROWER[cls] if c in counted and counted[c][0] is not None
             and counted[c][1]]
    high = number_of_candidates(dataclasses.replace(problem, map_class=cls, task=for_class(problem.task, cls)))
    if not inner:
        return f"at most {short_count(high)} (the class's size); "
    low, by = max(inner)
    return (f"between {short_count(low)} and {short_count(high)} (the {by} maps are {cls} maps; the class has "
            f"{short_count(high)}); ")


def _same_as_complete(problem: Problem) -> tuple:
    """Classes whose count is the complete class's (DESIGN.md): permutation always (a complete map that is not
    onto leaves a predicted concept with no value); free where the support is exhaustive (each predicted concept
    then reads all values of one concept). Not under a learned head, whose maps are read otherwise."""
    if problem.inference != "knowledge" or problem.parts:
        return ()
    return ("permutation",) + (("free",) if problem.support.exhaustive and not problem.supervision else ())


def _lifted_apart(problem: Problem, cls: str) -> bool:
    """Several tasks over different concepts: whether ``cls`` reads their rows otherwise than the problem's class
    (one filler value for the local classes, every value for the others: :mod:`rscount.problems.union`)."""
    from ..problems.union import LOCAL
    every = tuple(range(problem.task.k))
    return (any(part.concepts != every for part in problem.parts)
            and (cls in LOCAL) != (problem.map_class in LOCAL))


def _joint_size(problem: Problem) -> str:
    """'about 10^X' (or 'at least') for a joint count too large to write, from its log10 alone."""
    from ..counters.symmetry.closedform import joint_log10
    digits, exact = joint_log10(problem)
    return f"{'about' if exact else 'at least'} 10^{digits:,.0f}"


def label_subsets(problem: Problem, seconds: float | None = 10.0, most: int = 6) -> list:
    """(label names, count, exact, why not) for every proper non-empty subset of the labels, smallest subsets
    first. Joint counts past JOINT_SPACE vectors are given by their size alone (millions of digits each)."""
    task = problem.task
    n = len(task.labels)
    if n < 2 or n > most:
        return []
    out, start = [], time.monotonic()
    subsets = [c for size in range(1, n) for c in itertools.combinations(range(n), size)]
    for done, subset in enumerate(subsets):
        left = None if seconds is None else max(seconds - (time.monotonic() - start), 0.0) / (len(subsets) - done)
        names = tuple(task.labels[i].name for i in subset)
        sub = dataclasses.replace(task, labels=tuple(task.labels[i] for i in subset),
                                  name=f"{task.name}[{','.join(names)}]")
        if problem.map_class == "joint" and task.space_size > JOINT_SPACE:
            size = _joint_size(dataclasses.replace(problem, task=sub))
            out.append((names, None, False, f"{size} maps"))
            continue
        try:
            r = _count(dataclasses.replace(problem, task=sub), left)
            out.append((names, r.count, r.exact, ""))
        except RscountError as exc:
            out.append((names, None, False, str(exc).split(";")[0]))
    return out


def smallest_sufficient(subsets: list) -> list:
    """The smallest label subsets that already leave count 1."""
    ones = [s for s, c, exact, _ in subsets if c == 1 and exact]
    if not ones:
        return []
    least = min(len(s) for s in ones)
    return [s for s in ones if len(s) == least]
