"""Knowledge compilation to an SDD over the alpha variables (pysdd), counted exactly.

The SDD is built by apply operations: each gate of the encoding becomes the
SDD of its function of the alpha variables (no auxiliary SDD variables), and
the constraint clauses are conjoined. PySDD's own ``model_count()`` wraps at
2^64, so the count is a walk over the SDD that multiplies Python integers.
"""
from __future__ import annotations

from ...errors import BackendError
from ...language.circuit import FALSE, TRUE
from ...results.count import Tally
from ..base import Counter, Options, missing, run_isolated


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


class _GateSdds:
    """SDDs of circuit gates, built children first by apply operations (no auxiliary variables)."""

    def __init__(self, mgr, defs: dict, leaves: dict):
        self.mgr, self.defs, self.nodes = mgr, defs, dict(leaves)

    def __call__(self, lit: int):
        if lit == TRUE:
            return self.mgr.true()
        if lit == FALSE:
            return self.mgr.false()
        v = abs(lit)
        if v not in self.nodes:
            self._build(v)
        return self.nodes[v] if lit > 0 else ~self.nodes[v]

    def _build(self, v: int) -> None:
        stack = [v]
        while stack:
            top = stack[-1]
            op, children = self.defs[top]
            todo = [abs(c) for c in children if abs(c) not in self.nodes]
            if todo:
                stack.extend(todo)
                continue
            stack.pop()
            kids = [self(c) for c in children]
            node = kids[0]
            for k in kids[1:]:
                node = (node & k) if op == "and" else ((node & ~k) | (~node & k))
            self.nodes[top] = node


def _exactly_one(mgr, nodes: list):
    none_yet, one = mgr.true(), mgr.false()
    for x in nodes:
        one = (one & ~x) | (none_yet & x)
        none_yet = none_yet & ~x
    return one


def compile_encoding(encoding):
    """Return (manager, node): the SDD of the optimal maps over the alpha variables."""
    from pysdd.sdd import SddManager, Vtree

    m = len(encoding.alpha)
    mgr = SddManager.from_vtree(Vtree(var_count=m, vtree_type="balanced"))
    lit = _GateSdds(mgr, encoding.gates, {v: mgr.literal(v) for v in range(1, m + 1)})
    root = mgr.true()
    for clause in encoding.constraints:
        c = mgr.false()
        for x in clause:
            c = c | lit(x)
        root = root & c
        if root.is_false():
            break
    return mgr, root


def exhaustive_applies(problem) -> bool:
    """Whether the quantified path fits: exhaustive support, boolean concepts, no per-vector supervision.

    Restricted to boolean concepts: with arithmetic over categorical concepts
    the intermediate SDDs were measured to blow up (MNAdd: out of memory).
    """
    return (problem.inference == "knowledge" and not problem.parts and problem.support.exhaustive
            and not problem.supervision.vectors
            and all(size == 2 for size in problem.task.sizes)
            and problem.map_class in ("disentangled", "shared", "complete", "permutation"))


def count_exhaustive(problem, sigma: tuple | None = None) -> tuple:
    """Count optimal maps on the exhaustive support by checking beta_K(alpha(c)) == beta_K(c) for all c.

    One SDD over the alpha variables and the concept value bits x holds
    "x one-hot implies alpha(x) one-hot, same labels, supervised concepts kept";
    the x bits are then universally quantified away. No per-vector copies.
    Classes: disentangled and shared, or complete/permutation with a fixed ``sigma``.
    Return the count and the size of what was built (no clauses: an SDD).
    """
    from pysdd.sdd import SddManager, Vtree

    task = problem.task
    k, sizes = task.k, task.sizes
    local = problem.map_class in ("disentangled", "shared")
    if not local and sigma is None:
        raise BackendError("the quantified exhaustive path needs a fixed concept assignment for class complete")
    source = list(range(k)) if local else list(sigma)  # predicted i reads gt source[i]
    rep = problem.representative if local else (lambda i: i)
    # Variables: per gt concept j, its value bits x, then the alpha bits of the concept reading it.
    order, index = [], {}
    reader = {source[i]: i for i in range(k)}
    for j in range(k):
        for u in range(sizes[j]):
            index[("x", j, u)] = len(order) + 1
            order.append(("x", j, u))
        i = reader[j]
        r = rep(i)
        for u in range(sizes[j]):
            for v in range(sizes[i]):
                key = ("A", r, v, u)
                if key not in index:
                    index[key] = len(order) + 1
                    order.append(key)
    total = len(order)
    mgr = SddManager.from_vtree(Vtree(var_count=total, var_order=list(range(1, total + 1)),
                                      vtree_type="right"))
    x = {(j, u): mgr.literal(index[("x", j, u)]) for j in range(k) for u in range(sizes[j])}
    a = {(i, v, u): mgr.literal(index[("A", rep(i), v, u)]) for i in range(k)
         for u in range(sizes[source[i]]) for v in range(sizes[i])}
    valid = mgr.true()
    for j in range(k):
        valid &= _exactly_one(mgr, [x[(j, u)] for u in range(sizes[j])])
    pred = {}
    for i in range(k):
        j = source[i]
        for v in range(sizes[i]):
            node = mgr.false()
            for u in range(sizes[j]):
                node |= x[(j, u)] & a[(i, v, u)]
            pred[(i, v)] = node
    good = mgr.true()
    for i in range(k):
        good &= _exactly_one(mgr, [pred[(i, v)] for v in range(sizes[i])])
    kc = task.compiled
    on_x = _GateSdds(mgr, kc.circuit.defs, {var: x[key] for key, var in kc.inputs.items()})
    on_p = _GateSdds(mgr, kc.circuit.defs, {var: pred[key] for key, var in kc.inputs.items()})
    for table in kc.tables:
        for lit in table.values():
            left, right = on_x(lit), on_p(lit)
            good &= (left & right) | (~left & ~right)
    for i, u in problem.supervision.concepts:
        for w in range(sizes[i]) if u is None else (u,):
            good &= ~x[(i, w)] | pred[(i, w)]
    node = ~valid | good
    for key, var in index.items():
        if key[0] == "x":
            node = mgr.forall(var, node)
    for j in {rep(i) for i in range(k)} if local else range(k):  # Eq. 11 per gt value
        i = j if local else reader[j]
        for u in range(sizes[source[i]]):
            node &= _exactly_one(mgr, [a[(i, v, u)] for v in range(sizes[i])])
    xbits = sum(1 for key in index if key[0] == "x")
    size = {"vars": total, "clauses": 0, "sdd_nodes": node.size(), "method": "quantified SDD"}
    return exact_model_count(node, total) >> xbits, size


class Sdd(Counter):
    name = "sdd"
    inferences = ("knowledge", "learned")
    several = True
    needs_cnf = True

    def unavailable(self) -> str | None:
        return missing("pysdd.sdd", "pysdd")

    def wants_cnf(self, problem) -> bool:
        return not self._quantified(problem)

    @staticmethod
    def _quantified(problem) -> bool:
        return exhaustive_applies(problem) and problem.map_class in ("disentangled", "shared")

    def count(self, problem, encoding, options: Options) -> Tally:

        def work():
            if self._quantified(problem):
                return count_exhaustive(problem)
            mgr, node = compile_encoding(encoding)
            return exact_model_count(node, len(encoding.alpha)), None

        n, size = run_isolated(work, self.name, options.timeout, options.memory_mb, options.progress,
                         options.cancel)
        return Tally(n, notes=(QUANTIFIED_NOTE,) if size else (), encoding=size)


QUANTIFIED_NOTE = ("exhaustive support: checked beta_K(alpha(c)) == beta_K(c) for every concept vector c "
                   "by universal quantification in one SDD, without per-vector constraints")
BACKEND = Sdd()
