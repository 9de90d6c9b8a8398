"""The read concepts' own problem, where the counts prove it holds every optimal map of the whole design."""

from __future__ import annotations

from ..errors import RscountError
from ..problems.problem import Problem
from ..runtime.lazy import Recent, digest


def proven_read_part(problem: Problem, found: tuple, whole: int, seconds: float | None, times=1):
    """(the problem on the concepts some label reads, its exact count result, the unread concepts' names) where that
    count times the unread concepts' maps (``found``: their indices, that number) and ``times`` (an int or Fraction:
    what else the sub problem leaves out) equals ``whole``, the design's exact count. The family of maps giving the
    read concepts the read sources is counted exactly by that product and maps elsewhere would add to it, so it is
    every optimal map. None where the counts differ or the read part's count does not come."""
    from ..planning.execute import count_problem
    from ..problems.split import without_unread
    sub, factor, names = without_unread(problem, found)
    key = None if sub.parts else _key(sub)
    r = None if key is None else _COUNTED.get(key)
    if r is None:
        try:
            r = count_problem(sub, timeout=seconds)
        except RscountError:
            return None
        if key is not None:
            _COUNTED.update({key: r})
    return (sub, r, names) if r.exact and r.count * factor * times == whole else None


_COUNTED = Recent(8)  # the read parts' counts: an audit asks for the same one from its count and both fixes


def _key(problem: Problem) -> tuple:
    """What a problem's count depends on (its rows as a digest)."""
    return (problem.task, problem.map_class, problem.supervision, problem.inference,
            digest(problem.support.vectors) if problem.support.listed else problem.support.kind)
