"""Source sets whose labelled rows are one table up to renaming: counted once.

A rectangle's count does not change when its source columns are permuted (among columns of one size) or the
values of a column are renamed: a map of one composed with the renaming is a map of the other. On ConCon's
listed supports most source sets are such renamings of a few (task 3 at 4 objects with 2 colours: 83 sets
up to object swaps, 9 tables): a colour column where a shape column was, the blue and the other colour
swapped. Two rectangles are matched column by column, each step checking that the labelled rows projected
on the columns matched so far agree as multisets; a match that is not found within MAX_STEPS steps is
treated as none (the rectangles are then counted apart, which is never wrong).
"""
from __future__ import annotations

import itertools
import math

import numpy as np

__all__ = ["Table", "table", "same_table"]

MAX_STEPS = 4096  # matching steps per pair of rectangles
MAX_VALUE_ORDERS = 24  # renamings tried per column where values share their label counts


class Table:
    """A rectangle's labelled rows with what a match reads: per column the label counts of each value."""

    def __init__(self, rows: np.ndarray, codes: np.ndarray, sizes: tuple):
        self.rows, self.codes, self.sizes = rows, codes, sizes
        self.kinds = int(codes.max(initial=0)) + 1
        self.values = [[tuple(np.bincount(codes[rows[:, j] == u], minlength=self.kinds)) for u in range(size)]
                       for j, size in enumerate(sizes)]
        self.columns = [(size, tuple(sorted(v))) for size, v in zip(sizes, self.values)]
        self.key = (len(rows), tuple(np.bincount(codes, minlength=self.kinds)), tuple(sorted(self.columns)))


def table(rows: np.ndarray, codes: np.ndarray, sizes: tuple) -> Table:
    """The table of a rectangle's distinct rows, their label codes and its source sizes."""
    return Table(np.asarray(rows, dtype=np.int64), np.asarray(codes, dtype=np.int64), tuple(sizes))


def same_table(a: Table, b: Table) -> bool:
    """Whether renaming columns and values carries ``a``'s labelled rows onto ``b``'s (False also where no
    renaming was found within MAX_STEPS steps)."""
    if a.key != b.key or a.kinds * math.prod(a.sizes) >= 1 << 62:
        return False
    order = sorted(range(len(a.sizes)), key=lambda j: sum(1 for c in b.columns if c == a.columns[j]))
    steps = [0]

    def extend(depth: int, used: frozenset, code_a: np.ndarray, code_b: np.ndarray) -> bool:
        if depth == len(order):
            return True
        j = order[depth]
        for c in range(len(b.sizes)):
            if c in used or b.columns[c] != a.columns[j]:
                continue
            next_b = code_b * b.sizes[c] + b.rows[:, c]
            sorted_b = np.sort(next_b)
            for rename in _renamings(a.values[j], b.values[c]):
                steps[0] += 1
                if steps[0] > MAX_STEPS:
                    return False
                next_a = code_a * a.sizes[j] + rename[a.rows[:, j]]
                if np.array_equal(np.sort(next_a), sorted_b) and extend(depth + 1, used | {c}, next_a, next_b):
                    return True
                if steps[0] > MAX_STEPS:
                    return False
        return False

    return extend(0, frozenset(), a.codes, b.codes)


def _renamings(values_a: list, values_b: list):
    """Value renamings of one column onto another that keep each value's label counts: all orders of values
    that share their counts (up to MAX_VALUE_ORDERS in all), values no row shows in any one order."""
    groups: dict = {}
    for u, counts in enumerate(values_b):
        groups.setdefault(counts, []).append(u)
    choices, total = [], 1
    for counts in sorted(groups):
        mine = [u for u, c in enumerate(values_a) if c == counts]
        shown = any(counts)
        total *= math.factorial(len(mine)) if shown else 1
        choices.append((mine, groups[counts], shown))
    if total > MAX_VALUE_ORDERS:
        choices = [(mine, theirs, False) for mine, theirs, _ in choices]  # one order each: fewer tries, all checked
    for pick in itertools.product(*(itertools.permutations(theirs) if shown else [tuple(theirs)]
                                    for _, theirs, shown in choices)):
        rename = np.empty(len(values_a), dtype=np.int64)
        for (mine, _, _), theirs in zip(choices, pick):
            rename[mine] = theirs
        yield rename
