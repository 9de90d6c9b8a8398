"""Pruning before the search branches: forward checking, clashing rows, and arc consistency.

Each function reads a :class:`~.state.SearchState` and changes nothing in
it: ``allowed`` (entry id -> boolean mask of its values) is the only thing
they narrow.
"""
from __future__ import annotations

import numpy as np

from ...model.support import clashes, distinct, row_codes

MATMUL_CELLS = 256  # value tuples per row above which supports are counted by matrix products
CODE_BOUND = 1 << 62  # row codes with one fixed weight per source below this; above, stacked and ranked


def restrictions(state) -> dict | None:
    """Values still open to each entry that some undecided row reads as its last unknown (None: a dead end).

    A row with one unknown concept left pins that concept's entry to the
    values that give the row its true label (forward checking).
    """
    allowed: dict = {}
    for part in state.parts:
        last = np.flatnonzero((part.missing == 1) & ~part.decided)
        if not len(last):
            continue
        for i in part.concepts:
            n = state.unit_of[i]
            if state.entries[n] is None:
                continue
            rows = last[part.unknown(i, last)]
            if not len(rows):
                continue
            if not narrow(allowed, n * state.width + state.G[rows, state.source_of(i)], part.keeps(i, rows)):
                return None
    return allowed


def collides(state) -> bool:
    """Whether two rows of a part must end with the same prediction but want different labels.

    Rows with the same partial prediction that also agree on every source
    their unknown concepts can still read (the unused sources, and the
    sources of sourced concepts they have not read yet) end alike, so a map
    that loses information a label needs is cut as soon as it does. Only the
    parts the last step changed (``state.changed``) are checked: the others
    were clear at the node above.
    """
    k, w = state.n_sources, state.width
    unused = [s for s in range(k) if s not in state.used]
    free = None  # the unused sources' columns as one code per row (fixed weights w^s where they fit)
    for part in state.changed:
        sources = [state.source_of(i) for i in part.concepts]
        read = [a for a, s in enumerate(sources) if s is not None]
        reads = np.where(part.known[:, read], w, state.G[:, [sources[a] for a in read]]) if read else None
        rest = len(read) < len(sources) and unused
        if part.n_ids * (w + 1) ** len(read) * w ** k < CODE_BOUND:  # no stacking: codes add up in place
            code = part.rid[part.index]
            if read:
                code = code * (w + 1) ** len(read) + reads @ ((w + 1) ** np.arange(len(read), dtype=np.int64))
            if rest:
                if free is None:
                    free = _free_codes(state)
                code = code * w ** k + free
        else:
            columns, radix = [part.rid[part.index][:, None]], [part.n_ids]
            if read:
                columns.append(reads)
                radix += [w + 1] * len(read)
            if rest:
                columns.append(state.G[:, unused])
                radix += [w] * len(unused)
            code = row_codes(np.hstack(columns), radix)
        if clashes(code, part.want):
            return True
    return False


FREE_CODES = 8  # the unused sources' row codes kept for this many sets of used sources (depth-first: few)


def _free_codes(state) -> np.ndarray:
    """The unused sources' columns as one code per row (weights w^s), kept for the last few used sets: the
    search sources one unit at a time, so many nodes in a row share one."""
    key = frozenset(state.used)
    hit = state.free_codes.get(key)
    if hit is None:
        weights = state.width ** np.arange(state.n_sources, dtype=np.int64)
        weights[sorted(state.used)] = 0
        hit = state.G @ weights
        while len(state.free_codes) >= FREE_CODES:
            state.free_codes.pop(next(iter(state.free_codes)))
        state.free_codes[key] = hit
    return hit


def waiting_on(state, i: int) -> tuple:
    """Undecided rows whose last unknown is predicted concept ``i``, and the values that keep each right."""
    part = state.part_of.get(i)
    if part is None:
        return None, None
    rows = np.flatnonzero((part.missing == 1) & ~part.decided)
    rows = rows[part.unknown(i, rows)]
    return (rows, part.keeps(i, rows)) if len(rows) else (None, None)


def forward(touched: list, allowed: dict) -> bool:
    """Narrow ``allowed`` by the rows of ``touched`` with one open entry left; False at a dead end."""
    for part, rows, ids in touched:
        open_ = ids >= 0
        counts = open_.sum(axis=1)
        for a, i in enumerate(part.concepts):
            last = (counts == 1) & open_[:, a]
            if last.any() and not narrow(allowed, ids[last, a], part.keeps(i, rows[last])):
                return False
    return True


def consistent(state, touched: list, allowed: dict) -> bool:
    """Narrow ``allowed`` to the values some completion supports, for every row with 2..``state.gac`` open entries.

    Generalized arc consistency to a fixpoint: a value of an open entry stays
    only if, in every row that reads it, the row's other open entries have
    values (within their own allowed sets) that give the row its true label.
    False when some entry is left with no value. Rows with fewer open entries
    get padding axes of one value (entry ``state.pad``).
    """
    W, pad, gac = state.width, state.pad, state.gac
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
    dom = state.domains.copy()
    for e, mask in allowed.items():
        dom[e, :len(mask)] &= mask
    # small value tuples: boolean broadcasting; large ones: counted by float matrix products (exact below 2^24)
    weights = ok if W ** gac <= MATMUL_CELLS else ok.astype(np.float32)
    local = dom[entries]  # per row and axis the entry's allowed values
    changed = True
    while changed:
        changed = False
        for j in range(gac):
            support = supports(weights, local, j)
            if (support | ~local[:, j]).all():
                continue
            np.logical_and.at(dom, entries[:, j], support)
            changed = True
            local = dom[entries]
            if not local[:, j].any(axis=1).all():
                return False
    for e in distinct(entries[entries < pad]).tolist():
        allowed[e] = dom[e, :state.units[e // W].size].copy()
    return True


def linked(touched: list) -> tuple:
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


def supports(weights: np.ndarray, local: np.ndarray, j: int) -> np.ndarray:
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


def narrow(allowed: dict, entries: np.ndarray, ok: np.ndarray) -> bool:
    """Intersect each entry's allowed values with those its rows keep (``ok``); False when one is left with none."""
    for e in distinct(entries).tolist():
        mask = ok[entries == e].all(axis=0)
        mask = mask & allowed[e] if e in allowed else mask
        if not mask.any():
            return False
        allowed[e] = mask
    return True
