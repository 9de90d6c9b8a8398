"""Exact counts for arithmetic knowledge: labels that are linear in integer concepts.

When every label is ``a.c + b`` (its value is the label) or a comparison of
two such sums (``c1 + c2 == c3 + c4``), a ``disentangled`` or ``shared`` map
``x[i, v] = f_i(v)`` keeps a support row's label exactly when a linear
equation (or disequation, or inequality) in the entries ``x`` holds. The
equations are solved once by Gaussian elimination over the rationals: the
pivot entries become affine functions of the free ones. Only the free entries
are enumerated, a few at a time and vectorized, each partial assignment kept
only if every pivot it decides is an integer of its domain and every row it
decides keeps its label; interval bounds drop partial assignments early.
Independent groups of free entries are counted apart and multiplied, and
partial assignments that leave every open constraint the same partial total
are merged and counted by weight. Entries may be vectors (one coordinate per
prime, for :mod:`product`); the same elimination then runs per coordinate.

Row-by-row search cannot see the equations: on MNMath-B.1's sum part
constant maps satisfy every equality row and die only when a whole
inequality row is set, so search visits hundreds of thousands of partial
maps where elimination leaves a handful of free entries.
"""
from __future__ import annotations

import math
import operator
from fractions import Fraction

import numpy as np

from ...errors import BackendError, CountTimeout
from ...language.logic import Const, Op, Var, variables
from ...model.support import distinct, row_codes
from ...results.count import Tally
from ...runtime.unions import Unions
from ..base import Counter, Deadline, Options, small_first

CLASSES = ("disentangled", "shared")
MAX_CELLS = 1 << 25  # partial assignments held at once times their constraints (int64 each)
MAX_ENTRIES = 400  # constrained entries (elimination is cubic in them)
FLIP = {"eq": "ne", "ne": "eq", "lt": "ge", "ge": "lt", "le": "gt", "gt": "le"}
COMPARE = {op: getattr(operator, op) for op in FLIP}


def linear_form(expr) -> tuple | None:
    """``expr`` as ({concept name: integer coefficient}, integer constant), or None if it is not linear."""
    if isinstance(expr, Const):
        return ({}, int(expr.value)) if isinstance(expr.value, int) else None
    if isinstance(expr, Var):
        return {expr.name: 1}, 0
    if not isinstance(expr, Op):
        return None
    args = [linear_form(a) for a in expr.args]
    if any(a is None for a in args):
        return None
    if expr.op == "add":
        return _combine(args, [1] * len(args))
    if expr.op == "sub" and len(args) == 2:
        return _combine(args, [1, -1])
    if expr.op == "neg":
        return _combine(args, [-1])
    if expr.op == "mul":
        scale, linear = 1, None
        for coeffs, const in args:
            if not coeffs:
                scale *= const
            elif linear is None:
                linear = (coeffs, const)
            else:
                return None  # a product of two concepts
        return _combine([linear or ({}, 1)], [scale])
    return None


def _combine(forms: list, scales: list) -> tuple:
    coeffs: dict = {}
    const = 0
    for (cs, b), s in zip(forms, scales):
        const += s * b
        for name, a in cs.items():
            coeffs[name] = coeffs.get(name, 0) + s * a
    return {n: a for n, a in coeffs.items() if a}, const


def linear_label(expr) -> tuple | None:
    """A label as (op, coefficients, constant): ``op`` None for an integer label equal to
    ``a.c + b``, else a comparison ``a.c + b  op  0``; None if the label is not of these forms."""
    negate = False
    while isinstance(expr, Op) and expr.op == "not" and len(expr.args) == 1:
        negate, expr = not negate, expr.args[0]
    if isinstance(expr, Op) and expr.op in FLIP and len(expr.args) == 2:
        left, right = linear_form(expr.args[0]), linear_form(expr.args[1])
        if left is None or right is None:
            return None
        coeffs, const = _combine([left, right], [1, -1])
        return (FLIP[expr.op] if negate else expr.op), coeffs, const
    form = linear_form(expr)
    if form is None or negate:
        return None
    return None, form[0], form[1]


def _holds(op: str, value: np.ndarray) -> np.ndarray:
    """Whether ``value  op  0``."""
    return COMPARE[op](value, 0)


def integer_domains(task) -> bool:
    """Whether every concept's values are integers and every value of the knowledge fits the int64 algebra here."""
    return not task.wide and all(all(isinstance(v, int) and not isinstance(v, bool) for v in c.domain) or c.is_bool
               for c in task.concepts)


def one_concept_each(problem, domains_ok) -> bool:
    """Whether each predicted concept reads its own concept's value (disentangled, or shared within groups of
    one domain), the support is listed, and ``domains_ok(task)``."""
    task = problem.task
    if problem.map_class not in CLASSES or not problem.support.listed or not domains_ok(task):
        return False
    return problem.map_class != "shared" or all(
        len({task.concepts[m].domain for m in task.group_of(i)}) == 1 for i in range(task.k))


def applies(problem) -> bool:
    """Whether every label is linear in integer concepts and the class reads one concept per prediction."""
    return one_concept_each(problem, integer_domains) and all(
        linear_label(label.expr) is not None for label in problem.task.labels)


class Rows:
    """Linear rows ``sum(coefficient * entry)  op  rhs`` over entry columns, each with its allowed values."""

    def __init__(self):
        self.domain: list = []  # per column the allowed predicted values
        self.equalities: dict = {}  # frozen ((column, coefficient), ...) , rhs -> row
        self.checks: dict = {}  # (op, terms, rhs) -> None

    def add(self, op: str, terms: tuple, rhs: int) -> bool:
        """Add a row; False when it has no entries left and fails."""
        if not terms:
            rest = np.array([-b for b in _coordinates(rhs)], dtype=np.int64)
            return bool(_holds(op, rest[0]) if len(rest) == 1 else (rest == 0).all() == (op == "eq"))
        if op == "eq":
            self.equalities[(terms, rhs)] = None
        else:
            self.checks[(op, terms, rhs)] = None
        return True


class _System(Rows):
    """The rows of one problem as linear constraints over the value-map entries.

    ``labels`` (indices) restricts the rows to some labels and their concepts;
    ``sources`` (predicted concept -> the concept it reads, default itself)
    serves complete maps with their sources fixed.
    """

    def __init__(self, problem, labels: tuple | None = None, sources: dict | None = None):
        super().__init__()
        task = problem.task
        index = {c.name: i for i, c in enumerate(task.concepts)}
        G = np.asarray(problem.support.vectors, dtype=np.int64)
        values = [np.asarray([int(v) for v in c.domain], dtype=np.int64) for c in task.concepts]
        rep = [problem.representative(i) for i in range(task.k)]
        self.entries: dict = {}  # (unit, value index) -> column

        def column(i: int, u: int) -> int:
            key = (rep[i], u)
            if key not in self.entries:
                self.entries[key] = len(self.domain)
                self.domain.append(values[rep[i]])
            return self.entries[key]

        src = sources or {}
        chosen = task.labels if labels is None else [task.labels[n] for n in labels]
        keep = np.unique(row_codes(G, task.sizes), return_index=True)[1] if len(G) else []
        for label in chosen:
            op, coeffs, const = linear_label(label.expr)
            concepts = [(index[name], a) for name, a in sorted(coeffs.items())]
            for r in keep:
                g = G[r]
                truth = const + sum(a * int(values[i][g[i]]) for i, a in concepts)
                terms: dict = {}
                for i, a in concepts:
                    col = column(i, int(g[src.get(i, i)]))
                    terms[col] = terms.get(col, 0) + a
                terms = tuple(sorted((c, a) for c, a in terms.items() if a))
                if op is None:
                    self._add("eq", terms, truth - const)
                else:
                    self._add(op if _holds(op, np.int64(truth)) else FLIP[op], terms, -const)
        part = None if labels is None else label_concepts(task, chosen)
        for r, g in enumerate(problem.support.rows()):
            for i in problem.supervised(r, g):
                if part is None or i in part:
                    self._add("eq", ((column(i, int(g[src.get(i, i)])), 1),), int(values[i][g[i]]))
        self.free = unread_entries(problem, self.entries, part, src)  # entries no row constrains

    def _add(self, op: str, terms: tuple, rhs: int) -> None:
        if not self.add(op, terms, rhs):
            raise BackendError("linear: a row's label cannot be kept by any map; please report this")


def unread_entries(problem, read, concepts=None, sources: dict | None = None) -> int:
    """Value maps of the entries (unit, source value index) not in ``read``, over ``concepts`` (default all):
    any predicted value will do for them."""
    task, total, src = problem.task, 1, sources or {}
    for i in range(task.k) if concepts is None else sorted(concepts):
        if problem.representative(i) == i:
            width = task.sizes[src.get(i, i)]
            seen = sum(1 for u in range(width) if (i, u) in read)
            total *= task.sizes[i] ** (width - seen)
    return total


def reworded(exc: BackendError, name: str) -> BackendError:
    """``exc`` as backend ``name``'s: the elimination's limits name linear (or product); a time-out stays one."""
    if isinstance(exc, CountTimeout):
        return exc
    text = str(exc)
    for prefix in ("linear: ", "product: "):
        text = text.removeprefix(prefix)
    return BackendError(f"{name}: {text}")


def label_concepts(task, labels) -> set:
    """The concepts some of ``labels`` read."""
    return {task.index(name) for label in labels for name in variables(label.expr)}


def _eliminate(rows: list, deadline: Deadline) -> tuple:
    """Reduced row echelon form of ``sum(terms) == rhs`` rows over the rationals: (pivot -> row), or None if
    inconsistent. Each row maps column -> Fraction and holds the constant of coordinate d under key ``-1 - d``."""
    pivots: dict = {}
    for terms, rhs in rows:
        deadline.check()
        row = {c: Fraction(a) for c, a in terms}
        for d, b in enumerate(_coordinates(rhs)):
            if b:
                row[-1 - d] = Fraction(b)
        for p, prow in pivots.items():
            if p in row:
                _axpy(row, -row[p], prow)
        cols = [c for c in row if c >= 0]
        if not cols:
            if any(row.values()):
                return None
            continue
        p = min(cols)
        scale = 1 / row[p]
        row = {c: a * scale for c, a in row.items()}
        for q, qrow in pivots.items():
            if p in qrow:
                _axpy(qrow, -qrow[p], row)
        pivots[p] = row
    return pivots


def _coordinates(x) -> tuple:
    """A right-hand side as a tuple of coordinates (an integer has one)."""
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _axpy(row: dict, a: Fraction, other: dict) -> None:
    for c, b in other.items():
        v = row.get(c, 0) + a * b
        if v:
            row[c] = v
        else:
            row.pop(c, None)


class _Constraint:
    """``scale * target == const + coeffs . free`` for a pivot entry, or ``const + coeffs . free  op  0``.

    Entries may be vectors (one coordinate per prime for :mod:`product`): then
    the constant is a vector, a pivot's value must be one of its allowed
    vectors, and ``eq``/``ne`` compare whole vectors.
    """

    def __init__(self, coeffs: dict, const: list, op: str, allowed: np.ndarray | None = None):
        scale = math.lcm(*(f.denominator for f in (*coeffs.values(), *const)))
        self.coeffs = {c: int(a * scale) for c, a in coeffs.items()}
        self.const = np.array([int(b * scale) for b in const], dtype=np.int64)
        self.scale = scale
        self.op, self.allowed = op, allowed  # a pivot's allowed values (values x coordinates), and their box
        if allowed is not None:
            self.lo, self.hi = allowed.min(axis=0), allowed.max(axis=0)
            self.span = self.hi - self.lo + 1
            self.codes = distinct((allowed - self.lo) @ _strides(self.span))
            self.dense = len(self.codes) == math.prod(int(x) for x in self.span)


def _strides(span: np.ndarray) -> np.ndarray:
    return np.cumprod(np.concatenate(([1], span[:0:-1])))[::-1].astype(np.int64)


def _constraints(system, domain: list, deadline: Deadline) -> tuple:
    """(free columns, constraints over them) once the equalities are solved."""
    dims = domain[0].shape[1] if domain else 1
    pivots = _eliminate(list(system.equalities), deadline)
    if pivots is None:
        return None
    free = [c for c in range(len(domain)) if c not in pivots]
    out = []
    for p, row in pivots.items():
        coeffs = {c: -a for c, a in row.items() if c >= 0 and c != p}
        out.append(_Constraint(coeffs, [row.get(-1 - d, Fraction(0)) for d in range(dims)], "pivot", domain[p]))
    for op, terms, rhs in system.checks:
        coeffs: dict = {}
        const = [Fraction(-b) for b in _coordinates(rhs)]
        for c, a in terms:
            if c in pivots:
                prow = pivots[c]
                for d in range(dims):
                    const[d] += a * prow.get(-1 - d, 0)
                for e, b in prow.items():
                    if e >= 0 and e != c:
                        coeffs[e] = coeffs.get(e, 0) - a * b
            else:
                coeffs[c] = coeffs.get(c, 0) + a
        out.append(_Constraint({c: a for c, a in coeffs.items() if a}, const, op))
    return free, out


def _components(free: list, constraints: list) -> list:
    """Groups of free columns that constraints link, each with its constraints."""
    unions = Unions(free)
    for con in constraints:
        cols = list(con.coeffs)
        for c in cols[1:]:
            unions.join(c, cols[0])
    groups: dict = {}
    for c in free:
        groups.setdefault(unions.find(c), ([], []))[0].append(c)
    closed = []
    for con in constraints:
        if con.coeffs:
            groups[unions.find(next(iter(con.coeffs)))][1].append(con)
        else:
            closed.append(con)
    return list(groups.values()), closed


def _order(cols: list, constraints: list) -> list:
    """Free columns in an order that decides constraints early (greedy: most constraints finished next)."""
    left = [set(con.coeffs) for con in constraints]
    weight = {c: sum(c in s for s in left) for c in cols}
    order, todo = [], set(cols)
    while todo:
        best = max(todo, key=lambda c: (sum(1 for s in left if s == {c}), sum(1 for s in left if c in s and
                                                                                len(s) <= 2), weight[c], -c))
        order.append(best)
        todo.discard(best)
        for s in left:
            s.discard(best)
    return order


def _keep(con: _Constraint, total: np.ndarray) -> np.ndarray:
    """Per state (rows of ``total``, one column per coordinate): whether the finished constraint holds."""
    if con.op in ("eq", "ne"):
        zero = (total == 0).all(axis=1)
        return zero if con.op == "eq" else ~zero
    if con.op != "pivot":
        return _holds(con.op, total[:, 0])
    ok = (total % con.scale == 0).all(axis=1)
    value = total // con.scale
    ok &= ((value >= con.lo) & (value <= con.hi)).all(axis=1)
    if not con.dense:
        ok &= np.isin(np.where(ok[:, None], value - con.lo, 0) @ _strides(con.span), con.codes)
    return ok


class TooManyStates(BackendError):
    """The elimination would hold more partial assignments than ``max_cells`` allows."""


def _count_component(cols: list, constraints: list, domain: list, deadline: Deadline, *,
                     max_cells: int | None = None, trace: list | None = None) -> int:
    """Assignments of ``cols`` (each to a value of its domain) that keep every constraint.

    Free columns are set one at a time; a state is the vector of every
    open constraint's partial total, so assignments that reach the same
    state are merged and counted by weight. With ``trace`` (a list), each step
    appends (column, parent state, value index, merged state) for its kept
    assignments and the weights of the states it started from, from which
    :mod:`montecarlo` draws uniform solutions.
    """
    order = _order(cols, constraints)
    pos = {c: k for k, c in enumerate(order)}
    last = [max(pos[c] for c in con.coeffs) for con in constraints]
    lo = np.array([domain[c].min(axis=0) for c in order], dtype=np.int64)  # columns x coordinates
    hi = np.array([domain[c].max(axis=0) for c in order], dtype=np.int64)
    coef = np.zeros((len(constraints), len(order)), dtype=object)
    for k, con in enumerate(constraints):
        for c, a in con.coeffs.items():
            coef[k, pos[c]] = a
    if any(abs(int(a)) * max(abs(int(lo.min())), abs(int(hi.max())), 1) * len(order) > 1 << 50
           for a in coef.flat) or any(int(abs(con.const).max()) > 1 << 50 for con in constraints):
        raise BackendError("linear: coefficients too large for 64-bit arithmetic; use backend=ganak")
    coef = coef.astype(np.int64)
    # remaining range of each constraint after the first j columns: sum of min/max of coef * [lo, hi]
    low_part = np.minimum(coef[:, :, None] * lo[None], coef[:, :, None] * hi[None])
    high_part = np.maximum(coef[:, :, None] * lo[None], coef[:, :, None] * hi[None])
    rest_lo = np.cumsum(low_part[:, ::-1], axis=1)[:, ::-1]
    rest_hi = np.cumsum(high_part[:, ::-1], axis=1)[:, ::-1]
    totals = np.stack([con.const for con in constraints])[None]  # per state, constraint and coordinate
    weights = np.ones(1, dtype=object)  # per state: the partial assignments that reach it
    for j, c in enumerate(order):
        deadline.check()
        vals = domain[c]
        n = len(totals)
        if n * totals[0].size * len(vals) > (MAX_CELLS if max_cells is None else max_cells):
            raise TooManyStates(f"linear: {n * len(vals)} partial assignments of the free entries are too many "
                                f"to hold; use backend=search or ganak")
        totals = np.repeat(totals, len(vals), axis=0) + np.tile(vals, (n, 1))[:, None, :] * coef[:, j][None, :, None]
        before = weights
        weights = np.repeat(weights, len(vals))
        keep = np.ones(len(totals), dtype=bool)
        for k, con in enumerate(constraints):
            if last[k] == j:
                keep &= _keep(con, totals[:, k])
            elif last[k] > j and con.op in ("pivot", "lt", "le", "gt", "ge"):
                keep &= _reachable(con, totals[:, k] + rest_lo[k, j + 1], totals[:, k] + rest_hi[k, j + 1])
        totals, weights = totals[keep], weights[keep]
        if not len(totals):
            return 0
        totals, weights, merged = _merge(totals, weights, [k for k in range(len(constraints)) if last[k] > j])
        if trace is not None:
            kept = np.flatnonzero(keep)
            trace.append((c, kept // len(vals), kept % len(vals), merged, before))
    return int(weights.sum())


def _merge(totals: np.ndarray, weights: np.ndarray, open_: list) -> tuple:
    """One state per distinct vector of the still-open constraints' totals, weighted by the states it merges,
    and for each input state the index of the state it went to."""
    if len(totals) < 2 or not open_:
        return totals[:1], np.array([weights.sum()], dtype=object), np.zeros(len(totals), dtype=np.int64)
    key = totals[:, open_].reshape(len(totals), -1)
    order = np.lexsort(key.T[::-1])
    key = key[order]
    new = np.concatenate(([True], (key[1:] != key[:-1]).any(axis=1)))
    starts = np.flatnonzero(new)
    merged = np.empty(len(totals), dtype=np.int64)
    merged[order] = np.cumsum(new) - 1
    return totals[order[starts]], np.add.reduceat(weights[order], starts), merged


def _reachable(con: _Constraint, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """Whether a total in [low, high] (per coordinate) can still keep ``con`` (a necessary test)."""
    if con.op == "pivot":
        return ((high >= con.lo * con.scale) & (low <= con.hi * con.scale)).all(axis=1)
    return _holds(con.op, low[:, 0] if con.op in ("lt", "le") else high[:, 0])


def count_linear(problem, deadline: Deadline, labels: tuple | None = None, sources: dict | None = None,
                 confidence=None) -> tuple:
    """(count, free entries enumerated) of the optimal maps of a problem that :func:`applies` (or of the maps of
    ``labels``' concepts reading ``sources``, see _System); with a :class:`montecarlo.Confidence`, an estimate
    where the exact count is out of reach."""
    system = _System(problem, labels, sources)
    total, free = solver(confidence)(system, deadline)
    return (None if total is None else system.free * total), free  # None: the equations have no solution


def count_system(system: Rows, deadline: Deadline, max_cells: int | None = None) -> tuple:
    """(assignments, free entries enumerated) of the entries ``system.domain`` that keep ``system.equalities``
    and ``system.checks`` (entries no row reads are not in ``system``); None for the count when the
    equalities alone have no solution. A domain is a 1-d array of values, or values x coordinates."""
    solved = solve_system(system, deadline)
    if solved is None:
        return None, 0
    return count_solved(*solved, deadline, max_cells), len(solved[1])


def solve_system(system: Rows, deadline: Deadline) -> tuple | None:
    """(domains as values x coordinates arrays, free columns, constraints over them) once the equalities of
    ``system`` are solved; None when they have no solution."""
    if len(system.domain) > MAX_ENTRIES:
        raise BackendError(f"linear: {len(system.domain)} constrained entries, over {MAX_ENTRIES}; "
                           f"use backend=search or ganak")
    domain = [np.asarray(d, dtype=np.int64).reshape(len(d), -1) for d in system.domain]
    solved = _constraints(system, domain, deadline)
    return None if solved is None else (domain, *solved)


def count_solved(domain: list, free: list, constraints: list, deadline: Deadline,
                 max_cells: int | None = None) -> int:
    """The assignments of the free columns that keep every constraint (see :func:`solve_system`)."""
    groups, closed = _components(free, constraints)
    for con in closed:
        if not _keep(con, con.const[None, :])[0]:
            return 0
    total = 1
    for cols, cons in sorted(groups, key=lambda g: len(g[0])):
        deadline.check()
        if not cons:
            total *= math.prod(len(domain[c]) for c in cols)
            continue
        total *= _count_component(cols, cons, domain, deadline, max_cells=max_cells)
        if total == 0:
            break
    return total


def solver(confidence=None):
    """:func:`count_system`, or the estimating twin that a :class:`montecarlo.Confidence` carries (this module
    stays below the sampler, which builds on it)."""
    return count_system if confidence is None else confidence.solve


class LinearCounter(Counter):
    """Exact counts for labels linear in integer concepts (``disentangled`` and ``shared``)."""

    name = "linear"
    scope = ("linear counts disentangled or shared maps of labels that are linear in integer concepts (a sum, or "
             "a comparison of sums); use backend=search or ganak")

    def applies(self, problem) -> bool:
        return applies(problem)

    def count(self, problem, encoding, options: Options) -> Tally:
        if not self.applies(problem):
            raise BackendError(self.scope)
        (total, detail), here = small_first(lambda d: self.solve(problem, d), problem.support.length, self.name,
                                            options)
        return Tally(total, notes=(self.describe(detail) + (" (in this process)" if here else ""),))

    def solve(self, problem, deadline: Deadline) -> tuple:
        """(count, a detail for the note) in this process."""
        total, free = count_linear(problem, deadline)
        if total is None:
            raise BackendError("linear: the support's equations have no solution, yet the identity solves them; "
                               "please report this")
        return total, free

    def describe(self, free: int) -> str:
        return f"linear: the support's equations solved by elimination; {free} free entries enumerated"


BACKEND = LinearCounter()
