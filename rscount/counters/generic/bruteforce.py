"""Brute force: try every map of the class, straight from the definitions.

Independent of the CNF encoding on purpose: this is the oracle the other
backends are tested against. Only for tiny tasks.
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from ...errors import BackendError
from ...model.support import exhaustive
from ...results.count import ConceptMap, Tally
from ..base import Counter, Deadline, Options

LIMIT = 3_000_000


def candidates(problem):
    """Yield every map of the problem's class as ``assign[j][u] = (i, v)``."""
    task, cls = problem.task, problem.map_class
    k, sizes = task.k, task.sizes
    if cls == "free":
        bits = [(i, v) for i in range(k) for v in range(sizes[i])]
        for choice in itertools.product(bits, repeat=sum(sizes)):
            it = iter(choice)
            yield tuple(tuple(next(it) for _ in range(sizes[j])) for j in range(k))
        return
    if cls in ("complete", "permutation"):
        targets = itertools.permutations(range(k)) if cls == "permutation" else itertools.product(range(k), repeat=k)
        for target in targets:
            per_concept = [[tuple((target[j], v) for v in f)
                            for f in itertools.product(range(sizes[target[j]]), repeat=sizes[j])]
                           for j in range(k)]
            yield from itertools.product(*per_concept)
        return
    if cls == "disentangled":
        yield from itertools.product(*[[tuple((j, v) for v in f) for f in itertools.product(range(s), repeat=s)]
                                       for j, s in enumerate(sizes)])
        return
    if cls == "shared":
        reps = sorted({problem.representative(j) for j in range(k)})
        for fs in itertools.product(*[list(itertools.product(range(sizes[r]), repeat=sizes[r])) for r in reps]):
            f_of = dict(zip(reps, fs))
            yield tuple(tuple((j, v) for v in f_of[problem.representative(j)]) for j in range(k))
        return
    raise BackendError(f"bruteforce does not handle class {cls!r}")


def number_of_candidates(problem) -> int:
    """How many maps of the problem's class bruteforce would try (exactly, without listing them)."""
    task, cls = problem.task, problem.map_class
    k, sizes = task.k, task.sizes
    if cls == "free":
        return sum(sizes) ** sum(sizes)
    if cls == "complete":  # each gt concept picks its target and a value map into it, independently
        return math.prod(sum(s ** sizes[j] for s in sizes) for j in range(k))
    if cls == "permutation":
        return _permanent_by_size(sizes)
    if cls == "disentangled":
        return math.prod(s ** s for s in sizes)
    if cls == "shared":
        return math.prod(sizes[r] ** sizes[r] for r in {problem.representative(j) for j in range(k)})
    if cls == "joint":
        n = task.space_size
        return n ** n
    raise BackendError(f"bruteforce does not handle class {cls!r}")


def _permanent_by_size(sizes) -> int:
    """Sum over bijections t of prod_j sizes[t_j] ** sizes[j]: targets of equal size are alike, so a DP over
    how many targets of each size are left."""
    kinds = sorted(set(sizes))
    ways = {tuple(sizes.count(s) for s in kinds): 1}
    for size in sizes:
        step: dict = {}
        for left, n in ways.items():
            for t, c in enumerate(left):
                if c:
                    key = left[:t] + (c - 1,) + left[t + 1:]
                    step[key] = step.get(key, 0) + n * c * kinds[t] ** size
        ways = step
    return sum(ways.values())


def label_table(task) -> dict:
    """beta_K of every concept vector, as a dict index vector -> label codes."""
    grid = exhaustive(task).vectors
    labels = task.evaluate(grid)
    return {tuple(map(int, g)): tuple(map(int, y)) for g, y in zip(grid, labels)}


def _rows(problem):
    labels = [tuple(map(int, y)) for y in problem.labels]
    return [(g, labels[r], problem.supervised(r, g), problem.observed(r)) for r, g in enumerate(problem.support.rows())]


def optimal(assign, rows, table, k, learned: bool = False) -> bool:
    """Whether the value map keeps every training label (and supervised concept) right: K's label of the
    prediction, or (``learned``) one label per prediction, so that some learned head gives them all."""
    heads: dict = {}
    for g, y, sup, seen in rows:
        out = [None] * k
        for j, u in enumerate(g):
            i, v = assign[j][u]
            if out[i] is not None and out[i] != v:
                return False
            out[i] = v
        if None in out:
            return False
        if any(out[i] != g[i] for i in sup):
            return False
        if learned:
            if heads.setdefault(tuple(out), y) != y:
                return False
        elif any(table[tuple(out)][t] != y[t] for t in seen):  # several tasks: a row shows its own labels
            return False
    return True


def _linear(problem, assign) -> bool:
    """Some linear head over the one-hot predictions gives every support label (see counters.generic.separable)."""
    from ...results.count import ConceptMap
    from .separable import labelled_image, separable
    task = problem.task
    m = ConceptMap(assign, tuple(c.name for c in task.concepts), tuple(c.domain for c in task.concepts))
    return separable(*labelled_image(problem, m), task.sizes)


def _joint(problem, deadline):
    task = problem.task
    table = label_table(task)
    space = list(table)
    rows = _rows(problem)
    learned = problem.inference != "knowledge"
    checked: dict = {}
    for images in itertools.product(range(len(space)), repeat=len(space)):
        deadline.check()
        alpha = {space[a]: space[b] for a, b in enumerate(images)}
        heads: dict = {}
        if all((heads.setdefault(alpha[g], y) == y if learned else all(table[alpha[g]][t] == y[t] for t in seen))
               and all(alpha[g][i] == g[i] for i in sup) for g, y, sup, seen in rows):
            if problem.inference == "learned:linear":
                from .separable import separable
                key = tuple(sorted(heads.items()))
                if key not in checked:
                    checked[key] = separable(np.array(list(heads), dtype=np.int64),
                                             np.array(list(heads.values()), dtype=np.int64), problem.task.sizes)
                if not checked[key]:
                    continue
            yield alpha


class BruteForce(Counter):
    name = "bruteforce"
    inferences = ("knowledge", "learned", "learned:linear")
    several = True

    def _check_size(self, problem) -> None:
        n = number_of_candidates(problem)
        if n > LIMIT:
            shown = f"{n:,}" if n < 10 ** 12 else f"about {float(n):.2g}"
            raise BackendError(f"bruteforce would try {shown} maps (limit {LIMIT:,}); use exact=True or another backend=")

    def _maps(self, problem, deadline):
        self._check_size(problem)
        if problem.map_class == "joint":
            yield from _joint(problem, deadline)
            return
        table, rows, k = label_table(problem.task), _rows(problem), problem.task.k
        learned = problem.inference != "knowledge"
        for n, assign in enumerate(candidates(problem)):
            if n % 4096 == 0:
                deadline.check()
            if optimal(assign, rows, table, k, learned) and (problem.inference != "learned:linear"
                                                             or _linear(problem, assign)):
                yield assign

    def count(self, problem, encoding, options: Options) -> Tally:
        deadline = options.deadline(self.name)
        n = sum(1 for _ in self._maps(problem, deadline))
        if problem.inference != "learned:linear":
            return Tally(n)
        identity = tuple(tuple((j, u) for u in range(s)) for j, s in enumerate(problem.task.sizes))
        return Tally(n, intended=_linear(problem, identity))

    def enumerate(self, problem, encoding, limit):
        task = problem.task
        names, doms = tuple(c.name for c in task.concepts), tuple(c.domain for c in task.concepts)
        for n, m in enumerate(self._maps(problem, Deadline(None, self.name))):
            if limit is not None and n >= limit:
                return
            if problem.map_class == "joint":
                from ...results.count import JointMap
                yield JointMap(tuple(sorted(m.items())), task.format_vector)
            else:
                yield ConceptMap(m, names, doms)


BACKEND = BruteForce()
