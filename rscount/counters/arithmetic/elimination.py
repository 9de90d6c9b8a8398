"""Exact counts of complete maps for arithmetic knowledge: a sum over source assignments.

A complete map gives every predicted concept its own source concept and a
value map. Once the sources are fixed, each label part (labels reading
disjoint concepts) reads its own entries, so the maps of that source
assignment are the product of the parts' counts, each found by
:mod:`linear` (sums) or :mod:`product` (products) exactly as for a
disentangled map, only reading other columns. The parts are given sources
one after the other, each part's count is kept per source assignment, and a
part with no map prunes every assignment that extends it. Predicted concepts
the knowledge can swap read sources in increasing order, and the count is
multiplied by the blocks' factorials (as in :mod:`search`).
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from ...errors import BackendError
from ...model.support import clashes, row_codes
from ...problems.interchange import knowledge_blocks
from ...problems.split import bijection_weight, components
from ..base import Deadline
from .linear import LinearCounter, count_linear, integer_domains, linear_label, reworded
from .product import count_product, natural_domains, product_label

CLASSES = ("complete", "permutation")
MAX_ASSIGNMENTS = 1 << 14  # source assignments of one part


def _solver(task, labels: tuple):
    """The counter of a label part: linear for sums, product for products, else None."""
    exprs = [task.labels[n].expr for n in labels]
    if all(linear_label(e) is not None for e in exprs):
        return count_linear
    if all(product_label(e) is not None for e in exprs) and natural_domains(task):
        return count_product
    return None


def applies(problem) -> bool:
    """Whether the map class is complete, the support listed, and every label part linear or multiplicative."""
    task = problem.task
    if problem.map_class not in CLASSES or not problem.support.listed or not integer_domains(task):
        return False
    parts = components(task)
    if problem.supervision and len({i for _, concepts in parts for i in concepts}) < task.k:
        return False  # a supervised concept no label reads would need its own pins
    return all(_solver(task, labels) is not None for labels, _ in parts)


def _assignments(concepts: tuple, free: list, blocks: dict):
    """Injective source choices for ``concepts`` from ``free``, block members in increasing source order."""
    for chosen in itertools.permutations(free, len(concepts)):
        pick = dict(zip(concepts, chosen))
        if all(pick[i] < pick[j] for i in concepts for j in blocks.get(i, ()) if i < j and j in pick):
            yield pick


def count_complete(problem, deadline: Deadline, confidence=None) -> tuple:
    """(count, source assignments counted) of the complete maps of a problem that :func:`applies` (an estimate
    where a part's exact count is out of reach, given a :class:`montecarlo.Confidence`)."""
    task = problem.task
    parts = [(labels, concepts, _solver(task, labels)) for labels, concepts in components(task)]
    read = {i for _, concepts, _ in parts for i in concepts}
    idle = [i for i in range(task.k) if i not in read]
    blocks: dict = {}
    if not problem.supervision:  # supervision pins predicted concepts: no swapping them
        for block in knowledge_blocks(task):
            if len(block) > 1 and any(set(block) <= set(concepts) for _, concepts, _ in parts):
                blocks.update({i: block for i in block})
    weight = math.prod(math.factorial(len(b)) for b in set(blocks.values()))
    memo: dict = {}

    G = np.asarray(problem.support.vectors, dtype=np.int64)
    wanted = np.asarray(problem.labels, dtype=np.int64)

    def part_count(p: int, pick: dict) -> int:
        key = (p, tuple(sorted(pick.items())))
        if key not in memo:
            deadline.check()
            labels, concepts, solve = parts[p]
            sources = [pick[i] for i in concepts]
            if _loses_information(G[:, sources], [task.sizes[s] for s in sources], wanted[:, list(labels)]):
                memo[key] = 0
            else:
                memo[key] = solve(problem, deadline, labels, pick, confidence)[0] or 0  # None: no solution
        return memo[key]

    def go(p: int, used: frozenset) -> int:
        if p == len(parts):
            free = [task.sizes[s] for s in range(task.k) if s not in used]
            return bijection_weight(tuple(task.sizes[i] for i in idle), tuple(free))
        concepts = parts[p][1]
        free = [s for s in range(task.k) if s not in used]
        if math.perm(len(free), len(concepts)) > MAX_ASSIGNMENTS * max(1, weight):
            raise BackendError(f"arithmetic: over {MAX_ASSIGNMENTS} source assignments for the concepts of "
                               f"one label part; use backend=search or ganak")
        total = 0
        for pick in _assignments(concepts, free, blocks):
            count = part_count(p, pick)
            if count:
                total += count * go(p + 1, used | frozenset(pick.values()))
        return total

    try:
        total = go(0, frozenset())
    except BackendError as exc:
        raise reworded(exc, "arithmetic") from None
    return weight * total, len(memo)


def _loses_information(read: np.ndarray, sizes: list, labels: np.ndarray) -> bool:
    """Whether two rows that show the same values on the sources read want different labels: no map then."""
    if len(read) < 2:
        return False
    labels = labels - labels.min(axis=0)
    return clashes(row_codes(read, sizes), row_codes(labels, [int(x) + 1 for x in labels.max(axis=0)]))


class ArithmeticCounter(LinearCounter):
    """Exact counts of complete maps for labels that are sums or products of integer concepts."""

    name = "arithmetic"
    scope = ("arithmetic counts complete maps of labels that are linear in integer concepts or compare products "
             "of them, on a listed support; use backend=search or ganak")

    def applies(self, problem) -> bool:
        return applies(problem)

    def solve(self, problem, deadline: Deadline) -> tuple:
        return count_complete(problem, deadline)

    def describe(self, counted: int) -> str:
        return (f"arithmetic: a sum over the source assignments of the label parts; {counted} parts' assignments "
                f"counted by linear or product")


BACKEND = ArithmeticCounter()
