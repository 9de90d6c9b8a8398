"""The count up to renaming: optimal maps of a learned head counted as orbits of renamed predicted values.

A model that learns its label head can absorb any renaming of the values its
concept extractor predicts (a CBM whose digit classifier calls 3 "7" and
whose head reads "7" as 3 fits as well), so without concept supervision the
optimal maps come in orbits of such renamings. Their number, by Burnside's
lemma over the renamings sigma of each value map's outputs:

    orbits = (1 / |G|) * sum_sigma #{optimal alpha with sigma . alpha == alpha}

An alpha is fixed by sigma exactly when every value it predicts is a fixed
point of sigma, and that count depends only on how many fixed points each
value map's renaming has: the sum runs over those numbers (f_o for value map
o), weighted by the renamings with exactly f_o fixed points, C(n, f) D(n - f)
(D the derangement numbers), with one restricted count each.
"""
from __future__ import annotations

import dataclasses
import itertools
import math

from ..errors import BackendError
from ..problems.problem import Problem

__all__ = ["up_to_renaming", "owners", "MAX_TERMS"]

MAX_TERMS = 64  # restricted counts one orbit count may run


def owners(problem: Problem) -> list:
    """The value maps whose outputs a head can rename, as (name, number of values): one per concept group
    (shared), else one per predicted concept."""
    task = problem.task
    if problem.map_class == "shared":
        reps = sorted({problem.representative(i) for i in range(task.k)})
        return [(task.concepts[r].name, task.sizes[r]) for r in reps]
    return [(c.name, s) for c, s in zip(task.concepts, task.sizes)]


def _derangements(n: int) -> int:
    d = [1, 0]
    for m in range(2, n + 1):
        d.append((m - 1) * (d[-1] + d[-2]))
    return d[n]


def _terms(sizes: list) -> list:
    """(fixed points per value map, number of renamings with exactly those) with a non-zero weight."""
    choices = [[f for f in range(1, n + 1) if f != n - 1] for n in sizes]
    out = []
    for fixed in itertools.product(*choices):
        weight = math.prod(math.comb(n, f) * _derangements(n - f) for n, f in zip(sizes, fixed))
        out.append((fixed, weight))
    return out


def up_to_renaming(problem: Problem, count: int, timeout: float | None = None) -> int:
    """The optimal maps of a learned-head ``problem`` (``count`` of them) up to renamings of predicted values.

    Raises BackendError when concept supervision names the values (no renaming keeps it) or when more than
    MAX_TERMS restricted counts would be needed.
    """
    if problem.inference not in ("learned", "learned:linear"):
        raise BackendError("counts up to renaming are for a learned head (inference='learned' or 'learned:linear')")
    if problem.supervision:
        raise BackendError("concept supervision names the predicted values, so no renaming keeps it")
    sizes = [n for _, n in owners(problem)]
    terms = _terms(sizes)
    if len(terms) > MAX_TERMS:
        raise BackendError(f"{len(terms)} restricted counts (limit {MAX_TERMS}): too many value maps")
    total = 0
    for fixed, weight in terms:
        total += weight * (count if list(fixed) == sizes else _restricted(problem, fixed, timeout))
    group = math.prod(math.factorial(n) for n in sizes)
    if total % group:
        raise BackendError(f"Burnside's sum {total} is not a multiple of {group}; please report this")
    return total // group


def _restricted(problem: Problem, fixed: tuple, timeout) -> int:
    """Optimal maps whose value map o predicts only its first ``fixed[o]`` values."""
    if problem.map_class == "joint":
        from ..counters.symmetry.closedform import learned_joint, linear_joint
        if problem.inference == "learned:linear":
            return linear_joint(problem, limits=tuple(fixed))[0]
        return learned_joint(problem, images=math.prod(fixed))
    from ..counters import COUNTERS
    from ..counters.base import Deadline, Options
    from ..problems.encoding import encode
    index = {name: o for o, (name, _) in enumerate(owners(problem))}
    names = [c.name for c in problem.task.concepts]
    if COUNTERS["kernels"].applies(problem):  # learned heads only
        from ..counters.generic.kernels import count_learned
        images = [fixed[index[names[problem.representative(i)]]] for i in range(problem.task.k)]
        return count_learned(problem, images, Deadline(timeout, "kernels"))[0]
    enc = encode(problem)
    units = [(-var,) for var, (i, v, _, _) in enc.alpha_keys.items() if v >= fixed[index[names[i]]]]
    restricted = dataclasses.replace(enc, clauses=enc.clauses + units, constraints=enc.constraints + units)
    if problem.inference == "learned:linear":  # a renaming permutes the one-hot inputs: a linear head follows it
        return sum(1 for _ in COUNTERS["separable"].maps(problem, restricted, Deadline(timeout, "separable")))
    order = ("sdd", "ganak") if problem.map_class in ("disentangled", "shared") else ("ganak", "sdd")
    name = next((n for n in order if COUNTERS[n].unavailable() is None), None)
    if name is None:
        raise BackendError("counts up to renaming need pysdd or pyganak")
    return COUNTERS[name].count(problem, restricted, Options(timeout=timeout)).count
