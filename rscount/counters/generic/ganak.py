"""Exact projected model counting with Ganak (pyganak)."""
from __future__ import annotations

from ...results.count import Tally
from ..base import Counter, Options, missing, run_isolated

NOTE = ("ganak caches components by hash (probabilistic caching, no option to turn it off); "
        "the chance of a wrong count is astronomically small but not zero")


def count_cnf(nvars: int, clauses, projection, seed: int = 1) -> int:
    """Count the models of a CNF projected on ``projection`` (in this process)."""
    import pyganak
    counter = pyganak.Counter(seed=seed)
    counter.new_vars(nvars)
    counter.add_clauses([list(c) for c in clauses])
    counter.set_sampling_set(list(projection))
    return int(counter.count())


class Ganak(Counter):
    name = "ganak"
    inferences = ("knowledge", "learned")
    several = True
    needs_cnf = True

    def unavailable(self) -> str | None:
        return missing("pyganak", "pyganak")

    def count(self, problem, encoding, options: Options) -> Tally:
        n = run_isolated(lambda: count_cnf(encoding.nvars, encoding.clauses, encoding.alpha, options.seed),
                         self.name, options.timeout, options.memory_mb, options.progress,
                         options.cancel)
        return Tally(n, notes=(NOTE,))


BACKEND = Ganak()
