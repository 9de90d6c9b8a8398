"""Exact counts of disentangled and shared maps by trying every value map, where there are few.

A shared map is one value map per group of concepts (Kand-Logic: one for
the six shapes, one for the six colors: 27 x 27 = 729 maps). Mapping the
support through all of them at once and evaluating the labels in one numpy
pass takes a fraction of the time of a CNF encoding or a search.
"""
from __future__ import annotations

import numpy as np

from ...model.support import grid, space_label_ids
from ...results.count import Tally
from ..base import Deadline, Screened
from ..generic.bruteforce import number_of_candidates

CLASSES = ("disentangled", "shared")
MAX_MAPS = 1 << 16  # value-map tuples tried (past MAX_ALL, filtered row block by row block)
MAX_ALL = 1 << 12  # up to this many tuples, every one is checked on the whole support at once
MAX_VECTORS = 1 << 20  # maps x support vectors evaluated (about 0.2 s on Kand-Logic), in chunks
CHUNK_VECTORS = 1 << 17
FIRST_ROWS = 16  # support rows the filter checks every tuple on before it narrows to the survivors
MAX_SPACE = 1 << 22  # up to this many concept vectors, labels are read off a table of the whole space


def _why_not(problem) -> str | None:
    if problem.map_class not in CLASSES or problem.supervision:
        return f"valuemaps counts classes {', '.join(CLASSES)} without supervision"
    maps = number_of_candidates(problem)
    if maps > MAX_MAPS:
        return f"valuemaps: {maps} value-map tuples (over {MAX_MAPS}); use backend=search or ganak"
    if maps > MAX_ALL:
        if maps * min(problem.support.length, FIRST_ROWS) > 8 * MAX_VECTORS:
            return f"valuemaps: {maps} maps x {FIRST_ROWS} first rows is over {8 * MAX_VECTORS} vectors to evaluate"
    elif maps * problem.support.length > MAX_VECTORS:
        return (f"valuemaps: {maps} maps x {problem.support.length} support vectors is over {MAX_VECTORS} "
                f"vectors to evaluate")
    return None


def applies(problem) -> bool:
    """Whether the class is disentangled or shared, nothing is supervised and the maps are few."""
    return _why_not(problem) is None


def count_valuemaps(problem, deadline: Deadline) -> int:
    """How many value-map tuples keep every support vector's labels."""
    return len(_surviving(problem, deadline)[2])


def list_valuemaps(problem, deadline: Deadline) -> list:
    """Every optimal map (ConceptMap), one per value-map tuple that keeps every support vector's labels."""
    from ...results.count import ConceptMap
    task = problem.task
    col, tables, alive = _surviving(problem, deadline)
    names, domains = tuple(c.name for c in task.concepts), tuple(c.domain for c in task.concepts)
    return [ConceptMap(tuple(tuple((j, int(v)) for v in tables[col[j]][row[col[j]]]) for j in range(task.k)),
                       names, domains) for row in alive.tolist()]


def _surviving(problem, deadline: Deadline) -> tuple:
    """(per concept the index of the value map it uses, the value-map tables, the surviving tuples as rows of
    table-row indices)."""
    task, k = problem.task, problem.task.k
    reps = sorted({problem.representative(j) for j in range(k)})  # concepts whose value maps the others use
    col = [reps.index(problem.representative(j)) for j in range(k)]
    tables = [grid((task.sizes[r],) * task.sizes[r]) for r in reps]  # row t sends value v to tables[.][t, v]
    vectors = np.asarray(problem.support.vectors, dtype=np.int64)
    if task.space_size <= MAX_SPACE:
        return col, tables, _by_table(task, reps, col, tables, vectors, deadline)
    tuples = grid(tuple(len(t) for t in tables))
    first = FIRST_ROWS if len(tuples) > MAX_ALL else len(vectors)  # few tuples: every one on the whole support
    return col, tables, _filtered(task, col, tables, tuples, vectors, problem.labels, deadline, first)


def _filtered(task, col: list, tables: list, tuples, vectors, want, deadline: Deadline, first: int) -> np.ndarray:
    """Check every tuple on the first ``first`` support rows, keep those that give every label, then the
    survivors on the next rows (blocks growing as they thin out). A tuple survives when it keeps every row:
    the same test as checking it on the whole support, in a fraction of the evaluations where tuples are many
    (RAVEN shared: 19,683)."""
    alive, k, start, block = tuples, task.k, 0, first
    while start < len(vectors) and len(alive):
        rows, wanted = vectors[start:start + block], want[start:start + block]
        keep = []
        step = max(1, CHUNK_VECTORS // max(1, len(rows)))
        for first in range(0, len(alive), step):
            deadline.check()
            chunk = alive[first:first + step]
            mapped = np.empty((len(chunk), len(rows), k), dtype=np.int64)
            for j in range(k):
                mapped[:, :, j] = tables[col[j]][chunk[:, col[j]]][:, rows[:, j]]
            labels = task.evaluate(mapped.reshape(-1, k)).reshape(len(chunk), len(rows), -1)
            keep.append(chunk[(labels == wanted[None]).all(axis=(1, 2))])
        alive = np.concatenate(keep) if keep else alive[:0]
        start += len(rows)
        block = max(FIRST_ROWS, CHUNK_VECTORS // max(1, len(alive)))
    return alive


def _by_table(task, reps: list, col: list, tables: list, vectors, deadline: Deadline) -> np.ndarray:
    """The same tuples, read off the label of every concept vector: a mapped vector is one position in the grid.

    The position is a sum over the shared value maps of what each adds
    (its concepts' mapped values times their strides), so the positions of
    all tuples come from one broadcast sum per map, not one knowledge
    evaluation per mapped vector.
    """
    codes, _ = space_label_ids(task)
    strides = np.cumprod((1,) + task.sizes[:0:-1], dtype=np.int64)[::-1]
    want = codes[vectors @ strides]
    where = np.zeros((1,) * len(reps) + (len(vectors),), dtype=np.int64)
    for n, table in enumerate(tables):
        deadline.check()
        adds = sum(table[:, vectors[:, j]] * strides[j] for j in range(task.k) if col[j] == n)
        shape = [1] * len(reps) + [len(vectors)]
        shape[n] = len(table)
        where = where + np.reshape(adds, shape)
    return np.argwhere((codes[where] == want).all(axis=-1))


class ValueMapsCounter(Screened):
    """Exact counts of disentangled and shared maps by trying every value map (at most MAX_MAPS; past MAX_ALL
    the support filters them row block by row block)."""

    name = "valuemaps"

    def why_not(self, problem) -> str | None:
        return _why_not(problem)

    def tally(self, problem, deadline: Deadline) -> Tally:
        return Tally(count_valuemaps(problem, deadline), notes=(
            f"valuemaps: all {number_of_candidates(problem)} value-map tuples tried at once on the support",))

    def enumerate(self, problem, encoding, limit, deadline: Deadline | None = None):
        maps = list_valuemaps(problem, deadline or Deadline(None, "listing maps"))
        return iter(maps if limit is None else maps[:limit])


BACKEND = ValueMapsCounter()
