"""Value-map counts over a binary tree of modules, by joining class vectors instead of calling a model counter.

Once each base module has its source concepts, the value maps of its
concepts (one function per concept, source domain -> concept domain) give
each support vector a class of that module. Many value maps give the same
*class vector* over the support rows, so a base module is a short list of
class vectors, each with the number of value maps behind it. Two sibling
modules join into their parent: a pair of class vectors survives when every
row's pair of classes gives a parent class the labels still allow on that
row (the allowed classes are pushed down from the labels once). Joining at
the top leaves the count. On Kand-Logic a base module has 19,683 value maps
but 2,991 class functions, and a join of two of them keeps about 1,400 pairs.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from ...errors import BackendError
from ...model.support import distinct, grid, row_codes, row_ids

MAX_MAPS = 1 << 17  # value-map tuples of one base module, enumerated
MAX_COMBOS = 1 << 12  # source value combinations of one base module
MAX_CLASSES = 62  # classes of one module (bit masks of classes fit an int64)
MAX_PAIRS = 1 << 17  # surviving pairs of one join (Kand-Logic: about 1,400)


class TooWide(BackendError):
    """A join keeps too many pairs: the labels prune too little below the top for joining to pay."""


@dataclass
class Cands:
    """Class vectors of one module: ``table[i, cols[r]]`` is the class of candidate i on support row r."""

    table: np.ndarray
    cols: np.ndarray
    weights: list  # value maps behind each candidate (Python ints)
    memo: dict = field(default_factory=dict, repr=False)  # table column -> class bit sets (see join)

    def columns(self) -> np.ndarray:
        """The table transposed (one contiguous row per column), kept."""
        hit = self.memo.get("T")
        if hit is None:
            hit = self.memo["T"] = np.ascontiguousarray(self.table.T)
        return hit

    def rows(self, idx: np.ndarray) -> np.ndarray:
        """The class vectors (one per row of the result) of the candidates ``idx``."""
        return self.table[idx][:, self.cols]


@lru_cache(maxsize=64)
def _value_tables(classes: bytes, targets: tuple, sources: tuple) -> tuple:
    """(distinct class functions over source combos, how many value-map tuples give each, a shared memo)."""
    table = np.frombuffer(classes, dtype=np.int64)
    pts = grid(sources)
    code = np.zeros(len(pts), dtype=np.int64)
    for j, (d, e) in enumerate(zip(targets, sources)):
        maps = grid((d,) * e)  # row t: the value map sending source value v to maps[t, v]
        code = code[..., np.newaxis, :] * d + maps[:, pts[:, j]]
    funcs = table[code.reshape(-1, len(pts))]
    ids, first = row_ids(funcs)
    return _small(funcs[first]), np.bincount(ids).tolist(), {}


def value_maps(targets: tuple, sources: tuple) -> int:
    """How many value-map tuples a base module of concept sizes ``targets`` reading ``sources`` has."""
    return math.prod(d ** e for d, e in zip(targets, sources))


def base_cands(classes: np.ndarray, targets: tuple, vectors: np.ndarray, sources: tuple, sizes: tuple) -> Cands:
    """Candidates of a base module (class table ``classes`` over its concepts' combos) reading ``sources``."""
    src = tuple(sizes[s] for s in sources)
    funcs, counts, memo = _value_tables(np.ascontiguousarray(classes, dtype=np.int64).tobytes(), targets, src)
    return Cands(funcs, row_codes(vectors[:, list(sources)], list(src)), counts, memo)


def merge(parts: list) -> Cands | None:
    """Candidates of several alternatives (splits of one source set) as one list, equal class vectors summed."""
    parts = [p for p in parts if p is not None and len(p.weights)]
    if not parts:
        return None
    weights = [w for p in parts for w in p.weights]
    if all(p.table.shape[1] == parts[0].table.shape[1] and np.array_equal(p.cols, parts[0].cols) for p in parts):
        return _dedupe(np.concatenate([p.table for p in parts]), weights, parts[0].cols)
    vecs = np.concatenate([p.rows(np.arange(len(p.weights))) for p in parts])
    return _dedupe(vecs, weights, np.arange(vecs.shape[1]))


def _small(table: np.ndarray) -> np.ndarray:
    """The class table in int16 (classes are few; gathers of narrow ints are faster)."""
    return table.astype(np.int16) if table.size and table.max() < 1 << 15 else table


def _dedupe(table: np.ndarray, weights, cols: np.ndarray) -> Cands:
    """Candidates with equal rows of ``table`` merged (their weights summed)."""
    table = _small(table)
    ids, first = row_ids(table)
    if isinstance(weights, np.ndarray):
        summed = np.zeros(len(first), dtype=np.int64)
        np.add.at(summed, ids, weights)
        return Cands(table[first], cols, summed.tolist())
    summed = [0] * len(first)
    for u, w in zip(ids.tolist(), weights):
        summed[u] += w
    return Cands(table[first], cols, summed)


def _keep_words(c: Cands, col: int, classes: int, masks: np.ndarray) -> np.ndarray:
    """Row j: the candidates whose class in table column ``col`` is not in the bit mask ``masks[j]``, as bits."""
    hit = c.memo.get(col)
    if hit is None:
        onehot = c.table[:, col][None, :] == np.arange(classes)[:, None]
        packed = np.packbits(onehot, axis=1, bitorder="little")
        hit = np.zeros((classes, -(-packed.shape[1] // 8) * 8), dtype=np.uint8)  # whole words (np.pad is slow)
        hit[:, :packed.shape[1]] = packed
        hit = hit.view("<u8")
        if classes <= 8:  # every mask at once
            hit = np.stack([_avoiding(hit, m) for m in range(1 << classes)])
        c.memo[col] = hit
    if classes <= 8:
        return hit[masks]
    return np.stack([_avoiding(hit, m) for m in masks.tolist()])


def _avoiding(words: np.ndarray, mask: int) -> np.ndarray:
    """The candidates in none of the classes of ``mask``, from per-class bit sets ``words`` (class, word)."""
    chosen = [k for k in range(len(words)) if mask >> k & 1]
    return ~np.bitwise_or.reduce(words[chosen], axis=0) if chosen else np.full(words.shape[1], ~np.uint64(0))


@dataclass
class Rule:
    """What a parent allows its two children: built once per module by :func:`rule`."""

    pair_class: np.ndarray  # (a's classes, b's classes) -> parent class, -1 impossible
    allowed: np.ndarray  # (row, a's class, b's class) -> whether the parent class is then allowed on the row
    rows: np.ndarray  # support rows where some pair of classes is not allowed
    kinds: np.ndarray  # for each of those rows, its kind (rows of one kind allow the same classes)
    forbid: np.ndarray  # (kind, a's class) -> bit mask of b's classes that break such a row
    free: np.ndarray  # rows where more than one parent class is allowed
    fixed: np.ndarray  # the parent class every pair that survives has on each other row
    cols: np.ndarray  # column of each row in the parent's table: free rows, then one per fixed class


def rule(pair_class: np.ndarray, ok: np.ndarray) -> Rule:
    """The rule of a parent whose class on support row r must be one with ``ok[r, class]``."""
    allowed = np.concatenate([ok, np.zeros((len(ok), 1), dtype=bool)], axis=1)[:, pair_class]  # -1: never
    rows = np.flatnonzero(~allowed.all(axis=(1, 2)))
    kinds, first = row_ids(allowed[rows].reshape(len(rows), pair_class.size))
    powers = np.int64(1) << np.arange(pair_class.shape[1], dtype=np.int64)
    forbid = (~allowed[rows[first]]).astype(np.int64) @ powers
    small = np.int8 if pair_class.shape[1] < 8 else np.int64
    single = ok.sum(axis=1) == 1
    only = ok[single].argmax(axis=1)
    free, fixed = np.flatnonzero(~single), distinct(only)
    cols = np.empty(len(ok), dtype=np.int64)
    cols[free] = np.arange(len(free))
    cols[single] = len(free) + np.searchsorted(fixed, only)
    return Rule(pair_class, allowed, rows, kinds, forbid.astype(small), free, fixed, cols)


def join(a: Cands, b: Cands, r: Rule, deadline=None) -> Cands | None:
    """Candidates of the parent of ``a`` and ``b``: the pairs that ``r`` allows on every support row.

    For each of a's candidates, the restricted rows forbid some classes in
    b's table columns; the b candidates that avoid them are found with bit
    sets over b, one column at a time (busiest first).
    """
    if a is None or b is None:
        return None
    rb, nb = r.pair_class.shape[1], len(b.weights)
    zmax, kmax = int(b.cols.max()) + 1, len(r.forbid)
    keys = distinct((a.cols[r.rows] * zmax + b.cols[r.rows]) * kmax + r.kinds)
    xs, zcol, kind = keys // (zmax * kmax), keys // kmax % zmax, keys % kmax
    zs, zinv = np.unique(zcol, return_inverse=True)
    zinv = zinv.ravel()
    code = np.zeros((0, len(a.weights)), dtype=r.forbid.dtype)  # (b's column, a's candidate) -> forbidden mask
    if len(keys):
        by_col = np.argsort(zinv, kind="stable")
        starts = np.flatnonzero(np.r_[True, np.diff(zinv[by_col]) != 0])
        code = _or_reduceat(_forbidden(a, r.forbid)[kind[by_col], xs[by_col]], starts)
    alive, words = np.arange(len(a.weights)), -(-nb // 64)
    fits = np.full((len(alive), words), np.iinfo(np.uint64).max, dtype=np.uint64)
    if nb % 64:
        fits[:, -1] = (1 << (nb % 64)) - 1
    for step, zi in enumerate(np.argsort(-np.bincount(zinv, minlength=len(zs)), kind="stable").tolist()):
        fits &= _keep_words(b, int(zs[zi]), rb, code[zi])
        if step % 4 == 3:  # compact now and then: copies cost as much as the checks
            if deadline is not None:
                deadline.check()
            live = fits.any(axis=1)
            if live.sum() < 0.8 * len(alive):
                fits, code, alive = fits[live], code[:, live], alive[live]
                if not len(alive):
                    return None
    row, word = np.nonzero(fits)
    bits = np.unpackbits(fits[row, word].view(np.uint8).reshape(-1, 8), axis=1, bitorder="little")
    at, bit = np.nonzero(bits)
    first, second = alive[row[at]], word[at] * 64 + bit
    if len(first) > MAX_PAIRS:
        raise TooWide(f"modules: over {MAX_PAIRS} pairs of class vectors survive one join")
    if not len(first):
        return None
    free = r.pair_class.ravel()[a.table[first][:, a.cols[r.free]].astype(np.int64) * rb
                                + b.table[second][:, b.cols[r.free]]]
    table = np.concatenate([free, np.broadcast_to(r.fixed, (len(first), len(r.fixed)))], axis=1)
    return _dedupe(table, _products(a.weights, b.weights, first, second), r.cols)


def _forbidden(c: Cands, forbid: np.ndarray) -> np.ndarray:
    """(kind, table column, candidate) -> the classes the other child may not take there (``forbid`` mapped, kept)."""
    key = ("forbid", forbid.tobytes(), forbid.shape)
    hit = c.memo.get(key)
    if hit is None:
        kept = [k for k in c.memo if isinstance(k, tuple)]
        if len(kept) >= 32:  # narrowed rules can bring many tables: keep the memo small
            for k in kept:
                del c.memo[k]
        hit = c.memo[key] = forbid[:, c.columns()]
    return hit


def _or_reduceat(rows: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """``np.bitwise_or.reduceat(rows, starts, axis=0)``, eight bytes at a time (8x faster on narrow ints)."""
    width = rows.shape[1]
    wide = np.pad(rows, ((0, 0), (0, -width * rows.itemsize % 8))).view("<u8")
    return np.bitwise_or.reduceat(wide, starts, axis=0).view(rows.dtype)[:, :width]


def _products(wa: list, wb: list, first: np.ndarray, second: np.ndarray):
    """wa[first] * wb[second] elementwise: int64 when it cannot overflow (sums included), else Python ints."""
    if max(wa) * max(wb) * len(first) < 1 << 62:
        return np.asarray(wa, dtype=np.int64)[first] * np.asarray(wb, dtype=np.int64)[second]
    return [wa[i] * wb[k] for i, k in zip(first.tolist(), second.tolist())]


def total(c: Cands | None) -> int:
    """The number of value maps behind all candidates (the count, after the top join)."""
    return 0 if c is None else sum(c.weights)
