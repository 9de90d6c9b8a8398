"""SAT enumeration with python-sat: block each model on the alpha variables."""
from __future__ import annotations

import threading
import time

from ...results.count import Tally
from ..base import Counter, Options, missing, run_isolated

SOLVER = "cadical153"
INTERRUPTIBLE = "glucose4"  # python-sat's CaDiCaL ignores interrupt(); Glucose stops when asked


def models(encoding, limit=None, deadline=None, interruptible: bool = False, on: tuple | None = None,
           name: str = SOLVER):
    """Yield the sets of true alpha variables of the optimal maps (with ``on``: the true ones of those
    variables, each set once, where they determine what matters and the rest is counted apart).

    ``name``: the SAT solver. A deadline is checked between models; ``interruptible`` also stops a long
    solve at the deadline (by solving with Glucose, which can be interrupted).
    """
    from pysat.solvers import Solver

    alpha = encoding.alpha if on is None else on
    end = getattr(deadline, "end", None) if interruptible else None
    with Solver(name=name if end is None else INTERRUPTIBLE, bootstrap_with=encoding.clauses) as solver:
        found = 0
        while limit is None or found < limit:
            if deadline is not None:
                deadline.check()
            if end is None:
                sat = solver.solve()
            else:
                timer = threading.Timer(max(end - time.monotonic(), 0.0), solver.interrupt)
                timer.start()
                sat = solver.solve_limited(expect_interrupt=True)
                timer.cancel()
                if sat is None:  # interrupted: the deadline has passed
                    deadline.check()
                    solver.clear_interrupt()
                    continue
            if not sat:
                return
            model = solver.get_model()
            true = frozenset(v for v in alpha if v <= len(model) and model[v - 1] > 0)
            yield true
            found += 1
            solver.add_clause([-v if v in true else v for v in alpha])


class Enumerate(Counter):
    name = "enumerate"
    inferences = ("knowledge", "learned")
    several = True
    needs_cnf = True

    def unavailable(self) -> str | None:
        return missing("pysat.solvers", "python-sat")

    def count(self, problem, encoding, options: Options) -> Tally:
        # in a child, as the other native counters: one CaDiCaL solve can outlast --timeout and ignores interrupt()
        n = run_isolated(lambda: sum(1 for _ in models(encoding)), self.name, options.timeout, options.memory_mb,
                         options.progress, options.cancel)
        return Tally(n)

    def enumerate(self, problem, encoding, limit):
        for true in models(encoding, limit):
            yield encoding.decode(true)


BACKEND = Enumerate()
