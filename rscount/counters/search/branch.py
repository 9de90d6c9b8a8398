"""The search itself: choose what to branch on, branch, and count in closed form what no label reads.

While some unit has no source, the search sets the open entry that
completes the most undecided rows, then sources the next unit. Once every
unit has its source, the open entries split into components no undecided
row links, each counted on its own (:meth:`Search.scoped`).
"""
from __future__ import annotations

import math

import numpy as np

from ...model.support import distinct
from ...problems.split import bijection_weight
from ..base import Deadline
from .memo import Memo, node_key, scope_key
from .propagate import collides, consistent, forward, linked, restrictions, waiting_on
from .state import Entry, build_state
from .symmetries import orbits

CHECK_EVERY = 512


class Search:
    """One count: the state, the memo, and the deadline checked every ``every`` nodes."""

    def __init__(self, problem, deadline: Deadline, every: int = CHECK_EVERY):
        self.state = build_state(problem)
        self.memo = Memo()
        self.deadline, self.every = deadline, every
        self.nodes = 0

    def total(self) -> int:
        """The number of optimal maps: the search's count times what it leaves to closed form."""
        st = self.state
        absent = math.prod(unit.size ** st.entries[n].count(Entry.ABSENT) for n, unit in enumerate(st.units)
                           if unit.sources is not None)
        return st.weight * absent * self.count()

    def _tick(self) -> None:
        self.nodes += 1
        if self.nodes % self.every == 0:
            self.deadline.check()

    # --- a node -------------------------------------------------------------------------------------------
    def count(self) -> int:
        st = self.state
        if all(e is not None for e in st.entries):
            return self.scoped(frozenset(n * st.width + u for n in range(len(st.units)) for u in st.open_entries(n)))
        self._tick()
        if st.undecided == 0 and not st.any_supervision:  # every label fixed, nothing pinned
            return self.completions({})
        key = node_key(st)
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        total = self._branch()
        self.memo.put(key, total)
        return total

    def _branch(self) -> int:
        st = self.state
        if collides(st):
            return 0
        allowed = restrictions(st)
        if allowed is None:
            return 0
        closed = self.one_unknown_left(allowed)
        if closed is not None:
            return closed
        if allowed:
            e = min(allowed, key=lambda x: (int(allowed[x].sum()), x))
            entry = divmod(e, st.width)
            return self._set(entry, [v for v in st.choices(*entry) if allowed[e][v]])
        entry = self.best_entry()  # some unit still needs its source here (see count)
        if entry is None:  # a unit's entries are all set before the next one is sourced: states then merge
            return self._choose_source(next(n for n in st.order if st.entries[n] is None))
        return self._set(entry, st.choices(*entry))

    def best_entry(self) -> tuple | None:
        """The open entry that completes the most undecided rows, or None when none is open."""
        st = self.state
        best, best_score = None, -1.0
        weights = {id(p): np.where(p.decided, 0.0, np.exp2(1 - p.missing.astype(float))) for p in st.parts}
        for n, unit in enumerate(st.units):
            entries = st.entries[n]
            if entries is None or Entry.OPEN not in entries:
                continue
            score = np.zeros(len(entries))
            for i, s in zip(unit.members, st.source[n]):
                part = st.part_of.get(i)
                if part is not None:
                    score += np.bincount(st.G[:, s], weights=weights[id(part)], minlength=len(entries))
            for u, e in enumerate(entries):
                if e is Entry.OPEN and score[u] > best_score:
                    best, best_score = (n, u), score[u]
        return best

    def _set(self, entry: tuple, values) -> int:
        """Count over the values of one entry (in closed form when no undecided row reads it)."""
        st = self.state
        n, u = entry
        if st.is_free(n, u):
            st.entries[n][u] = Entry.SET  # no label reads it: every value counts the same
            st.changed = []
            total = len(values) * self.count() if values else 0
            st.entries[n][u] = Entry.OPEN
            return total
        return self._try(n, u, values, self.count)

    def _try(self, n: int, u: int, values, below) -> int:
        """Sum of ``below()`` over entry ``u`` of unit ``n`` set to each of ``values`` (one per orbit, weighted)."""
        st = self.state
        total, col = 0, st.units[n].members[0]
        changed = list({id(p): p for i in st.units[n].members if (p := st.part_of.get(i))}.values())
        for v, weight in orbits(st, n, values):
            ok, undo = st.assign(n, u, v)
            if ok:
                saved = st.stab
                st.stab = saved[st.group[saved, col, v] == v]
                st.changed = changed
                total += weight * below()
                st.stab = saved
            st.unassign(n, u, undo)
        return total

    def _choose_source(self, n: int) -> int:
        st = self.state
        unit, total = st.units[n], 0
        rows, ok = waiting_on(st, unit.members[0])
        for s in range(st.n_sources):
            if s in st.used or not st.in_order(unit.members[0], s):
                continue
            if rows is not None:  # some source value whose rows want no common predicted value: no map
                values = st.G[rows, s]
                if any(not ok[values == u].all(axis=0).any() for u in distinct(values).tolist()):
                    continue
            st.used.add(s)
            st.source[n] = (s,)
            st.entries[n] = st.fresh_entries((s,))
            absent = unit.size ** st.entries[n].count(Entry.ABSENT)
            st.changed = list(st.parts)  # fewer unused sources: every part may collide now
            total += absent * self._sorted_classes(n, [c for c in st.classes.get(s, ()) if
                                                       all(st.entries[n][u] is Entry.OPEN for u in c)])
            st.entries[n] = None
            st.source[n] = None
            st.used.discard(s)
        return total

    def _sorted_classes(self, n: int, classes: list) -> int:
        """Set the entries of each class of interchangeable source values (see
        :func:`rscount.model.support.interchangeable_values`: precomposing a source's value map with a swap
        inside a class maps optimal maps to optimal maps) as a non-decreasing tuple, weighted by its distinct
        orderings (a multinomial)."""
        if not classes:
            return self.count()
        st, (c, *rest) = self.state, classes
        size = st.units[n].size

        def fill(a: int, low: int, weight: int, run: int) -> int:
            if a == len(c):
                st.changed = list(st.parts)
                return weight * self._sorted_classes(n, rest)
            total = 0
            for v in range(low, size):
                ok, undo = st.assign(n, c[a], v)
                if ok:
                    same = run + 1 if a and v == low else 1  # length of the run of equal values ending here
                    total += fill(a + 1, v, weight * (a + 1) // same, same)
                st.unassign(n, c[a], undo)
            return total
        return fill(0, 0, 1, 0)

    # --- once every unit has its source: independent components ---------------------------------------------
    def scoped(self, scope: frozenset) -> int:
        """Maps for the open entries in ``scope``, which no undecided row shares with an entry outside it."""
        st = self.state
        self._tick()
        wanted = np.fromiter(scope, dtype=np.int64, count=len(scope))
        touched = []
        for part in st.parts:
            rows = np.flatnonzero(~part.decided)
            ids = st.entry_ids(part, rows)
            hit = np.isin(ids, wanted).any(axis=1)
            touched.append((part, rows[hit], ids[hit]))
        key = scope_key(st, scope, touched)
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        total = self._scoped(scope, touched)
        self.memo.put(key, total)
        return total

    def _scoped(self, scope: frozenset, touched: list) -> int:
        st = self.state
        allowed: dict = {}
        if not forward(touched, allowed) or not consistent(st, touched, allowed):
            return 0
        degree, root = linked(touched)
        total, comps = 1, {}
        for e in scope:
            if e in degree:
                comps.setdefault(root[e], []).append(e)
            else:
                total *= st.n_values(e, allowed.get(e))
                if total == 0:
                    return 0
        if len(comps) > 1:
            for comp in comps.values():
                total *= self.scoped(frozenset(comp))
                if total == 0:
                    return 0
            return total
        if not comps:
            return total
        (comp,) = comps.values()
        e = min(comp, key=lambda x: (st.n_values(x, allowed.get(x)), -degree[x], x))
        n, u = divmod(e, st.width)
        mask = allowed.get(e)
        rest = frozenset(comp) - {e}
        values = [v for v in st.choices(n, u) if mask is None or mask[v]]
        return total * self._try(n, u, values, lambda: self.scoped(rest))

    # --- closed forms -----------------------------------------------------------------------------------------
    def one_unknown_left(self, allowed: dict) -> int | None:
        """The count in closed form when every undecided row waits on one entry only (else None).

        Each such entry is then constrained by its own rows alone, so the
        entries are independent: multiply their numbers of allowed values.
        """
        st = self.state
        for part in st.parts:
            if ((part.missing != 1) & ~part.decided).any():
                return None
        open_units = [n for n, e in enumerate(st.entries) if e is None]
        if open_units and st.any_supervision:
            return None
        for n in open_units:
            for i in st.units[n].members:
                part = st.part_of.get(i)
                if part is not None and part.unknown(i, np.flatnonzero(~part.decided)).any():
                    return None
        return self.completions(allowed)

    def completions(self, allowed: dict) -> int:
        """Ways to finish the map when each open entry is constrained by ``allowed`` alone (and unsourced units
        by nothing): the product of the entries' choices times the value maps of every source assignment."""
        st = self.state
        total = 1
        for n, entries in enumerate(st.entries):
            if entries is not None:
                for u in st.open_entries(n):
                    total *= st.n_values(n * st.width + u, allowed.get(n * st.width + u))
        open_units = [n for n, e in enumerate(st.entries) if e is None]
        if any(st.units[n].members[0] in st.block_of for n in open_units):
            total *= self._ordered_sourcings(open_units)
        elif open_units:
            free = [size for s, size in enumerate(st.source_sizes) if s not in st.used]
            total *= bijection_weight(tuple(st.units[n].size for n in open_units), tuple(free))
        return total

    def _ordered_sourcings(self, open_units: list) -> int:
        """Like ``bijection_weight``, but block members read sources in increasing order (see block_tuples)."""
        st = self.state
        free = [s for s in range(st.n_sources) if s not in st.used]
        members = sorted(st.units[n].members[0] for n in open_units)
        options = [[s for s in free if st.in_order(i, s)] for i in members]
        memo: dict = {}

        def go(t: int, taken: frozenset, last: tuple) -> int:
            if t == len(members):
                return 1
            if (t, taken, last) not in memo:
                i, block, total = members[t], st.block_of.get(members[t]), 0
                floor = dict(last).get(block, -1)
                for s in options[t]:
                    if s not in taken and (block is None or s > floor):
                        after = last if block is None else tuple(sorted({**dict(last), block: s}.items()))
                        total += st.task.sizes[i] ** st.source_sizes[s] * go(t + 1, taken | {s}, after)
                memo[(t, taken, last)] = total
            return memo[(t, taken, last)]
        return go(0, frozenset(), ())
