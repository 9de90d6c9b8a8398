"""The read concepts' own problem, where the counts prove it holds every optimal map of the whole design."""

from __future__ import annotations

from ..counters import COUNTERS
from ..counters.base import Deadline
from ..errors import RscountError
from ..problems.problem import Problem
from ..problems.sources import source_split, splits_by_sources
from ..runtime.lazy import Recent


def proven_read_part(problem: Problem, found: tuple, whole: int, seconds: float | None, times=1,
                     counted: Problem | None = None):
    """(the problem on the concepts some label reads, its exact count result, the unread concepts' names) where that
    count times the unread concepts' maps (``found``: their indices, that number) and ``times`` (an int or Fraction:
    what else the sub problem leaves out) equals ``whole``, the design's exact count. The family of maps giving the
    read concepts the read sources is counted exactly by that product and maps elsewhere would add to it, so it is
    every optimal map. None where the counts differ or the read part's count does not come, or at once where
    the counts kept from ``counted``'s own (the problem ``whole`` counts; default ``problem``) show maps on other
    sources."""
    from ..planning.execute import count_problem
    from ..problems.split import without_unread
    if other_sources_hold_maps(counted or problem):
        return None
    sub, factor, names = without_unread(problem, found)
    key = sub.key
    r = None if key is None else _COUNTED.get(key)
    if r is None:
        try:
            r = count_problem(sub, timeout=seconds)
        except RscountError:
            return None
        if key is not None:
            _COUNTED.update({key: r})
    return (sub, r, names) if r.exact and r.count * factor * times == whole else None


def other_sources_hold_maps(problem: Problem) -> bool:
    """Whether the counts kept from ``problem``'s count (a sum over source sets) give maps to a set of sources other
    than the read concepts: then no read part holds every optimal map, and counting it (79 s on ConCon task 3
    at 4 objects) proves nothing. False where that is not known without counting."""
    if not splits_by_sources(problem):
        return False
    try:
        split = source_split(problem, Deadline(OTHER_SOURCES_SECONDS, "sources"))
    except RscountError:
        return False
    counts = None if split is None else COUNTERS["search"].kept_counts(split)
    read = tuple(sorted(problem.task.read))
    return counts is not None and any(c and any(T != read for T, *_ in m) for c, m in zip(counts, split.members))


OTHER_SOURCES_SECONDS = 10.0  # finding the source sets again (kept: seconds at most) before the read part is counted
_COUNTED = Recent(8)  # the read parts' counts: an audit asks for the same one from its count and both fixes

