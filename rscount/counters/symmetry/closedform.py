"""Closed form for the ``joint`` class (rsbench Eq. 8-9).

A joint map sends each support vector g to any vector with the same label
(and the same supervised concepts); vectors outside the support go anywhere:
``count = prod_{g in S} |E(g)| * N^(N - |S|)`` with N concept vectors.
"""
from __future__ import annotations

import itertools
from collections import Counter as Multiset

import numpy as np

from ...errors import BackendError
from ...result import JointMap, Tally
from ...support import MAX_EXHAUSTIVE, exhaustive
from ..base import Counter, Options


def _classes(problem):
    """Every concept vector of the task and its label codes (the joint class needs them all)."""
    task = problem.task
    if task.space_size > MAX_EXHAUSTIVE:
        raise BackendError(f"the joint closed form evaluates all {task.space_size} concept vectors "
                           f"(limit {MAX_EXHAUSTIVE}); choose another map class")
    grid = exhaustive(task).vectors
    return grid, task.evaluate(grid)


def _targets(problem, grid, labels, row, g):
    mask = np.all(labels == problem.labels[row], axis=1)
    for i in problem.supervised(row, g):
        mask &= grid[:, i] == g[i]
    return mask


class ClosedForm(Counter):
    name = "closed-form"

    def count(self, problem, encoding, options: Options) -> Tally:
        if problem.map_class != "joint":
            raise BackendError(f"closed-form counts the joint class only, not {problem.map_class!r}; "
                               f"use map_class=joint, or exact=True for {problem.map_class}")
        grid, labels = _classes(problem)
        n = len(grid)
        if problem.support.exhaustive and not problem.supervision:
            _, sizes = np.unique(labels, axis=0, return_counts=True)
            total = 1
            for s in sizes:
                total *= int(s) ** int(s)
            return Tally(total)
        # Rows with the same label and the same supervised values have the same number of targets.
        keys = Multiset()
        for row, g in enumerate(problem.support.rows()):
            sup = problem.supervised(row, g)
            keys[(tuple(problem.labels[row]), tuple((i, g[i]) for i in sup))] += 1
        total = 1
        for (label, fixed), times in keys.items():
            mask = np.all(labels == np.array(label), axis=1)
            for i, value in fixed:
                mask &= grid[:, i] == value
            total *= int(mask.sum()) ** times
        return Tally(total * n ** (n - problem.support.length))

    def enumerate(self, problem, encoding, limit):
        grid, labels = _classes(problem)
        vectors = [tuple(map(int, g)) for g in grid]
        in_support = {tuple(g): row for row, g in enumerate(problem.support.rows())}
        choices = []
        for g in vectors:
            row = in_support.get(g)
            if row is None:
                choices.append([g] + [v for v in vectors if v != g])
            else:
                mask = _targets(problem, grid, labels, row, g)
                choices.append([g] + [vectors[t] for t in np.flatnonzero(mask) if vectors[t] != g])
        for n, images in enumerate(itertools.product(*choices)):
            if limit is not None and n >= limit:
                return
            yield JointMap(tuple(zip(vectors, images)), problem.task.format_vector)


BACKEND = ClosedForm()
