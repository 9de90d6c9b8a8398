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

import dataclasses
import math

import numpy as np

from ...errors import BackendError
from ...model.support import Support
from ...problems.encoding import encode

MAX_MODELS = 4096  # maps listed before the rectangle goes back to the search
MAX_ROWS = 1 << 14  # rows of a rectangle the CNF may come to hold (about 300 clauses a row, built in Python)
SOLVER = "minisat22"  # on these CNFs 1.5-3x faster than CaDiCaL, proofs of no map and lists alike


def listed_count(rect, state, deadline, limit: int = MAX_MODELS) -> int | None:
    """The number of maps of ``rect`` (a :class:`~rscount.problems.sources.Rectangle`), or None where more than
    ``limit`` are left once the members of each block of the search's ``state`` (interchangeable predicted
    concepts) read sources in increasing order; each map listed stands for its block orders (the state's
    weight). None also where the CNF would pass MAX_ROWS rows or the encoder's limits: the search counts those."""
    from pysat.solvers import Solver
    ordered = tuple((a, b) for block in set(state.block_of.values()) for a, b in zip(block, block[1:]))
    rows = rect.support.vectors
    shown = [set(rows[:, s].tolist()) for s in range(rect.task.k)]
    taken = sorted(_showing(rows))
    try:
        enc = encode(_on_rows(rect, taken), ordered=ordered, deadline=deadline)
    except BackendError:  # the CNF would be too large
        return None
    on = tuple(v for v in enc.alpha if enc.alpha_keys[v][3] in shown[enc.alpha_keys[v][2]])
    top, total, found = enc.nvars, 0, 0
    with Solver(name=SOLVER, bootstrap_with=enc.clauses) as solver:
        while True:
            deadline.check()
            if not solver.solve():
                return total * state.weight
            model = solver.get_model()
            true = frozenset(v for v in on if model[v - 1] > 0)
            solver.add_clause([-v if v in true else v for v in on])
            wrong = _first_wrong(rect, enc, true)
            if wrong is None:
                found += 1
                if found > limit:
                    return None
                reader = {enc.alpha_keys[v][2]: enc.alpha_keys[v][0] for v in true}
                total += math.prod(rect.task.sizes[reader[s]] ** (size - len(shown[s]))
                                   for s, size in enumerate(rect.source_sizes))
                continue
            taken.append(wrong)  # the row this map breaks joins the CNF, its own variables renamed past ours
            if len(taken) > MAX_ROWS:
                return None
            try:
                row = encode(_on_rows(rect, [wrong]), ordered=ordered, deadline=deadline)
            except BackendError:
                return None
            (first, fixed), shift = row.frame, top - row.frame[1]
            for clause in row.clauses[first:]:
                solver.add_clause([lit if abs(lit) <= fixed else lit + shift if lit > 0 else lit - shift
                                   for lit in clause])
            top += row.nvars - fixed


def _showing(rows: np.ndarray) -> set:
    """A few rows that together show every value of every source column (the first row showing each)."""
    out = set()
    for s in range(rows.shape[1]):
        out.update(np.unique(rows[:, s], return_index=True)[1].tolist())
    return out


def _on_rows(rect, taken: list):
    """``rect`` on the rows ``taken`` only (their labels, truths and supervision kept)."""
    pick = np.asarray(taken, dtype=np.int64)
    return dataclasses.replace(
        rect, support=Support(rect.support.vectors[pick], rect.support.kind), labels=rect.labels[pick],
        truth=None if rect.truth is None else rect.truth[pick],
        observed=None if rect.observed is None else rect.observed[pick])


def _first_wrong(rect, enc, true: frozenset) -> int | None:
    """The first row of ``rect`` where the map listed as ``true`` (its alpha variables set) gives another label
    or misses a supervised value; None where it keeps every row."""
    rows = rect.support.vectors
    k = rect.task.k
    pred = np.zeros((len(rows), k), dtype=np.int64)
    for v in true:
        i, value, s, u = enc.alpha_keys[v]
        pred[rows[:, s] == u, i] = value
    bad = (rect.task.evaluate(pred) != rect.labels).any(axis=1)
    if rect.observed is not None:
        bad |= (rect.observed & (pred != rect.truth)).any(axis=1)
    hit = np.flatnonzero(bad)
    return int(hit[0]) if len(hit) else None
