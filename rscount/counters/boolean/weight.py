"""Closed form for knowledge that reads only how many boolean concepts are true (xor, and, or, at-least chains).

When every label is a symmetric function h(w) of the number w of true
concepts, an optimal map on the exhaustive support flips some a concepts and
keeps the rest (a map that sends a concept to a constant makes h constant
over every w, or is not optimal), and permutes the concepts freely. Flipping
a concepts keeps every label exactly when each window h[s..s+a] is a
palindrome, which one pass of Manacher's algorithm answers for every a at
once. So x0 ^ ... ^ x2999 counts in milliseconds: 3000! * 2^2999 complete maps.
"""
from __future__ import annotations

import math

import numpy as np

from ...errors import BackendError
from ...language.logic import Const, Op, Var
from ...results.count import ConceptMap, Tally
from ..base import Counter, Deadline, Options

CLASSES = ("complete", "permutation", "disentangled", "shared")
_CHAINS = {"and", "or", "xor", "add", "mul", "min", "max"}  # associative and commutative: a chain's order is moot
_SYMMETRIC = _CHAINS | {"equiv"}  # commutative over its arguments


def symmetric_over(expr) -> frozenset | None:
    """The concepts ``expr`` reads, if it reads them symmetrically (any swap of two keeps it), else None.

    Proved on the syntax: a chain of one commutative operator over distinct
    concepts is symmetric in them, and so is anything built from symmetric
    parts over one set of concepts and constants.
    """
    stack, parts = [expr], []
    while stack:  # iterative: chains of thousands of terms
        node = stack.pop()
        if isinstance(node, Op) and node.op in _SYMMETRIC:
            leaves = _leaves(node)
            names = [leaf.name for leaf in leaves if isinstance(leaf, Var)]
            rest = [leaf for leaf in leaves if not isinstance(leaf, (Var, Const))]
            if not rest and len(names) == len(set(names)):
                parts.append(frozenset(names))
                continue
        if isinstance(node, Var):
            parts.append(frozenset([node.name]))
        elif isinstance(node, Op):
            stack.extend(node.args)
    reads = {p for p in parts if p}
    if len(reads) > 1:
        return None
    return reads.pop() if reads else frozenset()


def _leaves(node: Op) -> list:
    """The operands of a chain of ``node.op`` (its nested uses of the same associative operator flattened)."""
    if node.op not in _CHAINS:
        return list(node.args)
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        if isinstance(n, Op) and n.op == node.op:
            stack.extend(reversed(n.args))
        else:
            out.append(n)
    return out


def weight_table(task) -> np.ndarray | None:
    """h[w]: the label code of any vector with w true concepts, or None where the labels are not symmetric
    in all concepts (or a concept is not boolean)."""
    if not all(c.is_bool for c in task.concepts):
        return None
    names = frozenset(c.name for c in task.concepts)
    if any(symmetric_over(label.expr) not in (names, frozenset()) for label in task.labels):
        return None
    k = task.k
    rows = (np.arange(k)[None, :] < np.arange(k + 1)[:, None]).astype(np.int64)  # row w: the first w true
    _, codes = np.unique(task.evaluate(rows), axis=0, return_inverse=True)
    return codes.reshape(-1)


def flips(h: np.ndarray) -> list:
    """Every a such that flipping a of the concepts keeps h: each window h[s..s+a] reads the same reversed."""
    n = len(h)
    # Manacher over h with separators: radius[c] is the longest palindrome centred at c (index 2i: element i).
    t = np.full(2 * n + 1, -1, dtype=np.int64)
    t[1::2] = h
    centre = right = 0
    tl = t.tolist()
    rl = [0] * len(tl)
    for i in range(len(tl)):
        r = min(rl[2 * centre - i], right - i) if i < right else 0
        while i - r - 1 >= 0 and i + r + 1 < len(tl) and tl[i - r - 1] == tl[i + r + 1]:
            r += 1
        rl[i] = r
        if i + r > right:
            centre, right = i, i + r
    radius = np.array(rl, dtype=np.int64)
    # Window [s, s+a] of h is centred at 2s + a + 1 in t and is a palindrome when that radius is at least a + 1.
    out = []
    k = n - 1
    for a in range(k + 1):
        if np.all(radius[a + 1: 2 * k - a + 2: 2] >= a + 1):
            out.append(a)
    return out


class Weight(Counter):
    """Knowledge that reads only the number of true concepts, on the exhaustive support."""

    name = "weight"

    def applies(self, problem) -> bool:
        return (problem.support.exhaustive and not problem.supervision and problem.map_class in CLASSES
                and problem.task.k > 1 and weight_table(problem.task) is not None)

    def _plan(self, problem) -> tuple:
        """(h, the valid numbers of flipped concepts, whether h is constant)."""
        if not self.applies(problem):
            raise BackendError("weight counts exhaustive supports of boolean knowledge that reads only how many "
                               "concepts are true, without supervision; use exact=True")
        h = weight_table(problem.task)
        return h, flips(h), bool(np.all(h == h[0]))

    def count(self, problem, encoding, options: Options) -> Tally:
        h, valid, constant = self._plan(problem)
        task = problem.task
        k = task.k
        blocks = _blocks(problem)
        if constant:
            total = 4 ** len(blocks)  # every value map of every classifier keeps a constant label
        else:
            ways = _subset_sums([len(b) for b in blocks], k)
            total = sum(ways[a] for a in valid)
        if problem.map_class in ("complete", "permutation"):
            total *= math.factorial(k)
        note = ("weight: the labels read only how many concepts are true"
                + (" and never change" if constant else
                   f"; a map {'permutes the concepts and ' if problem.map_class in ('complete', 'permutation') else ''}"
                   f"flips a of them for a in {_ranges(valid)}"))
        return Tally(total, notes=(note,))

    def enumerate(self, problem, encoding, limit, deadline: Deadline | None = None):
        import itertools
        h, valid, constant = self._plan(problem)
        task = problem.task
        k, blocks = task.k, _blocks(problem)
        names = tuple(c.name for c in task.concepts)
        domains = tuple(c.domain for c in task.concepts)
        value_maps = ([(0, 0), (0, 1), (1, 0), (1, 1)] if constant else [(0, 1), (1, 0)])
        perms = (itertools.permutations(range(k)) if problem.map_class in ("complete", "permutation")
                 else iter([tuple(range(k))]))
        made = 0
        for sigma in perms:
            for choice in itertools.product(value_maps, repeat=len(blocks)):
                f = [None] * k
                for block, vm in zip(blocks, choice):
                    for i in block:
                        f[i] = vm
                if not constant and sum(vm == (1, 0) for vm in f) not in valid:
                    continue
                if deadline is not None:
                    deadline.check()
                yield ConceptMap(tuple(tuple((sigma[j], f[j][u]) for u in range(2)) for j in range(k)), names, domains)
                made += 1
                if limit is not None and made >= limit:
                    return


def _blocks(problem) -> list:
    """The classifiers: one per group under ``shared``, else one per concept."""
    task = problem.task
    if problem.map_class != "shared":
        return [(i,) for i in range(task.k)]
    seen, out = set(), []
    for i in range(task.k):
        if i not in seen:
            group = task.group_of(i)
            seen.update(group)
            out.append(group)
    return out


def _subset_sums(sizes: list, k: int) -> list:
    """ways[a]: how many sets of blocks hold a concepts in all (exact integers)."""
    ways = [1] + [0] * k
    for s in sizes:
        for a in range(k, s - 1, -1):
            ways[a] += ways[a - s]
    return ways


def _ranges(values: list) -> str:
    if len(values) > 6:
        step = values[1] - values[0]
        if all(b - a == step for a, b in zip(values, values[1:])):
            return f"{{{values[0]}, {values[1]}, ..., {values[-1]}}}"
    return "{" + ", ".join(map(str, values)) + "}"


BACKEND = Weight()
