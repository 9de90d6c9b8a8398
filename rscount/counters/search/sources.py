"""A complete problem's count as a sum over the source sets of its read concepts (see
:func:`rscount.problems.sources.source_split`): each set's rectangle counted by the search, after its core.

Most source sets leave no map on a listed support (ConCon task 1: the colours cannot stand in for the
shapes), and proving that by search over thousands of rows costs far more than over the rectangle's core:
its rows with one value of each class the rows cannot tell apart (every map of the rectangle is one of the
core's, so a core without maps proves the rectangle has none).
"""
from __future__ import annotations

from .branch import Search


def count_rectangles(split, deadline) -> tuple:
    """(sum of weight x count over the rectangles of ``split``, partial maps visited)."""
    total, nodes = 0, 0
    for rect, weight, core in zip(split.rectangles, split.weights, split.cores or [None] * len(split.rectangles)):
        if core is not None:
            search = Search(core, deadline)
            empty = search.total() == 0
            nodes += search.nodes
            if empty:
                continue
        search = Search(rect, deadline)
        total += weight * search.total()
        nodes += search.nodes
    return total, nodes
