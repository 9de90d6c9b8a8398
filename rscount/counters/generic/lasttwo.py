"""The last two value maps of the kernels search at once: a table of partitions per side, and bitmasks.

With two value maps left (one concept each), two rows of different labels in one alive class stay merged
exactly when the first map merges their values (a, a') and the second merges theirs (b, b'). So the count
is the sum, over partitions P of the first map's shown values and Q of the second's, of w(P) w(Q) when no
such row pair has (a, a') merged by P and (b, b') merged by Q. Each side's partitions are listed once and
grouped by which of the value pairs in question they merge; a product of 0/1 matrices (P's merged pairs x
clash relation) gives the pairs each group of P forbids to Q, and one pass of bitmasks over Q's partitions per
distinct forbidden set counts the Qs that merge none of them. This replaces a chromatic sum per partition
of the first map (MNAdd-EvenOdd free: 36,401 partitions a side).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

__all__ = ["count_two", "MAX_PARTITIONS", "MAX_SIDE_VALUES"]

MAX_PARTITIONS = 1_500_000  # partitions of one side listed; past this the caller searches as before
MAX_SIDE_VALUES = 12  # shown values of one side


def count_two(tuples: set, values_a: list, values_b: list, weight_a: Callable[[int], int],
              weight_b: Callable[[int], int], cache: dict | None = None, deadline=None) -> int | None:
    """The weighted pairs of partitions of ``values_a`` and ``values_b`` that merge no row pair in ``tuples``
    ((a, a', b, b') of two rows of different labels in one alive class; None for a side not reading them) on
    both sides; ``weight_x(blocks)`` counts the maps of a side with a kernel of that many blocks on its shown
    values. None when a side has more than MAX_PARTITIONS partitions or MAX_SIDE_VALUES values."""
    if len(values_a) > MAX_SIDE_VALUES or len(values_b) > MAX_SIDE_VALUES:
        return None
    ia = {v: i for i, v in enumerate(values_a)}
    ib = {v: i for i, v in enumerate(values_b)}
    must_a, must_b, clash = set(), set(), set()
    for a, a2, b, b2 in tuples:  # None: a map that does not read this row's part (it merges the two)
        ea = None if a is None else _pair(ia[a], ia[a2])
        eb = None if b is None else _pair(ib[b], ib[b2])
        if ea is None and eb is None:
            return 0  # the two rows show the same values on both: nothing left separates them
        if ea is None:
            must_b.add(eb)
        elif eb is None:
            must_a.add(ea)
        else:
            clash.add((ea, eb))
    rel_a = sorted({ea for ea, _ in clash} - must_a)
    rel_b = sorted({eb for _, eb in clash} - must_b)
    if len(rel_a) > 62 or len(rel_b) > 62:  # merged pairs are kept as int64 bitmasks
        return None
    side_a = _partitions(len(values_a), must_a, rel_a, cache, deadline)
    side_b = _partitions(len(values_b), must_b, rel_b, cache, deadline)
    if side_a is None or side_b is None:
        return None
    wa = [weight_a(k) for k in range(len(values_a) + 1)]
    wb = [weight_b(k) for k in range(len(values_b) + 1)]
    if not rel_a or not rel_b:
        return _weighted(np.bincount(side_a[1], minlength=len(wa)), wa) * \
            _weighted(np.bincount(side_b[1], minlength=len(wb)), wb)
    if len(side_a[0]) > len(side_b[0]):  # the side with fewer partitions is walked in Python
        side_a, side_b, rel_a, rel_b, wa, wb = side_b, side_a, rel_b, rel_a, wb, wa
        clash = {(eb, ea) for ea, eb in clash}
    masks_a, counts_a = _grouped(*side_a, len(wa))
    at = {e: n for n, e in enumerate(rel_a)}
    bt = {e: n for n, e in enumerate(rel_b)}
    relation = np.zeros((len(rel_a), len(rel_b)), dtype=np.float32)
    for ea, eb in clash:
        if ea in at and eb in bt:
            relation[at[ea], bt[eb]] = 1
    # the second side's pairs each first-side group forbids, as one bitmask; groups forbidding the same share it
    forced = (_bits(masks_a, len(rel_a)) @ relation) > 0
    forbidden = (forced.astype(np.int64) << np.arange(len(rel_b), dtype=np.int64)).sum(axis=1)
    distinct, which = np.unique(forbidden, return_inverse=True)
    weight_of = [0] * len(distinct)
    for g, row in zip(which.reshape(-1).tolist(), counts_a.tolist()):
        weight_of[g] += _weighted(row, wa)
    order = np.argsort(side_b[1], kind="stable")  # the second side's partitions by number of blocks
    masks_b = side_b[0][order]
    bounds = np.searchsorted(side_b[1][order], np.arange(len(wb) + 1))
    segments = [(k, bounds[k], bounds[k + 1]) for k in range(len(wb)) if bounds[k] < bounds[k + 1]]
    merged = np.empty(len(masks_b), dtype=np.int64)
    free = np.empty(len(masks_b), dtype=bool)
    total = 0
    for n, (g, w) in enumerate(zip(distinct.tolist(), weight_of)):
        if deadline is not None and n % 256 == 0:
            deadline.check()
        np.bitwise_and(masks_b, g, out=merged)
        np.equal(merged, 0, out=free)  # second-side partitions merging none of the forbidden pairs
        total += w * sum(int(np.count_nonzero(free[lo:hi])) * wb[k] for k, lo, hi in segments)
    return total


def _grouped(masks: np.ndarray, blocks: np.ndarray, width: int) -> tuple:
    """(distinct masks, partitions per mask and number of blocks)."""
    distinct, which = np.unique(masks, return_inverse=True)
    counts = np.zeros((len(distinct), width), dtype=np.int64)
    np.add.at(counts, (which.reshape(-1), blocks), 1)
    return distinct, counts


def _weighted(counts, weights: list) -> int:
    return sum(int(c) * w for c, w in zip(counts, weights) if c)


def _pair(u: int, w: int):
    return None if u == w else (min(u, w), max(u, w))


def _bits(masks: np.ndarray, width: int) -> np.ndarray:
    """Rows of 0/1 (float32) from integer bitmasks."""
    return ((masks[:, None] >> np.arange(width, dtype=np.int64)[None, :]) & 1).astype(np.float32)


def _partitions(n: int, must: set, relevant: list, cache: dict | None, deadline):
    """The partitions of values 0..n-1 keeping each pair of ``must`` apart, as (which ``relevant`` pairs each
    merges, as a bitmask; its number of blocks); None past MAX_PARTITIONS."""
    key = (n, frozenset(must), tuple(relevant))
    if cache is not None and key in cache:
        return cache[key]
    bit = {e: 1 << i for i, e in enumerate(relevant)}
    apart = [0] * n
    for u, w in must:
        apart[u] |= 1 << w
        apart[w] |= 1 << u
    with_v = [[bit.get((u, v), 0) for u in range(n)] for v in range(n)]
    masks: list = []
    blocks: list = []
    members: list = []  # per block: [member mask, member list]

    def grow(v: int, mask: int) -> bool:
        if v == n:
            masks.append(mask)
            blocks.append(len(members))
            if len(masks) % 4096 == 0:
                if len(masks) > MAX_PARTITIONS:
                    return False
                if deadline is not None:
                    deadline.check()
            return True
        row = with_v[v]
        for block in members:
            inside, listed = block
            if apart[v] & inside:
                continue
            extra = 0
            for u in listed:
                extra |= row[u]
            block[0] = inside | 1 << v
            listed.append(v)
            ok = grow(v + 1, mask | extra)
            listed.pop()
            block[0] = inside
            if not ok:
                return False
        members.append([1 << v, [v]])
        ok = grow(v + 1, mask)
        members.pop()
        return ok

    out = None
    if grow(0, 0) and len(masks) <= MAX_PARTITIONS:
        out = (np.array(masks, dtype=np.int64), np.array(blocks, dtype=np.int64))
    if cache is not None:
        cache[key] = out
    return out
