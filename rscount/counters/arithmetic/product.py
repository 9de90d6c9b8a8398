"""Exact counts for multiplicative knowledge: labels that compare products of integer concepts.

MNMath-B.1's ``y2 = [c5 * c6 == c7 * c8]`` defeats row-by-row search: a digit
mapped to 0 zeroes every product it enters, so families of rows hold at once
and the partial maps multiply. Here the count is split on the *zero pattern*
(which value-map entries are 0). A pattern decides, row by row, which sides
are zero, so it must agree with the labels of rows with a zero side; the few
patterns that do are listed by a SAT solver. On the rows left, both sides
are nonzero, and by unique factorization two products are equal exactly when
the sums of their factors' prime exponent vectors are. So each row becomes a
linear equation (or disequation) over vector-valued entries, which
:mod:`linear` counts by elimination, coordinate by coordinate, merging
partial assignments that leave every open equation the same partial sum.
"""
from __future__ import annotations

import math

import numpy as np

from ...errors import BackendError
from ...language.logic import Const, Op, Var
from ..base import Deadline
from .linear import FLIP, LinearCounter, Rows, label_concepts, one_concept_each, reworded, solver, unread_entries

MAX_PATTERNS = 1 << 12  # zero patterns counted one by one


def product_form(expr) -> tuple | None:
    """``expr`` as ({concept name: power}, nonnegative integer constant), or None if it is not a product."""
    if isinstance(expr, Const):
        value = expr.value
        return ({}, value) if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None
    if isinstance(expr, Var):
        return {expr.name: 1}, 1
    if not (isinstance(expr, Op) and expr.op == "mul"):
        return None
    powers: dict = {}
    const = 1
    for arg in expr.args:
        form = product_form(arg)
        if form is None:
            return None
        for name, k in form[0].items():
            powers[name] = powers.get(name, 0) + k
        const *= form[1]
    return powers, const


def product_label(expr) -> tuple | None:
    """A label ``P == Q`` or ``P != Q`` (negations allowed) of products as (op, P, Q); None otherwise."""
    negate = False
    while isinstance(expr, Op) and expr.op == "not" and len(expr.args) == 1:
        negate, expr = not negate, expr.args[0]
    if not (isinstance(expr, Op) and expr.op in ("eq", "ne") and len(expr.args) == 2):
        return None
    left, right = product_form(expr.args[0]), product_form(expr.args[1])
    if left is None or right is None:
        return None
    return (FLIP[expr.op] if negate else expr.op), left, right


def natural_domains(task) -> bool:
    """Whether every concept's values are nonnegative integers (products of them factor into primes)."""
    return not task.wide and all(isinstance(v, int) and v >= 0 for c in task.concepts for v in c.domain)


def applies(problem) -> bool:
    """Whether every label compares two products of nonnegative integer concepts, under disentangled or shared."""
    return one_concept_each(problem, natural_domains) and all(
        product_label(label.expr) is not None for label in problem.task.labels)


def _exponents(n: int, primes: list) -> list:
    out = []
    for p in primes:
        e = 0
        while n % p == 0:
            n, e = n // p, e + 1
        out.append(e)
    return out


def _primes_of(numbers) -> list:
    found: set = set()
    for n in numbers:
        p = 2
        while p * p <= n:
            while n % p == 0:
                found.add(p)
                n //= p
            p += 1
        if n > 1:
            found.add(n)
    return sorted(found)


class _Rows:
    """The support rows of a problem over value-map entries: per row, whether the sides must be equal, and each
    side as ((column, power), ...) with its constant (``labels`` and ``sources`` as in linear's _System)."""

    def __init__(self, problem, labels: tuple | None = None, sources: dict | None = None):
        task, src = problem.task, sources or {}
        chosen = task.labels if labels is None else [task.labels[n] for n in labels]
        part = None if labels is None else label_concepts(task, chosen)
        index = {c.name: i for i, c in enumerate(task.concepts)}
        rep = [problem.representative(i) for i in range(task.k)]
        self.entries: dict = {}  # (unit, value index) -> column
        self.values: list = []  # per column the predicted values it may take
        self.rows: list = []  # (want equal, left side, right side)
        self.pinned: list = []  # (column, value) from concept supervision

        def column(i: int, u: int) -> int:
            key = (rep[i], u)
            if key not in self.entries:
                self.entries[key] = len(self.values)
                self.values.append([int(v) for v in task.concepts[rep[i]].domain])
            return self.entries[key]

        def side(form: tuple, g) -> tuple:
            powers, const = form
            cols: dict = {}
            for name, k in powers.items():
                c = column(index[name], int(g[src.get(index[name], index[name])]))
                cols[c] = cols.get(c, 0) + k
            value = const * math.prod(int(task.concepts[index[n]].domain[g[index[n]]]) ** k
                                      for n, k in powers.items())
            return (tuple(sorted(cols.items())), const), value

        found: dict = {}
        G = np.asarray(problem.support.vectors, dtype=np.int64)
        read = sorted({src.get(i, i) for i in (range(task.k) if part is None else part)})
        G = G[np.lexsort(G[:, read].T[::-1])] if len(G) else G  # rows in the order of the values read
        for label in chosen:
            _, left, right = product_label(label.expr)
            for g in G:
                (ls, lv), (rs, rv) = side(left, g), side(right, g)
                found[(lv == rv, ls, rs)] = None
        self.rows = list(found)
        for r, g in enumerate(problem.support.rows()):
            for i in problem.supervised(r, g):
                if part is None or i in part:
                    self.pinned.append((column(i, int(g[src.get(i, i)])), int(task.concepts[i].domain[g[i]])))
        self.free = unread_entries(problem, self.entries, part, src)
        numbers = {v for vs in self.values for v in vs if v > 0}
        numbers |= {side[1] for _, *sides in self.rows for side in sides if side[1] > 0}
        self.primes = _primes_of(numbers) or [2]

    def exponents(self, n: int) -> tuple:
        """The prime exponent vector of a positive integer: products compare as these vectors' sums do."""
        return tuple(_exponents(n, self.primes))


def _zero_patterns(rows: _Rows, deadline: Deadline) -> list:
    """Every set of columns that may map to 0 at once without contradicting a row with a zero side."""
    from pysat.solvers import Solver
    can_zero = [0 in vs and any(vs) for vs in rows.values]
    clauses: list = []
    top = len(rows.values)

    def zero(cols: tuple, const: int):
        """Whether a side is zero: True, False, or a literal."""
        nonlocal top
        if const == 0 or any(not any(rows.values[c]) for c, _ in cols):
            return True
        lits = sorted({c + 1 for c, _ in cols if can_zero[c]})
        if len(lits) <= 1:
            return lits[0] if lits else False
        top += 1
        clauses.append([-top, *lits])
        clauses.extend([top, -x] for x in lits)
        return top

    def clause(*terms) -> None:
        """Add the disjunction of ``terms`` (booleans or literals)."""
        if not any(t is True for t in terms):
            clauses.append([t for t in terms if t is not False])

    for equal, left, right in rows.rows:
        a, b = zero(*left), zero(*right)
        na, nb = (not x if isinstance(x, bool) else -x for x in (a, b))
        if equal:
            clause(na, b)
            clause(nb, a)
        else:
            clause(na, nb)
    for c, v in rows.pinned:
        if can_zero[c]:
            clauses.append([c + 1] if v == 0 else [-(c + 1)])
    if any(not c for c in clauses):
        return []
    chosen = [c + 1 for c in range(len(rows.values)) if can_zero[c]]
    out = []
    with Solver(name="cadical153", bootstrap_with=clauses) as solver:
        while solver.solve():
            deadline.check()
            model = set(solver.get_model())
            out.append(frozenset(c - 1 for c in chosen if c in model))
            if len(out) > MAX_PATTERNS:
                raise BackendError(f"product: over {MAX_PATTERNS} ways to map entries to 0; "
                                   f"use backend=search or ganak")
            if not chosen:
                break
            solver.add_clause([-c if c in model else c for c in chosen])
    return out


def _count_pattern(rows: _Rows, zero: frozenset, deadline: Deadline, confidence=None) -> tuple:
    """(maps, free entries enumerated) with exactly the columns ``zero`` mapped to 0."""
    system, column = Rows(), {}

    def new(c: int) -> int:
        if c not in column:
            column[c] = len(system.domain)
            system.domain.append([rows.exponents(v) for v in rows.values[c] if v])
        return column[c]

    def is_zero(cols, const) -> bool:
        return const == 0 or any(c in zero or not any(rows.values[c]) for c, _ in cols)

    for equal, (lcols, lconst), (rcols, rconst) in rows.rows:
        if is_zero(lcols, lconst) or is_zero(rcols, rconst):
            continue  # the pattern agrees with this row (see _zero_patterns)
        terms: dict = {}
        for cols, sign in ((lcols, 1), (rcols, -1)):
            for c, k in cols:
                terms[new(c)] = terms.get(new(c), 0) + sign * k
        terms = tuple(sorted((c, a) for c, a in terms.items() if a))
        rhs = tuple(r - q for r, q in zip(rows.exponents(rconst), rows.exponents(lconst)))
        if not system.add("eq" if equal else "ne", terms, rhs):
            return 0, 0
    for c, v in rows.pinned:
        if v and not system.add("eq", ((new(c), 1),), rows.exponents(v)):
            return 0, 0
    if any(not len(d) for d in system.domain):
        return 0, 0
    total, free = solver(confidence)(system, deadline)
    if total is None:  # the pattern's equations have no solution
        return 0, free
    # nonzero columns no kept row reads: any nonzero value
    for c, vs in enumerate(rows.values):
        if c not in zero and c not in column and any(vs):
            total *= sum(1 for v in vs if v)
    return total, free


def count_product(problem, deadline: Deadline, labels: tuple | None = None, sources: dict | None = None,
                  confidence=None) -> tuple:
    """(count, zero patterns) of the optimal maps of a problem that :func:`applies` (``labels``, ``sources`` and
    ``confidence`` as in :func:`linear.count_linear`)."""
    rows = _Rows(problem, labels, sources)
    patterns = _zero_patterns(rows, deadline)
    total = 0
    for zero in patterns:
        deadline.check()
        try:
            total += _count_pattern(rows, zero, deadline, confidence)[0]
        except BackendError as exc:
            raise reworded(exc, "product") from None
    return rows.free * total, len(patterns)


class ProductCounter(LinearCounter):
    """Exact counts for labels comparing products of integer concepts (``disentangled`` and ``shared``)."""

    name = "product"
    scope = ("product counts disentangled or shared maps of labels comparing products of nonnegative integer "
             "concepts (P == Q, P != Q); use backend=search or ganak")

    def applies(self, problem) -> bool:
        return applies(problem)

    def solve(self, problem, deadline: Deadline) -> tuple:
        return count_product(problem, deadline)

    def describe(self, patterns: int) -> str:
        return (f"product: {patterns} ways to map entries to 0 agree with the rows; each counted by elimination "
                f"over prime exponents")


BACKEND = ProductCounter()
