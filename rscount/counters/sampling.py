"""(epsilon, delta) estimates shared by the counters that sample: bounds that add and multiply, the accuracy
asked of one count, and the stopping rule of Dagum, Karp, Luby and Ross (SIAM J. Comput. 29(5), 2000): draw
0/1 outcomes until ``Upsilon1`` successes; ``Upsilon1 / draws`` is within a factor ``1 +- eps`` of their mean
with probability at least ``1 - delta``, however small the mean (it only costs more draws).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ..errors import BackendError
from ..results.count import Tally
from .base import Deadline, check_accuracy

__all__ = ["Estimate", "Confidence", "stopping_rule", "tally", "MAX_BATCH", "MAX_DRAWS"]

MAX_BATCH = 1 << 16  # outcomes drawn at once
MAX_DRAWS = 1 << 24  # draws without the stopping rule's successes before giving up (the fraction is tiny or 0)


@dataclass(frozen=True)
class Estimate:
    """A count known within [lower, upper] (when every estimate behind it held): adds and multiplies like one."""

    value: Fraction
    lower: Fraction
    upper: Fraction

    @staticmethod
    def of(x) -> Estimate:
        return x if isinstance(x, Estimate) else Estimate(Fraction(x), Fraction(x), Fraction(x))

    def __add__(self, other) -> Estimate:
        o = Estimate.of(other)
        return Estimate(self.value + o.value, self.lower + o.lower, self.upper + o.upper)

    def __mul__(self, other) -> Estimate:  # counts are nonnegative: bounds multiply
        o = Estimate.of(other)
        return Estimate(self.value * o.value, self.lower * o.lower, self.upper * o.upper)

    __radd__ = __add__
    __rmul__ = __mul__

    def __bool__(self) -> bool:
        return self.value > 0


@dataclass
class Confidence:
    """The accuracy asked of the estimates of one count, and what they have used of it.

    The i-th estimate gets ``delta * 6 / (pi^2 i^2)``, so all of them hold at
    once with probability at least ``1 - delta`` however many there are.
    """

    epsilon: float
    delta: float
    seed: int = 1
    estimates: int = 0
    draws: int = 0
    rng: np.random.Generator = field(init=False, repr=False)

    def __post_init__(self):
        check_accuracy(self.epsilon, self.delta)
        self.rng = np.random.default_rng(self.seed)

    def next_delta(self) -> float:
        self.estimates += 1
        return self.delta * 6 / (math.pi ** 2 * self.estimates ** 2)

    def estimate(self, draw, scale: int, deadline: Deadline, **rule) -> Estimate:
        """``scale`` times the mean of ``draw``'s 0/1 outcomes, by the stopping rule with this count's next
        delta and an epsilon that keeps the bounds within a factor ``1 + epsilon`` (``rule``: stopping_rule's
        max_draws, who, advice)."""
        eps = self.epsilon / (1 + self.epsilon)
        mu, draws = stopping_rule(draw, eps, self.next_delta(), deadline, **rule)
        self.draws += draws
        value = scale * mu
        return Estimate(value, value / (1 + Fraction(eps)), value / (1 - Fraction(eps)))


def stopping_rule(draw, epsilon: float, delta: float, deadline: Deadline, max_draws: int | None = None,
                  who: str = "montecarlo", advice: str = "use backend=ganak or search") -> tuple:
    """(estimate of the mean, draws) of 0/1 outcomes from ``draw(n)`` (an array of n), within a factor
    ``1 +- epsilon`` of the mean with probability at least ``1 - delta`` (Dagum et al. 2000, 0 < epsilon < 1)."""
    upsilon1 = 1 + (1 + epsilon) * 4 * (math.e - 2) * math.log(2 / delta) / epsilon ** 2
    need = math.ceil(upsilon1)  # the sum of 0/1 outcomes reaches upsilon1 when it reaches its ceiling
    hits = draws = 0
    batch = 256
    while True:
        deadline.check()
        z = np.asarray(draw(batch), dtype=np.int64)
        total = np.cumsum(z)
        if hits + int(total[-1]) >= need:
            draws += int(np.searchsorted(total, need - hits)) + 1
            return Fraction(upsilon1) / draws, draws
        hits, draws = hits + int(total[-1]), draws + batch
        if draws >= (MAX_DRAWS if max_draws is None else max_draws):
            raise BackendError(f"{who}: {hits} of {draws} draws succeeded, too few for the stopping rule; "
                               f"the fraction to estimate is tiny or 0; {advice}")
        batch = min(batch * 2, MAX_BATCH)


def tally(total: Estimate, confidence: Confidence, what: str) -> Tally:
    """The Tally of an estimated count: rounded value, bounds, the epsilon they hold and a note saying what
    was sampled (``what``: the start of that note)."""
    eps = max(confidence.epsilon, float(total.upper / total.value) - 1, float(total.value / total.lower) - 1)
    note = (f"{what} ({confidence.draws} draws, Dagum-Karp-Luby-Ross stopping rule); the true count is within a "
            f"factor 1+{eps:.3g} of the estimate with probability >= {1 - confidence.delta:g}")
    return Tally(round(total.value), exact=False, lower=max(math.ceil(total.lower), 1),
                 upper=math.floor(total.upper), epsilon=eps, delta=confidence.delta, notes=(note,))
