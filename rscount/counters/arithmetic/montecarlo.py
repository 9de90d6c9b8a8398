"""(epsilon, delta) estimates for systems whose disequations defeat exact counting.

A system of equations and disequations over vector-valued entries (from
:mod:`linear` and :mod:`product`) is counted exactly by elimination when the
partial sums merge. Disequations rarely let them merge: MNMath-B.1's
``c5 * c6 != c7 * c8`` rows leave millions of distinct partial sums. Without
the disequations the same elimination is small, so the count splits as
``N_eq * mu``: ``N_eq`` the exact number of solutions of the equations, and
``mu`` the fraction of them that keep every disequation. Solutions are drawn
uniformly (back through the elimination's merged states, weighted by how
many partial assignments reach each) and ``mu`` is estimated with the
stopping rule of Dagum, Karp, Luby and Ross (SIAM J. Comput. 29(5), 2000):
draw until ``Upsilon1`` successes; ``Upsilon1 / draws`` is within a factor
``1 +- eps'`` of ``mu`` with probability at least ``1 - delta``.
"""
from __future__ import annotations

import math

import numpy as np

from ...errors import BackendError
from .. import sampling
from ..base import Deadline
from .linear import TooManyStates, _components, _count_component, _keep, count_solved, solve_system

EXACT_CELLS = 1 << 22  # the exact elimination first tries with this much room, then the estimate takes over
EVERY = 1 << 14  # equations with at most this many solutions: check each one instead of sampling
MAX_DRAWS = sampling.MAX_DRAWS  # draws without the stopping rule's successes before giving up


class Confidence(sampling.Confidence):
    """:class:`sampling.Confidence` that also solves a system (the estimating twin of ``linear.count_system``)."""

    def solve(self, system, deadline: Deadline) -> tuple:
        return estimate_system(system, deadline, self)


class _Sampler:
    """Uniform draws of one component's solutions, back through the merged states of its elimination."""

    def __init__(self, trace: list):
        self.layers = []
        for col, parent, value, merged, before in reversed(trace):
            weights = before[parent]
            if sum(weights) >= 1 << 62:
                raise BackendError("montecarlo: too many partial solutions to draw from with 64-bit weights")
            order = np.argsort(merged, kind="stable")
            self.layers.append((col, parent[order], value[order], merged[order],
                                np.cumsum(weights[order].astype(np.int64))))

    def every(self, limit: int) -> dict | None:
        """Every solution (column -> value indices), walking the states forward; None past ``limit`` paths."""
        state, out = np.zeros(1, dtype=np.int64), {}
        for col, parent, value, merged, _ in reversed(self.layers):
            order = np.argsort(parent, kind="stable")
            start = np.searchsorted(parent[order], state, "left")
            counts = np.searchsorted(parent[order], state, "right") - start
            total = int(counts.sum())
            if total > limit:
                return None
            path = np.repeat(np.arange(len(state)), counts)
            pick = order[np.repeat(start, counts) + np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)]
            out = {c: v[path] for c, v in out.items()}
            out[col], state = value[pick], merged[pick]
        return out

    def draw(self, n: int, rng: np.random.Generator, out: dict) -> None:
        state = np.zeros(n, dtype=np.int64)
        for col, parent, value, merged, cum in self.layers:
            start = np.searchsorted(merged, state, "left")
            end = np.searchsorted(merged, state, "right")
            low = np.where(start > 0, cum[start - 1], 0)
            pick = np.searchsorted(cum, low + rng.integers(0, cum[end - 1] - low), "right")
            out[col], state = value[pick], parent[pick]


def estimate_system(system, deadline: Deadline, confidence: Confidence) -> tuple:
    """Like :func:`linear.count_system`, but where elimination cannot hold the disequations' partial sums, an
    :class:`Estimate` of the count: the equations' solutions counted exactly, the disequations sampled."""
    solved = solve_system(system, deadline)
    if solved is None:
        return None, 0
    domain, free, constraints = solved
    try:
        return count_solved(domain, free, constraints, deadline, max_cells=EXACT_CELLS), len(free)
    except TooManyStates:
        pass
    sampled = [con for con in constraints if con.op == "ne"]
    groups, closed = _components(free, [con for con in constraints if con.op != "ne"])
    if any(not _keep(con, con.const[None, :])[0] for con in closed + [c for c in sampled if not c.coeffs]):
        return 0, len(free)
    sampled = [con for con in sampled if con.coeffs]
    n_eq, samplers, uniform = 1, [], []
    for cols, cons in groups:
        if not cons:
            n_eq *= math.prod(len(domain[c]) for c in cols)
            uniform.extend(cols)
            continue
        trace: list = []
        n_eq *= _count_component(cols, cons, domain, deadline, trace=trace)
        if n_eq == 0:
            return 0, len(free)
        samplers.append(_Sampler(trace))
    rng = confidence.rng

    def keeps(picked: dict, n: int) -> np.ndarray:
        ok = np.ones(n, dtype=bool)
        for con in sampled:
            total = np.broadcast_to(con.const, (n, len(con.const))).copy()
            for c, a in con.coeffs.items():
                total += a * domain[c][picked[c]]
            ok &= (total != 0).any(axis=1)
        return ok

    if n_eq <= EVERY:
        every = _every(samplers, uniform, domain)
        if every is not None:
            return int(keeps(every, n_eq).sum()), len(free)

    def draw(n: int) -> np.ndarray:
        picked: dict = {}
        for sampler in samplers:
            sampler.draw(n, rng, picked)
        for c in uniform:
            picked[c] = rng.integers(0, len(domain[c]), n)
        return keeps(picked, n)

    return confidence.estimate(draw, n_eq, deadline, max_draws=MAX_DRAWS), len(free)


def _every(samplers: list, uniform: list, domain: list) -> dict | None:
    """Every solution of the equations (column -> value indices): the components' solutions crossed."""
    parts = [s.every(EVERY << 6) for s in samplers]
    if any(part is None for part in parts):
        return None
    parts += [{c: np.arange(len(domain[c]))} for c in uniform]
    out: dict = {}
    size = 1
    for part in parts:
        m = len(next(iter(part.values())))
        out = {c: np.repeat(v, m) for c, v in out.items()}
        out.update({c: np.tile(v, size) for c, v in part.items()})
        size *= m
    return out
