"""CNF building blocks: an explicit variable pool and a hash-consed gate builder.

Every gate is defined by a full Tseitin equivalence, so its variable is
fully determined by the inputs: counting all variables equals counting the
inputs, which is what lets unprojected counters (SDD) agree with projected
ones. Literals are DIMACS integers; ``TRUE``/``FALSE`` are sentinels that
never reach a clause.
"""
from __future__ import annotations

from typing import Hashable, Iterable, Sequence

__all__ = ["Lit", "Clause", "TRUE", "FALSE", "VarPool", "Circuit"]

Lit = int
Clause = tuple

TRUE: Lit = 1 << 62
FALSE: Lit = -TRUE


class VarPool:
    """Map meaningful keys to DIMACS variable ids (1, 2, ...) and back."""

    def __init__(self) -> None:
        self._ids: dict = {}
        self._keys: list = [None]

    def id(self, key: Hashable) -> int:
        """Return the id of ``key``, creating a fresh one on first use."""
        vid = self._ids.get(key)
        if vid is None:
            vid = len(self._keys)
            self._ids[key] = vid
            self._keys.append(key)
        return vid

    def get(self, key: Hashable) -> int | None:
        return self._ids.get(key)

    def key(self, vid: int) -> Hashable:
        return self._keys[vid]

    @property
    def top(self) -> int:
        """The largest id in use."""
        return len(self._keys) - 1


class Circuit:
    """Build gates over literals; collect their Tseitin clauses in ``clauses``."""

    def __init__(self, pool: VarPool | None = None) -> None:
        self.pool = pool if pool is not None else VarPool()
        self.clauses: list = []  # every clause: gate definitions and constraints
        self.constraints: list = []  # the clauses that are not gate definitions
        self.defs: dict = {}  # gate var -> (op, children)
        self._gates: dict = {}

    def var(self, key: Hashable) -> Lit:
        return self.pool.id(key)

    def add(self, clause: Iterable[Lit]) -> None:
        """Add a clause, dropping FALSE literals and skipping satisfied ones."""
        lits = []
        for lit in clause:
            if lit == TRUE:
                return
            if lit != FALSE:
                lits.append(lit)
        self.clauses.append(tuple(lits))
        self.constraints.append(tuple(lits))

    def assert_(self, lit: Lit) -> None:
        self.add((lit,))

    def AND(self, lits: Iterable[Lit]) -> Lit:
        seen = set()
        for lit in lits:
            if lit == FALSE or -lit in seen:
                return FALSE
            if lit != TRUE:
                seen.add(lit)
        if not seen:
            return TRUE
        if len(seen) == 1:
            return next(iter(seen))
        children = tuple(sorted(seen))
        key = ("and", children)
        gate = self._gates.get(key)
        if gate is None:
            gate = self.pool.id(("gate", len(self._gates)))
            self._gates[key] = gate
            self.defs[gate] = key
            for child in children:
                self.clauses.append((-gate, child))
            self.clauses.append((gate,) + tuple(-c for c in children))
        return gate

    def OR(self, lits: Iterable[Lit]) -> Lit:
        return -self.AND(-lit for lit in lits)

    def XOR(self, a: Lit, b: Lit) -> Lit:
        if a in (TRUE, FALSE):
            return -b if a == TRUE else b
        if b in (TRUE, FALSE):
            return -a if b == TRUE else a
        if a == b:
            return FALSE
        if a == -b:
            return TRUE
        sign = 1
        if a < 0:
            a, sign = -a, -sign
        if b < 0:
            b, sign = -b, -sign
        key = ("xor", (min(a, b), max(a, b)))
        gate = self._gates.get(key)
        if gate is None:
            gate = self.pool.id(("gate", len(self._gates)))
            self._gates[key] = gate
            self.defs[gate] = key
            self.clauses += [(-gate, a, b), (-gate, -a, -b), (gate, -a, b), (gate, a, -b)]
        return sign * gate

    def ITE(self, c: Lit, a: Lit, b: Lit) -> Lit:
        return self.OR((self.AND((c, a)), self.AND((-c, b))))

    def exactly_one(self, lits: Sequence[Lit]) -> None:
        """Require exactly one of ``lits``; auxiliary variables stay determined."""
        lits = [lit for lit in lits if lit != FALSE]
        if sum(lit == TRUE for lit in lits) > 1:
            self.add(())
            return
        self.add(lits)
        if len(lits) <= 6:
            for i, a in enumerate(lits):
                for b in lits[i + 1:]:
                    self.add((-a, -b))
            return
        prefix = lits[0]
        for lit in lits[1:]:
            self.add((-prefix, -lit))
            prefix = self.OR((prefix, lit))

    def copy_into(self, target: "Circuit", inputs: dict, roots: Iterable[Lit]) -> dict:
        """Rebuild the cone of ``roots`` in ``target``; return var -> target literal.

        ``inputs`` maps this circuit's input variables to target literals.
        """
        mapping = dict(inputs)
        cone, stack = set(), [abs(r) for r in roots if r not in (TRUE, FALSE)]
        while stack:
            v = stack.pop()
            if v in cone or v in mapping:
                continue
            cone.add(v)
            op, children = self.defs[v]
            stack.extend(abs(c) for c in children)
        for v in sorted(cone):
            op, children = self.defs[v]
            kids = [mapping[c] if c > 0 else -mapping[-c] for c in children]
            mapping[v] = target.AND(kids) if op == "and" else target.XOR(*kids)
        return mapping

    @staticmethod
    def lookup(mapping: dict, lit: Lit) -> Lit:
        if lit in (TRUE, FALSE):
            return lit
        return mapping[lit] if lit > 0 else -mapping[-lit]
