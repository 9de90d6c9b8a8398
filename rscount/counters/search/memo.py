"""Counts of equal search states, kept once: keys say everything the rest of the count depends on.

A node's key is which sources are used, each unit's open entries, and every
undecided row's *residual* (the labelling function its unknown concepts
have left), not how the search got there; so states reached by different
entries merge. A component's key (once every unit has its source) is its
open entries and the states of the rows that read them.
"""
from __future__ import annotations

import numpy as np

from .state import Entry

MAX_CACHE_BYTES = 512 << 20  # keys hold row states; start afresh beyond this


class Memo:
    """A dict of counts by key that starts afresh once its keys pass ``limit`` bytes."""

    def __init__(self, limit: int = MAX_CACHE_BYTES):
        self.counts: dict = {}
        self.bytes = 0
        self.limit = limit

    def get(self, key) -> int | None:
        return self.counts.get(key)

    def put(self, key: tuple, total: int) -> None:
        size = _size(key) + 100
        if self.bytes + size > self.limit:
            self.counts.clear()
            self.bytes = 0
        self.counts[key] = total
        self.bytes += size


def _size(key) -> int:
    """Roughly the bytes a key holds: its byte strings and 8 per other item, one level into tuples (keys are
    flat tuples of tuples; walking every small tuple cost more than the lookups)."""
    if isinstance(key, tuple):
        return sum(sum(map(_leaf, x)) if isinstance(x, tuple) else _leaf(x) for x in key)
    return _leaf(key)


def _leaf(item) -> int:
    return len(item) if isinstance(item, bytes) else 8


def node_key(state) -> tuple:
    """Everything the rest of the count depends on: used sources, each unit's open entries, undecided rows."""
    units = []
    for n, entries in enumerate(state.entries):
        unit = state.units[n]
        if entries is None:
            units.append(("unsourced", *state.source_range(unit.members[0])))
        elif Entry.OPEN not in entries:
            units.append(("done",))  # every entry set: rows' residuals say all that matters
        else:
            chosen = state.source[n][0] if unit.sources is None else None
            units.append(("open", chosen, tuple(e is Entry.OPEN for e in entries)))
    rows = b"".join(np.where(p.decided, -1, p.rid[p.index]).tobytes() for p in state.parts)
    return ("node", tuple(sorted(state.used)), tuple(units), rows)


def scope_key(state, scope: frozenset, touched: list) -> tuple:
    """The key of the component ``scope`` of open entries, read by the rows in ``touched``."""
    wanted = np.sort(np.fromiter(scope, dtype=np.int64, count=len(scope))).tobytes()
    rows = tuple(b for part, r, _ in touched for b in (r.tobytes(), part.rid[part.index[r]].tobytes()))
    return ("scope", wanted, tuple(state.source), rows)
