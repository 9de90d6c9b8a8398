"""The confusion relation, with map counts, of a complete design that splits by sources (ConCon's tasks alone):
each optimal map is a set of sources for the read concepts, one of that set's few read-concept maps (listed by
SAT once per orbit of the sets under the support's object swaps, which carry maps onto maps), and any
bijection of the unread concepts onto the sources left with any value maps (counted in closed form), so each
cell is a sum over the sets, never a list of the 10^29 maps."""
from __future__ import annotations

import math
import time

import numpy as np

from ..counters import COUNTERS
from ..counters.base import Deadline, Options
from ..counters.search.listing import rectangle_maps
from ..counters.search.state import build_state
from ..problems.problem import Problem
from ..problems.sources import rectangle_on, source_split, splits_by_sources, unread_weight
from .maps import PairIndex

__all__ = ["counted_split", "orbit_maps", "weights_by_sources"]

MAX_LISTED = 50_000  # read-concept maps SAT lists over every source set (one per orbit of the blocks' tuples)
MAX_HELD = 400_000  # and those maps moved by the tuple permutations: past either this gives way to other methods


def weights_by_sources(problem: Problem, total: int, seconds: float | None = None) -> tuple | None:
    """(per concept, its (d, d) object array of map counts per (true, predicted) value pair; how many source sets
    and read-concept maps it took), for a complete problem with nothing supervised whose count ``total`` is the
    source split's (or a free one whose maps are complete ones: every value shown, concepts kept together); None
    where it is not one, a set has too many maps to list, or the sums disagree with ``total`` (a check, not a
    fallback path for wrong numbers). Raises CountTimeout past ``seconds``."""
    deadline = Deadline(seconds, "relation by source sets", "raise --timeout")
    counted = None if problem.supervision else counted_split(problem, seconds)
    if counted is None or counted[0].unshown != 1:
        return None  # free too where its maps keep concepts together and every value shows: then complete maps
    split, counts = counted
    held = orbit_maps(problem, split, counts, deadline)
    if held is None:
        return None
    task, G = problem.task, np.asarray(problem.support.vectors, dtype=np.int64)
    sizes, pairs = task.sizes, PairIndex(G, task.sizes)
    weights = [np.zeros((d, d), dtype=object) for d in sizes]
    avoiding: dict = {}
    sets, summed = 0, 0
    for count, mates in zip(counts, split.members):
        for T, each, R, p in mates if count else ():
            sets, summed = sets + 1, summed + count * each
            reads, values, ways = held[R]
            for i, j in enumerate(split.read):  # the read concepts: the pairs each map realises
                d, tally = sizes[j], np.zeros(sizes[j] ** 2, dtype=ways.dtype)
                for s in np.unique(reads[:, i]):
                    these = np.flatnonzero(reads[:, i] == s)
                    P = pairs.pairs(j, p[R[s]])
                    hit = np.zeros((len(these), d * d), dtype=bool)
                    hit[np.arange(len(these))[:, None], P[:, 0] * d + values[i][these][:, P[:, 1]]] = True
                    tally += ways[these] @ hit
                weights[j] += (tally.astype(object) * each).reshape(d, d)
            rest = tuple(s for s in range(task.k) if s not in T)
            for j in split.unread:  # the unread: every map but those whose value map avoids u on v's rows
                for v in np.flatnonzero(np.bincount(G[:, j], minlength=sizes[j])):
                    key = (rest, j, int(v))
                    if key not in avoiding:
                        avoiding[key] = _avoiding(split.unread, sizes, rest, pairs, j, int(v))
                    weights[j][v, :] += count * (each - avoiding[key])
            deadline.check()
    if summed != total:
        return None
    return weights, sets, sum(len(w) for _, _, w in held.values())


def counted_split(problem: Problem, seconds: float | None = None) -> tuple | None:
    """(the source split of ``problem``, each rectangle's count), counted within ``seconds`` (an audit's count
    keeps them: see :meth:`~rscount.counters.search.SearchCounter.rectangle_counts`); None where the problem does
    not split by sources. Raises BackendError (CountTimeout among them) where the counts do not come."""
    if not splits_by_sources(problem):
        return None
    start = time.monotonic()
    split = source_split(problem, Deadline(seconds, "source sets"))
    if split is None:
        return None
    left = None if seconds is None else seconds - (time.monotonic() - start)
    return split, COUNTERS["search"].rectangle_counts(split, Options(timeout=left))[0]


def orbit_maps(problem: Problem, split, counts: list, deadline) -> dict | None:
    """Per source set standing for an orbit (with maps: ``counts``, the split's rectangle counts), its read
    concepts' maps as :func:`_stacked` arrays, listed by SAT; the orbit's other sets have these maps carried by
    their permutation (``split.members``). None past MAX_LISTED maps listed or MAX_HELD held in all, or where a
    list does not add up to its rectangle's count."""
    orbits = {R: count for count, mates in zip(counts, split.members) for _, _, R, _ in mates if count}
    if sum(orbits.values()) > MAX_HELD:
        return None  # more maps to hold than the cap (each set's count bounds its list): say so without trying
    held, listed, width = {}, 0, max(problem.task.sizes)
    columns = np.ascontiguousarray(np.asarray(problem.support.vectors, dtype=np.int64).T)
    for R, count in orbits.items():
        rect = rectangle_on(problem, R, columns)
        tuples = build_state(rect).tuples  # the knowledge's swaps of read concepts: one map listed per orbit
        maps = rectangle_maps(rect, deadline, MAX_HELD, tuples)
        if maps is None or sum(ways for _, _, ways in maps) != count:
            return None
        listed += len(maps) // math.prod(math.factorial(len(block)) for block in tuples)
        if listed > MAX_LISTED:
            return None
        held[R] = _stacked(maps, width)
    return held


def _stacked(maps: list, width: int) -> tuple:
    """A rectangle's listed maps as arrays: (the source each read concept reads (M, m), per read concept its value
    maps (M, width), the maps each stands for (M,))."""
    reads = np.array([r for r, _, _ in maps], dtype=np.int64).reshape(len(maps), -1)
    values = [np.full((len(maps), width), -1, dtype=np.int64) for _ in range(reads.shape[1])]
    for n, (_, per_concept, _) in enumerate(maps):
        for i, f in enumerate(per_concept):
            values[i][n, :len(f)] = f
    ways = [w for _, _, w in maps]
    return reads, values, np.array(ways, dtype=np.int64 if max(ways, default=0) < 1 << 40 else object)


def _avoiding(unread: tuple, sizes: tuple, rest: tuple, pairs: PairIndex, j: int, v: int) -> int:
    """The unread concepts' bijections onto ``rest`` with value maps where unread concept ``j``'s map sends none of
    the values its source shows beside v (on the support) to one chosen u (which u does not matter)."""
    d = sizes[j]
    fits = []
    for s, width in enumerate(sizes):
        shown = int((pairs.pairs(j, s)[:, 0] == v).sum()) if s in rest else 0
        fits.append(d ** (width - shown) * (d - 1) ** shown)
    return unread_weight(unread, sizes, rest, sizes, {j: fits})
