"""A source split's rectangle counted by listing its maps with SAT, where the search proves little per node.

On ConCon's 4 objects with 2 colours the search visits 60,000-350,000 partial maps to find that a source set
with colours has no map, or that it has about 1,500; MiniSat proves the first and lists the second (48-102
maps once the rule's object orders are fixed) in a fraction of a second. The maps are told apart by the
entries of the source values some row shows; the values no row shows go to any value of their predicted
concept.
"""
from __future__ import annotations

import math

from ...errors import BackendError
from ...problems.encoding import encode
from ..generic.enumerate import models

MAX_MODELS = 4096  # maps listed before the rectangle goes back to the search
MAX_ROWS = 1 << 14  # rows of a rectangle whose CNF is built (about 300 clauses a row, built in Python)
SOLVER = "minisat22"  # on these CNFs 1.5-3x faster than CaDiCaL, proofs of no map and lists alike


def listed_count(rect, state, deadline, limit: int = MAX_MODELS) -> int | None:
    """The number of maps of ``rect`` (a :class:`~rscount.problems.sources.Rectangle`), or None where more than
    ``limit`` are left once the members of each block of the search's ``state`` (interchangeable predicted
    concepts) read sources in increasing order; each map listed stands for its block orders (the state's
    weight). None also past MAX_ROWS rows or the encoder's limits: the search counts those."""
    if rect.support.length > MAX_ROWS:
        return None
    ordered = tuple((a, b) for block in set(state.block_of.values()) for a, b in zip(block, block[1:]))
    try:
        enc = encode(rect, ordered=ordered, deadline=deadline)
    except BackendError:  # the CNF would be too large
        return None
    rows = rect.support.vectors
    shown = [set(rows[:, s].tolist()) for s in range(rect.task.k)]
    on = tuple(v for v in enc.alpha if enc.alpha_keys[v][3] in shown[enc.alpha_keys[v][2]])
    total = 0
    for n, true in enumerate(models(enc, limit + 1, deadline, on=on, name=SOLVER)):
        if n == limit:
            return None
        reader = {enc.alpha_keys[v][2]: enc.alpha_keys[v][0] for v in true}
        total += math.prod(rect.task.sizes[reader[s]] ** (size - len(shown[s]))
                           for s, size in enumerate(rect.source_sizes))
    return total * state.weight
