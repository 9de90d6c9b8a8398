"""Approximate projected counting with ApproxMC (pyapproxmc, pinned to a verified version).

pyapproxmc 4.3.x and 4.4.0 return wrong counts (x1 xor x2 gives 1, variables
in no clause are dropped); 4.1.24 is right on our regression cases.
"""
from __future__ import annotations

import math
from fractions import Fraction

from ...results.count import Tally
from ..base import Counter, Options, check_accuracy, run_isolated

VERIFIED = ("4.1.24",)


def _version() -> str | None:
    try:
        from importlib.metadata import version
        return version("pyapproxmc")
    except Exception:
        return None


def count_cnf(clauses, projection, epsilon: float, delta: float, seed: int = 1) -> int:
    """Estimate the models of a CNF projected on ``projection`` (in this process)."""
    import pyapproxmc
    counter = pyapproxmc.Counter(seed=seed, epsilon=epsilon, delta=delta)
    used = set()
    for clause in clauses:
        counter.add_clause(list(clause))
        used.update(abs(x) for x in clause)
    for v in projection:  # ApproxMC rejects (or drops) projection variables in no clause
        if v not in used:
            counter.add_clause([v, -v])
    cells, hashes = counter.count(list(projection))
    return int(cells) * (1 << int(hashes))


class ApproxMC(Counter):
    name = "approxmc"
    inferences = ("knowledge", "learned")
    several = True
    exact = False
    needs_cnf = True

    def unavailable(self) -> str | None:
        v = _version()
        if v is None:
            return "pyapproxmc is not installed (pip install pyapproxmc==4.1.24)"
        if v not in VERIFIED:
            return (f"pyapproxmc {v} is installed but gives wrong counts on known cases; "
                    f"install a verified version: pip install pyapproxmc=={VERIFIED[0]}")
        return None

    def count(self, problem, encoding, options: Options) -> Tally:
        eps, delta = options.epsilon, options.delta
        check_accuracy(eps, delta)

        est = run_isolated(lambda: count_cnf(encoding.clauses, encoding.alpha, eps, delta, options.seed),
                           self.name, options.timeout, options.memory_mb, options.progress,
                         options.cancel)
        factor = 1 + Fraction(eps)
        lower = math.ceil(Fraction(est) / factor)
        upper = math.floor(est * factor)
        note = f"ApproxMC estimate: within [count/(1+{eps}), count*(1+{eps})] with probability >= {1 - delta:g}"
        return Tally(est, exact=False, lower=max(lower, 1), upper=upper, epsilon=eps, delta=delta, notes=(note,))


BACKEND = ApproxMC()
