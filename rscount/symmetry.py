"""Symmetries of a problem: concepts that can be swapped without changing anything.

Two concepts are interchangeable in the knowledge when swapping them never
changes a label, and in the support when swapping their columns maps the
support onto itself. Swaps compose, so interchangeability is an equivalence
and each side's symmetry group contains the product of the symmetric groups
on its classes (a Young subgroup).
"""
from __future__ import annotations

import numpy as np

from .circuit import Circuit
from .problem import Problem
from .task import Task

__all__ = ["knowledge_blocks", "support_blocks", "meet", "partition", "ENUMERATE_UP_TO"]

ENUMERATE_UP_TO = 1 << 16


def partition(k: int, same) -> list:
    """Partition 0..k-1 by the equivalence ``same(i, j)`` (tested against one member per block)."""
    blocks: list = []
    for i in range(k):
        for block in blocks:
            if same(block[0], i):
                block.append(i)
                break
        else:
            blocks.append([i])
    return [tuple(b) for b in blocks]


def knowledge_blocks(task: Task, fixed: frozenset = frozenset()) -> list:
    """Classes of concepts that can be swapped without changing beta_K (``fixed`` stay alone)."""
    if task.space_size <= ENUMERATE_UP_TO:
        from .support import exhaustive
        grid = exhaustive(task).vectors
        labels = task.evaluate(grid)
        weights = np.cumprod((1,) + task.sizes[::-1])[:-1][::-1]

        def same(i: int, j: int) -> bool:
            if i in fixed or j in fixed or task.concepts[i].domain != task.concepts[j].domain:
                return False
            swapped = grid.copy()
            swapped[:, [i, j]] = swapped[:, [j, i]]
            return bool(np.array_equal(labels[swapped @ weights], labels))
    else:
        def same(i: int, j: int) -> bool:
            if i in fixed or j in fixed or task.concepts[i].domain != task.concepts[j].domain:
                return False
            return _swap_invariant(task, i, j)
    return partition(task.k, same)


def _swap_invariant(task: Task, i: int, j: int) -> bool:
    """SAT check that swapping concepts i and j changes no label."""
    from pysat.solvers import Solver
    kc = task.compiled
    c = Circuit()
    inputs = {key: c.var(("in",) + key) for key in kc.inputs}
    swapped = {(j if a == i else i if a == j else a, u): var for (a, u), var in inputs.items()}
    roots = [lit for tab in kc.tables for lit in tab.values()]
    m1 = kc.circuit.copy_into(c, {kc.inputs[key]: inputs[key] for key in kc.inputs}, roots)
    m2 = kc.circuit.copy_into(c, {kc.inputs[key]: swapped[key] for key in kc.inputs}, roots)
    differs = []
    for tab in kc.tables:
        for lit in tab.values():
            differs.append(c.XOR(Circuit.lookup(m1, lit), Circuit.lookup(m2, lit)))
    for a in range(task.k):
        c.exactly_one([inputs[(a, u)] for u in range(task.sizes[a])])
    c.add(differs)
    if any(len(cl) == 0 for cl in c.clauses):  # every label literal maps to itself
        return True
    with Solver(name="cadical153", bootstrap_with=c.clauses) as s:
        return not s.solve()


def support_blocks(problem: Problem, fixed: frozenset = frozenset()) -> list:
    """Classes of concepts whose columns can be swapped without changing the support."""
    task, rows = problem.task, problem.support.vectors
    if problem.support.exhaustive:
        return partition(task.k, lambda i, j: i not in fixed and j not in fixed
                       and task.concepts[i].domain == task.concepts[j].domain)
    base = {tuple(r) for r in rows.tolist()}

    def same(i: int, j: int) -> bool:
        if i in fixed or j in fixed or task.concepts[i].domain != task.concepts[j].domain:
            return False
        swapped = rows.copy()
        swapped[:, [i, j]] = swapped[:, [j, i]]
        return {tuple(r) for r in swapped.tolist()} == base
    return partition(task.k, same)


def meet(a: list, b: list) -> list:
    """The common refinement of two partitions."""
    where = {x: n for n, block in enumerate(b) for x in block}
    out: dict = {}
    for n, block in enumerate(a):
        for x in block:
            out.setdefault((n, where[x]), []).append(x)
    return [tuple(v) for v in out.values()]
