"""Structural exact counting for the complete and permutation classes.

With one-hot predicted concepts, a complete map is a permutation sigma
(predicted concept i reads ground-truth concept sigma(i)) plus one value map
per concept, so ``count = sum_sigma N(sigma)``. N is constant on double
cosets ``H sigma G``: G permutes interchangeable predicted concepts (swaps
that keep beta_K), H interchangeable ground-truth concepts (swaps that keep
both beta_K and the support). For Young subgroups these double cosets are the
contingency tables between the two partitions, so N is computed once per
table (by SDD compilation of that sigma's value maps) and multiplied by the
table's size.
"""
from __future__ import annotations

import math

from ...errors import BackendError
from ...problems.encoding import encode
from ...problems.interchange import knowledge_blocks, meet, support_blocks
from ...results.count import Tally
from ..base import Counter, Options, missing, run_isolated
from ..generic.sdd import compile_encoding, count_exhaustive, exact_model_count, exhaustive_applies

MAX_COSETS = 2000


def _tables(rows: list, cols: list):
    """Yield every non-negative integer matrix with the given row and column sums (depth-first with a stack of
    its own: designs of many concepts would pass Python's recursion limit)."""
    r, c = len(rows), len(cols)
    if r == 0 or c == 0:
        if not any(rows) and not any(cols):
            yield [[0] * c for _ in range(r)]
        return
    stack = [(0, 0, rows[0], tuple(cols), ())]
    while stack:
        a, b, remaining, left, cells = stack.pop()
        if b == c - 1:
            if remaining > left[b]:
                continue
            left = left[:b] + (left[b] - remaining,)
            cells += (remaining,)
            if a + 1 < r:
                stack.append((a + 1, 0, rows[a + 1], left, cells))
            elif not any(left):
                yield [list(cells[i * c:(i + 1) * c]) for i in range(r)]
            continue
        for x in reversed(range(min(remaining, left[b]) + 1)):
            stack.append((a, b + 1, remaining - x, left[:b] + (left[b] - x,) + left[b + 1:], cells + (x,)))


def cosets(gt_blocks: list, pred_blocks: list):
    """Yield (representative sigma, number of permutations) for each double coset."""
    k = sum(len(b) for b in gt_blocks)
    for table in _tables([len(b) for b in gt_blocks], [len(b) for b in pred_blocks]):
        sigma = [None] * k
        gt_free = [list(b) for b in gt_blocks]
        pred_free = [list(b) for b in pred_blocks]
        size = math.prod(math.factorial(len(b)) for b in gt_blocks) * \
            math.prod(math.factorial(len(b)) for b in pred_blocks)
        for a, row in enumerate(table):
            for b, m in enumerate(row):
                for _ in range(m):
                    sigma[pred_free[b].pop(0)] = gt_free[a].pop(0)
                size //= math.factorial(m)
        yield tuple(sigma), size


def plan(problem):
    """Return (gt blocks, predicted blocks) for the problem's symmetry, or raise if none is usable."""
    if problem.map_class not in ("complete", "permutation"):
        raise BackendError(f"structural counts the complete and permutation classes, not {problem.map_class!r}")
    task, sup = problem.task, problem.supervision
    k = task.k
    if sup.vectors:
        pred = gt = [(i,) for i in range(k)]
    else:
        fixed = frozenset(i for i, _ in sup.concepts)
        pred = knowledge_blocks(task, fixed)
        gt = meet(pred, support_blocks(problem, fixed))
    return gt, pred


def number_of_cosets(gt: list, pred: list, stop: int = MAX_COSETS + 1) -> int:
    n = 0
    for _ in _tables([len(b) for b in gt], [len(b) for b in pred]):
        n += 1
        if n >= stop:
            break
    return n


class Structural(Counter):
    name = "structural"

    def unavailable(self) -> str | None:
        return missing("pysdd.sdd", "pysdd")

    def applies(self, problem) -> bool:
        """Whether the symmetry leaves few enough blocks to count one by one."""
        if problem.map_class not in ("complete", "permutation"):
            return False
        try:
            gt, pred = plan(problem)
        except BackendError:  # too many concepts to find the symmetries of
            return False
        return number_of_cosets(gt, pred) <= MAX_COSETS

    def count(self, problem, encoding, options: Options) -> Tally:
        gt, pred = plan(problem)
        n = number_of_cosets(gt, pred)
        if n > MAX_COSETS:
            raise BackendError(f"structural: the problem has too little symmetry ({n}+ blocks to count, "
                               f"limit {MAX_COSETS}); use backend=ganak or sdd")

        def work():
            deadline = options.deadline(self.name)
            total, largest = 0, {"vars": 0, "clauses": 0, "alpha_vars": 0}
            quantified = exhaustive_applies(problem)
            for sigma, size in cosets(gt, pred):
                deadline.check()
                if quantified:
                    count, built = count_exhaustive(problem, sigma)
                    total += size * count
                    largest = max(largest, built, key=lambda e: e["vars"])
                    continue
                enc = encode(problem, sigma=sigma, deadline=deadline)
                _, node = compile_encoding(enc)
                total += size * exact_model_count(node, len(enc.alpha))
                largest = max(largest, enc.size, key=lambda e: e["clauses"])
            return total, dict(largest, blocks=n)

        total, size = run_isolated(work, self.name, options.timeout, options.memory_mb, options.progress,
                         options.cancel)
        note = (f"structural: {n} concept assignment block(s) up to symmetry "
                f"(interchangeable concepts: {_show(pred, problem.task)})"
                + ("; each block checked on every concept vector by a quantified SDD"
                   if exhaustive_applies(problem) else ""))
        return Tally(total, notes=(note,), encoding=size)


def _show(blocks: list, task) -> str:
    groups = [b for b in blocks if len(b) > 1]
    return "; ".join("{" + ",".join(task.concepts[i].name for i in b) + "}" for b in groups) or "none"


BACKEND = Structural()
