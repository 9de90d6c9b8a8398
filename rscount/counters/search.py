"""Exact counts on any support by a search over the entries of the value maps.

A map of class complete (= permutation), disentangled or shared is a choice
of source concept for every predicted concept plus a table of entries
(source value -> predicted value). A support vector reads one entry per
predicted concept, so the search assigns entries one at a time, the one that
completes the most support vectors first. Each vector keeps, per label part
(labels reading disjoint concepts), the index of its partial prediction in a
*star table*: every concept's domain plus one "not yet known" slot, holding
the set of labels some completion still reaches. A vector whose true label
drops out of that set prunes the branch, and so do two vectors bound to end
with the same prediction (same partial prediction, same values on every
source still to be read) that want different labels: a map that loses
information a label needs dies at once. Entries that no undecided vector
reads, values no vector shows, and everything left once every label is
fixed are counted in closed form; equal states are counted once (a cache
keyed by the labelling function each vector has left, not by how it got
there). Once every predicted concept has its source, a vector with two or
three open entries narrows their values to those some completion supports
(arc consistency, to a fixpoint). Value permutations of the predicted
concepts that keep every label (Kand-Logic: a color and a shape permutation
per figure) map optimal maps to optimal maps, so an entry tries one value
per orbit of the permutations that fix the entries set so far and counts
it once per member of the orbit. Likewise, for complete maps, predicted
concepts the knowledge can swap read sources in increasing order, and the
count is multiplied by the blocks' factorials.
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import BackendError, CountTimeout
from ..result import Tally
from ..split import components, grid_labels
from ..support import clashes, distinct, row_codes
from ..symmetry import compose, knowledge_blocks, value_symmetries
from .base import Counter, Deadline, Options, briefly, run_isolated

CLASSES = ("complete", "permutation", "disentangled", "shared")
MAX_STAR = 1 << 25  # cells of one part's star table
QUICK_ROWS, QUICK_STAR, QUICK_SECONDS = 256, 1 << 14, 0.05  # small problems are first tried in-process, briefly
MAX_LABELS = 64
MAX_GROUP = 1 << 14  # value permutations kept for counting one value per orbit
MAX_GAC = 3  # arc consistency covers rows with up to this many open entries,
GAC_CELLS = 81  # or more while a row's value tuples stay this few (booleans: 6, ternary: 4)
MATMUL_CELLS = 256  # value tuples per row above which supports are counted by matrix products
MAX_RESIDUAL = 1 << 23  # cells beyond which a star cell is its own residual id
MAX_CACHE_BYTES = 512 << 20  # keys hold row states; start afresh beyond this
CHECK_EVERY = 512
CODE_BOUND = 1 << 62  # row codes with one fixed weight per source below this; above, stacked and ranked


def _star_table(task, concepts: tuple, labels: tuple) -> tuple:
    """Bitmask of reachable label codes for each partial vector over ``concepts`` (last slot: unknown).

    Returns the flat table, the strides, and a function giving each full
    vector's label code as a bit.
    """
    sizes = tuple(task.sizes[c] for c in concepts)
    values = grid_labels(task, concepts)[:, labels]
    codes, inverse = np.unique(values, axis=0, return_inverse=True)
    if len(codes) > MAX_LABELS:
        raise ValueError(f"{len(codes)} label values (limit {MAX_LABELS})")
    dtype = next(t for t in (np.uint8, np.uint16, np.uint32, np.uint64) if np.iinfo(t).bits >= len(codes))
    bits = (dtype(1) << inverse.reshape(sizes).astype(dtype)).astype(dtype)
    star = np.zeros(tuple(s + 1 for s in sizes), dtype=dtype)
    star[tuple(slice(0, s) for s in sizes)] = bits
    for a, s in enumerate(sizes):
        head = [slice(None)] * len(sizes)
        head[a] = slice(0, s)
        tail = list(head)
        tail[a] = s
        star[tuple(tail)] = np.bitwise_or.reduce(star[tuple(head)], axis=a)
    strides = [int(x) // star.itemsize for x in star.strides]
    lookup = {tuple(map(int, row)): n for n, row in enumerate(codes)}

    def bit_of(label_rows: np.ndarray) -> np.ndarray:
        return np.array([dtype(1) << dtype(lookup[tuple(map(int, r))]) for r in label_rows], dtype=dtype)
    return star.ravel(), strides, bit_of


def _unknown_slots(index: np.ndarray, strides, sizes) -> np.ndarray:
    """Per star index and concept (len(index) x concepts): whether that concept is the "unknown" slot there."""
    sizes = np.asarray(sizes, dtype=np.int64)
    return (index[:, None] // np.asarray(strides, dtype=np.int64)) % (sizes + 1) == sizes


def _residual_ids(table: np.ndarray, sizes: tuple, strides: list) -> tuple:
    """Per star cell, an id of the labelling function of its unknown concepts; equal ids, equal functions.

    Ids are the nodes of a reduced ordered decision diagram (axis order), so
    partial predictions that leave a row the same function share one id and
    the cache can merge them. Returns the ids and how many there are.
    """
    n = table.size
    if n > MAX_RESIDUAL:
        return np.arange(n, dtype=np.int64), n
    unknown = _unknown_slots(np.arange(n, dtype=np.int64), strides, sizes)
    ids = np.full(n, -1, dtype=np.int64)
    full = ~unknown.any(axis=1)
    _, ids[full] = np.unique(table[full], return_inverse=True)
    count = int(ids.max()) + 1
    known_before = np.ones(n, dtype=bool)
    lowest = []
    for a in range(len(sizes)):
        lowest.append(np.flatnonzero(unknown[:, a] & known_before))
        known_before &= ~unknown[:, a]
    for a in reversed(range(len(sizes))):
        at, size = lowest[a], sizes[a]
        if not len(at):
            continue
        child = ids[at[:, None] + strides[a] * (np.arange(size) - size)]
        same = (child == child[:, :1]).all(axis=1)
        ids[at[same]] = child[same, 0]
        rest = child[~same]
        if len(rest):
            _, inverse = np.unique(row_codes(rest, [count] * size), return_inverse=True)
            ids[at[~same]] = count + inverse.ravel()
            count += int(inverse.max()) + 1
    return ids, count


def _popcount_is_one(table: np.ndarray) -> np.ndarray:
    """Cells whose bitmask has exactly one bit: the label is fixed."""
    return (table != 0) & ((table & (table - 1)) == 0)


class _Part:
    """One label part: its star table and the partial index of every support row."""

    def __init__(self, task, concepts: tuple, labels: tuple, rows: np.ndarray, label_rows: np.ndarray):
        self.concepts = concepts
        self.table, strides, bit_of = _star_table(task, concepts, labels)
        self.stride = {c: s for c, s in zip(concepts, strides)}
        self.size = {c: task.sizes[c] for c in concepts}
        self.strides = np.array(strides, dtype=np.int64)
        self.sizes = np.array([task.sizes[c] for c in concepts], dtype=np.int64)
        self.rid, self.n_ids = _residual_ids(self.table, tuple(self.size[c] for c in concepts), strides)
        self.want = bit_of(label_rows[:, labels])
        self.index = np.full(len(rows), sum(self.stride[c] * self.size[c] for c in concepts), dtype=np.int64)
        self.decided = self.table[self.index] == self.want
        self.missing = np.full(len(rows), len(concepts), dtype=np.int64)
        self.axis = {c: a for a, c in enumerate(concepts)}
        self.known = np.zeros((len(rows), len(concepts)), dtype=bool)  # per row and concept: predicted yet

    def unknown(self, i: int, rows) -> np.ndarray:
        """Whether concept ``i`` is still unknown in each of ``rows``' partial predictions."""
        return ~self.known[rows, self.axis[i]]

    def keeps(self, i: int, rows) -> np.ndarray:
        """Per row (concept ``i`` unknown in it) and value v: whether setting c_i = v keeps its true label reachable."""
        size = self.size[i]
        at = self.index[rows][:, None] + self.stride[i] * (np.arange(size) - size)
        return (self.table[at] & self.want[rows, None]) != 0


class _Unit:
    """What the search assigns one source and one entry per source value for: a predicted concept or a group."""

    def __init__(self, members: tuple, size: int, sources: tuple | None):
        self.members = members  # predicted concepts that read this unit's entries
        self.size = size  # the predicted domain size
        self.sources = sources  # fixed source concept per member, or None to choose one (complete)


class _Search:
    def __init__(self, problem, deadline: Deadline, every: int = CHECK_EVERY):
        task = problem.task
        self.task, self.deadline, self.every = task, deadline, every  # the deadline is checked every few nodes
        self.sizes = task.sizes
        self.G = np.asarray(problem.support.vectors, dtype=np.int64)
        n = len(self.G)
        label_rows = problem.labels
        self.parts = [_Part(task, cs, ls, self.G, label_rows) for ls, cs in components(task)]
        self.part_of = {c: part for part in self.parts for c in part.concepts}
        cls = problem.map_class
        if cls in ("complete", "permutation"):
            self.units = [_Unit((i,), task.sizes[i], None) for i in range(task.k)]
        elif cls == "disentangled":
            self.units = [_Unit((i,), task.sizes[i], (i,)) for i in range(task.k)]
        else:
            groups: dict = {}
            for i in range(task.k):
                groups.setdefault(problem.representative(i), []).append(i)
            self.units = [_Unit(tuple(ms), task.sizes[ms[0]], tuple(ms)) for ms in groups.values()]
            if any(len({task.sizes[m] for m in u.members}) > 1 for u in self.units):
                raise ValueError("a concept group mixes domain sizes")
        self.supervised = np.zeros((n, task.k), dtype=bool)
        for r, g in enumerate(problem.support.rows()):
            self.supervised[r, list(problem.supervised(r, g))] = True
        self.any_supervision = bool(self.supervised.any())
        # rows_of[s][u]: the support rows whose concept s has value u
        self.rows_of = [[np.flatnonzero(self.G[:, s] == u) for u in range(task.sizes[s])] for s in range(task.k)]
        self.source = [u.sources for u in self.units]
        self.value: list = [None] * len(self.units)  # per unit: per source value the entry, -1 unassigned
        self.used: set = {s for u in self.units if u.sources for s in u.sources}
        self.undecided = sum(int((~p.decided).sum()) for p in self.parts)
        self.cache: dict = {}
        self.cache_bytes = 0
        self.nodes = 0
        self.changed = None  # the parts the step into the current node changed (None: all)
        self.order = self._unit_order()
        self.unit_of = {i: n for n, unit in enumerate(self.units) for i in unit.members}
        self.width = max(task.sizes)
        self.gac = MAX_GAC  # the most open entries of a row that arc consistency covers
        while self.width > 1 and self.width ** (self.gac + 1) <= GAC_CELLS:
            self.gac += 1
        self.group = self._value_group()
        # per entry (unit * width + source value) its unit's predicted values, then one padding entry of one value
        self.domains = np.zeros((len(self.units) * self.width + 1, self.width), dtype=bool)
        for n, unit in enumerate(self.units):
            self.domains[n * self.width:(n + 1) * self.width, :unit.size] = True
        self.domains[-1, 0] = True
        self.stab = np.arange(len(self.group))  # elements fixing every entry set so far
        self.block_of = self._concept_blocks(problem)
        self.weight = math.prod(math.factorial(len(b)) for b in set(self.block_of.values()))
        for n_unit, unit in enumerate(self.units):
            if unit.sources is not None:
                self.value[n_unit] = self._fresh_values(unit.sources)

    def _concept_blocks(self, problem) -> dict:
        """Per predicted concept in a block of interchangeable ones (complete maps, no supervision): its block.

        Permuting the predicted concepts of a block keeps every label, so it
        maps optimal maps to optimal maps, and no complete map to itself (the
        block's members read distinct sources). Each orbit therefore holds
        exactly one map whose block members read sources in increasing order;
        the search counts those and multiplies by the blocks' factorials.
        """
        if problem.map_class not in ("complete", "permutation") or self.any_supervision:
            return {}
        return {i: block for block in knowledge_blocks(self.task) if len(block) > 1 for i in block}

    def in_order(self, i: int, s: int) -> bool:
        """Whether predicted concept ``i`` may read source ``s``: sourced members of its block stay in order."""
        lo, hi = self.source_range(i)
        return lo < s < hi

    def source_range(self, i: int) -> tuple:
        """The open interval of sources left to predicted concept ``i`` by its sourced block-mates (see in_order)."""
        lo, hi = -1, self.task.k
        for j in self.block_of.get(i, ()):
            t = None if j == i else self._source_of(j)
            if t is not None:
                lo, hi = (max(lo, t), hi) if j < i else (lo, min(hi, t))
        return lo, hi

    def _value_group(self) -> np.ndarray:
        """Value permutations of the predicted concepts that keep every label (identity first).

        If a map is optimal, so is the map followed by such a permutation, so
        values in one orbit of the permutations that fix every entry set so
        far lead to equally many maps and one of them is counted for all.
        Supervision pins values, so with it the group is the identity alone.
        """
        identity = np.arange(self.width, dtype=np.int64)[None, None, :].repeat(self.task.k, axis=1)
        if self.any_supervision:
            return identity
        where = {c: n for n, part in enumerate(self.parts) for c in part.concepts}
        group = identity
        for n, part in enumerate(self.parts):
            ties = []
            for unit in self.units:
                if len(unit.members) > 1:
                    if len({where.get(i) for i in unit.members}) > 1:
                        return identity  # a group spanning label parts: its one permutation would tie them
                    if where.get(unit.members[0]) == n:
                        ties.append(tuple(part.concepts.index(i) for i in unit.members))
            shape = tuple(int(s) + 1 for s in part.sizes)
            cells = part.table.reshape(shape)[tuple(slice(0, s - 1) for s in shape)]
            codes = np.unique(cells, return_inverse=True)[1].reshape(cells.shape)
            found = value_symmetries(codes, tuple(ties))
            if found is None or len(found) * len(group) > MAX_GROUP:
                return identity
            if len(found) == 1:
                continue
            lifted = identity[0][None].repeat(len(found), axis=0)
            lifted[:, list(part.concepts), :found.shape[2]] = found
            group = compose(lifted, group)
        return group

    def _orbits(self, n: int, values) -> list:
        """(value, orbit size) for one value per orbit of ``values`` under the stabilizer of the entries set so far."""
        values = list(values)
        if len(self.stab) == 1:
            return [(v, 1) for v in values]
        images = self.group[self.stab, self.units[n].members[0]]
        out, seen, allowed = [], set(), set(values)
        for v in values:
            if v in seen:
                continue
            orbit = set(images[:, v].tolist())
            if not orbit <= allowed:  # cannot happen: the allowed values are the stabilizer's own
                return [(v, 1) for v in values]
            seen |= orbit
            out.append((v, len(orbit)))
        return out

    def _try(self, n: int, u: int, values, below) -> int:
        """Sum of ``below()`` over entry ``u`` of unit ``n`` set to each of ``values`` (one per orbit, weighted)."""
        total, col = 0, self.units[n].members[0]
        changed = list({id(p): p for i in self.units[n].members if (p := self.part_of.get(i))}.values())
        for v, weight in self._orbits(n, values):
            ok, undo = self.assign(n, u, v)
            if ok:
                saved = self.stab
                self.stab = saved[self.group[saved, col, v] == v]
                self.changed = changed
                total += weight * below()
                self.stab = saved
            self.unassign(n, u, undo)
        return total

    def _unit_order(self) -> list:
        """Units to source in order: part by part, each next concept the one that fixes the most labels."""
        first = {}
        for part in self.parts:
            shape = tuple(part.size[c] + 1 for c in part.concepts)
            table = part.table.reshape(shape)
            decided = _popcount_is_one(table)
            chosen: list = []
            left = list(range(len(part.concepts)))
            while left:
                def fixed(a):
                    at = tuple(slice(0, shape[b] - 1) if b in chosen or b == a else shape[b] - 1
                               for b in range(len(shape)))
                    return float(decided[at].mean())
                best = max(left, key=lambda a: (fixed(a), -a))
                chosen.append(best)
                left.remove(best)
            for rank, a in enumerate(chosen):
                first[part.concepts[a]] = (len(part.concepts), rank)
        key = {n: min(first.get(i, (1 << 30, 0)) for i in unit.members) for n, unit in enumerate(self.units)}
        return sorted(range(len(self.units)), key=lambda n: (key[n], n))

    # --- entries --------------------------------------------------------------
    def _fresh_values(self, sources: tuple) -> list:
        """Entry values of a newly sourced unit: -1 for values some row shows, -2 for values none shows."""
        size = self.sizes[sources[0]]
        return [-1 if any(len(self.rows_of[s][u]) for s in sources) else -2 for u in range(size)]

    def effects(self, n: int, u: int) -> list:
        """(predicted concept, rows) pairs that entry ``u`` of unit ``n`` decides."""
        unit = self.units[n]
        return [(i, self.rows_of[s][u]) for i, s in zip(unit.members, self.source[n])]

    def choices(self, n: int, u: int) -> range | tuple:
        """Values entry ``u`` of unit ``n`` may take: all, or the one supervision pins (or none)."""
        if self.any_supervision:
            pinned = set()
            for i, rows in self.effects(n, u):
                sup = rows[self.supervised[rows, i]]
                pinned |= set(self.G[sup, i].tolist())
            if len(pinned) > 1:
                return ()
            if pinned:
                return tuple(pinned)
        return range(self.units[n].size)

    def is_free(self, n: int, u: int) -> bool:
        """Whether no undecided row reads entry ``u`` of unit ``n`` (its value then changes no label)."""
        for i, rows in self.effects(n, u):
            part = self.part_of.get(i)
            if part is not None and not part.decided[rows].all():
                return False
        return True

    def assign(self, n: int, u: int, v: int) -> tuple:
        """Set entry ``u`` of unit ``n`` to ``v``; return (still feasible, undo record)."""
        self.value[n][u] = v
        ok, undo = True, []
        for i, rows in self.effects(n, u):
            part = self.part_of.get(i)
            if part is None or not len(rows):
                continue
            old_index, old_decided = part.index[rows], part.decided[rows]
            new_index = old_index + part.stride[i] * (v - part.size[i])
            reach = part.table[new_index]
            want = part.want[rows]
            part.index[rows] = new_index
            part.known[rows, part.axis[i]] = True
            part.missing[rows] -= 1
            decided = reach == want
            part.decided[rows] = decided
            self.undecided -= int(decided.sum()) - int(old_decided.sum())
            undo.append((part, i, rows, old_index, old_decided))
            if ok and not np.all(reach & want):
                ok = False
        return ok, undo

    def unassign(self, n: int, u: int, undo: list) -> None:
        self.value[n][u] = -1
        for part, i, rows, old_index, old_decided in reversed(undo):
            self.undecided += int(part.decided[rows].sum()) - int(old_decided.sum())
            part.index[rows] = old_index
            part.decided[rows] = old_decided
            part.known[rows, part.axis[i]] = False
            part.missing[rows] += 1

    # --- choosing what to branch on ---------------------------------------------
    def best_entry(self) -> tuple | None:
        """The open entry that completes the most undecided rows, or None when none is open."""
        best, best_score = None, -1.0
        weights = {id(p): np.where(p.decided, 0.0, np.exp2(1 - p.missing.astype(float))) for p in self.parts}
        for n, unit in enumerate(self.units):
            values = self.value[n]
            if values is None or -1 not in values:
                continue
            score = np.zeros(len(values))
            for i, s in zip(unit.members, self.source[n]):
                part = self.part_of.get(i)
                if part is not None:
                    score += np.bincount(self.G[:, s], weights=weights[id(part)], minlength=len(values))
            for u, v in enumerate(values):
                if v == -1 and score[u] > best_score:
                    best, best_score = (n, u), score[u]
        return best

    def next_unsourced(self) -> int:
        return next(n for n in self.order if self.value[n] is None)

    # --- counting -------------------------------------------------------------
    def key(self) -> bytes:
        """Everything the rest of the count depends on: open entries, used sources, undecided rows' states."""
        head = [-7, *sorted(self.used), -7]
        for n, v in enumerate(self.value):
            if v is None:
                head.extend((-3, *self.source_range(self.units[n].members[0])))
            elif -1 not in v:
                head.append(-6)  # every entry set: rows' residuals say all that matters
            else:
                head.append(self.source[n][0] if self.units[n].sources is None else -4)
                head.extend(0 if x == -1 else 1 for x in v)
        body = [np.where(p.decided, -1, p.rid[p.index]).tobytes() for p in self.parts]
        return np.array(head, dtype=np.int64).tobytes() + b"".join(body)

    # --- once every unit has its source: independent components -------------------
    def entry_ids(self, part: _Part, rows: np.ndarray) -> np.ndarray:
        """Per row and concept of ``part``: the id (unit * width + value) of the entry it reads, -1 once set."""
        out = np.empty((len(rows), len(part.concepts)), dtype=np.int64)
        for a, i in enumerate(part.concepts):
            n = self.unit_of[i]
            source = self.source[n][self.units[n].members.index(i)]
            out[:, a] = np.where(part.unknown(i, rows), n * self.width + self.G[rows, source], -1)
        return out

    def scoped(self, scope: frozenset) -> int:
        """Maps for the open entries in ``scope``, which no undecided row shares with an entry outside it."""
        self.nodes += 1
        if self.nodes % self.every == 0:
            self.deadline.check()
        wanted = np.fromiter(scope, dtype=np.int64, count=len(scope))
        touched, key = [], [np.sort(wanted).tobytes(), repr(self.source).encode()]
        for part in self.parts:
            rows = np.flatnonzero(~part.decided)
            ids = self.entry_ids(part, rows)
            hit = np.isin(ids, wanted).any(axis=1)
            rows, ids = rows[hit], ids[hit]
            touched.append((part, rows, ids))
            key += [rows.tobytes(), part.rid[part.index[rows]].tobytes()]
        key = b"|".join(key)
        hit = self.cache.get(key)
        if hit is not None:
            return hit
        total = self._scoped(scope, touched)
        self.remember(key, total)
        return total

    def _scoped(self, scope: frozenset, touched: list) -> int:
        allowed: dict = {}
        for part, rows, ids in touched:
            open_ = ids >= 0
            counts = open_.sum(axis=1)
            for a, i in enumerate(part.concepts):
                last = (counts == 1) & open_[:, a]
                if not last.any():
                    continue
                ok = part.keeps(i, rows[last])
                which = ids[last, a]
                if not _narrow(allowed, which, ok):
                    return 0
        if not self._consistent(touched, allowed):
            return 0
        degree, root = _linked(touched)
        total, comps = 1, {}
        for e in scope:
            if e in degree:
                comps.setdefault(root[e], []).append(e)
            else:
                total *= self._values(e, allowed.get(e))
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
        e = min(comp, key=lambda x: (self._values(x, allowed.get(x)), -degree[x], x))
        n, u = divmod(e, self.width)
        mask = allowed.get(e)
        rest = frozenset(comp) - {e}
        values = [v for v in self.choices(n, u) if mask is None or mask[v]]
        return total * self._try(n, u, values, lambda: self.scoped(rest))

    def _consistent(self, touched: list, allowed: dict) -> bool:
        """Narrow ``allowed`` to the values some completion supports, for every row with 2..``gac`` open entries.

        Generalized arc consistency to a fixpoint: a value of an open entry
        stays only if, in every row that reads it, the row's other open
        entries have values (within their own allowed sets) that give the row
        its true label. False when some entry is left with no value. Rows with
        fewer open entries get padding axes of one value (entry ``pad``).
        """
        W, pad, gac = self.width, len(self.units) * self.width, self.gac
        values = np.arange(W)
        all_entries, all_ok = [], []
        for part, rows, ids in touched:
            open_ = ids >= 0
            counts = open_.sum(axis=1)
            pick = (counts >= 2) & (counts <= gac)
            if not pick.any():
                continue
            extra = max(0, gac - open_.shape[1])  # a part of fewer concepts: padding columns
            rows, ids = rows[pick], np.pad(ids[pick], ((0, 0), (0, extra)), constant_values=-1)
            open_ = ids >= 0
            axes = np.argsort(~open_, axis=1, kind="stable")[:, :gac]  # open concepts first
            real = np.take_along_axis(open_, axes, axis=1)
            strides = np.where(real, np.pad(part.strides, (0, extra))[axes], 0)
            sizes = np.where(real, np.pad(part.sizes, (0, extra))[axes], 1)
            at = part.index[rows].reshape((-1,) + (1,) * gac)  # star cell of each value tuple, built axis by axis
            valid = np.ones((1,) * (gac + 1), dtype=bool)
            for a in range(gac):
                shape = (-1,) + tuple(W if b == a else 1 for b in range(gac))
                at = at + (strides[:, a, None] * (values - sizes[:, a, None])).reshape(shape)
                valid = valid & (values < sizes[:, a, None]).reshape(shape)
            want = part.want[rows].reshape((-1,) + (1,) * gac)
            all_ok.append(valid & ((part.table[np.where(valid, at, 0)] & want) != 0))
            all_entries.append(np.where(real, np.take_along_axis(ids, axes, axis=1), pad))
        if not all_entries:
            return True
        entries, ok = np.concatenate(all_entries), np.concatenate(all_ok)
        dom = self.domains.copy()
        for e, mask in allowed.items():
            dom[e, :len(mask)] &= mask
        # small value tuples: boolean broadcasting; large ones: counted by float matrix products (exact below 2^24)
        weights = ok if W ** gac <= MATMUL_CELLS else ok.astype(np.float32)
        local = dom[entries]  # per row and axis the entry's allowed values
        changed = True
        while changed:
            changed = False
            for j in range(gac):
                support = _supports(weights, local, j)
                if (support | ~local[:, j]).all():
                    continue
                np.logical_and.at(dom, entries[:, j], support)
                changed = True
                local = dom[entries]
                if not local[:, j].any(axis=1).all():
                    return False
        for e in distinct(entries[entries < pad]).tolist():
            allowed[e] = dom[e, :self.units[e // W].size].copy()
        return True

    def _values(self, e: int, mask) -> int:
        """How many values entry ``e`` may take (its choices, narrowed by ``mask`` when given)."""
        values = self.choices(*divmod(e, self.width))
        return len(values) if mask is None else sum(1 for x in values if mask[x])

    def remember(self, key: bytes, total: int) -> None:
        if self.cache_bytes + len(key) > MAX_CACHE_BYTES:
            self.cache.clear()
            self.cache_bytes = 0
        self.cache[key] = total
        self.cache_bytes += len(key) + 100

    def count(self) -> int:
        if all(v is not None for v in self.value):
            return self.scoped(frozenset(n * self.width + u for n, values in enumerate(self.value)
                                         for u, v in enumerate(values) if v == -1))
        self.nodes += 1
        if self.nodes % self.every == 0:
            self.deadline.check()
        if self.undecided == 0 and not self.any_supervision:  # every label fixed, nothing pinned
            return self.completions({})
        key = self.key()
        hit = self.cache.get(key)
        if hit is not None:
            return hit
        total = self._branch()
        self.remember(key, total)
        return total

    def restrictions(self) -> dict | None:
        """Values still open to each entry that some undecided row reads as its last unknown (None: a dead end).

        A row with one unknown concept left pins that concept's entry to the
        values that give the row its true label (forward checking).
        """
        allowed: dict = {}
        for part in self.parts:
            last = np.flatnonzero((part.missing == 1) & ~part.decided)
            if not len(last):
                continue
            for i in part.concepts:
                n = self.unit_of[i]
                if self.value[n] is None:
                    continue
                rows = last[part.unknown(i, last)]
                if not len(rows):
                    continue
                ok = part.keeps(i, rows)
                source = self.source[n][self.units[n].members.index(i)]
                if not _narrow(allowed, n * self.width + self.G[rows, source], ok):
                    return None
        return allowed

    def collides(self) -> bool:
        """Whether two rows of a part must end with the same prediction but want different labels.

        Rows with the same partial prediction that also agree on every source
        their unknown concepts can still read (the unused sources, and the
        sources of sourced concepts they have not read yet) end alike, so a
        map that loses information a label needs is cut as soon as it does.
        Only the parts the last step changed (``self.changed``) are checked:
        the others were clear at the node above.
        """
        k, w = self.task.k, self.width
        unused = [s for s in range(k) if s not in self.used]
        free = None  # the unused sources' columns as one code per row (fixed weights w^s where they fit)
        for part in self.parts if self.changed is None else self.changed:
            sources = [self._source_of(i) for i in part.concepts]
            read = [a for a, s in enumerate(sources) if s is not None]
            reads = np.where(part.known[:, read], w, self.G[:, [sources[a] for a in read]]) if read else None
            rest = len(read) < len(sources) and unused
            if part.n_ids * (w + 1) ** len(read) * w ** k < CODE_BOUND:  # no stacking: codes add up in place
                code = part.rid[part.index]
                if read:
                    code = code * (w + 1) ** len(read) + reads @ ((w + 1) ** np.arange(len(read), dtype=np.int64))
                if rest:
                    if free is None:
                        weights = w ** np.arange(k, dtype=np.int64)
                        weights[sorted(self.used)] = 0
                        free = self.G @ weights
                    code = code * w ** k + free
            else:
                columns, radix = [part.rid[part.index][:, None]], [part.n_ids]
                if read:
                    columns.append(reads)
                    radix += [w + 1] * len(read)
                if rest:
                    columns.append(self.G[:, unused])
                    radix += [w] * len(unused)
                code = row_codes(np.hstack(columns), radix)
            if clashes(code, part.want):
                return True
        return False

    def _source_of(self, i: int) -> int | None:
        """The source concept predicted concept ``i`` reads, None while its unit has none."""
        n = self.unit_of[i]
        return None if self.value[n] is None else self.source[n][self.units[n].members.index(i)]

    def _branch(self) -> int:
        if self.collides():
            return 0
        allowed = self.restrictions()
        if allowed is None:
            return 0
        closed = self.one_unknown_left(allowed)
        if closed is not None:
            return closed
        if allowed:
            e = min(allowed, key=lambda x: (int(allowed[x].sum()), x))
            entry = divmod(e, self.width)
            return self._set(entry, [v for v in self.choices(*entry) if allowed[e][v]])
        entry = self.best_entry()  # some unit still needs its source here (see count)
        if entry is None:  # a unit's entries are all set before the next one is sourced: states then merge
            return self._choose_source(self.next_unsourced())
        return self._set(entry, self.choices(*entry))

    def _set(self, entry: tuple, values) -> int:
        """Count over the values of one entry (in closed form when no undecided row reads it)."""
        n, u = entry
        if self.is_free(n, u):
            self.value[n][u] = -5  # set, but no label reads it
            self.changed = []
            total = len(values) * self.count() if values else 0
            self.value[n][u] = -1
            return total
        return self._try(n, u, values, self.count)

    def _waiting_on(self, i: int) -> tuple:
        """Undecided rows whose last unknown is predicted concept ``i``, and the values that keep each right."""
        part = self.part_of.get(i)
        if part is None:
            return None, None
        rows = np.flatnonzero((part.missing == 1) & ~part.decided)
        rows = rows[part.unknown(i, rows)]
        return (rows, part.keeps(i, rows)) if len(rows) else (None, None)

    def _choose_source(self, n: int) -> int:
        unit, total = self.units[n], 0
        rows, ok = self._waiting_on(unit.members[0])
        for s in range(self.task.k):
            if s in self.used or not self.in_order(unit.members[0], s):
                continue
            if rows is not None:  # some source value whose rows want no common predicted value: no map
                values = self.G[rows, s]
                if any(not ok[values == u].all(axis=0).any() for u in distinct(values).tolist()):
                    continue
            self.used.add(s)
            self.source[n] = (s,)
            self.value[n] = self._fresh_values((s,))
            absent = unit.size ** self.value[n].count(-2)
            self.changed = None  # fewer unused sources: every part may collide now
            total += absent * self.count()
            self.value[n] = None
            self.source[n] = None
            self.used.discard(s)
        return total

    def total(self) -> int:
        """The number of optimal maps: the search's count times what it leaves to closed form."""
        return self.weight * self.absent() * self.count()

    def absent(self) -> int:
        """Entries of the fixed-source units for values no row shows: any value will do."""
        return math.prod(unit.size ** self.value[n].count(-2) for n, unit in enumerate(self.units)
                         if unit.sources is not None)

    def one_unknown_left(self, allowed: dict) -> int | None:
        """The count in closed form when every undecided row waits on one entry only (else None).

        Each such entry is then constrained by its own rows alone, so the
        entries are independent: multiply their numbers of allowed values.
        """
        for part in self.parts:
            if ((part.missing != 1) & ~part.decided).any():
                return None
        open_units = [n for n, v in enumerate(self.value) if v is None]
        if open_units and self.any_supervision:
            return None
        for n in open_units:
            for i in self.units[n].members:
                part = self.part_of.get(i)
                if part is not None and part.unknown(i, np.flatnonzero(~part.decided)).any():
                    return None
        return self.completions(allowed)

    def completions(self, allowed: dict) -> int:
        """Ways to finish the map when each open entry is constrained by ``allowed`` alone (and unsourced units
        by nothing): the product of the entries' choices times the value maps of every source assignment."""
        total = 1
        for n, values in enumerate(self.value):
            if values is None:
                continue
            for u, v in enumerate(values):
                if v == -1:
                    total *= self._values(n * self.width + u, allowed.get(n * self.width + u))
        open_units = [n for n, v in enumerate(self.value) if v is None]
        if any(self.units[n].members[0] in self.block_of for n in open_units):
            total *= self._ordered_sourcings(open_units)
        elif open_units:
            free = [self.sizes[s] for s in range(self.task.k) if s not in self.used]
            total *= bijection_weight(tuple(self.units[n].size for n in open_units), tuple(free))
        return total

    def _ordered_sourcings(self, open_units: list) -> int:
        """Like ``bijection_weight``, but block members read sources in increasing order (see _concept_blocks)."""
        free = [s for s in range(self.task.k) if s not in self.used]
        members = sorted(self.units[n].members[0] for n in open_units)
        options = [[s for s in free if self.in_order(i, s)] for i in members]
        memo: dict = {}

        def go(t: int, taken: frozenset, last: tuple) -> int:
            if t == len(members):
                return 1
            if (t, taken, last) not in memo:
                i, block, total = members[t], self.block_of.get(members[t]), 0
                floor = dict(last).get(block, -1)
                for s in options[t]:
                    if s not in taken and (block is None or s > floor):
                        after = last if block is None else tuple(sorted({**dict(last), block: s}.items()))
                        total += self.sizes[i] ** self.sizes[s] * go(t + 1, taken | {s}, after)
                memo[(t, taken, last)] = total
            return memo[(t, taken, last)]
        return go(0, frozenset(), ())


def _linked(touched: list) -> tuple:
    """Entries that undecided rows with two or more open entries read: how many such rows read each, and a
    component label per entry (entries read by one row are linked)."""
    heads, tails = [], []
    for _, _, ids in touched:
        ids = ids[(ids >= 0).sum(axis=1) >= 2]
        if not len(ids):
            continue
        head = np.where(ids >= 0, ids, np.iinfo(np.int64).max).min(axis=1)
        tails.append(ids[ids >= 0])
        heads.append(np.broadcast_to(head[:, None], ids.shape)[ids >= 0])
    if not tails:
        return {}, {}
    entries, index, reads = np.unique(np.concatenate(tails), return_inverse=True, return_counts=True)
    a = np.searchsorted(entries, np.concatenate(heads))
    b = index.ravel()
    label = np.arange(len(entries))
    while True:  # label propagation with pointer jumping: every entry ends with its component's least index
        new = label.copy()
        np.minimum.at(new, a, label[b])
        np.minimum.at(new, b, label[a])
        new = new[new]
        if np.array_equal(new, label):
            break
        label = new
    return dict(zip(entries.tolist(), reads.tolist())), dict(zip(entries.tolist(), label.tolist()))


def _largest_star(task) -> int:
    """Cells of the largest label part's star table (each concept's domain plus an unknown slot)."""
    return max((math.prod(task.sizes[c] + 1 for c in cs) for _, cs in components(task)), default=1)


def _supports(weights: np.ndarray, local: np.ndarray, j: int) -> np.ndarray:
    """Per row and value of its axis ``j``: whether some tuple of the other axes' allowed values (``local``, per
    row and axis) keeps the row's label (``weights``: nonzero where a tuple keeps it, boolean or float)."""
    axes = weights.ndim - 1
    if weights.dtype == bool:
        m = weights
        for b in range(axes):
            if b != j:
                m = m & local[:, b].reshape(len(m), *[-1 if c == b else 1 for c in range(axes)])
        return m.any(axis=tuple(1 + b for b in range(axes) if b != j))
    t = weights
    for b in reversed(range(axes)):  # the last axes first, so the earlier ones keep their place
        if b != j:
            d = local[:, b].astype(np.float32).reshape((len(local),) + (1,) * (t.ndim - 3) + (-1, 1))
            t = (np.moveaxis(t, b + 1, -1) @ d)[..., 0]
    return t > 0.5


def _narrow(allowed: dict, entries: np.ndarray, ok: np.ndarray) -> bool:
    """Intersect each entry's allowed values with those its rows keep (``ok``); False when one is left with none."""
    for e in distinct(entries).tolist():
        mask = ok[entries == e].all(axis=0)
        mask = mask & allowed[e] if e in allowed else mask
        if not mask.any():
            return False
        allowed[e] = mask
    return True


def bijection_weight(targets: tuple, sources: tuple) -> int:
    """Sum over bijections targets -> sources of prod size_t ** size_s (value maps of every pairing)."""
    kinds = sorted(set(sources))
    counts = tuple(sources.count(s) for s in kinds)
    memo: dict = {}

    def go(t: int, left: tuple) -> int:
        if t == len(targets):
            return 1
        if (t, left) in memo:
            return memo[(t, left)]
        total = 0
        for a, c in enumerate(left):
            if c:
                total += c * targets[t] ** kinds[a] * go(t + 1, left[:a] + (c - 1,) + left[a + 1:])
        memo[(t, left)] = total
        return total
    return go(0, counts)


class SearchCounter(Counter):
    """Exact counts on sampled supports (any support), with concept supervision."""

    name = "search"

    def applies(self, problem) -> bool:
        task = problem.task
        if problem.map_class not in CLASSES or not problem.support.listed:
            return False
        return _largest_star(task) <= MAX_STAR

    def count(self, problem, encoding, options: Options) -> Tally:
        if problem.map_class not in CLASSES:
            raise BackendError(f"search counts classes {', '.join(CLASSES)}, not {problem.map_class}")
        if not problem.support.listed:
            raise BackendError("search needs the support's vectors listed; this exhaustive support is too large")
        if not self.applies(problem):
            raise BackendError(f"search keeps a table of (domain + 1) cells per label part, over {MAX_STAR} "
                               f"here; use --backend ganak")

        def work():
            try:
                search = _Search(problem, options.deadline(self.name))
            except ValueError as exc:
                raise BackendError(f"search cannot run here: {exc}") from None
            return search.total(), search.nodes

        total, nodes = run_isolated(work, self.name, options.timeout, options.memory_mb, options.progress,
                         options.cancel)
        return Tally(total, notes=(f"search: {nodes} partial maps visited",))

    def quick(self, problem) -> Tally | None:
        """The count of a small problem if this process finds it within QUICK_SECONDS, else None.

        Forking a child and racing Ganak costs more than counting a problem
        of a few dozen vectors, so those are tried here first, unforked.
        """
        if not self.applies(problem) or problem.support.length > QUICK_ROWS or _largest_star(problem.task) > QUICK_STAR:
            return None
        def go(deadline: Deadline) -> tuple:
            search = _Search(problem, deadline, every=8)
            return search.total(), search.nodes
        done = briefly(go, QUICK_SECONDS, self.name, catch=(CountTimeout, ValueError))
        if done is None:
            return None
        return Tally(done[0], notes=(f"search: {done[1]} partial maps visited, in this process "
                                     f"(a small problem: no child process, no race)",))


BACKEND = SearchCounter()
