"""Star tables: per label part, the labels each partial prediction can still reach, and each row's place in it.

A label part's *star table* holds, for every vector over its concepts with
one extra "not yet known" slot per concept, the bitmask of label codes some
completion reaches. A support row's partial prediction is an index into it;
the row's true label drops out of the mask exactly when no completion keeps
it right.
"""
from __future__ import annotations

import math

import numpy as np

from ...model.support import row_codes
from ...problems.split import components, grid_labels

MAX_STAR = 1 << 25  # cells of one part's star table
MAX_LABELS = 64
MAX_RESIDUAL = 1 << 23  # cells beyond which a star cell is its own residual id


def star_table(task, concepts: tuple, labels: tuple) -> tuple:
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


def unknown_slots(index: np.ndarray, strides, sizes) -> np.ndarray:
    """Per star index and concept (len(index) x concepts): whether that concept is the "unknown" slot there."""
    sizes = np.asarray(sizes, dtype=np.int64)
    return (index[:, None] // np.asarray(strides, dtype=np.int64)) % (sizes + 1) == sizes


def residual_ids(table: np.ndarray, sizes: tuple, strides: list) -> tuple:
    """Per star cell, an id of the labelling function of its unknown concepts; equal ids, equal functions.

    Ids are the nodes of a reduced ordered decision diagram (axis order), so
    partial predictions that leave a row the same function share one id and
    the cache can merge them. Returns the ids and how many there are.
    """
    n = table.size
    if n > MAX_RESIDUAL:
        return np.arange(n, dtype=np.int64), n
    unknown = unknown_slots(np.arange(n, dtype=np.int64), strides, sizes)
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


def popcount_is_one(table: np.ndarray) -> np.ndarray:
    """Cells whose bitmask has exactly one bit: the label is fixed."""
    return (table != 0) & ((table & (table - 1)) == 0)


class LabelPart:
    """One label part: its star table and the partial index of every support row."""

    def __init__(self, task, concepts: tuple, labels: tuple, rows: np.ndarray, label_rows: np.ndarray):
        self.concepts = concepts
        self.table, strides, bit_of = star_table(task, concepts, labels)
        self.stride = {c: s for c, s in zip(concepts, strides)}
        self.size = {c: task.sizes[c] for c in concepts}
        self.strides = np.array(strides, dtype=np.int64)
        self.sizes = np.array([task.sizes[c] for c in concepts], dtype=np.int64)
        self.rid, self.n_ids = residual_ids(self.table, tuple(self.size[c] for c in concepts), strides)
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


def largest_star(task) -> int:
    """Cells of the largest label part's star table (each concept's domain plus an unknown slot)."""
    return max((math.prod(task.sizes[c] + 1 for c in cs) for _, cs in components(task)), default=1)
