"""Learned heads under ``disentangled`` and ``shared``: a count over the kernels of the value maps.

Under a learned head a map counts when no two support vectors with different labels get one prediction
(``inference="learned"``). A disentangled map predicts ``(f_1(c_1), .., f_k(c_k))``, so two vectors get one
prediction exactly when every value map merges their values: what decides is each value map's *kernel* (which
values it merges), not where it sends them. The count is a sum over kernels of the value maps (partitions of
the values the support shows), each weighted by the maps with that kernel (injective on blocks: a falling
factorial, with supervised values sent to themselves), searched value map by value map:

- the state is the support's rows still merged with a row of another label (the *alive* classes); a class
  whose rows share one label is settled for good (later value maps only split classes), and when no class is
  alive every remaining value map is free;
- a choice for value map o that leaves two rows of different labels merged even with every later value map
  injective is cut (kernels only get finer downwards);
- the last value map, when it reads one concept, merges two values u and w exactly when no alive class holds
  a row with u and a row with w of different labels: the count is a chromatic sum over its conflict graph;
- the last two value maps, when they read one concept each with no supervised value, are counted at once from
  a table of each one's partitions (lasttwo.py) instead of a chromatic sum per partition of the first;
- states are memoised (many kernels of one value map leave the same alive classes).

On an exhaustive support the labels that read disjoint sets of concepts are counted on their own grids
(the support is their product, so two vectors merge with different labels exactly when one label part does)
and concepts no label reads are free. Counts are Python integers.
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from ...errors import BackendError
from ...problems.problem import free_is_complete
from ...results.count import Tally
from ..base import Counter, Deadline, Options, small_first
from ..sampling import Confidence, Estimate, tally
from .colourings import colour, components
from .lasttwo import count_two

__all__ = ["Kernels", "count_kernels", "MAX_GRID"]

MAX_GRID = 1 << 22  # rows of one label part's grid on an exhaustive support
SMALL = 4096  # alive rows of a part from which its state is kept as Python classes
MEMO_ROWS = 100_000  # states of at most this many alive rows are memoised (larger ones occur near the top)
MAX_VALUES = 16  # values of one value map the chromatic sum and the partition search take
EXACT_FIRST = 10.0  # seconds the estimating twin gives the exact search before it samples


class _Owner:
    """One value map: the concepts reading it, its number of values, images allowed and values supervised."""

    def __init__(self, concepts: list, size: int, allowed: int, pinned: frozenset):
        self.concepts, self.size, self.allowed, self.pinned = concepts, size, allowed, pinned

    def free(self) -> int:
        """Maps of this value map when nothing constrains its kernel."""
        return self.allowed ** (self.size - len(self.pinned))

    def weight(self, values: list, blocks: int, pinned_inside: int) -> int:
        """Maps whose kernel on ``values`` has ``blocks`` blocks (``pinned_inside`` of them hold a supervised
        value): the blocks go to distinct images, supervised ones to their own value; the other values anywhere."""
        outside = self.size - len(values) - (len(self.pinned) - pinned_inside)
        return _falling(self.allowed - pinned_inside, blocks - pinned_inside) * self.allowed ** outside


def _falling(n: int, k: int) -> int:
    if k < 0 or n < k:
        return 0
    return math.prod(range(n - k + 1, n + 1))


class _Part:
    """Rows of one label part (index vectors over every concept; unread columns zero) and their label ids."""

    def __init__(self, rows: np.ndarray, labels: np.ndarray, concepts):
        self.rows, self.labels, self.concepts = rows, labels, frozenset(concepts)


def _group_ids(columns: list) -> np.ndarray:
    """One dense id per row, equal exactly for rows equal on every column (non-negative integer columns)."""
    key = np.zeros(len(columns[0]), dtype=np.int64)
    span = 1
    for col in columns:
        top = int(col.max()) + 1 if len(col) else 1
        if span * top >= 1 << 62:  # compact before the mixed-radix key would overflow
            key = np.unique(key, return_inverse=True)[1].reshape(-1)
            span = int(key.max()) + 1 if len(key) else 1
        key = key * top + col
        span *= top
    return np.unique(key, return_inverse=True)[1].reshape(-1)


def _mixed(ids: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """A mask of the rows whose group (``ids``) holds more than one label."""
    if len(ids) == 0:
        return np.zeros(0, dtype=bool)
    width = int(labels.max()) + 1
    pairs = np.unique(ids.astype(np.int64) * width + labels)
    kinds = np.bincount(pairs // width, minlength=int(ids.max()) + 1)
    return kinds[ids] > 1


class _Search:
    """The search over value maps; a state holds, per label part, its alive rows: as numpy (rows, class ids)
    while many, as Python classes (tuples of row indices) once at most SMALL (numpy's per-call cost then
    dominates)."""

    def __init__(self, parts: list, owners: list, deadline):
        self.parts, self.owners, self.deadline = parts, owners, deadline
        self.lists = [(p.rows.tolist(), p.labels.tolist()) for p in parts] if all(
            len(p.rows) <= SMALL for p in parts) else [None] * len(parts)
        self.memo: dict = {}
        self.colourings: dict = {}
        self.graphs: dict = {}  # colours -> deletion-contraction memo
        self.tables: dict = {}  # partition tables of the last two value maps
        self.nodes = 0
        self.tail = [1] * (len(owners) + 1)  # free maps of owners d.. (when nothing is alive)
        for d in range(len(owners) - 1, -1, -1):
            self.tail[d] = self.tail[d + 1] * owners[d].free()

    def initial(self):
        """The state before any value map: per part, its rows in one class (None: two rows of different labels
        show the same concepts, so no map keeps them apart)."""
        state = []
        for p in self.parts:
            ids = np.zeros(len(p.rows), dtype=np.int64)
            alive = np.nonzero(_mixed(ids, p.labels))[0]
            state.append(self._settle(len(state), alive, ids[alive]))
        return None if self._dead(state, 0) else tuple(state)

    def start(self, confidence=None):
        """The count; with a :class:`Confidence`, an :class:`Estimate` of it by sampling every value map."""
        state = self.initial()
        if state is None:
            return 0
        if confidence is not None and any(self._alive(e) for e in state):
            return self._estimate(state, confidence)
        return self.total(0, state)

    def _settle(self, n: int, alive: np.ndarray, ids: np.ndarray):
        """A part's alive rows as numpy while many, else as sorted Python classes."""
        if len(alive) > SMALL:
            return (alive, ids)
        if self.lists[n] is None:
            self.lists[n] = (self.parts[n].rows.tolist(), self.parts[n].labels.tolist())
        classes: dict = {}
        for r, i in zip(alive.tolist(), ids.tolist()):
            classes.setdefault(i, []).append(r)
        return tuple(sorted(tuple(c) for c in classes.values()))

    def _key(self, depth: int, state: tuple) -> tuple:
        out = [depth]
        for entry in state:
            if self._big(entry):
                alive, ids = entry
                first = np.unique(ids, return_index=True)[1]
                canon = np.empty(len(first), dtype=np.int64)
                canon[np.argsort(first)] = np.arange(len(first))
                out.append((alive.tobytes(), canon[np.unique(ids, return_inverse=True)[1].reshape(-1)].tobytes()))
            else:
                out.append(entry)
        return tuple(out)

    @staticmethod
    def _big(entry) -> bool:
        return len(entry) == 2 and isinstance(entry[0], np.ndarray)

    def _alive(self, entry) -> int:
        return len(entry[0]) if self._big(entry) else sum(map(len, entry))

    def _dead(self, state, depth: int) -> bool:
        """Whether two rows of different labels stay merged even with every value map from ``depth`` on
        injective (then no choice below helps)."""
        later = [c for o in self.owners[depth:] for c in o.concepts]
        for n, (entry, p) in enumerate(zip(state, self.parts)):
            cols = [c for c in later if c in p.concepts]
            if self._big(entry):
                alive, ids = entry
                if len(alive) and _mixed(_group_ids([ids] + [p.rows[alive, c] for c in cols]),
                                         p.labels[alive]).any():
                    return True
                continue
            rows, labels = self.lists[n]
            for cl in entry:
                seen: dict = {}
                for r in cl:
                    if seen.setdefault(tuple(rows[r][c] for c in cols), labels[r]) != labels[r]:
                        return True
        return False

    def total(self, depth: int, state: tuple) -> int:
        if all(self._alive(e) == 0 for e in state):
            return self.tail[depth]
        if depth == len(self.owners):
            return 0
        key = self._key(depth, state) if sum(map(self._alive, state)) <= MEMO_ROWS else None
        if key is not None and key in self.memo:
            return self.memo[key]
        self.nodes += 1
        if self.deadline is not None:
            self.deadline.check()
        owner = self.owners[depth]
        values = sorted(self._values(state, owner))
        if len(values) > MAX_VALUES:
            raise BackendError(f"kernels searches value maps of at most {MAX_VALUES} values shown on the support, "
                               f"not {len(values)}; name backend=ganak")
        small = not any(self._big(e) for e in state)  # the conflicting sets are listed in Python
        two = self._last_two(depth, state, values) if depth == len(self.owners) - 2 else None
        if two is not None:
            out = two
        elif depth == len(self.owners) - 1 and (len(owner.concepts) == 1 or small):
            out = self._last(owner, values, state) if len(owner.concepts) == 1 else \
                self._last_shared(owner, values, state)
        else:
            out = 0
            conflicts = self._pairs(state, owner, self.owners[depth + 1:])
            pins_inside = sum(1 for v in values if v in owner.pinned)
            choices = () if conflicts is None else _partitions(values, conflicts, owner.pinned)
            for n, blocks in enumerate(choices):
                if n % 256 == 255 and self.deadline is not None:
                    self.deadline.check()
                w = owner.weight(values, max(blocks.values()) + 1 if blocks else 0, pins_inside)
                if not w:
                    continue
                nxt = self._refine(state, owner, blocks)
                if self._dead(nxt, depth + 1):
                    continue
                out += w * self.total(depth + 1, nxt)
        if key is not None:
            self.memo[key] = out
        return out

    def _estimate(self, state, confidence):
        """The count as every value map's free maps times the fraction of them, drawn uniformly, that keep each
        class's labels apart (an :class:`Estimate` by the stopping rule)."""
        rng = confidence.rng

        def columns(n: int) -> dict:
            out = {}
            for o in self.owners:
                table = rng.integers(0, o.allowed, size=(n, o.size))
                for v in o.pinned:
                    table[:, v] = v
                out.update({c: (table, o.allowed) for c in o.concepts})
            return out

        return self.sampled(state, confidence, columns, self.tail[0])

    def sampled(self, state, confidence, columns, scale: int):
        """``scale`` times the fraction of draws that keep each alive class's labels apart, by the stopping rule:
        ``columns(n)`` draws n maps, as concept -> (n x values table of images, number of images)."""
        parts = []  # per part with alive rows: class ids, labels, and each concept's values on those rows
        for n, (entry, p) in enumerate(zip(state, self.parts)):
            rows, ids = self._flat(n, entry)
            if len(rows):
                parts.append((ids, p.labels[rows], {c: p.rows[rows, c] for c in p.concepts}))

        def draw(n: int) -> np.ndarray:
            drawn = columns(n)
            ok = np.ones(n, dtype=bool)
            for ids, labels, values in parts:
                ok &= _apart_all(ids, labels, [(drawn[c][0], v, drawn[c][1]) for c, v in values.items()])
            return ok

        return confidence.estimate(draw, scale, self.deadline or Deadline(None, "kernels"), who="kernels-estimate",
                                   advice="name backend=kernels for the exact count")

    def _flat(self, n: int, entry) -> tuple:
        """(alive row indices, class ids) of a part's state entry, as arrays."""
        if self._big(entry):
            return entry
        rows = [r for cl in entry for r in cl]
        ids = [i for i, cl in enumerate(entry) for _ in cl]
        return np.asarray(rows, dtype=np.int64), np.asarray(ids, dtype=np.int64)

    def _values(self, state, owner: _Owner) -> set:
        out: set = set()
        for n, (entry, p) in enumerate(zip(state, self.parts)):
            cols = [c for c in owner.concepts if c in p.concepts]
            if self._big(entry):
                for c in cols:
                    out.update(np.unique(p.rows[entry[0], c]).tolist())
            elif cols:
                rows = self.lists[n][0]
                out.update(rows[r][c] for cl in entry for r in cl for c in cols)
        return out

    def _refine(self, state, owner: _Owner, blocks: dict) -> tuple:
        """The alive rows after ``owner`` merges values by ``blocks`` (value -> block), classes split."""
        table = np.zeros(owner.size, dtype=np.int64)
        for v, b in blocks.items():
            table[v] = b
        out = []
        for n, (entry, p) in enumerate(zip(state, self.parts)):
            cols = [c for c in owner.concepts if c in p.concepts]
            if not cols:
                out.append(entry)
            elif self._big(entry):
                alive, ids = entry
                ids = _group_ids([ids] + [table[p.rows[alive, c]] for c in cols])
                keep = _mixed(ids, p.labels[alive])
                out.append(self._settle(n, alive[keep], ids[keep]))
            else:
                rows, labels = self.lists[n]
                split = []
                for cl in entry:
                    buckets: dict = {}
                    for r in cl:
                        buckets.setdefault(tuple(blocks[rows[r][c]] for c in cols), []).append(r)
                    split += [tuple(b) for b in buckets.values()
                              if len(b) > 1 and len({labels[r] for r in b}) > 1]
                out.append(tuple(sorted(split)))
        return tuple(out)

    def _pairs(self, state, owner: _Owner, later_owners: list):
        """Value pairs ``owner`` may not merge: two rows of different labels in one alive class that agree on
        every concept read after it and on its other concepts (None: two such rows agree here too)."""
        later = [c for o in later_owners for c in o.concepts]
        pairs: set = set()
        for n, (entry, p) in enumerate(zip(state, self.parts)):
            for c in owner.concepts:
                if c not in p.concepts:
                    continue
                cols = [x for x in owner.concepts + later if x != c and x in p.concepts]
                if self._big(entry):
                    alive, ids = entry
                    if not len(alive):
                        continue
                    group = _group_ids([ids] + [p.rows[alive, x] for x in cols])
                    found = _apart(group, p.rows[alive, c], p.labels[alive])
                else:
                    rows, labels = self.lists[n]
                    found = set()
                    for cl in entry:
                        buckets: dict = {}
                        for r in cl:
                            buckets.setdefault(tuple(rows[r][x] for x in cols), {}).setdefault(
                                rows[r][c], set()).add(labels[r])
                        for seen in buckets.values():
                            more = _split_pairs(seen)
                            if more is None:
                                return None
                            found |= more
                if found is None:
                    return None
                pairs |= found
        return pairs

    def _last_two(self, depth: int, state, values: list):
        """The last two value maps (one concept each, no supervised value) counted at once by partition tables
        (lasttwo.py); None where that does not apply or a side has too many partitions."""
        first, second = self.owners[depth], self.owners[depth + 1]
        if len(first.concepts) != 1 or len(second.concepts) != 1 or first.pinned or second.pinned:
            return None
        others = sorted(self._values(state, second))
        return count_two(self._crossing(state, first.concepts[0], second.concepts[0]), values, others,
                         lambda k: first.weight(values, k, 0), lambda k: second.weight(others, k, 0),
                         self.tables, self.deadline)

    def _crossing(self, state, ca: int, cb: int) -> set:
        """(a, a', b, b') for two rows of different labels in one alive class: their values of concepts ca and
        cb (None where their part does not read the concept)."""
        out: set = set()
        for n, (entry, p) in enumerate(zip(state, self.parts)):
            if self._big(entry):
                alive, ids = entry
                shown = np.unique(np.stack([ids, p.rows[alive, ca], p.rows[alive, cb], p.labels[alive]], axis=1),
                                  axis=0).tolist()
                classes: dict = {}
                for i, a, b, y in shown:
                    classes.setdefault(i, []).append((a, b, y))
                groups = classes.values()
            else:
                rows, labels = self.lists[n]
                groups = [{(rows[r][ca], rows[r][cb], labels[r]) for r in cl} for cl in entry]
            ra, rb = ca in p.concepts, cb in p.concepts
            for group in groups:
                group = list(group)
                for x, (a, b, y) in enumerate(group):
                    for a2, b2, y2 in group[x + 1:]:
                        if y != y2:
                            out.add((a if ra else None, a2 if ra else None, b if rb else None, b2 if rb else None))
        return out

    def _last(self, owner: _Owner, values: list, state) -> int:
        """The last value map (one concept): it merges two shown values exactly when no alive class holds rows
        of different labels with them, so the count is the weighted partitions of its shown values into
        blocks without such a pair (and at most one supervised value): proper colourings, by components."""
        edges = self._pairs(state, owner, [])
        if edges is None:
            return 0
        pins = [v for v in values if v in owner.pinned]
        edges |= {(a, b) for a in pins for b in pins if a < b}
        m = owner.allowed
        colourings = 1
        for component in components(values, edges):
            key = (component, m)
            if key not in self.colourings:
                self.colourings[key] = colour(component, m, self.graphs.setdefault(m, {}))
            colourings *= self.colourings[key]
        outside = owner.size - len(values) - (len(owner.pinned) - len(pins))
        return colourings // _falling(m, len(pins)) * m ** outside


    def _classes(self, n: int, entry) -> tuple:
        """A part's alive classes as tuples of row indices, whichever way the state holds them."""
        if not self._big(entry):
            return entry
        if self.lists[n] is None:
            self.lists[n] = (self.parts[n].rows.tolist(), self.parts[n].labels.tolist())
        classes: dict = {}
        for r, i in zip(entry[0].tolist(), entry[1].tolist()):
            classes.setdefault(i, []).append(r)
        return tuple(tuple(c) for c in classes.values())

    def _last_shared(self, owner: _Owner, values: list, state) -> int:
        """The last value map when it reads several concepts: two rows of different labels in one alive class
        stay merged exactly when it merges each pair of values they show; the partitions of its shown values
        that merge no such set of pairs in full, weighted."""
        sets: set = set()
        for n, (entry, p) in enumerate(zip(state, self.parts)):
            cols = [c for c in owner.concepts if c in p.concepts]
            for cl in self._classes(n, entry):
                rows, labels = self.lists[n]
                shown: dict = {}
                for r in cl:
                    shown.setdefault(tuple(rows[r][c] for c in cols), set()).add(labels[r])
                if any(len(ys) > 1 for ys in shown.values()):
                    return 0
                items = list(shown.items())
                for a, (x, yx) in enumerate(items):
                    for z, yz in items[a + 1:]:
                        if yx != yz:
                            sets.add(frozenset((min(u, w), max(u, w)) for u, w in zip(x, z) if u != w))
        if frozenset() in sets:
            return 0
        edges = {next(iter(pair)) for pair in sets if len(pair) == 1}
        others = [pair for pair in sets if len(pair) > 1 and not pair & edges]
        pins_inside = sum(1 for v in values if v in owner.pinned)
        out = 0
        for n, blocks in enumerate(_partitions(values, edges, owner.pinned)):
            if n % 1024 == 1023 and self.deadline is not None:
                self.deadline.check()
            if any(all(blocks[u] == blocks[w] for u, w in pair) for pair in others):
                continue
            out += owner.weight(values, max(blocks.values()) + 1 if blocks else 0, pins_inside)
        return out


def _apart_all(ids: np.ndarray, labels: np.ndarray, columns: list) -> np.ndarray:
    """Per draw, whether no two rows of one class with different labels get one image: ``columns`` holds
    (drawn tables, draws x values; the rows' values; images) per concept read."""
    n = len(columns[0][0]) if columns else 1
    ok = np.ones(n, dtype=bool)
    width = int(labels.max()) + 1
    chunk = max(1, (1 << 22) // len(ids))  # draws x rows held at once
    for lo in range(0, n, chunk):
        m = min(chunk, n - lo)
        key = np.broadcast_to(ids, (m, len(ids))).astype(np.int64)
        span = int(ids.max()) + 1
        for table, values, images in columns:
            if span * images * m * width >= 1 << 62:  # compact before the keys below would overflow
                key = np.unique(key, return_inverse=True)[1].reshape(key.shape)
                span = int(key.max()) + 1
            key = key * images + table[lo:lo + m][:, values]
            span *= images
        # one sort of (draw, image, label) codes: a draw fails where one (draw, image) shows two labels
        code = np.sort(((np.arange(m, dtype=np.int64)[:, None] * span + key) * width + labels).reshape(-1))
        cell = code // width
        clash = (cell[1:] == cell[:-1]) & (code[1:] != code[:-1])
        ok[lo + np.unique(cell[1:][clash] // span)] = False
    return ok


def _split_pairs(seen: dict):
    """Value pairs (u < w) whose rows carry different labels, from one group's value -> labels; None when one
    value carries two labels (nothing separates those rows)."""
    if any(len(ys) > 1 for ys in seen.values()):
        return None
    values = sorted(seen)
    return {(u, w) for a, u in enumerate(values) for w in values[a + 1:] if seen[u] != seen[w]}


def _apart(group: np.ndarray, column: np.ndarray, labels: np.ndarray):
    """Value pairs (u < w) of ``column`` that two rows of one group with different labels show; None when two
    such rows show one value (nothing separates them)."""
    width = int(labels.max()) + 1
    top = int(column.max()) + 1
    triples = np.unique((group.astype(np.int64) * top + column) * width + labels)  # sorted: group, value, label
    gv, y = np.divmod(triples, width)
    if np.any(gv[1:] == gv[:-1]):  # one group, one value, two labels
        return None
    g, v = np.divmod(gv, top)
    pairs: set = set()
    for d in range(1, len(triples)):  # entries d apart within one group (groups are contiguous and small)
        same = g[d:] == g[:-d]
        if not same.any():
            break
        hit = same & (y[d:] != y[:-d])
        u, w = v[:-d][hit], v[d:][hit]
        for code in np.unique(np.minimum(u, w) * top + np.maximum(u, w)).tolist():
            pairs.add(divmod(code, top))
    return pairs


def _partitions(values: list, conflicts: set, pinned: frozenset):
    """Every partition of ``values`` (value -> block) with no conflicting pair and at most one supervised value
    in a block, by restricted growth."""
    blocks: list = []
    assign: dict = {}

    def grow(n: int):
        if n == len(values):
            yield dict(assign)
            return
        v = values[n]
        for b, members in enumerate(blocks):
            if any((min(u, v), max(u, v)) in conflicts for u in members):
                continue
            if v in pinned and any(u in pinned for u in members):
                continue
            members.append(v)
            assign[v] = b
            yield from grow(n + 1)
            members.pop()
        blocks.append([v])
        assign[v] = len(blocks) - 1
        yield from grow(n + 1)
        blocks.pop()
        del assign[v]

    yield from grow(0)


def _owners(problem, allowed: dict | None, pins: dict) -> list:
    task = problem.task
    reps: dict = {}
    for i in range(task.k):
        reps.setdefault(problem.representative(i), []).append(i)
    out = []
    for r, cs in reps.items():
        size = task.sizes[r]
        out.append(_Owner(cs, size, size if allowed is None else allowed.get(r, size), frozenset(pins.get(r, ()))))
    return out


def _order(owners: list, parts: list, read: set) -> list:
    """Value maps the labels read first (once they are settled, rows of one class mostly share a label), few
    shown values before many; the last one reads one concept and shows the most values (its chromatic sum
    is cheapest)."""
    def shown(o):
        return len({int(v) for p in parts for c in o.concepts if c in p.concepts for v in np.unique(p.rows[:, c])})
    ranked = sorted(owners, key=lambda o: (not set(o.concepts) & read, shown(o), len(o.concepts), o.concepts[0]))
    singles = [o for o in ranked if len(o.concepts) == 1]
    if singles and ranked[-1] is not singles[-1]:
        ranked.remove(singles[-1])
        ranked.append(singles[-1])
    return ranked


def _layout(problem) -> tuple:
    """(label parts, supervised values per value-map representative) of a learned-head problem."""
    from ...model.support import grid, label_ids
    from ...problems.split import components, grid_labels
    task = problem.task
    sup = problem.supervision
    pins: dict = {}
    if problem.support.exhaustive and not (sup.vectors and problem.support.listed):
        if sup.vectors:
            raise BackendError("kernels takes vector supervision on a listed support only; name backend=ganak")
        for i, u in sup.concepts:
            pins.setdefault(problem.representative(i), set()).update(range(task.sizes[i]) if u is None else (u,))
        parts = []
        for labels, cs in components(task):
            if not cs:
                continue
            size = math.prod(task.sizes[c] for c in cs)
            if size > MAX_GRID:
                raise BackendError(f"kernels lists each label part's grid; one has {size:,} vectors (limit "
                                   f"{MAX_GRID:,})")
            rows = np.zeros((size, task.k), dtype=np.int64)
            rows[:, list(cs)] = grid(tuple(task.sizes[c] for c in cs))
            ids = label_ids(grid_labels(task, cs)[:, list(labels)])[0]
            parts.append(_Part(rows, np.asarray(ids, dtype=np.int64), cs))
        return parts, pins
    if not problem.support.listed:
        raise BackendError("kernels needs the support's vectors listed or exhaustive")
    vectors = np.asarray(problem.support.vectors, dtype=np.int64)
    if sup:
        for r, g in enumerate(vectors.tolist()):
            for i in problem.supervised(r, g):
                pins.setdefault(problem.representative(i), set()).add(g[i])
    rows, first = np.unique(vectors, axis=0, return_index=True)
    ids = label_ids(problem.labels[first])[0]
    return [_Part(rows, np.asarray(ids, dtype=np.int64), range(task.k))], pins


def count_kernels(problem, allowed: dict | None = None, deadline=None, layout: tuple | None = None,
                  confidence=None) -> tuple:
    """(count, search nodes) of a learned-head ``problem`` under disentangled or shared; ``allowed`` maps a
    value map's representative concept to how many images it may use (orbit counting; moved concepts). With a
    :class:`~rscount.counters.sampling.Confidence`, an :class:`~rscount.counters.sampling.Estimate` by drawing
    the value maps uniformly (exact 0 or free count where nothing is alive)."""
    parts, pins = layout if layout is not None else _layout(problem)
    if pins and allowed and any(allowed.get(r, problem.task.sizes[r]) != problem.task.sizes[r] for r in pins):
        raise BackendError("restricted images and supervised values do not go together")
    task = problem.task
    read = set(task.read)
    owners = _order(_owners(problem, allowed, pins), parts, read)
    search = _Search(parts, owners, deadline)
    return search.start(confidence), search.nodes


MAX_ASSIGNMENTS = 5000  # distinct image sizes a bijection of concepts can give (complete / permutation)


def count_moved(problem, images: list | None = None, deadline=None, confidence=None) -> tuple:
    """(count, search nodes) under complete or permutation, and free where the support shows every value with
    every value of the other concepts (:func:`every_value_meets_every_other`; the exhaustive support does), so
    that the free maps are the complete ones. On a non-empty support a complete map sends each concept
    onto its own predicted concept (a bijection pi) with a value map f_i into pi(i)'s values, and two vectors
    share a prediction exactly when every f_i merges their values, whatever pi is. So the count is a sum over
    bijections of the disentangled kernel count with f_i's images limited to ``images[pi(i)]`` (the predicted
    concept's values, or its first few for orbit counting), bijections giving the same limits counted once."""
    import dataclasses
    task = problem.task
    flat = dataclasses.replace(problem, map_class="disentangled")
    images = list(task.sizes) if images is None else list(images)
    layout = _layout(flat)
    mult = math.prod(math.factorial(images.count(x)) for x in set(images))
    if confidence is not None:
        return _sample_moved(flat, layout, images, mult, deadline, confidence), 0
    total, nodes = 0, 0
    for n, vector in enumerate(_arrangements(images)):
        if n >= MAX_ASSIGNMENTS:
            raise BackendError(f"more than {MAX_ASSIGNMENTS} ways to give the concepts their predicted "
                               f"concepts' sizes; name backend=ganak")
        count, visited = count_kernels(flat, dict(enumerate(vector)), deadline, layout, confidence)
        total += mult * count
        nodes += visited
    return total, nodes


def _sample_moved(flat, layout: tuple, images: list, mult: int, deadline, confidence):
    """An :class:`Estimate` of :func:`count_moved`: complete maps drawn uniformly (the sizes each concept's
    predicted concept has, drawn by their number of value maps, then the value maps), the fraction keeping each
    class's labels apart times the class's size."""
    parts, pins = layout
    sizes = list(flat.task.sizes)
    owners = [_Owner([i], sizes[i], sizes[i], frozenset(pins.get(i, ()))) for i in range(len(sizes))]
    search = _Search(parts, owners, deadline)
    state = search.initial()
    types = sorted(set(images))
    counts = tuple(images.count(b) for b in types)
    ways = _size_ways(sizes, types, counts)
    total = mult * ways[0][counts]
    if state is None or not any(search._alive(e) for e in state):
        return 0 if state is None else total
    rng, top = confidence.rng, max(types)
    steps = _size_steps(sizes, types, ways)
    chosen_size = np.asarray(types, dtype=np.int64)

    def columns(n: int) -> dict:
        at = np.zeros(n, dtype=np.int64)  # each draw's sizes left, as a state id of the step
        out = {}
        for c, (d, (chance, after)) in enumerate(zip(sizes, steps)):  # a size per concept, by the maps it leaves
            pick = (chance[at].cumsum(axis=1) < rng.random((n, 1))).sum(axis=1).clip(max=len(types) - 1)
            at = after[at, pick]
            out[c] = ((rng.random((n, d)) * chosen_size[pick][:, None]).astype(np.int64), top)
        return out

    return search.sampled(state, confidence, columns, total)


def _size_steps(sizes: list, types: list, ways: list) -> list:
    """Per concept, (chance of each size type per state of sizes left, the state it leads to): states numbered
    per step in ``ways``' order, the first step's only state 0."""
    from fractions import Fraction
    steps = []
    ids = [{left: n for n, left in enumerate(w)} for w in ways]
    for i, d in enumerate(sizes):
        chance = np.zeros((len(ways[i]), len(types)))
        after = np.zeros((len(ways[i]), len(types)), dtype=np.int64)
        for left, n in ids[i].items():
            for t, b in enumerate(types):
                nxt = left[:t] + (left[t] - 1,) + left[t + 1:]
                if nxt in ids[i + 1]:
                    chance[n, t] = float(Fraction(b ** d * ways[i + 1][nxt], ways[i][left]))
                    after[n, t] = ids[i + 1][nxt]
        steps.append((chance, after))
    return steps


def _size_ways(sizes: list, types: list, counts: tuple) -> list:
    """Per concept i, (sizes left to give out -> value maps of concepts i.. into them): ways[i][left]."""
    ways = [dict() for _ in range(len(sizes) + 1)]
    ways[len(sizes)][tuple(0 for _ in types)] = 1
    for i in range(len(sizes) - 1, -1, -1):
        for after, w in ways[i + 1].items():
            for t, b in enumerate(types):
                before = after[:t] + (after[t] + 1,) + after[t + 1:]
                if before[t] <= counts[t]:
                    ways[i][before] = ways[i].get(before, 0) + b ** sizes[i] * w
    return ways


def count_learned(problem, images: list | None = None, deadline=None, confidence=None) -> tuple:
    """(count, search nodes) of a problem :func:`applies` takes, by the form its class has here. ``images``
    (one per concept) limits each predicted concept, or each shared value map through its representative, to
    its first few values (orbit counting); ``confidence``: estimate where :func:`count_kernels` says."""
    if problem.map_class == "free" and not free_is_complete(problem):
        return count_free(problem, images, deadline, confidence)
    if problem.map_class in ("free", "complete", "permutation"):
        return count_moved(problem, images, deadline, confidence)
    allowed = None if images is None else {problem.representative(i): images[problem.representative(i)]
                                           for i in range(problem.task.k)}
    return count_kernels(problem, allowed, deadline, confidence=confidence)


MAX_TARGETS = 5000  # ways to give the shown values their predicted concepts (free on a listed support)
MAX_FREE_ROWS = 800  # distinct support vectors those ways are found over, one recursion level each


def count_free(problem, images: list | None = None, deadline=None, confidence=None) -> tuple:
    """(count, search nodes) under free on a listed support. A free map sends each concept value to one
    predicted value, and on every support vector each predicted concept must come out one-hot: the vector's
    k values go to k distinct predicted concepts. So given where each shown value goes (its target concept;
    each vector's targets a bijection), predicted concept i reads the values sent to it, as one value map whose
    domain is those values and whose images are i's values; the count is the sum over such target choices of
    the kernel count of the support rewritten that way. Values the support never shows go to any predicted
    value. ``images`` limits each predicted concept to its first few values (orbit counting)."""
    from ...model.support import label_ids
    task = problem.task
    rows, first = np.unique(np.asarray(problem.support.vectors, dtype=np.int64), axis=0, return_index=True)
    if len(rows) > MAX_FREE_ROWS:
        raise BackendError(f"kernels gives the shown values their predicted concepts row by row, on supports of "
                           f"up to {MAX_FREE_ROWS} distinct vectors, not {len(rows)}; name backend=ganak")
    ids = np.asarray(label_ids(problem.labels[first])[0], dtype=np.int64)
    shown = {(j, int(u)) for g in rows.tolist() for j, u in enumerate(g)}
    images = list(task.sizes) if images is None else list(images)
    anywhere = sum(images) ** (sum(task.sizes) - len(shown))
    total, nodes = 0, 0
    relabel = _same_size_permutations(list(zip(task.sizes, images)))
    done: dict = {}
    for n, target in enumerate(_targets(rows.tolist(), task.k, deadline)):
        if n >= MAX_TARGETS:
            raise BackendError(f"more than {MAX_TARGETS} ways to give the shown values their predicted concepts; "
                               f"name backend=ganak")
        # renaming predicted concepts of one size maps a choice onto another with the same count
        key = min(tuple(sorted((v, sigma[i]) for v, i in target.items())) for sigma in relabel)
        if key in done:
            total += done[key]
            continue
        domains = [sorted(v for v, i in target.items() if i == c) for c in range(task.k)]
        index = {v: n for d in domains for n, v in enumerate(d)}
        rewritten = np.zeros_like(rows)
        for r, g in enumerate(rows.tolist()):
            for j, u in enumerate(g):
                rewritten[r, target[(j, u)]] = index[(j, u)]
        owners = [_Owner([c], len(domains[c]), images[c], frozenset()) for c in range(task.k)]
        parts = [_Part(rewritten, ids, range(task.k))]
        search = _Search(parts, _order(owners, parts, set(range(task.k))), deadline)
        done[key] = search.start(confidence)
        total += done[key]
        nodes += search.nodes
    return total * anywhere, nodes


def _same_size_permutations(sizes: list, limit: int = 720) -> list:
    """Permutations of the concepts that keep every concept's size (any comparable key; the identity alone past
    ``limit``)."""
    if math.prod(math.factorial(sizes.count(x)) for x in set(sizes)) > limit:
        return [tuple(range(len(sizes)))]
    return [p for p in itertools.permutations(range(len(sizes))) if all(sizes[i] == sizes[j] for i, j in enumerate(p))]


def _targets(rows: list, k: int, deadline):
    """Every choice of a predicted concept for each shown value such that each row's values go to k distinct
    predicted concepts, depth first row by row."""
    target: dict = {}

    def place(r: int):
        if deadline is not None:
            deadline.check()
        if r == len(rows):
            yield dict(target)
            return
        g = rows[r]
        fixed = [target.get((j, u)) for j, u in enumerate(g)]
        used = [c for c in fixed if c is not None]
        if len(set(used)) < len(used):
            return
        open_ = [j for j, c in enumerate(fixed) if c is None]
        for perm in itertools.permutations(sorted(set(range(k)) - set(used))):
            for j, c in zip(open_, perm):
                target[(j, g[j])] = c
            yield from place(r + 1)
            for j in open_:
                del target[(j, g[j])]

    yield from place(0)


def _arrangements(items: list):
    """The distinct orderings of a multiset."""
    counts: dict = {}
    for x in items:
        counts[x] = counts.get(x, 0) + 1
    keys = sorted(counts)
    out: list = []

    def place():
        if len(out) == len(items):
            yield tuple(out)
            return
        for x in keys:
            if counts[x]:
                counts[x] -= 1
                out.append(x)
                yield from place()
                out.pop()
                counts[x] += 1

    yield from place()


def applies(problem) -> bool:
    listed = problem.support.listed or (problem.support.exhaustive and not problem.supervision.vectors)
    if problem.inference != "learned" or problem.parts or not listed:
        return False
    if problem.map_class in ("complete", "permutation"):  # the bijection may move supervised concepts: not here
        return not problem.supervision and problem.support.length > 0
    if problem.map_class == "free":  # each vector's values go to distinct predicted concepts
        return not problem.supervision and problem.support.length > 0
    return problem.map_class in ("disentangled", "shared")


class Kernels(Counter):
    name = "kernels"
    inferences = ("learned",)
    scope = ("kernels counts learned heads (inference='learned') under disentangled and shared, under complete "
             "and permutation without supervision, and under free without supervision")

    def applies(self, problem) -> bool:
        return applies(problem)

    def count(self, problem, encoding, options: Options) -> Tally:
        self.require(problem)
        rows = problem.support.length if problem.support.listed else problem.task.space_size
        (total, nodes), _ = small_first(lambda d: count_learned(problem, deadline=d), rows, self.name, options,
                                        "raise timeout= or name backend=ganak")
        return Tally(total, notes=(f"kernels: a search over the value maps' kernels, {_states(nodes)}",))


class KernelsEstimate(Kernels):
    """``approx=True`` under a learned head: the exact kernels search when it finishes within EXACT_FIRST
    seconds (a quarter of the limit at most), else an estimate from value maps drawn uniformly (ConCon's 2,000
    scenes, where colours and materials no label reads leave too many kernels to list)."""

    name = "kernels-estimate"
    exact = False

    def count(self, problem, encoding, options: Options) -> Tally:
        self.require(problem)
        rows = problem.support.length if problem.support.listed else problem.task.space_size

        def solve(deadline: Deadline) -> tuple:
            first = EXACT_FIRST if options.timeout is None else min(EXACT_FIRST, options.timeout / 4)
            try:
                return count_learned(problem, deadline=Deadline(first, self.name, cancel=options.cancel)), None, None
            except BackendError as exc:  # out of time, or past a listing limit: sample
                if options.cancel is not None and options.cancel.is_set():
                    raise
                confidence = Confidence(options.epsilon, options.delta, options.seed)
                return count_learned(problem, deadline=deadline, confidence=confidence), confidence, str(exc)

        ((total, nodes), used, why), _ = small_first(solve, rows, self.name, options,
                                                     "raise timeout= or loosen epsilon= / delta=")
        if not isinstance(total, Estimate):
            how = _states(nodes) if used is None else "nothing left to sample"
            return Tally(int(total), notes=(f"kernels-estimate: counted exactly by the kernels search ({how})",))
        return tally(total, used, f"kernels-estimate: the exact search gave up ({why.split(';')[0]}); "
                                  f"{used.estimates} estimate(s) from maps of the class drawn uniformly")


def _states(nodes: int) -> str:
    return f"{nodes:,} state{'' if nodes == 1 else 's'}"


BACKEND = Kernels()
ESTIMATE = KernelsEstimate()
