"""Compile knowledge to a circuit over one-hot concept value bits.

Each expression node becomes a *value table*: a dict from every value the
node can take to a literal that is true exactly when it takes that value
(given one-hot inputs). Tables are built by propagating value sets up the
tree (``a + b`` pairs the values of ``a`` and ``b``), never by enumerating
the concept space. The same pass type-checks the knowledge.
"""
from __future__ import annotations

from collections import defaultdict

from ..errors import KnowledgeError, brief
from .circuit import FALSE, TRUE, Circuit, Lit
from .logic import ARITHMETIC, COMPARISON, Const, Expr, Op, Var
from .semantics import SCALAR

__all__ = ["ValueTable", "compile_bounded", "compile_truths", "MAX_VALUES"]

ValueTable = dict  # value -> Lit
MAX_VALUES = 100_000
MAX_PAIRS = 400_000  # value pairs one label's arithmetic may combine: sum(x0..x999) needs ~500,000, and 30 s


def precedence_hint(text: str) -> str:
    """A reminder where ``& | ^`` meet a comparison: they bind tighter (as in Python), a common surprise."""
    import re
    if re.search(r"[&|^]", text) and re.search(r"==|!=|<|>", text):
        return ("; note that & | ^ bind tighter than comparisons (as in Python): 'x == 1 & y == 2' reads "
                "'x == (1 & y) == 2', so write '(x == 1) & (y == 2)'")
    return ""


def compile_bounded(expr: Expr, circuit: Circuit, inputs: dict, text: str = "") -> tuple:
    """Return (the value table of ``expr``, the largest magnitude of an integer any of its subexpressions or
    partial sums and products can take); ``inputs`` maps concept names to tables. The bound tells evaluators
    whether 64-bit integers hold every value."""
    compiler = _Compiler(circuit, inputs, text or _show(expr))
    _estimate(expr, inputs, compiler)
    table = compiler.table(expr)
    return table, compiler.bound


def compile_truths(exprs, circuit: Circuit, inputs: dict, text: str = "") -> list:
    """The literal of each truth-valued expression, compiled into one circuit with shared sub-expressions."""
    compiler = _Compiler(circuit, inputs, text)
    return [compiler.truth(e) for e in exprs]


class _Compiler:
    def __init__(self, circuit: Circuit, inputs: dict, text: str):
        self.c, self.inputs, self.text, self.memo = circuit, inputs, text, {}
        self.bound = self.pairs = 0

    def widest(self, table: ValueTable) -> ValueTable:
        """Note the largest integer magnitude of ``table``; return it."""
        ints = [abs(v) for v in table if isinstance(v, int)]
        if ints:
            self.bound = max(self.bound, max(ints))
        return table

    def fail(self, what: str) -> KnowledgeError:
        return KnowledgeError(f"{what} in knowledge {self.text!r}{precedence_hint(self.text)}")

    def table(self, node: Expr) -> ValueTable:
        found = self.memo.get(id(node))
        if found is not None:
            return found[1]
        if isinstance(node, Const):
            out = {node.value: TRUE}
        elif isinstance(node, Var):
            out = self.inputs[node.name]
        else:
            out = self.op(node)
        if len(out) > MAX_VALUES:
            raise self.fail(f"{_show(node)[:60]} takes more than {MAX_VALUES} values")
        self.widest(out)
        self.memo[id(node)] = (node, out)
        return out

    def truth(self, node: Expr) -> Lit:
        tab = self.table(node)
        bad = [v for v in tab if v not in (0, 1)]
        if bad:
            raise self.fail(f"{_show(node)[:60]} is used as a truth value but can be {bad[0]!r}")
        return tab.get(1, FALSE)

    def ints(self, node: Expr) -> ValueTable:
        tab = self.table(node)
        if any(isinstance(v, str) for v in tab):
            raise self.fail(f"{_show(node)[:60]} is a named value, not a number")
        return tab

    def op(self, node: Op) -> ValueTable:
        op, args, c = node.op, node.args, self.c
        if op in ("and", "or"):
            lits = [self.truth(a) for a in args]
            return _boolean(c.AND(lits) if op == "and" else c.OR(lits))
        if op == "not":
            return _boolean(-self.truth(args[0]))
        if op == "xor":
            acc = FALSE
            for a in args:
                acc = c.XOR(acc, self.truth(a))
            return _boolean(acc)
        if op == "implies":
            return _boolean(c.OR((-self.truth(args[0]), self.truth(args[1]))))
        if op == "equiv":
            lits = [self.truth(a) for a in args]
            return _boolean(c.OR((c.AND(lits), c.AND(-x for x in lits))))
        if op == "ite":
            cond = self.truth(args[0])
            a, b = self.table(args[1]), self.table(args[2])
            self.same_kind(a, b, node)
            return _collect(c, {v: [c.AND((cond, a.get(v, FALSE))), c.AND((-cond, b.get(v, FALSE)))]
                                for v in set(a) | set(b)})
        if op in ("eq", "ne"):
            a, b = self.table(args[0]), self.table(args[1])
            self.same_kind(a, b, node)
            return self.combine(op, a, b)
        if op in COMPARISON or op in ARITHMETIC:
            tabs = [self.ints(a) for a in args]
            if op in ("neg", "abs"):
                return _collect(c, _group((SCALAR[op](v), [lit]) for v, lit in tabs[0].items()))
            if op in ("mod", "floordiv") and 0 in tabs[1]:
                raise self.fail(f"division by zero is possible in {_show(node)[:60]}")
            out = tabs[0]
            for tab in tabs[1:]:
                out = self.combine(op, out, tab)
            return out
        raise self.fail(f"unknown operator {op!r}")

    def same_kind(self, a: ValueTable, b: ValueTable, node: Op) -> None:
        if any(isinstance(v, str) for v in a) != any(isinstance(v, str) for v in b):
            raise self.fail(f"{_show(node)[:60]} compares a named value with a number")

    def combine(self, op: str, a: ValueTable, b: ValueTable) -> ValueTable:
        fn, c = SCALAR[op], self.c
        self.pairs += len(a) * len(b)
        if self.pairs > MAX_PAIRS:  # _estimate refuses most such knowledge before any gate is built
            raise KnowledgeError(f"knowledge {brief(self.text, 60)} combines more than {MAX_PAIRS:,} pairs of values "
                                 f"(a long sum or product grows quadratically); split it into several labels or "
                                 f"sum fewer concepts")
        pairs = ((fn(x, y), [c.AND((lx, ly))]) for x, lx in a.items() for y, ly in b.items())
        return self.widest(_collect(c, _group(pairs)))


def _estimate(expr: Expr, inputs: dict, compiler: "_Compiler") -> None:
    """Refuse, before any gate is built, knowledge whose arithmetic combines more than MAX_PAIRS pairs of values:
    the value sets alone are propagated (cheap), counting the pairs each combination would build."""
    pairs, memo = 0, {}

    def values(node) -> set | None:
        nonlocal pairs
        if id(node) in memo:
            return memo[id(node)]
        if isinstance(node, Const):
            out = {node.value}
        elif isinstance(node, Var):
            out = set(inputs[node.name]) if node.name in inputs else None
        elif (node.op in ARITHMETIC or node.op in COMPARISON) and node.op not in ("neg", "abs"):
            out = values(node.args[0])
            for arg in node.args[1:]:
                other = values(arg)
                if out is None or other is None or any(isinstance(v, str) for v in out | other):
                    out = None
                    break
                pairs += len(out) * len(other)
                if pairs > MAX_PAIRS:
                    compiler.pairs = pairs
                    compiler.combine(node.op, {}, {})  # raises, naming the limit
                fn = SCALAR[node.op]
                try:
                    out = {fn(x, y) for x in out for y in other}
                except (ZeroDivisionError, TypeError, ValueError, OverflowError):
                    out = None
                    break
        else:
            for arg in node.args:
                values(arg)
            out = None
        memo[id(node)] = out
        return out
    values(expr)


def _group(pairs) -> dict:
    buckets = defaultdict(list)
    for value, lits in pairs:
        buckets[value].extend(lits)
    return buckets


def _collect(c: Circuit, buckets: dict) -> ValueTable:
    """Turn value -> [literals] into a value table; one value means always true."""
    buckets = {v: ls for v, ls in buckets.items() if any(lit != FALSE for lit in ls)}
    if len(buckets) == 1:
        return {next(iter(buckets)): TRUE}
    if set(buckets) == {0, 1}:
        return _boolean(c.OR(buckets[1]))
    return {v: c.OR(ls) for v, ls in buckets.items()}


def _boolean(lit: Lit) -> ValueTable:
    if lit == TRUE:
        return {1: TRUE}
    if lit == FALSE:
        return {0: TRUE}
    return {1: lit, 0: -lit}


def _show(expr: Expr) -> str:
    if isinstance(expr, Const):
        return repr(expr.value) if isinstance(expr.value, str) else str(expr.value)
    if isinstance(expr, Var):
        return expr.name
    return f"{expr.op}({', '.join(_show(a) for a in expr.args)})"
