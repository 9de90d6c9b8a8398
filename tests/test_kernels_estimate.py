"""The estimating twin of the kernels counter: maps of the class drawn uniformly, bounds that hold against the
exact kernels search (itself checked against Ganak in test_kernels.py), exact answers where the search
finishes first."""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from test_kernels import _problem
from tiers import tiered

import rscount
from rscount.counters.generic import kernels
from rscount.counters.generic.kernels import count_learned
from rscount.counters.sampling import Confidence, Estimate
from rscount.problems.problem import Supervision


def _bracketed(problem, seed: int) -> None:
    exact = count_learned(problem)[0]
    got = count_learned(problem, confidence=Confidence(0.3, 0.001, seed))[0]
    if not isinstance(got, Estimate):  # nothing to sample: no class mixes labels, or two rows cannot be split
        assert got == exact
        return
    assert got.lower <= exact <= got.upper, (problem.describe(), exact, float(got.lower), float(got.upper))
    assert got.upper <= got.lower * (1 + 0.3) ** 2 * 1.000001


@pytest.mark.parametrize("seed", tiered(range(40), 4))
@pytest.mark.parametrize("cls", ["disentangled", "shared", "complete", "permutation"])
def test_estimates_bracket_the_exact_count(seed, cls):
    problem = _problem(seed, cls, small=cls in ("complete", "permutation"))
    if cls in ("complete", "permutation"):  # the bijection may move supervised concepts: not in these classes
        problem = dataclasses.replace(problem, supervision=Supervision())
    _bracketed(problem, seed)


@pytest.mark.parametrize("params, cls", [(dict(objects=2, colors=4, samples=40), "disentangled"),
                                         (dict(objects=2, colors=3, samples=30), "disentangled"),
                                         (dict(objects=2, colors=3, samples=30, mode="disjoint"), "complete")])
def test_concon_estimates_bracket_the_exact_count(params, cls):
    """Scenes whose colours and materials no label reads, as in ConCon's own tasks (too large to count)."""
    _bracketed(rscount.make_problem("concon-t1", params=params, map_class=cls, inference="learned"), 7)


def test_sizes_of_the_predicted_concepts_are_drawn_by_their_maps():
    """A complete map gives concept i a predicted concept of size b in b^{d_i} ways: the draws of the sizes follow
    those weights (chi-square against the exact frequencies)."""
    sizes, types = [2, 3, 3, 2], [2, 3]
    ways = kernels._size_ways(sizes, types, (2, 2))
    steps = kernels._size_steps(sizes, types, ways)
    rng = np.random.default_rng(5)
    n = 200_000
    at = np.zeros(n, dtype=np.int64)
    picks = []
    for chance, after in steps:
        pick = (chance[at].cumsum(axis=1) < rng.random((n, 1))).sum(axis=1).clip(max=len(types) - 1)
        at = after[at, pick]
        picks.append(pick)
    seen: dict = {}
    for v in zip(*(p.tolist() for p in picks)):
        seen[v] = seen.get(v, 0) + 1
    weight = {v: math.prod(types[t] ** d for t, d in zip(v, sizes)) for v in seen}
    assert sorted(v.count(0) for v in seen) == [2] * len(seen) and len(seen) == 6  # every arrangement, no other
    total = sum(weight.values())
    assert total == ways[0][(2, 2)]
    chi2 = sum((seen[v] - n * weight[v] / total) ** 2 / (n * weight[v] / total) for v in seen)
    assert chi2 < 25, chi2


def test_the_estimating_twin_is_exact_where_the_search_finishes():
    result = rscount.count("mnadd-half", map_class="disentangled", inference="learned", approx=True)
    assert result.exact and result.count == 2215200
    assert result.backend == "kernels-estimate"


@pytest.mark.slow
@pytest.mark.parametrize("cls", ["disentangled", "complete", "free"])
def test_concon_default_support_is_estimated(cls):
    """ConCon task 1's 2,000 scenes: no exact counter finishes, the estimate does; under a learned head every map
    optimal under K stays optimal (and a disentangled map is complete), so the count is at least the
    disentangled count under K (docs/benchmarks.md)."""
    problem = rscount.make_problem("concon-t1", map_class=cls, inference="learned")
    got = count_learned(problem, confidence=Confidence(0.8, 0.2, 1))[0]
    assert isinstance(got, Estimate) and 0 < got.lower < got.value < got.upper
    assert got.upper >= 20_282_409_603_651_670_423_947_251_286_016
    if cls == "free":  # its scenes show every value with every value of the other concepts: free maps are complete
        complete = rscount.make_problem("concon-t1", map_class="complete", inference="learned")
        assert got == count_learned(complete, confidence=Confidence(0.8, 0.2, 1))[0]
