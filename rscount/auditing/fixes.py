"""Fixes other than supervision, each a problem counted by the same counters: more data, another extractor
(the class table), fewer labels.
"""
from __future__ import annotations

import dataclasses
import itertools
import time
from dataclasses import dataclass

import numpy as np

from ..errors import BackendError, CountTimeout, RscountError
from ..model.support import Support, exhaustive, grid
from ..problems.problem import MAP_CLASSES, Problem, for_class
from ..results.count import short_count
from .breaking import breaking_weights, killing_weights
from .bysources import counted_split
from .maps import kill_counts, kills
from .supervision import count_within

__all__ = ["DataFix", "data_fix", "class_counts", "label_subsets"]

CANDIDATES = 4096  # vectors outside the support scored per data step (all of them where there are fewer)
POOL = 2000  # optimal maps held to score candidate vectors when not all are listed
FRUITLESS = 3  # draws of candidate vectors that remove none of the maps held before the data fix stops


@dataclass(frozen=True)
class DataFix:
    """Vectors to add to the support, greedily, with the count after each one."""

    vectors: tuple  # value tuples, as the task names them
    counts: tuple  # the count after adding each vector in turn
    reaches_one: bool
    floor: int | None  # the count on the exhaustive support: no data gets below it
    note: str


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
    why = ""  # why the fix stopped short, where it did
    if floor is not None and floor > 1:
        least = (f"no data can reach 1: even the exhaustive support leaves {floor} optimal maps "
                 + ("(a learned head absorbs renamings of the predicted values: supervise concepts)"
                    if problem.inference == "learned" else "(the knowledge itself has these symmetries)"))
    else:
        least = ""
    current, added, counts = problem, [], []
    complete_pool = maps is not None
    pool = [m for m in maps] if maps is not None else None
    rng = np.random.default_rng(seed)
    fruitless = 0  # draws in a row that removed no map held
    for _ in range(steps):
        left = None if seconds is None else seconds - (time.monotonic() - start)
        if left is not None and left <= 0 or count == 1 or (floor is not None and count <= floor):
            break
        cand, every = _candidates(current, rng)
        if not len(cand):
            break
        labels = task.evaluate(cand)
        try:
            counted = None if complete_pool else counted_split(current, left)
        except (BackendError, MemoryError):  # a timeout is one
            counted = None
        broken = None if counted is None else breaking_weights(current, counted, cand, labels)
        if broken is not None and not broken.max() > 0:  # no set falls: each set's maps checked one by one
            left = None if seconds is None else seconds - (time.monotonic() - start)
            broken = killing_weights(current, counted, cand, labels, left)
            if broken is not None and not broken.max() > 0:  # every map was checked: none of these removes one
                fruitless += 1
                if fruitless >= FRUITLESS:
                    why = (f"none of {fruitless * len(cand):,} vectors drawn outside the support removes an optimal "
                           f"map (each checked against every map, on the values the support shows)")
                    break
                continue
        if broken is not None and broken.max() > 0:  # the vector removing the most maps
            best = int(np.argmax(broken))
        else:
            if pool is None:
                try:
                    pool = list(count_within(current, left).maps(POOL, left))
                except (BackendError, CountTimeout, MemoryError, NotImplementedError) as exc:
                    why = f"the optimal maps to score vectors against could not be listed ({str(exc).split(';')[0]})"
                    break
            killed = kill_counts(pool, current, cand, labels)
            best = int(np.argmax(killed))
            if killed[best] == 0:
                fruitless += 1
                if complete_pool or every or fruitless >= FRUITLESS:
                    tried = (f"the {len(cand):,} vectors outside the support" if every else
                             f"{fruitless * len(cand):,} vectors drawn outside the support (of "
                             f"{short_count(task.space_size)}; half of them next to support vectors)")
                    if not complete_pool:
                        why = (f"none of {tried} removes any of the {len(pool):,} optimal maps held (a sample "
                               f"of the {short_count(count)}; a vector may still remove others)")
                    elif not every:
                        why = f"none of {tried} lowers the count: not every vector was tried"
                    break  # every map held survives every vector tried
                continue  # the same problem and maps: draw other vectors
        fruitless = 0
        x = cand[best]
        given = np.vstack([current.support.vectors, x[None, :]])
        current = dataclasses.replace(current, support=Support(given, f"{problem.support.kind} + {len(added) + 1}"))
        try:
            r = count_within(current, None if seconds is None else seconds - (time.monotonic() - start))
        except (BackendError, CountTimeout, MemoryError) as exc:
            why = f"the count with one more vector did not finish ({str(exc).split(';')[0]})"
            break
        added.append(tuple(c.domain[u] for c, u in zip(task.concepts, x.tolist())))
        counts.append(r.count)
        count = r.count
        if pool is not None:
            keep = ~np.array([kills(m, current, x[None, :], labels[best:best + 1])[0] for m in pool])
            pool = [m for m, k in zip(pool, keep) if k]
            if not complete_pool:
                pool = None
    if count == 1:
        stop = "count 1 reached"
    elif floor is not None and count <= floor:
        stop = ""  # ``least`` says it: no data gets below the exhaustive support's count
    elif why:
        stop = why
    elif len(added) >= steps:
        stop = f"stopped after {steps} vectors"
    elif seconds is not None and time.monotonic() - start >= seconds:
        stop = f"the data fix's {seconds:g} s ran out"
    else:
        stop = "no further vector lowers the count"
    note = "; ".join(n for n in (least, stop) if n)
    return DataFix(tuple(added), tuple(counts), count == 1, floor, note)


def _floor(problem: Problem, seconds) -> int | None:
    """The count on the exhaustive support (the least any data can give), where it can be counted."""
    if problem.supervision.vectors:
        return None  # supervised rows are rows of this support; a bigger one would observe others
    full = dataclasses.replace(problem, support=exhaustive(problem.task))
    try:
        r = count_within(full, seconds)
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
            r = count_within(dataclasses.replace(problem, map_class=cls, task=for_class(problem.task, cls)), left)
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
            r = count_within(dataclasses.replace(problem, task=sub), left)
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
