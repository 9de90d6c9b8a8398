"""The knowledge modulo values it cannot tell apart, as a label table.

Values u and v of concept j are *indistinguishable* when changing c_j from u
to v never changes a label. The quotient keeps one value per class, so in
its table every value of every concept matters. On the exhaustive support
the optimal maps of a task are read off the quotient's symmetries
(see :mod:`rscount.counters.symmetry.automorphism`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..model.support import space_label_ids
from ..model.task import Task
from ..runtime.lazy import cached_property

__all__ = ["Quotient", "quotient", "MAX_TABLE"]

MAX_TABLE = 1 << 22


@dataclass(frozen=True, eq=False)
class Quotient:
    """Label codes over the quotient concept space, and the value classes of every concept."""

    table: np.ndarray  # shape (q_1, .., q_k): label code of each vector of class representatives
    classes: tuple  # classes[j][a]: the values (indices into D_j) of class a of concept j
    labels: int  # number of distinct label codes

    @property
    def shape(self) -> tuple:
        return self.table.shape

    @cached_property
    def class_of(self) -> tuple:
        """class_of[j][u]: the class (index into classes[j]) of value u of concept j."""
        return tuple({u: a for a, cls in enumerate(classes) for u in cls} for classes in self.classes)


def label_table(task: Task) -> tuple:
    """The label of every concept vector as one code per vector, shaped like the concept space."""
    ids, kinds = space_label_ids(task)
    return ids.reshape(task.sizes).astype(np.int32), kinds


def value_classes(table: np.ndarray, axis: int) -> tuple:
    """Classes of values along ``axis`` whose slices of ``table`` are equal, in order of first value."""
    slices = np.moveaxis(table, axis, 0).reshape(table.shape[axis], -1)
    seen: dict = {}
    for u in range(table.shape[axis]):
        seen.setdefault(slices[u].tobytes(), []).append(u)
    return tuple(tuple(c) for c in seen.values())


def quotient(task: Task) -> Quotient:
    """Return the quotient of ``task``'s knowledge (its space must have at most MAX_TABLE vectors)."""
    if math.prod(task.sizes) > MAX_TABLE:
        raise ValueError(f"{task.name}: {math.prod(task.sizes)} concept vectors, over {MAX_TABLE}")
    table, labels = label_table(task)
    classes = tuple(value_classes(table, j) for j in range(task.k))
    reps = [np.array([c[0] for c in cls]) for cls in classes]
    return Quotient(np.ascontiguousarray(table[np.ix_(*reps)]), classes, labels)
