"""Knowledge compilation to an SDD over the alpha variables (pysdd), counted exactly.

The SDD is built by apply operations: each gate of the encoding becomes the
SDD of its function of the alpha variables (no auxiliary SDD variables), and
the constraint clauses are conjoined. PySDD's own ``model_count()`` wraps at
2^64, so the count is a walk over the SDD that multiplies Python integers.
"""
from __future__ import annotations

from ..result import Tally
from .base import Options, missing, run_isolated


def exact_model_count(node, total_vars: int) -> int:
    """Count the models of ``node`` over ``total_vars`` variables, with no overflow."""
    memo: dict = {}

    def over(x, nvars: int) -> int:
        if x.is_false():
            return 0
        if x.is_true():
            return 1 << nvars
        return own(x) << (nvars - x.vtree().var_count())

    def own(x) -> int:
        if x.is_literal():
            return 1
        found = memo.get(x.id)
        if found is not None:
            return found
        v = x.vtree()
        left, right = v.left().var_count(), v.right().var_count()
        total = sum(over(p, left) * over(s, right) for p, s in x.elements())
        memo[x.id] = total
        return total

    return over(node, total_vars)


def compile_encoding(encoding):
    """Return (manager, node): the SDD of the optimal maps over the alpha variables."""
    from pysdd.sdd import SddManager, Vtree

    m = len(encoding.alpha)
    mgr = SddManager.from_vtree(Vtree(var_count=m, vtree_type="balanced"))
    sdd: dict = {}

    def lit(x: int):
        v = abs(x)
        if v <= m:
            node = mgr.literal(v)
        else:
            node = sdd.get(v)
            if node is None:
                node = gate(v)
        return node if x > 0 else ~node

    def gate(v: int):
        stack = [v]
        while stack:  # children first, without recursion
            top = stack[-1]
            op, children = encoding.gates[top]
            todo = [abs(c) for c in children if abs(c) > m and abs(c) not in sdd]
            if todo:
                stack.extend(todo)
                continue
            stack.pop()
            kids = [lit(c) for c in children]
            node = kids[0]
            for k in kids[1:]:
                node = (node & k) if op == "and" else ((node & ~k) | (~node & k))
            sdd[top] = node
        return sdd[v]

    root = mgr.true()
    for clause in encoding.constraints:
        c = mgr.false()
        for x in clause:
            c = c | lit(x)
        root = root & c
        if root.is_false():
            break
    return mgr, root


class Sdd:
    name = "sdd"
    exact = True
    needs_cnf = True

    def unavailable(self) -> str | None:
        return missing("pysdd.sdd", "pysdd")

    def count(self, problem, encoding, options: Options) -> Tally:

        def work():
            mgr, node = compile_encoding(encoding)
            return exact_model_count(node, len(encoding.alpha))

        return Tally(run_isolated(work, self.name, options.timeout, options.memory_mb, options.progress))

    def enumerate(self, problem, encoding, limit):
        raise NotImplementedError


BACKEND = Sdd()
