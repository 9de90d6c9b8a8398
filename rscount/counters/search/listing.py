"""A source split's rectangle counted by listing its maps with SAT, where the search proves little per node.

On ConCon's 4 objects with 2 colours the search visits 60,000-350,000 partial maps to find that a source set
with colours has no map, or that it has about 1,500; MiniSat proves the first and lists the second (48-102
maps once the rule's object orders are fixed) in a fraction of a second. The maps are told apart by the
entries of the source values some row shows; the values no row shows go to any value of their predicted
concept.

Rows join the CNF lazily: it starts from a few rows that show every source value, each map listed is checked
against every row with numpy, and the first row a wrong map breaks is encoded and added to the solver (a map
of the rectangle is a map of every subset of its rows, so the listing ends with exactly its maps). On
ConCon's 3 objects a rectangle of 13,824 rows needs about a hundred of them.
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from ...errors import BackendError
from ...model.support import grid, row_codes
from ...problems.encoding import RowEncoder

MAX_MODELS = 4096  # maps listed before the rectangle goes back to the search
MAX_ROWS = 1 << 14  # rows of a rectangle the CNF may come to hold (about 300 clauses a row, built in Python)
SOLVER = "minisat22"  # on these CNFs 1.5-3x faster than CaDiCaL, proofs of no map and lists alike


def listed_count(rect, state, deadline, limit: int = MAX_MODELS) -> int | None:
    """The number of maps of ``rect`` (a :class:`~rscount.problems.sources.Rectangle`), or None where more than
    ``limit`` are left once the members of each block of the search's ``state`` (interchangeable predicted
    concepts) read sources in increasing order; each map listed stands for its block orders (the state's
    weight). None also where the CNF would pass MAX_ROWS rows or the encoder's limits: the search counts those."""
    ordered = tuple((a, b) for block in set(state.block_of.values()) for a, b in zip(block, block[1:]))
    total = 0
    try:
        for found, (_, _, ways) in enumerate(_listed(rect, ordered, deadline), 1):
            if found > limit:
                return None
            total += ways
    except _TooLarge:
        return None
    return total * state.weight


def rectangle_maps(rect, deadline, limit: int = MAX_MODELS, tuples: list = ()) -> list | None:
    """Every map of ``rect``, as (the source each read concept reads, per read concept its value per source value
    some row shows (-1 elsewhere), the maps it stands for: the values no row shows go anywhere); None where there
    are more than ``limit`` or the CNF would pass MAX_ROWS rows or the encoder's limits. ``tuples``: blocks of
    interchangeable concepts (:func:`~.symmetries.block_tuples`): SAT lists one map per orbit (leads reading
    sources in increasing order), each then moved by every permutation of its blocks' tuples."""
    ordered = tuple((a[0], b[0]) for block in tuples for a, b in zip(block, block[1:]))
    orbit = math.prod(math.factorial(len(block)) for block in tuples)
    out = []
    try:
        for reads, values, ways in _listed(rect, ordered, deadline):
            if len(out) + orbit > limit:
                return None
            out.extend(_moved((reads, tuple(values[s] for s in reads), ways), tuples))
    except _TooLarge:
        return None
    return out


def _moved(listed: tuple, tuples: list) -> list:
    """``listed`` (a map as :func:`rectangle_maps` gives it) under every permutation of each block's tuples."""
    out = [listed]
    for block in tuples:
        out = [(_permuted(reads, block, p), _permuted(values, block, p), ways)
               for reads, values, ways in out for p in itertools.permutations(range(len(block)))]
    return out


def _permuted(per_concept: tuple, block: tuple, p: tuple) -> tuple:
    """``per_concept`` with tuple o of ``block`` taking what tuple p[o] had."""
    out = list(per_concept)
    for o, t in enumerate(block):
        for i, j in zip(t, block[p[o]]):
            out[i] = per_concept[j]
    return tuple(out)


class _TooLarge(Exception):
    """The CNF would pass MAX_ROWS rows or the encoder's limits."""


def _listed(rect, ordered: tuple, deadline):
    """Yield (the source each read concept reads, per source its value map (-1 on values no row shows), the maps it
    stands for) for every map of ``rect`` (under ``ordered``: pairs of predicted concepts read in increasing
    source order), by SAT; raise _TooLarge."""
    from pysat.solvers import Solver
    rows = rect.support.vectors
    shown = [set(rows[:, s].tolist()) for s in range(rows.shape[1])]
    taken = sorted(_showing(rows))
    try:
        builder = RowEncoder(rect, ordered=ordered)
        for row in taken:
            builder.add(row, rows[row])
            deadline.check()
    except BackendError:  # the CNF would be too large
        raise _TooLarge from None
    enc, table = builder.encoding(), _label_table(rect)
    on = tuple(v for v in enc.alpha if enc.alpha_keys[v][3] in shown[enc.alpha_keys[v][2]])
    with Solver(name=SOLVER, bootstrap_with=builder.circuit.clauses) as solver:
        while True:
            deadline.check()
            if not solver.solve():
                return
            model = solver.get_model()
            true = frozenset(v for v in on if model[v - 1] > 0)
            solver.add_clause([-v if v in true else v for v in on])
            reads, values = _decoded(rect, enc, true)
            wrong = _first_wrong(rect, reads, values, table)
            if wrong is None:
                reader = {s: i for i, s in enumerate(reads)}
                yield reads, values, math.prod(rect.task.sizes[reader[s]] ** (size - len(shown[s]))
                                               for s, size in enumerate(rect.source_sizes))
                continue
            taken.append(wrong)  # the row this map breaks joins the CNF: only its own clauses are new
            if len(taken) > MAX_ROWS:
                raise _TooLarge
            before = len(builder.circuit.clauses)
            builder.add(wrong, rows[wrong])
            for clause in builder.circuit.clauses[before:]:
                solver.add_clause(clause)


def _showing(rows: np.ndarray) -> set:
    """A few rows that together show every value of every source column (the first row showing each)."""
    out = set()
    for s in range(rows.shape[1]):
        out.update(np.unique(rows[:, s], return_index=True)[1].tolist())
    return out


SPACE_TABLE = 1 << 16  # read concepts with at most this many vectors get their labels from one table


def _label_table(rect) -> np.ndarray | None:
    """K on every vector of the read concepts (grid order), where there are few: a listed map's rows are then
    checked by a lookup, not by evaluating K on each."""
    if rect.task.space_size > SPACE_TABLE:
        return None
    return rect.task.evaluate(grid(rect.task.sizes))


def _decoded(rect, enc, true: frozenset) -> tuple:
    """(the source each read concept reads, per source its value map, -1 on values no row shows) of the map whose
    alpha variables ``true`` sets."""
    reads = [0] * rect.task.k
    values = [np.full(size, -1, dtype=np.int64) for size in rect.source_sizes]
    for v in true:
        i, target, s, u = enc.alpha_keys[v]
        reads[i] = s
        values[s][u] = target
    return tuple(reads), values


def _first_wrong(rect, reads: tuple, values: list, table: np.ndarray | None = None) -> int | None:
    """The first row of ``rect`` where the map (:func:`_decoded`) gives another label or misses a supervised
    value; None where it keeps every row. ``table``: :func:`_label_table`."""
    rows = rect.support.vectors
    pred = np.stack([values[s][rows[:, s]] for s in reads], axis=1)
    if table is not None:
        bad = (table[row_codes(pred, list(rect.task.sizes))] != rect.labels).any(axis=1)
    else:
        bad = (rect.task.evaluate(pred) != rect.labels).any(axis=1)
    if rect.observed is not None:
        bad |= (rect.observed & (pred != rect.truth)).any(axis=1)
    hit = np.flatnonzero(bad)
    return int(hit[0]) if len(hit) else None
