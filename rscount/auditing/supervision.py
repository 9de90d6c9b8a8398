"""The cheapest supervision: the fewest items (concept values, or whole concepts) whose supervision leaves one map.

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
import math
import time
from dataclasses import dataclass

import numpy as np

from ..errors import BackendError, CountTimeout, RscountError
from ..problems.problem import Problem, Supervision
from ..results.count import short_count
from .maps import identity

__all__ = ["SupervisionFix", "supervision_fix", "with_items", "item_text", "count_within"]

ROUNDS = 40  # implicit hitting set rounds before the greedy choice takes over


@dataclass(frozen=True)
class SupervisionFix:
    """A set of supervision items and the exact count it leads to."""

    items: tuple  # "name=value" or "name"
    count: int | None  # None where no count under supervision could be had
    exact: bool
    minimal: bool
    method: str
    reaches_one: bool


def item_text(task, item: tuple) -> str:
    i, u = item
    c = task.concepts[i]
    return c.name if u is None else f"{c.name}={c.domain[u]}"


def with_items(problem: Problem, items) -> Problem:
    """``problem`` with the supervision items (concept index, value index or None) added."""
    sup = problem.supervision
    merged = tuple(sorted(set(sup.concepts) | set(items), key=lambda p: (p[0], -1 if p[1] is None else p[1])))
    return dataclasses.replace(problem, supervision=Supervision(sup.vectors, merged))


def count_within(problem: Problem, seconds: float | None):
    """The count of ``problem`` within ``seconds`` (at least half a second; None: no limit)."""
    from ..planning.execute import count_problem
    return count_problem(problem, timeout=None if seconds is None else max(seconds, 0.5))


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
    return [(i, u) for i, u in items if i not in task.read and task.sizes[i] > 1]


def _after_unread(problem: Problem, forced: list, by: str, seconds) -> SupervisionFix:
    """The items on unread concepts (each needed: :func:`_unread_items`), then a smallest fix of the read concepts
    under them: together a smallest fix where that one is."""
    start = time.monotonic()
    base = with_items(problem, forced)
    names = tuple(item_text(problem.task, it) for it in forced)
    why = f"{len(forced)} items on concepts no label reads, each needed (a map moving that value alone keeps " \
          f"every label)"
    try:
        r = count_within(base, seconds)
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
    count on their projected rows times the maps of the values no row shows (which change no label and no
    supervised item), the unread concepts are pinned and the read ones read their own sources, so a smallest fix
    of that smaller problem (its maps listed) is one of ``base``, leaving that many times its count. None where
    the counts differ."""
    from fractions import Fraction

    from .maps import list_maps
    from .readpart import proven_read_part
    from .relation import LIST_LIMIT, _seen
    unread = sorted({i for i, _ in forced})
    read = [i for i in range(base.task.k) if i not in unread]
    seen, sizes = _seen(base), base.task.sizes
    if base.map_class == "free":  # an unshown value goes to any predicted value: the sub problem's own such maps
        hidden = [int((~seen[i]).sum()) for i in range(base.task.k)]  # are over the read concepts' values alone
        unshown = Fraction(sum(sizes) ** sum(hidden), sum(sizes[i] for i in read) ** sum(hidden[i] for i in read))
    else:
        unshown = Fraction(math.prod(sizes[i] ** int((~seen[i]).sum()) for i in unread))
    bare = dataclasses.replace(base, supervision=Supervision(frozenset(), tuple(
        it for it in base.supervision.concepts if it[0] not in unread)))
    proven = proven_read_part(bare, (unread, 1), result.count, seconds, times=unshown, counted=base)
    if proven is None:
        return None
    sub, r, _ = proven
    fix = supervision_fix(sub, r.count, list_maps(sub, r, LIST_LIMIT, seconds), by=by, seconds=seconds)
    if fix.count is None or unshown == 1:
        return fix
    scaled = fix.count * unshown
    if scaled.denominator != 1:
        return None
    times = f"the {short_count(int(unshown))} maps" if unshown.denominator == 1 else \
        f"{unshown.numerator:,}/{unshown.denominator:,} for the maps"
    return dataclasses.replace(fix, count=int(scaled), reaches_one=False,
                               method=f"{fix.method}; times {times} of the values no vector shows")


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
        return _greedy(problem, items, count_within(problem, seconds).count, seconds)
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


MAX_FLOOR = 4096  # maps no supervision removes that the implicit hitting set lists past, to find removable ones


def _implicit(problem: Problem, items: list, ident, start: float, seconds: float | None) -> SupervisionFix:
    """Smallest sets for the shortcuts seen so far, each checked by an exact count. Where some shortcut gets no
    item wrong (it differs from the intended map only on values no vector shows), no supervision leaves 1: the
    target is then the floor, the count with every item supervised, which exactly the fixes reach."""
    sets: set = set()
    floor, want = None, 8
    for rounds in range(1, ROUNDS + 1):
        chosen = min_hitting_set(sets, items)
        left = None if seconds is None else seconds - (time.monotonic() - start)
        if left is not None and left <= 0:
            raise CountTimeout("the implicit hitting set ran out of time")
        r = count_within(with_items(problem, chosen), left)
        names = tuple(item_text(problem.task, it) for it in chosen)
        if r.exact and r.count in (1, floor):
            method = f"implicit hitting set: {rounds} exact counts, {len(sets)} shortcuts"
            if r.count == 1:
                return SupervisionFix(names, 1, True, True, method, True)
            return SupervisionFix(names, r.count, True, True, f"{method}; {_floor_why(r.count)}", False)
        kills = _kill_sets(problem, [m for m in r.maps(want, left) if m != ident], items)
        if frozenset() in kills and floor is None:  # a shortcut no supervision removes: find the floor
            whole = count_within(with_items(problem, items), left)
            if not whole.exact or whole.count > MAX_FLOOR:
                raise BackendError("no supervision removes every shortcut")
            floor, want = whole.count, whole.count + 8  # past the floor's maps, some removable ones are listed
            if r.count == floor:
                return SupervisionFix(names, floor, True, True, f"implicit hitting set: {rounds} exact counts, "
                                      f"{len(sets)} shortcuts; {_floor_why(floor)}", False)
            kills = _kill_sets(problem, [m for m in r.maps(want, left) if m != ident], items)
        new = {s for s in kills if s} - sets
        if not new:  # no progress: let greedy say
            raise BackendError("no supervision removes every shortcut")
        sets |= new
    raise BackendError(f"no proof within {ROUNDS} rounds")


def _floor_why(floor: int) -> str:
    return (f"no supervision leaves fewer than {short_count(floor)}: every item supervised leaves them too (they "
            f"differ from the intended map only on values no vector shows)")


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
                r = count_within(with_items(problem, chosen + [it]), left)
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
            r = count_within(with_items(problem, chosen), seconds)
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
