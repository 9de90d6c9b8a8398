"""``--approx`` for arithmetic knowledge: exact where elimination finishes, sampled where it does not.

The :mod:`linear`, :mod:`product` and :mod:`arithmetic` counters run as
usual; a system whose disequations are too many to eliminate is estimated
by :mod:`montecarlo` (its equations counted exactly, the disequations
sampled), and the estimates add and multiply as intervals. The result is
exact when nothing had to be sampled.
"""
from __future__ import annotations

from ...errors import BackendError
from ...results.count import Tally
from .. import sampling
from ..base import Counter, Deadline, Options, small_first
from ..sampling import Estimate
from . import elimination, linear, product
from .montecarlo import Confidence


def _solve(problem, deadline: Deadline, confidence: Confidence):
    if elimination.applies(problem):
        return elimination.count_complete(problem, deadline, confidence)[0]
    if linear.applies(problem):
        return linear.count_linear(problem, deadline, confidence=confidence)[0]
    return product.count_product(problem, deadline, confidence=confidence)[0]


class EstimateCounter(Counter):
    """(epsilon, delta) estimates for labels linear in integer concepts or comparing products of them."""

    name = "estimate"
    exact = False

    def applies(self, problem) -> bool:
        return elimination.applies(problem) or linear.applies(problem) or product.applies(problem)

    def count(self, problem, encoding, options: Options) -> Tally:
        if not self.applies(problem):
            raise BackendError("estimate applies to labels linear in integer concepts or comparing products of "
                               "them; use backend=approxmc")

        def solve(deadline: Deadline) -> tuple:
            confidence = Confidence(options.epsilon, options.delta, options.seed)
            return _solve(problem, deadline, confidence), confidence

        (total, used), _ = small_first(solve, problem.support.length, self.name, options,
                                       "raise timeout= or loosen epsilon= / delta=")
        if total is None:
            raise BackendError("estimate: the support's equations have no solution, yet the identity solves them; "
                               "please report this")
        if not isinstance(total, Estimate):
            return Tally(int(total), notes=("estimate: every part was counted exactly by elimination",))
        return sampling.tally(total, used, f"estimate: {used.estimates} systems too large to eliminate were sampled "
                                           f"(uniform solutions of their equations)")


BACKEND = EstimateCounter()
