"""Exact projected model counting with Ganak (pyganak)."""
from __future__ import annotations

from ..errors import BackendError
from ..result import Tally
from .base import Options, run_isolated

NOTE = ("ganak caches components by hash (probabilistic caching, no option to turn it off); "
        "the chance of a wrong count is astronomically small but not zero")


class Ganak:
    name = "ganak"
    exact = True
    needs_cnf = True

    def unavailable(self) -> str | None:
        try:
            import pyganak  # noqa: F401
        except ImportError:
            return "pyganak is not installed (pip install pyganak)"
        return None

    def count(self, problem, encoding, options: Options) -> Tally:
        if self.unavailable():
            raise BackendError(self.unavailable())

        def work():
            import pyganak
            counter = pyganak.Counter(seed=options.seed)
            counter.new_vars(encoding.nvars)
            counter.add_clauses([list(c) for c in encoding.clauses])
            counter.set_sampling_set(list(encoding.alpha))
            return int(counter.count())

        n = run_isolated(work, self.name, options.timeout, options.memory_mb, options.progress)
        return Tally(n, notes=(NOTE,))

    def enumerate(self, problem, encoding, limit):
        raise NotImplementedError


BACKEND = Ganak()
