"""The rsbench construction, literally: Eq. 10-15 in pyeda, Tseitin, then enumeration with PicoSAT.

A baseline for benchmarks and an independent cross-check of our encoding:
nothing here uses rscount's compiler or circuit. The knowledge is rebuilt
from its expression tree as pyeda formulas over one-hot value bits.
Variables: ``A[x, y]`` sends ground-truth value bit y to predicted value bit
x (Eq. 11: one per column), ``O[i, j]`` says predicted concept i reads
ground-truth concept j (Eq. 10, 14, 15), and per support vector the
predicted bits ``chat`` (Eq. 12) and the labels they must keep (Eq. 13).
"""
from __future__ import annotations

import itertools

from ...errors import BackendError
from ...language.logic import Const, Var
from ...language.semantics import apply_scalar
from ...results.count import Tally
from ..base import Counter, Options, missing, run_isolated

CLASSES = ("free", "complete", "permutation", "disentangled", "shared")


def _ohe(pe, xs):
    """Exactly one of ``xs``, written out pairwise as the paper's OHE."""
    return pe.And(pe.Or(*xs), *[pe.Or(~a, ~b) for a, b in itertools.combinations(xs, 2)])


def knowledge_formulas(task, bits: dict, pe) -> list:
    """Per label, a map value -> pyeda formula over the one-hot bits ``bits[(concept, value index)]``."""
    env = {c.name: {v: bits[(j, u)] for u, v in enumerate(c.domain)} for j, c in enumerate(task.concepts)}
    memo: dict = {}

    def ev(node) -> dict:
        if node in memo:
            return memo[node]
        if isinstance(node, Const):
            out = {node.value: pe.expr(1)}
        elif isinstance(node, Var):
            out = env[node.name]
        else:
            args = [ev(a) for a in node.args]
            if node.op in ("ite", "equiv") or len(args) <= 2:
                out = _combine(node.op, args, pe)
            else:  # fold n-ary operators left to right
                out = args[0]
                for nxt in args[1:]:
                    out = _combine(node.op, [out, nxt], pe)
        memo[node] = out
        return out

    return [ev(label.expr) for label in task.labels]


def _combine(op: str, args: list, pe) -> dict:
    out: dict = {}
    if not args:
        return {1 if op == "and" else 0: pe.expr(1)}
    for combo in itertools.product(*[list(a.items()) for a in args]):
        values = [v for v, _ in combo]
        r = apply_scalar(op, values)
        term = pe.And(*[f for _, f in combo])
        out[r] = pe.Or(out[r], term) if r in out else term
    return out


def build(problem, pe):
    """The conjunction of Eq. 10-15 (as the class asks) for ``problem``, and the A variables."""
    task, cls = problem.task, problem.map_class
    if cls not in CLASSES:
        raise BackendError(f"pyeda-reference encodes classes {', '.join(CLASSES)}, not {cls}")
    k, sizes = task.k, task.sizes
    off = [sum(sizes[:i]) for i in range(k)]
    n = sum(sizes)
    owner = [problem.representative(i) for i in range(k)]
    A = {}
    for x, y in itertools.product(range(n), range(n)):
        A[(x, y)] = pe.exprvar("A", (x, y))
    if cls == "shared":  # one value map per group: tie the blocks of every member to its representative
        for i in range(k):
            r = owner[i]
            for v, u in itertools.product(range(sizes[i]), range(sizes[i])):
                A[(off[i] + v, off[i] + u)] = pe.exprvar("A", (off[r] + v, off[r] + u))
    O = {(i, j): pe.exprvar("O", (i, j)) for i in range(k) for j in range(k)}
    parts = []
    for i, j in O:  # Eq. 10
        block = [A[(off[i] + v, off[j] + u)] for v in range(sizes[i]) for u in range(sizes[j])]
        parts.append(pe.Equal(O[(i, j)], pe.Or(*block)))
    for y in range(n):  # Eq. 11
        parts.append(_ohe(pe, [A[(x, y)] for x in range(n)]))
    if cls in ("complete", "permutation"):
        parts += [_ohe(pe, [O[(i, j)] for i in range(k)]) for j in range(k)]  # Eq. 14
    if cls == "permutation":
        parts += [_ohe(pe, [O[(i, j)] for j in range(k)]) for i in range(k)]  # Eq. 15
    if cls in ("disentangled", "shared"):
        parts += [O[(i, j)] if i == j else ~O[(i, j)] for i in range(k) for j in range(k)]
    labels = problem.labels
    for r, g in enumerate(problem.support.rows()):
        gt_bits = [off[j] + u for j, u in enumerate(g)]
        chat = {(i, v): pe.exprvar("chat", (r, off[i] + v)) for i in range(k) for v in range(sizes[i])}
        for (i, v), var in chat.items():  # Eq. 12: chat = A (x) c*
            parts.append(pe.Equal(var, pe.Or(*[A[(off[i] + v, y)] for y in gt_bits])))
        for i in range(k):  # predicted concepts come out one-hot
            parts.append(_ohe(pe, [chat[(i, v)] for v in range(sizes[i])]))
        for (value_of, code) in zip(knowledge_formulas(task, chat, pe), labels[r]):  # Eq. 13
            want = task.decode(code)
            parts.append(value_of.get(want, pe.expr(0)))
        for i in problem.supervised(r, g):  # concept supervision
            parts.append(chat[(i, g[i])])
    return pe.And(*parts)


class PyedaReference(Counter):
    name = "pyeda-reference"

    def unavailable(self) -> str | None:
        return missing("pyeda.boolalg.expr", "'rscount[bench]'")

    def count(self, problem, encoding, options: Options) -> Tally:
        if problem.map_class not in CLASSES:
            raise BackendError(f"pyeda-reference encodes classes {', '.join(CLASSES)}, not {problem.map_class}")

        def work():
            import pyeda.inter as pe

            deadline = options.deadline(self.name)
            formula = build(problem, pe)
            cnf = formula.tseitin()
            if cnf.is_zero():
                return 0
            # Tseitin auxiliaries are determined by the rest; the O and chat variables by A.
            seen = set()
            a_vars = sorted((v for v in cnf.support if v.name == "A"), key=str)
            for n, point in enumerate(cnf.satisfy_all()):
                if n % 1024 == 0:
                    deadline.check()
                seen.add(tuple(point.get(v, 0) for v in a_vars))
            free = {str(v) for v in formula.support if v.name == "A"} - {str(v) for v in a_vars}
            return len(seen) << len(free)  # an A variable the formula ignores doubles the count

        n = run_isolated(work, self.name, options.timeout, options.memory_mb, options.progress,
                         options.cancel)
        return Tally(n, notes=("pyeda-reference: the rsbench construction (Eq. 10-15), Tseitin, "
                               "enumeration with PicoSAT",))


BACKEND = PyedaReference()
