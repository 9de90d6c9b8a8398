"""Symmetries the search counts once per orbit: value permutations and interchangeable predicted concepts.

Value permutations of the predicted concepts that keep every label
(Kand-Logic: a color and a shape permutation per figure) map optimal maps to
optimal maps, so an entry tries one value per orbit of the permutations
that fix the entries set so far and counts it once per member of the orbit.
Likewise, for complete maps, predicted concepts the knowledge can swap read
sources in increasing order, and the count is multiplied by the blocks'
factorials; so do the first members of tuples of concepts the knowledge
swaps together (ConCon's objects: shape and size of one object for another's).
"""
from __future__ import annotations

import numpy as np

from ...problems.interchange import compose, knowledge_blocks, value_symmetries

MAX_GROUP = 1 << 14  # value permutations kept for counting one value per orbit


def block_tuples(problem, parts: list = (), order: list = ()) -> list:
    """Blocks of interchangeable predicted concepts (complete maps), each as its tuples of concepts that move
    together (the lead first; a single concept is a tuple of one).

    Permuting a block's tuples keeps every label, so it maps optimal maps to optimal maps, and no complete map
    to itself (the leads read distinct sources). Each orbit therefore holds exactly one map whose leads read
    sources in increasing order; the search counts those and multiplies by the blocks' factorials, and SAT's
    list expands each into its orbit. Supervision pins concepts, so the caller asks for no blocks then.
    """
    if problem.map_class not in ("complete", "permutation"):
        return []
    blocks = [tuple((i,) for i in block) for block in knowledge_blocks(problem.task) if len(block) > 1]
    taken = {t[0] for block in blocks for t in block}
    for block in tuple_blocks(problem.task, parts, order):
        if not any(t[0] in taken for t in block):
            blocks.append(block)
            taken.update(t[0] for t in block)
    return blocks


def tuple_blocks(task, parts: list, order: list = ()) -> list:
    """Blocks of tuples the knowledge swaps together (each tuple its lead first): o-th members of equally long
    concept groups that one label part reads (ConCon: (shape_o, size_o)), where swapping any two tuples keeps
    that part's labels and no other part reads them. Permuting the tuples maps optimal complete maps to
    optimal ones and none to itself, so the leads may read sources in increasing order, as a block's.
    """
    index = {c.name: i for i, c in enumerate(task.concepts)}
    rank = {i: r for r, i in enumerate(order)}
    out = []
    for part in parts:
        cols = {c: a for a, c in enumerate(part.concepts)}
        groups = [tuple(index[n] for n in g) for g in task.groups if all(index[n] in cols for n in g)]
        by_length: dict = {}
        for g in groups:
            if len(g) > 1 and len({task.sizes[i] for i in g}) == 1:
                by_length.setdefault(len(g), []).append(g)
        shape = tuple(int(s) + 1 for s in part.sizes)
        cells = part.table.reshape(shape)[tuple(slice(0, s - 1) for s in shape)]
        for length, gs in by_length.items():
            if len(gs) < 2:
                continue  # one group alone: single concepts, which knowledge_blocks finds
            if all(_swaps(cells, [[cols[g[o]] for g in gs] for o in (a, a + 1)]) for a in range(length - 1)):
                lead = min(gs, key=lambda g: min(rank.get(i, len(rank) + i) for i in g))
                rest = [g for g in gs if g is not lead]
                out.append(tuple((lead[o], *(g[o] for g in rest)) for o in range(length)))
    return out


def _swaps(cells: np.ndarray, pair: list) -> bool:
    """Whether exchanging the axes of two tuples (``pair``: their axes, position by position) keeps the table."""
    axes = list(range(cells.ndim))
    for x, y in zip(*pair):
        axes[x], axes[y] = y, x
    return np.array_equal(cells.transpose(axes), cells)


def value_group(task, parts: list, units: list, width: int, any_supervision: bool) -> np.ndarray:
    """Value permutations of the predicted concepts that keep every label (identity first).

    If a map is optimal, so is the map followed by such a permutation, so
    values in one orbit of the permutations that fix every entry set so far
    lead to equally many maps and one of them is counted for all.
    Supervision pins values, so with it the group is the identity alone.
    """
    identity = np.arange(width, dtype=np.int64)[None, None, :].repeat(task.k, axis=1)
    if any_supervision:
        return identity
    where = {c: n for n, part in enumerate(parts) for c in part.concepts}
    group = identity
    for n, part in enumerate(parts):
        ties = []
        for unit in units:
            if len(unit.members) > 1:
                if len({where.get(i) for i in unit.members}) > 1:
                    return identity  # a group spanning label parts: its one permutation would tie them
                if where.get(unit.members[0]) == n:
                    ties.append(tuple(part.concepts.index(i) for i in unit.members))
        shape = tuple(int(s) + 1 for s in part.sizes)
        cells = part.table.reshape(shape)[tuple(slice(0, s - 1) for s in shape)]
        codes = np.unique(cells, return_inverse=True)[1].reshape(cells.shape)
        found = value_symmetries(codes, tuple(ties))
        if found is None or len(found) * len(group) > MAX_GROUP:
            return identity
        if len(found) == 1:
            continue
        lifted = identity[0][None].repeat(len(found), axis=0)
        lifted[:, list(part.concepts), :found.shape[2]] = found
        group = compose(lifted, group)
    return group


def orbits(state, n: int, values) -> list:
    """(value, orbit size) for one value per orbit of ``values`` under the stabilizer of the entries set so far."""
    values = list(values)
    if len(state.stab) == 1:
        return [(v, 1) for v in values]
    images = state.group[state.stab, state.units[n].members[0]]
    out, seen, allowed = [], set(), set(values)
    for v in values:
        if v in seen:
            continue
        orbit = set(images[:, v].tolist())
        if not orbit <= allowed:  # cannot happen: the allowed values are the stabilizer's own
            return [(v, 1) for v in values]
        seen |= orbit
        out.append((v, len(orbit)))
    return out


