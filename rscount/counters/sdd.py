"""Knowledge compilation to an SDD (pysdd), counted with Python integers.

PySDD's own ``model_count()`` wraps at 2^64, so the count is taken by a walk
over the SDD that multiplies exact Python ints. Every non-alpha variable of
the encoding is a gate determined by the alpha variables, so the count over
all variables equals the projected count.
"""
from __future__ import annotations

from ..errors import BackendError
from ..result import Tally
from .base import Options, run_isolated


def exact_model_count(node, total_vars: int) -> int:
    """Count the models of ``node`` over ``total_vars`` variables, with no overflow."""
    memo: dict = {}

    def size(vtree) -> int:
        return vtree.var_count()

    def over(x, nvars: int) -> int:
        if x.is_false():
            return 0
        if x.is_true():
            return 1 << nvars
        return own(x) << (nvars - size(x.vtree()))

    def own(x) -> int:
        if x.is_literal():
            return 1
        found = memo.get(x.id)
        if found is not None:
            return found
        v = x.vtree()
        left, right = size(v.left()), size(v.right())
        total = sum(over(p, left) * over(s, right) for p, s in x.elements())
        memo[x.id] = total
        return total

    return over(node, total_vars)


def compile_cnf(nvars: int, clauses):
    """Return (manager, node) for the conjunction of ``clauses``."""
    from pysdd.sdd import SddManager, Vtree

    vtree = Vtree(var_count=max(nvars, 1), vtree_type="balanced")
    mgr = SddManager.from_vtree(vtree)
    mgr.auto_gc_and_minimize_on()
    node = mgr.true()
    for clause in clauses:
        c = mgr.false()
        for lit in clause:
            c = c | mgr.literal(lit)
        node = node & c
        if node.is_false():
            break
    return mgr, node


class Sdd:
    name = "sdd"
    exact = True
    needs_cnf = True

    def unavailable(self) -> str | None:
        try:
            import pysdd.sdd  # noqa: F401
        except ImportError:
            return "pysdd is not installed (pip install pysdd)"
        return None

    def count(self, problem, encoding, options: Options) -> Tally:
        if self.unavailable():
            raise BackendError(self.unavailable())

        def work():
            mgr, node = compile_cnf(encoding.nvars, encoding.clauses)
            return exact_model_count(node, encoding.nvars)

        return Tally(run_isolated(work, self.name, options.timeout, options.memory_mb, options.progress))

    def enumerate(self, problem, encoding, limit):
        raise NotImplementedError


BACKEND = Sdd()
