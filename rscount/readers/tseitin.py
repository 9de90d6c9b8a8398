"""Read knowledge back from a CNF whose auxiliary variables are Tseitin gates (as ``countrss --export-dimacs`` writes).

A DIMACS file that names its variables (``c var N concept c1=0``,
``c var N label y=1``) or shows a projection (``c p show``) means: the
named or shown variables are the concepts (and labels), every other variable
is existentially quantified. Where each hidden variable is a Tseitin gate
(an AND or XOR of other literals, defined by its full equivalence), it has
exactly one value per concept vector, so the quantifier is a substitution:
the gates become expressions, and the knowledge is a :class:`~rscount.model.task.Task`
like any other. Every clause must be a gate definition, a domain clause the
one-hot concepts satisfy, or a constraint checked to hold on every concept
vector; anything else is refused, never guessed.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..errors import DimacsError, KnowledgeError
from ..language.logic import Const, Op, Var

__all__ = ["Bits", "read_bits", "gate_definitions", "knowledge_from_gates", "check_constraints", "concept_leaves",
           "label_expression", "one_hot_labels"]

MAX_CONSTRAINT_SPACE = 1 << 20  # concept vectors a leftover constraint is checked on


@dataclass(frozen=True)
class Bits:
    """What the named variables of a file are: per variable, ("concept" | "label", name, value)."""

    roles: dict

    def of(self, kind: str) -> dict:
        """Names of ``kind`` in order of first appearance, each with its values in order: {name: [(value, var)]}."""
        out: dict = {}
        for var, (k, name, value) in sorted(self.roles.items()):
            if k == kind:
                out.setdefault(name, []).append((value, var))
        return out


def _value(text: str):
    try:
        return int(text)
    except ValueError:
        return text


def read_bits(names: dict, source: str) -> Bits:
    """Parse ``c var`` names of the form ``concept NAME=VALUE`` / ``label NAME=VALUE``."""
    roles = {}
    for var, text in names.items():
        kind, _, rest = text.partition(" ")
        name, eq, value = rest.partition("=")
        if kind not in ("concept", "label") or not eq or not name or not value:
            raise DimacsError(f"{source}: 'c var {var} {text}' is not 'concept NAME=VALUE' or 'label NAME=VALUE'; "
                              f"fix the line or remove the 'c var' lines to read every variable as a concept")
        roles[var] = (kind, name.strip(), _value(value.strip()))
    return Bits(roles)


def gate_definitions(clauses, inputs: set, outputs: set = frozenset()) -> tuple:
    """Find the Tseitin definitions ``var -> ("and" | "xor", child literals)`` of variables outside ``inputs``.

    ``outputs`` (label bits) are defined first, so ``y <-> t`` defines y, never t.
    Returns (definitions, the clauses no definition uses).
    """
    index = {frozenset(c): n for n, c in enumerate(clauses)}
    used: set = set()
    defs: dict = {}
    for first in (True, False):
        _define(clauses, index, inputs, outputs, first, used, defs)
    return defs, [c for n, c in enumerate(clauses) if n not in used]


def _define(clauses, index, inputs, outputs, first: bool, used: set, defs: dict) -> None:
    for n, clause in enumerate(clauses):
        if n in used:
            continue
        for g in clause:
            if g <= 0 or g in inputs or g in defs or (g in outputs) != first:
                continue
            rest = [lit for lit in clause if lit != g]
            if not rest or len(set(clause)) != len(clause):
                continue
            # AND: (g, -c1, ..., -cn) and (-g, ci) for every i
            halves = [index.get(frozenset((-g, -lit))) for lit in rest]
            if all(h is not None and h not in used for h in halves):
                defs[g] = ("and", tuple(-lit for lit in rest))
                used.update([n, *halves])
                break
            # XOR: (g, -a, b), (g, a, -b), (-g, a, b), (-g, -a, -b)
            if len(rest) == 2:
                a, b = -rest[0], rest[1]
                others = [index.get(frozenset(c)) for c in ((g, a, -b), (-g, a, b), (-g, -a, -b))]
                if all(o is not None and o not in used for o in others):
                    defs[g] = ("xor", (a, b))
                    used.update([n, *others])
                    break


def _ordered(defs: dict, source: str) -> list:
    """Gate variables, children first; a cycle is refused."""
    order, state = [], {}
    for root in defs:
        stack = [(root, False)]
        while stack:
            v, done = stack.pop()
            if done:
                state[v] = 2
                order.append(v)
                continue
            if state.get(v) == 2:
                continue
            if state.get(v) == 1:
                raise DimacsError(f"{source}: variable {v} is defined through itself; its clauses are not "
                                  f"Tseitin gates")
            state[v] = 1
            stack.append((v, True))
            stack.extend((abs(c), False) for c in defs[v][1] if abs(c) in defs and state.get(abs(c)) != 2)
    return order


def knowledge_from_gates(leaves: dict, defs: dict, source: str) -> Callable:
    """Expressions for every defined variable, given expressions for the input variables (``leaves``).

    Returns ``literal(lit)``: the expression of a DIMACS literal, raising DimacsError for a variable that is
    neither a leaf nor defined.
    """
    exprs = dict(leaves)
    for v in _ordered(defs, source):
        op, kids = defs[v]
        args = []
        for lit in kids:
            if abs(lit) not in exprs:
                raise DimacsError(f"{source}: gate {v} reads variable {abs(lit)}, which is not a concept and not "
                                  f"defined by its clauses")
            args.append(_literal(exprs, lit))
        exprs[v] = Op(op, tuple(args))

    def literal(lit: int):
        if abs(lit) not in exprs:
            raise DimacsError(f"{source}: variable {abs(lit)} is not a concept and not defined by its clauses "
                              f"(a Tseitin gate), so it cannot be quantified away; name or show it as a concept, "
                              f"or define it")
        return _literal(exprs, lit)
    return literal


def _literal(exprs: dict, lit: int):
    e = exprs[abs(lit)]
    return e if lit > 0 else Op("not", (e,))


def check_constraints(constraints: list, concepts: tuple, source: str) -> None:
    """Raise unless every constraint holds on every concept vector (one-hot domains)."""
    from ..language.logic import variables
    from ..model.task import Label, Task
    for expr in constraints:
        names = sorted(variables(expr))
        used = tuple(c for c in concepts if c.name in names)
        size = int(np.prod([len(c.domain) for c in used], dtype=object)) if used else 1
        if size > MAX_CONSTRAINT_SPACE:
            raise DimacsError(f"{source}: a clause that is no gate definition constrains {len(used)} concepts "
                              f"({size} vectors, limit {MAX_CONSTRAINT_SPACE}); the knowledge must give every "
                              f"concept vector a label")
        if not used:
            task = Task("constraint", (concepts[0],), (Label("ok", expr),))
            holds = bool(task.evaluate(np.zeros((1, 1), dtype=np.int64))[0, 0])
            bad = None if holds else ()
        else:
            task = Task("constraint", used, (Label("ok", expr),))
            grid = np.array(list(itertools.product(*(range(len(c.domain)) for c in used))), dtype=np.int64)
            ok = task.evaluate(grid)[:, 0] != 0
            bad = None if ok.all() else task.format_vector(grid[int(np.argmin(ok))])
        if bad is not None:
            raise KnowledgeError(f"contradictory knowledge in {source}: no label satisfies the clauses for "
                                 f"concepts {bad or 'any'}; K must give every concept vector a label")


def concept_leaves(bits: Bits, source: str) -> tuple:
    """Concepts of a named file, and the expression each concept bit stands for."""
    from ..model.task import Concept
    concepts, leaves = [], {}
    for name, values in bits.of("concept").items():
        domain = tuple(v for v, _ in values)
        if len(set(domain)) != len(domain):
            raise DimacsError(f"{source}: concept {name!r} names one value twice")
        concepts.append(Concept(name, domain))
        for value, var in values:
            if domain == (0, 1):
                leaves[var] = Var(name) if value == 1 else Op("not", (Var(name),))
            else:
                leaves[var] = Op("eq", (Var(name), Const(value)))
    if not concepts:
        raise DimacsError(f"{source}: the 'c var' lines name no concept; name them 'concept NAME=VALUE'")
    return tuple(concepts), leaves


def label_expression(values: list, literal):
    """The label's value as an expression of its one-hot bits (checked one-hot by the caller)."""
    domain = [v for v, _ in values]
    if len(domain) == 1:
        return Const(domain[0])
    if sorted(domain, key=str) == [0, 1] and len(domain) == 2:
        one = next(var for v, var in values if v == 1)
        return Op("ite", (literal(one), Const(1), Const(0)))
    expr = Const(domain[-1])
    for value, var in reversed(values[:-1]):
        expr = Op("ite", (literal(var), Const(value), expr))
    return expr


def one_hot_labels(clauses, nvars: int, bits: Bits, source: str) -> None:
    """Raise unless the clauses give every label exactly one value on every concept vector (a SAT check)."""
    from pysat.card import CardEnc, EncType
    from pysat.solvers import Solver
    cnf, top = [list(c) for c in clauses], nvars
    for values in bits.of("concept").values():  # the concepts are one-hot whatever the file says
        one = CardEnc.equals([var for _, var in values], 1, top_id=top, encoding=EncType.seqcounter)
        cnf += one.clauses
        top = max(top, one.nv)
    with Solver(name="cadical153", bootstrap_with=cnf) as solver:
        for name, values in bits.of("label").items():
            vs = [var for _, var in values]
            if solver.solve(assumptions=[-v for v in vs]):
                raise KnowledgeError(f"contradictory knowledge in {source}: some concept vector gives label "
                                     f"{name!r} no value; K must give every concept vector a label")
            for a, b in itertools.combinations(vs, 2):
                if solver.solve(assumptions=[a, b]):
                    raise KnowledgeError(f"knowledge in {source} is not deterministic (assumption A2): some "
                                         f"concept vector gives label {name!r} two values")
