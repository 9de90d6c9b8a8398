"""The confusion relation, with map counts, of a complete design that splits by sources (ConCon's tasks alone):
each optimal map is a set of sources for the read concepts, one of that set's few read-concept maps (listed by
SAT, once per orbit of the sets under the support's object swaps, which carry maps onto maps), and any bijection of the unread concepts onto the sources left with any value maps (counted in closed
form), so each cell is a sum over the sets, never a list of the 10^29 maps."""
from __future__ import annotations

import time

import numpy as np

from ..counters import COUNTERS
from ..counters.base import Deadline, Options
from ..counters.search.listing import rectangle_maps
from ..problems.problem import Problem
from ..problems.sources import rectangle_on, source_split, splits_by_sources, unread_weight
from .maps import PairIndex

__all__ = ["weights_by_sources"]

MAX_LISTED = 50_000  # read-concept maps listed over every source set before this gives way to the other methods


def weights_by_sources(problem: Problem, total: int, seconds: float | None = None) -> tuple | None:
    """(per concept, its (d, d) object array of map counts per (true, predicted) value pair; how many source sets
    and read-concept maps it took), for a complete problem with nothing supervised whose count ``total`` is the
    source split's (or a free one whose maps are complete ones: every value shown, concepts kept together); None
    where it is not one, a set has too many maps to list, or the sums disagree with ``total`` (a check, not a
    fallback path for wrong numbers). Raises CountTimeout past ``seconds``."""
    if problem.supervision or not splits_by_sources(problem):
        return None  # free too where its maps keep concepts together and every value shows: then complete maps
    start = time.monotonic()
    deadline = Deadline(seconds, "relation by source sets", "raise --timeout")
    split = source_split(problem, deadline)
    if split is None or split.unshown != 1:
        return None
    left = None if seconds is None else seconds - (time.monotonic() - start)
    counts = COUNTERS["search"].rectangle_counts(split, Options(timeout=left))[0]
    task, G = problem.task, np.asarray(problem.support.vectors, dtype=np.int64)
    sizes, pairs = task.sizes, PairIndex(G, task.sizes)
    weights = [np.zeros((d, d), dtype=object) for d in sizes]
    avoiding: dict = {}
    listed, sets, summed, held = 0, 0, 0, {}
    for count, mates in zip(counts, split.members):
        for T, each, R, p in mates if count else ():
            if R not in held:  # one listing per orbit: its other sets' maps are these, carried by p
                maps = rectangle_maps(rectangle_on(problem, R), deadline, MAX_LISTED - listed)
                if maps is None or sum(ways for _, _, ways in maps) != count:
                    return None
                held[R] = maps
                listed += len(maps)
            sets, summed = sets + 1, summed + count * each
            tally = [np.zeros(sizes[j] ** 2, dtype=np.int64) for j in split.read]  # maps of R realising each pair
            for reads, values, ways in held[R]:  # the read concepts: the pairs each map realises
                for i, j in enumerate(split.read):
                    P = pairs.pairs(j, p[R[reads[i]]])
                    tally[i][np.unique(P[:, 0] * sizes[j] + values[i][P[:, 1]])] += ways
            for i, j in enumerate(split.read):
                weights[j] += (tally[i].astype(object) * each).reshape(sizes[j], sizes[j])
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
    return weights, sets, listed


def _avoiding(unread: tuple, sizes: tuple, rest: tuple, pairs: PairIndex, j: int, v: int) -> int:
    """The unread concepts' bijections onto ``rest`` with value maps where unread concept ``j``'s map sends none of
    the values its source shows beside v (on the support) to one chosen u (which u does not matter)."""
    d = sizes[j]
    fits = []
    for s, width in enumerate(sizes):
        shown = int((pairs.pairs(j, s)[:, 0] == v).sum()) if s in rest else 0
        fits.append(d ** (width - shown) * (d - 1) ** shown)
    return unread_weight(unread, sizes, rest, sizes, {j: fits})
