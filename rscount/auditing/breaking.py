"""How many optimal maps a new support vector removes by breaking whole source sets: where a complete count is a
sum over the sets of sources its read concepts may read, a vector that agrees with a support vector on a set's
columns but not on its label leaves no map reading that set (both get the same prediction)."""
from __future__ import annotations

import math

import numpy as np

from ..counters.base import Deadline
from ..errors import BackendError
from ..model.support import grid, label_ids, row_codes
from ..problems.problem import Problem
from ..problems.split import keeping
from .bysources import orbit_maps

__all__ = ["breaking_weights", "killing_weights"]

DIRECT = 1 << 22  # a set whose columns take at most this many values is looked up in a table, else sorted
HUGE = 1e300  # a set's maps as a float for ranking, where more would overflow


def breaking_weights(problem: Problem, counted: tuple, vectors: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Per vector (with its ``labels``), the optimal maps of ``problem`` that adding it removes by breaking source
    sets (``counted``: :func:`~rscount.auditing.bysources.counted_split`), as floats for ranking (maps it removes within the sets left are
    not counted)."""
    split, counts = counted
    support = np.asarray(problem.support.vectors, dtype=np.int64)
    vectors = np.asarray(vectors, dtype=np.int64).reshape(-1, support.shape[1])
    n = len(support)
    both = np.vstack([np.asarray(problem.labels).reshape(n, -1), np.asarray(labels).reshape(len(vectors), -1)])
    ids = label_ids(both)[0]
    have, want = ids[:n], ids[n:]
    sizes = problem.task.sizes
    out = np.zeros(len(vectors))
    for count, mates in zip(counts, split.members):
        for cols, weight, _, _ in mates if count else ():
            radix = [sizes[c] for c in cols]
            bound = math.prod(radix)
            if bound >= 1 << 62:
                continue  # codes would be ranks, not comparable between the two tables
            seen, new = row_codes(support[:, list(cols)], radix), row_codes(vectors[:, list(cols)], radix)
            if bound <= DIRECT:
                label = np.full(bound, -1, dtype=np.int64)
                label[seen] = have  # one label per code: the set leaves the labels a function of its columns
                met = label[new]
            else:
                order = np.argsort(seen, kind="stable")
                at = np.minimum(np.searchsorted(seen[order], new), n - 1)
                met = np.where(seen[order][at] == new, have[order][at], -1)
            out += ((met >= 0) & (met != want)) * min(float(count) * float(weight), HUGE)
    return out


def killing_weights(problem: Problem, counted: tuple, vectors: np.ndarray, labels: np.ndarray,
                    seconds: float | None = None) -> np.ndarray | None:
    """Per vector (with its ``labels``), the optimal maps of ``problem`` that adding it removes, as floats for
    ranking: every source set's read-concept maps listed (:func:`~rscount.auditing.bysources.orbit_maps`;
    ``counted``: :func:`~.bysources.counted_split`) and each checked on the vector, times the maps of the unread concepts
    beside it (a new vector leaves those alone). A map sending a value no support vector shows is kept (its free
    target may be the right one). None where the maps are not listed (too many, something supervised, or past
    ``seconds``)."""
    split, counts = counted
    if problem.supervision or split.unshown != 1:
        return None
    try:
        held = orbit_maps(problem, split, counts, Deadline(seconds, "data fix"))
    except (BackendError, MemoryError):  # a timeout is one
        return None
    read = problem.task.read
    sizes = [problem.task.sizes[i] for i in read]
    if held is None or math.prod(sizes) > DIRECT:
        return None
    table = keeping(problem.task, read).evaluate(grid(tuple(sizes)))  # K on every read-concept vector
    vectors = np.asarray(vectors, dtype=np.int64).reshape(-1, problem.task.k)
    want = np.asarray(labels).reshape(len(vectors), -1)
    strides = np.cumprod([1, *sizes[:0:-1]])[::-1]
    out = np.zeros(len(vectors))
    for count, mates in zip(counts, split.members):
        for _, each, R, p in mates if count else ():
            reads, values, ways = held[R]
            source = np.asarray(p)[np.asarray(R)[reads]]  # (maps, read concepts): the column each reads here
            code = np.zeros((len(reads), len(vectors)), dtype=np.int64)
            unshown = np.zeros(code.shape, dtype=bool)
            for i in range(len(read)):
                pred = np.take_along_axis(values[i], vectors[:, source[:, i]].T, axis=1)
                unshown |= pred < 0
                code += np.maximum(pred, 0) * strides[i]
            killed = (table[code] != want[None, :, :]).any(axis=2) & ~unshown
            out += np.asarray(ways, dtype=float) * min(float(each), HUGE) @ killed
    return out
