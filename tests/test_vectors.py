"""Free maps joined vector by vector (counters/free/vectors.py) against brute force and Ganak."""
import random

import pytest
from contract import Contract
from tiers import tiered

import rscount
from rscount.counters.free.vectors import count_free


class TestVectorJoin(Contract):
    """Random small tasks, supports and supervision under ``free``: brute force's count."""

    backend = "vector-join"
    classes = ["free"]


def _mid_problem(seed: int):
    """Four or five concepts of two or three values, a few random support vectors: past brute force."""
    from randomtasks import _bool_expr, _int_expr
    rng = random.Random(seed)
    k = rng.randint(4, 5)
    sizes = [rng.randint(2, 3) for _ in range(k)]
    names = [f"c{i + 1}" for i in range(k)]
    concepts = {n: f"0..{s - 1}" for n, s in zip(names, sizes)}
    label = _bool_expr(rng, names, [], 3) if seed % 2 else _int_expr(rng, names, 2)
    task = rscount.task_from_spec({"name": f"mid{seed}", "concepts": concepts, "labels": [label]})
    rows = sorted({tuple(rng.randrange(s) for s in sizes) for _ in range(rng.randint(2, 6))})
    supervise = [rng.choice(names)] if seed % 5 == 0 else []
    return rscount.make_problem(task, map_class="free", support=[list(r) for r in rows], supervise=supervise)


@pytest.mark.parametrize("seed", tiered(range(16), 2))
def test_mid_size_matches_ganak(seed):
    """Beyond brute force (up to 14 source values, 14^14 free maps): Ganak's count."""
    problem = _mid_problem(seed)
    got = rscount.count_problem(problem, "vector-join")
    assert got.exact and got.count == rscount.count_problem(problem, "ganak").count, problem.describe()


def test_kandinsky_example_free():
    """rsbench's Kandinsky example (4 vectors, 6 concepts of 3 values) under free: Ganak's count, 392,751,394,928,640
    (its CNF: 822 variables, about 30 s; checked in the slow tier below), and the plan takes this counter."""
    result = rscount.count(rscount.load_config("knowledge/examples/kandinsky-two-colors.yml"), map_class="free")
    assert result.count == 392_751_394_928_640 and result.exact and result.backend == "vector-join"


@pytest.mark.slow
def test_kandinsky_example_free_against_ganak():
    problem = rscount.make_problem(rscount.load_config("knowledge/examples/kandinsky-two-colors.yml"), map_class="free")
    assert rscount.count_problem(problem, "ganak").count == count_free(problem, _NoDeadline())[0]


class _NoDeadline:
    def check(self) -> None:
        return None


def test_no_local_map_gives_zero():
    """A supervised value no predicted vector with the right label keeps: no optimal map."""
    task = rscount.task_from_spec({"name": "eq", "concepts": ["a", "b"], "labels": ["a & ~a"]})
    problem = rscount.make_problem(task, map_class="free", support=[[1, 1]])
    assert rscount.count_problem(problem, "vector-join").count == rscount.count_problem(problem, "bruteforce").count
