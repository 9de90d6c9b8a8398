"""Encode the optimal concept maps of a problem as CNF with a projection set.

Follows rsbench Appendix A.3: alpha variables ``A[(i,v),(j,u)]`` send value
u of ground-truth concept j to value v of predicted concept i, one per
ground-truth value (Eq. 11); ``O[i,j]`` says predicted i reads gt j (Eq. 10)
and carries the completeness (Eq. 14) and permutation (Eq. 15) constraints.
For each support vector g the predicted value bits are ``OR_j A[(i,v),(j,g_j)]``
(Eq. 12), each predicted concept must come out one-hot, and the knowledge
circuit must give beta_K(g) on them (Eq. 13). Alpha variables are ids
1..len(alpha); every other variable is a gate fully determined by them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ..errors import BackendError, EncodingError
from ..language.circuit import FALSE, Circuit, VarPool
from ..results.count import ConceptMap
from .problem import Problem
from .sources import Rectangle

__all__ = ["Encoding", "RowEncoder", "encode", "CNF_CLASSES"]

CNF_CLASSES = ("free", "complete", "permutation", "disentangled", "shared")
MAX_ALPHA = 2_000_000  # alpha variables (gt value x predicted value pairs) a CNF may hold
MAX_CLAUSES = 20_000_000  # about 2-3 GB of Python tuples; the largest suite encoding holds 3 million
PROBE_ROWS = 32  # support vectors encoded before the size is extrapolated


@dataclass(frozen=True, eq=False)
class Encoding:
    """CNF whose models, projected on ``alpha``, are the optimal maps."""

    nvars: int
    clauses: list = field(repr=False)
    alpha: tuple = field(repr=False)  # projection variables, 1..m
    alpha_keys: dict = field(repr=False)  # var -> (i, v, j, u)
    pool: VarPool = field(repr=False)
    problem: Problem = field(repr=False)
    constraints: list = field(repr=False, default_factory=list)  # clauses that are not gate definitions
    gates: dict = field(repr=False, default_factory=dict)  # gate var -> (op, children)
    frame: tuple = (0, 0)  # (clauses, variables) before the first support vector's: the same for any rows

    @property
    def size(self) -> dict:
        return {"vars": self.nvars, "clauses": len(self.clauses), "alpha_vars": len(self.alpha)}

    def decode(self, true_alpha) -> ConceptMap:
        """Turn the set of true alpha variables of a model into a :class:`ConceptMap`."""
        task, prob = self.problem.task, self.problem
        by_rep: dict = {}
        for var in true_alpha:
            i, v, j, u = self.alpha_keys[var]
            by_rep[(j, u)] = (i, v)
        assign = []
        for j, c in enumerate(task.concepts):
            r = prob.representative(j)
            row = []
            for u in range(len(c.domain)):
                i, v = by_rep[(r, u)]
                row.append((j if r != j else i, v))
            assign.append(tuple(row))
        return ConceptMap(tuple(assign), tuple(c.name for c in task.concepts),
                          tuple(c.domain for c in task.concepts))

    def variable_names(self) -> dict:
        """Readable names of the alpha variables, for DIMACS comments."""
        names = self.problem.task.concepts
        out = {}
        for var, (i, v, j, u) in self.alpha_keys.items():
            out[var] = f"{names[j].name}={names[j].domain[u]} -> {names[i].name}={names[i].domain[v]}"
        return out


def encode(problem: Problem | Rectangle, progress: Callable[[int, int], None] | None = None,
           sigma: tuple | None = None, deadline=None, ordered: tuple = ()) -> Encoding:
    """Return the CNF encoding of ``problem`` (map classes in :data:`CNF_CLASSES`), or of a source split's
    :class:`~rscount.problems.sources.Rectangle` (its sources in place of the ground-truth concepts).

    With ``sigma`` (predicted concept i reads ground-truth concept ``sigma[i]``,
    a permutation) only the complete maps with that concept assignment are
    encoded: the value maps of one block of the structural counter. ``ordered``
    pairs (i, i') of predicted concepts make i' read a later ground-truth concept
    than i (complete maps: one model per orbit of a symmetry that swaps them). A
    ``deadline`` (anything with ``check()``) is checked once per support vector.
    """
    b = RowEncoder(problem, sigma, ordered)
    n = problem.support.length
    predicted: list = []  # per row, its predicted value bits (a learned head compares rows with each other)
    for row, g in enumerate(problem.support.rows()):
        guess = b.base + (len(b.circuit.clauses) - b.base) * n // row if row == PROBE_ROWS else 0
        if guess > MAX_CLAUSES:
            raise BackendError(f"the CNF encoding of {n} support vectors would hold about {guess / 1e6:.0f} "
                               f"million clauses (limit {MAX_CLAUSES:,}); count a smaller "
                               f"support (subsample=N) or pick a backend that needs no CNF")
        chat = b.add(row, g)
        if b.learned:
            predicted.append(chat)
        if progress is not None:
            progress(row + 1, n)
        if deadline is not None:
            deadline.check()
    if b.learned:
        _apart(b.circuit, problem, predicted, b.A if b.local else None, deadline)
    return b.encoding()


class RowEncoder:
    """The CNF of a problem built a support vector at a time: the alpha variables and the class's constraints
    first (``base`` clauses), then :meth:`add` appends one row's clauses (gates shared with earlier rows are
    not repeated), so a solver fed ``circuit.clauses[before:]`` learns a row without the rest being rebuilt."""

    def __init__(self, problem: Problem | Rectangle, sigma: tuple | None = None, ordered: tuple = ()):
        if not isinstance(problem, (Problem, Rectangle)):
            raise TypeError(f"encode() takes a Problem (rscount.make_problem(...)), not {type(problem).__name__}")
        cls = problem.map_class
        if cls not in CNF_CLASSES:
            raise EncodingError(f"class {cls!r} has a closed form and no CNF encoding (nothing to write as DIMACS "
                                f"or give a CNF counter); count it with backend=closed-form, or choose another "
                                f"map_class=")
        task = problem.task
        k, sizes = task.k, task.sizes
        gt = problem.source_sizes if isinstance(problem, Rectangle) else sizes
        self.local = local = cls in ("disentangled", "shared")
        if sigma is not None and (local or sorted(sigma) != list(range(k))):
            raise EncodingError("a fixed concept assignment needs class complete/permutation and a permutation")
        if ordered and (cls not in ("complete", "permutation") or sigma is not None):
            raise EncodingError("ordered pairs of predicted concepts need class complete/permutation and no fixed "
                                "concept assignment")
        self.problem, self.sizes, self.rep = problem, sizes, problem.representative
        if sigma is not None:
            self.allowed = [[sigma[i]] for i in range(k)]
        else:
            self.allowed = [[i] if local else list(range(k)) for i in range(k)]  # gt concepts predicted i may read
        readers: list = [[] for _ in range(k)]
        for i in range(k):
            for j in self.allowed[i]:
                readers[j].append(i)
        problem.support.vectors  # an exhaustive support too large to list says so now, before anything is built
        n_alpha = sum(gt[j] * sum(sizes[i] for i in readers[j]) for j in range(k) if not local or self.rep(j) == j)
        if n_alpha > MAX_ALPHA:
            raise BackendError(f"the CNF encoding would need {n_alpha:,} alpha variables (limit {MAX_ALPHA:,}); "
                               f"use map_class=disentangled or shared, or a counter that needs no CNF")
        self.circuit = circuit = Circuit()
        self.alpha_keys: dict = {}
        A = self.A
        columns = [(j, u) for j in range(k) if not local or self.rep(j) == j for u in range(gt[j])]
        # Creating the alpha variables before anything else makes them ids 1..m.
        rows_of = {(j, u): [A(i, v, j, u) for i in readers[j] for v in range(sizes[i])] for j, u in columns}
        self.alpha = tuple(sorted(self.alpha_keys))
        for lits in rows_of.values():  # Eq. 11: each gt value goes to exactly one predicted value
            circuit.exactly_one(lits)
        if cls in ("complete", "permutation") and sigma is None:
            O = {(i, j): circuit.OR(A(i, v, j, u) for v in range(sizes[i]) for u in range(gt[j]))
                 for i in range(k) for j in range(k)}  # Eq. 10
            for j in range(k):  # Eq. 14
                circuit.exactly_one([O[i, j] for i in range(k)])
            for i, later in ordered:
                for j in range(k):
                    for before in range(j + 1):
                        circuit.add((-O[i, j], -O[later, before]))
            if cls == "permutation":  # Eq. 15
                for i in range(k):
                    circuit.exactly_one([O[i, j] for j in range(k)])
        self.learned = problem.inference != "knowledge"  # learned:linear lists these maps, checks each head
        self.knowledge = None if self.learned else task.compiled
        self.base = len(circuit.clauses)
        self.frame = (self.base, circuit.pool.top)

    def A(self, i: int, v: int, j: int, u: int) -> int:
        """The alpha variable sending value u of gt concept j to value v of predicted concept i."""
        if self.local:
            i = j = self.rep(i)
        if v >= self.sizes[i]:
            return FALSE
        key = ("A", i, v, j, u)
        var = self.circuit.pool.get(key)
        if var is None:
            var = self.circuit.var(key)
            self.alpha_keys[var] = (i, v, j, u)
        return var

    def add(self, row: int, g) -> dict:
        """Append support vector ``row`` (``g``: its values): its predicted concepts one-hot, its supervised values
        and (knowledge inference) its label; return its predicted value bits by (i, v)."""
        problem, circuit, task, A = self.problem, self.circuit, self.problem.task, self.A
        chat = {}
        for i in range(task.k):
            bits = [circuit.OR(A(i, v, j, g[j]) for j in self.allowed[i]) for v in range(self.sizes[i])]
            circuit.exactly_one(bits)  # predicted concept i comes out one-hot
            chat.update({(i, v): b for v, b in enumerate(bits)})
        truth = g if getattr(problem, "truth", None) is None else problem.truth[row]  # a rectangle's: apart
        for i in problem.supervised(row, g):
            circuit.assert_(chat[(i, int(truth[i]))])
        if self.learned:
            return chat
        knowledge, labels = self.knowledge, problem.labels
        seen = problem.observed(row) if problem.parts else range(len(knowledge.tables))  # several tasks: its own
        targets = [knowledge.tables[t].get(task.decode(labels[row][t]), FALSE) for t in seen]
        mapping = knowledge.circuit.copy_into(
            circuit, {var: chat[key] for key, var in knowledge.inputs.items()}, targets)
        for lit in targets:  # Eq. 13: the predicted concepts give the training label
            circuit.assert_(Circuit.lookup(mapping, lit))
        return chat

    def encoding(self) -> Encoding:
        """The CNF of the rows added so far."""
        c = self.circuit
        return Encoding(c.pool.top, c.clauses, self.alpha, self.alpha_keys, c.pool, self.problem, c.constraints,
                        c.defs, self.frame)


MAX_PAIRS = 20_000_000  # pairs of support vectors with different labels a learned-head CNF compares


def _apart(circuit: Circuit, problem: Problem, predicted: list, A, deadline) -> None:
    """A learned head: no two support vectors with different labels get one prediction. Local classes compare
    value by value (one clause a pair: some concept's value map separates the two values); the others
    compare the rows' predicted value bits."""
    rows = list(problem.support.rows())
    by_label: dict = {}
    for row, y in enumerate(map(tuple, problem.labels.tolist())):
        by_label.setdefault(y, []).append(row)
    groups = list(by_label.values())
    pairs = (sum(map(len, groups)) ** 2 - sum(len(g) ** 2 for g in groups)) // 2
    if pairs > MAX_PAIRS:
        raise BackendError(f"a learned head compares {pairs:,} pairs of support vectors with different labels "
                           f"(limit {MAX_PAIRS:,}); count a smaller support (subsample=N)")
    task = problem.task
    same: dict = {}  # (predicted concept's value map, u, u') -> gate "the map sends u and u' to one value"

    def merged(i: int, u: int, w: int):
        r = problem.representative(i)
        key = (r, min(u, w), max(u, w))
        if key not in same:
            same[key] = circuit.OR(circuit.AND((A(i, v, i, u), A(i, v, i, w))) for v in range(task.sizes[i]))
        return same[key]

    done, seen = 0, set()
    for a, first in enumerate(groups):
        for second in groups[a + 1:]:
            for r in first:
                g = rows[r]
                for t in second:
                    h = rows[t]
                    if A is not None:
                        clause = tuple(sorted({-merged(i, g[i], h[i]) for i in range(task.k) if g[i] != h[i]}))
                        if clause not in seen:
                            seen.add(clause)
                            circuit.add(clause)
                    else:
                        p, q = predicted[r], predicted[t]
                        circuit.add([circuit.AND((p[key], -q[key])) for key in p])
                    done += 1
                    if deadline is not None and done % 4096 == 0:
                        deadline.check()
