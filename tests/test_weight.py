"""The weight counter (labels that read only how many concepts are true) against brute force and closed forms."""
from __future__ import annotations

import math
import random

import pytest

import rscount
from rscount.counters.boolean.weight import flips, symmetric_over, weight_table


def _task(text: str, k: int, groups=()):
    names = ",".join(f"x{i}=0..1" for i in range(k))
    task = rscount.task_from_text(text, concepts=names)
    if groups:
        import dataclasses
        task = dataclasses.replace(task, groups=tuple(tuple(g) for g in groups))
    return task


def _chain(op: str, k: int) -> str:
    return f" {op} ".join(f"x{i}" for i in range(k))


def _threshold(rng, k: int) -> str:
    """A random symmetric function: a random set of weights with label 1."""
    total = " + ".join(f"x{i}" for i in range(k))
    ws = [w for w in range(k + 1) if rng.random() < 0.5] or [0]
    return " | ".join(f"(({total}) == {w})" for w in ws)


@pytest.mark.parametrize("seed", range(30))
@pytest.mark.parametrize("cls", ["complete", "permutation", "disentangled"])
def test_random_weight_functions_match_bruteforce(seed, cls):
    rng = random.Random(seed)
    k = rng.randint(2, 4)
    task = _task(_threshold(rng, k), k)
    problem = rscount.make_problem(task, map_class=cls, support="exhaustive")
    assert rscount.count_problem(problem, "weight").count == rscount.count_problem(problem, "bruteforce").count


@pytest.mark.parametrize("seed", range(10))
def test_shared_groups_match_bruteforce(seed):
    rng = random.Random(100 + seed)
    k = 4
    task = _task(_threshold(rng, k), k, groups=[["x0", "x1"], ["x2", "x3"]] if seed % 2 else [["x0", "x1", "x2"]])
    problem = rscount.make_problem(task, map_class="shared", support="exhaustive")
    assert rscount.count_problem(problem, "weight").count == rscount.count_problem(problem, "bruteforce").count


@pytest.mark.parametrize("op", ["^", "&", "|"])
@pytest.mark.parametrize("k", [2, 3, 4])
def test_chains_match_bruteforce_and_maps_are_optimal(op, k):
    problem = rscount.make_problem(_task(_chain(op, k), k), support="exhaustive")
    result = rscount.count_problem(problem, "weight")
    assert result.count == rscount.count_problem(problem, "bruteforce").count
    maps = list(result.maps(None))
    assert len(maps) == len(set(maps)) == result.count
    for m in maps:  # each listed map keeps every label
        for g in problem.support.rows():
            assert problem.task.label_of(m(g)) == problem.task.label_of(g)


@pytest.mark.parametrize("k", [64, pytest.param(3000, marks=pytest.mark.slow)])
def test_long_chains_count_in_closed_form(k):
    """Chains far past any table: xor keeps even flips (k! 2^(k-1)), and / or keep none (k!)."""
    assert rscount.count(_task(_chain("^", k), k)).count == math.factorial(k) * 2 ** (k - 1)
    assert rscount.count(_task(_chain("&", k), k)).count == math.factorial(k)
    r = rscount.count(_task(_chain("|", k), k), map_class="disentangled")
    assert (r.count, r.backend, r.support_size) == (1, "weight", 2 ** k)


def test_constant_knowledge_keeps_every_map():
    problem = rscount.make_problem(_task("x0 + x1 + x2 >= 0", 3), support="exhaustive")
    assert rscount.count_problem(problem, "weight").count == rscount.count_problem(problem, "bruteforce").count


def test_symmetry_is_read_from_the_syntax():
    parse = lambda text, k: _task(text, k).labels[0].expr
    assert symmetric_over(parse("x0 ^ x1 ^ x2", 3)) == {"x0", "x1", "x2"}
    assert symmetric_over(parse("(x0 + x1 + x2 >= 2) & ~(x0 & x1 & x2)", 3)) == {"x0", "x1", "x2"}
    assert symmetric_over(parse("x0 & x1 | x2", 3)) is None
    assert symmetric_over(parse("x0 ^ x0 ^ x1", 2)) is None
    assert weight_table(_task("x0 & x1 | x2", 3)) is None
    assert weight_table(rscount.get_task("mnadd")) is None  # not boolean


def test_flips_are_palindromic_windows():
    for h, want in [([0, 1, 0, 1], [0, 2]), ([0, 0, 0, 1], [0]), ([0, 1, 1, 0], [0, 3]), ([1, 1, 1], [0, 1, 2])]:
        import numpy as np
        assert flips(np.array(h)) == want


def test_supervision_and_listed_supports_are_left_to_other_counters():
    task = _task(_chain("^", 3), 3)
    assert not rscount.counters.COUNTERS["weight"].applies(rscount.make_problem(task, support="1,1,0;0,0,1"))
    assert not rscount.counters.COUNTERS["weight"].applies(
        rscount.make_problem(task, support="exhaustive", supervise=["x0"]))
