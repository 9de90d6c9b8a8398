"""The search's state as plain data: which source each unit reads, which entries are set, and every row's place.

A *unit* is what the search gives one source concept per member and one
entry per source value: a predicted concept, or a group of them sharing one
value map. An *entry* (source value -> predicted value) is open, set, or
absent (no support row shows that source value: any value will do, counted
in closed form). Setting an entry moves the rows that read it in their
label part's star table (:meth:`SearchState.assign`); undoing it moves them
back.
"""
from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field

import numpy as np

from ...model.support import interchangeable_values, label_ids
from ...problems.split import components
from .symmetries import block_tuples, value_group
from .tables import LabelPart, popcount_is_one

MAX_GAC = 3  # arc consistency covers rows with up to this many open entries,
GAC_CELLS = 81  # or more while a row's value tuples stay this few (booleans: 6, ternary: 4)


class Entry(enum.Enum):
    """What is known of one entry of a unit's value map."""

    OPEN = "open"  # to be chosen
    SET = "set"  # chosen (its value lives in the rows' star indices)
    ABSENT = "absent"  # no support row shows this source value: any value, counted in closed form


@dataclass(frozen=True)
class Unit:
    """A predicted concept, or a group sharing one value map: one source per member, one entry per source value."""

    members: tuple  # predicted concepts that read this unit's entries
    size: int  # the predicted domain size
    sources: tuple | None  # fixed source concept per member, or None: the search chooses one (complete)


@dataclass
class SearchState:
    """Everything the search reads and changes; built once by :func:`build_state`, changed by assign / unassign."""

    task: object
    G: np.ndarray  # the support rows
    parts: list  # LabelPart per label part
    part_of: dict  # predicted concept -> its LabelPart
    units: list  # Unit
    unit_of: dict  # predicted concept -> index of its unit
    supervised: np.ndarray  # per row and concept: observed
    any_supervision: bool
    rows_of: list  # rows_of[s][u]: the support rows whose concept s has value u
    width: int  # the largest domain
    gac: int  # the most open entries of a row that arc consistency covers
    domains: np.ndarray  # per entry (unit * width + source value) its unit's values, then one padding entry
    order: list  # units in the order they get their source
    group: np.ndarray  # value permutations of the predicted concepts that keep every label (identity first)
    block_of: dict  # predicted concept -> its block of interchangeable concepts (complete maps)
    weight: int  # the blocks' factorials: sourcings counted once per block order
    source: list  # per unit: its members' sources, None while unsourced
    entries: list  # per unit: one Entry per source value, None while unsourced
    used: set  # sources some unit reads
    undecided: int  # rows whose label is not yet fixed, over all parts
    stab: np.ndarray  # elements of ``group`` fixing every entry set so far
    changed: list = field(default_factory=list)  # the parts the step into the current node changed
    tuples: list = field(default_factory=list)  # the blocks as their tuples of concepts that move together
    source_sizes: tuple = ()  # per column of G: its source concept's domain size (the task's own concepts but
    # in a rectangle: the read concepts reading a chosen set of sources, see problems.sources.Rectangle)
    free_codes: dict = field(default_factory=dict)  # frozenset of used sources -> unused columns' row codes
    classes: dict = field(default_factory=dict)  # source -> classes of its values the rows cannot tell apart
    truth: np.ndarray | None = None  # per row and predicted concept: the value supervision asks for (G itself,
    # but a rectangle's columns are its sources)

    @property
    def n_sources(self) -> int:
        return len(self.source_sizes)

    @property
    def pad(self) -> int:
        """The padding entry (one value) that stands in for axes a row does not have."""
        return len(self.units) * self.width

    def fresh_entries(self, sources: tuple) -> list:
        """Entries of a newly sourced unit: open for values some row shows, absent for the others."""
        size = self.source_sizes[sources[0]]
        return [Entry.OPEN if any(len(self.rows_of[s][u]) for s in sources) else Entry.ABSENT for u in range(size)]

    def effects(self, n: int, u: int) -> list:
        """(predicted concept, rows) pairs that entry ``u`` of unit ``n`` decides."""
        return [(i, self.rows_of[s][u]) for i, s in zip(self.units[n].members, self.source[n])]

    def choices(self, n: int, u: int) -> range | tuple:
        """Values entry ``u`` of unit ``n`` may take: all, or the one supervision pins (or none)."""
        if self.any_supervision:
            pinned = set()
            for i, rows in self.effects(n, u):
                sup = rows[self.supervised[rows, i]]
                pinned |= set(self.truth[sup, i].tolist())
            if len(pinned) > 1:
                return ()
            if pinned:
                return tuple(pinned)
        return range(self.units[n].size)

    def n_values(self, e: int, mask) -> int:
        """How many values entry ``e`` may take (its choices, narrowed by ``mask`` when given)."""
        values = self.choices(*divmod(e, self.width))
        return len(values) if mask is None else sum(1 for x in values if mask[x])

    def is_free(self, n: int, u: int) -> bool:
        """Whether no undecided row reads entry ``u`` of unit ``n`` (its value then changes no label)."""
        for i, rows in self.effects(n, u):
            part = self.part_of.get(i)
            if part is not None and not part.decided[rows].all():
                return False
        return True

    def assign(self, n: int, u: int, v: int) -> tuple:
        """Set entry ``u`` of unit ``n`` to ``v``; return (still feasible, undo record)."""
        self.entries[n][u] = Entry.SET
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
        """Undo :meth:`assign`."""
        self.entries[n][u] = Entry.OPEN
        for part, i, rows, old_index, old_decided in reversed(undo):
            self.undecided += int(part.decided[rows].sum()) - int(old_decided.sum())
            part.index[rows] = old_index
            part.decided[rows] = old_decided
            part.known[rows, part.axis[i]] = False
            part.missing[rows] += 1

    def source_of(self, i: int) -> int | None:
        """The source concept predicted concept ``i`` reads, None while its unit has none."""
        n = self.unit_of[i]
        return None if self.source[n] is None else self.source[n][self.units[n].members.index(i)]

    def open_entries(self, n: int) -> list:
        """The source values whose entry of unit ``n`` is open."""
        return [u for u, e in enumerate(self.entries[n]) if e is Entry.OPEN]

    def entry_ids(self, part: LabelPart, rows: np.ndarray) -> np.ndarray:
        """Per row and concept of ``part``: the id (unit * width + value) of the entry it reads while that is
        open, else -1."""
        out = np.empty((len(rows), len(part.concepts)), dtype=np.int64)
        for a, i in enumerate(part.concepts):
            n = self.unit_of[i]
            out[:, a] = np.where(part.unknown(i, rows), n * self.width + self.G[rows, self.source_of(i)], -1)
        return out

    def source_range(self, i: int) -> tuple:
        """The open interval of sources left to predicted concept ``i`` by its sourced block-mates.

        Block members read sources in increasing order (see
        :func:`.symmetries.block_tuples`).
        """
        lo, hi = -1, self.n_sources
        for j in self.block_of.get(i, ()):
            t = None if j == i else self.source_of(j)
            if t is not None:
                lo, hi = (max(lo, t), hi) if j < i else (lo, min(hi, t))
        return lo, hi

    def in_order(self, i: int, s: int) -> bool:
        """Whether predicted concept ``i`` may read source ``s``: sourced members of its block stay in order."""
        lo, hi = self.source_range(i)
        return lo < s < hi


def _units(problem) -> list:
    task, cls = problem.task, problem.map_class
    if cls in ("complete", "permutation"):
        return [Unit((i,), task.sizes[i], None) for i in range(task.k)]
    if cls == "disentangled":
        return [Unit((i,), task.sizes[i], (i,)) for i in range(task.k)]
    groups: dict = {}
    for i in range(task.k):
        groups.setdefault(problem.representative(i), []).append(i)
    units = [Unit(tuple(ms), task.sizes[ms[0]], tuple(ms)) for ms in groups.values()]
    if any(len({task.sizes[m] for m in u.members}) > 1 for u in units):
        raise ValueError("a concept group mixes domain sizes")
    return units


def unit_order(parts: list, units: list) -> list:
    """Units to source in order: part by part, each next concept the one that fixes the most labels."""
    first = {}
    for part in parts:
        shape = tuple(part.size[c] + 1 for c in part.concepts)
        decided = popcount_is_one(part.table.reshape(shape))
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
    key = {n: min(first.get(i, (1 << 30, 0)) for i in unit.members) for n, unit in enumerate(units)}
    return sorted(range(len(units)), key=lambda n: (key[n], n))


def build_state(problem) -> SearchState:
    """The state at the root of the search: no entry set, fixed-source units sourced."""
    task = problem.task
    G = np.asarray(problem.support.vectors, dtype=np.int64)
    source_sizes = tuple(getattr(problem, "source_sizes", None) or task.sizes)
    parts = [LabelPart(task, cs, ls, G, problem.labels) for ls, cs in components(task)]
    units = _units(problem)
    supervised = np.zeros((len(G), task.k), dtype=bool)
    for r, g in enumerate(problem.support.rows()):
        supervised[r, list(problem.supervised(r, g))] = True
    any_supervision = bool(supervised.any())
    width = max(task.sizes + source_sizes)
    gac = MAX_GAC
    while width > 1 and width ** (gac + 1) <= GAC_CELLS:
        gac += 1
    domains = np.zeros((len(units) * width + 1, width), dtype=bool)
    for n, unit in enumerate(units):
        domains[n * width:(n + 1) * width, :unit.size] = True
    domains[-1, 0] = True
    group = value_group(task, parts, units, width, any_supervision)
    order = unit_order(parts, units)
    tuples = [] if any_supervision else block_tuples(problem, parts, [units[n].members[0] for n in order])
    blocks = {t[0]: tuple(u[0] for u in block) for block in tuples for t in block}
    state = SearchState(
        task=task, G=G, parts=parts, part_of={c: part for part in parts for c in part.concepts}, units=units,
        unit_of={i: n for n, unit in enumerate(units) for i in unit.members}, supervised=supervised,
        any_supervision=any_supervision,
        rows_of=[[np.flatnonzero(G[:, s] == u) for u in range(size)] for s, size in enumerate(source_sizes)],
        width=width, gac=gac, domains=domains, order=order, group=group, block_of=blocks, tuples=tuples,
        weight=math.prod(math.factorial(len(b)) for b in set(blocks.values())),
        source=[u.sources for u in units], entries=[None] * len(units),
        used={s for u in units if u.sources for s in u.sources},
        undecided=sum(int((~p.decided).sum()) for p in parts), stab=np.arange(len(group)), changed=list(parts),
        source_sizes=source_sizes, truth=G if getattr(problem, "truth", None) is None else problem.truth)
    if len(group) == 1 and not any_supervision and all(u.sources is None for u in units):
        state.classes = interchangeable_values(G, label_ids(problem.labels)[0], source_sizes)
    for n, unit in enumerate(units):
        if unit.sources is not None:
            state.entries[n] = state.fresh_entries(unit.sources)
    return state
