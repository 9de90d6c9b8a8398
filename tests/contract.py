"""The one contract every counter passes: the brute-force oracle on random small problems, shared by the
counter test files."""
import pytest
from randomtasks import random_problem
from tiers import tiered

import rscount

N = 200
CNF_CLASSES = ["free", "complete", "permutation", "disentangled", "shared"]
_oracle: dict = {}


def oracle(seed, map_class):
    key = (seed, map_class)
    if key not in _oracle:
        problem = random_problem(seed, map_class)
        _oracle[key] = (problem, rscount.count_problem(problem, "bruteforce").count)
    return _oracle[key]


class Contract:
    backend = None
    classes = CNF_CLASSES

    @pytest.mark.parametrize("seed", tiered(range(N), 20))
    def test_matches_bruteforce(self, seed):
        for map_class in self.classes:
            problem, expected = oracle(seed, map_class)
            got = rscount.count_problem(problem, self.backend)
            assert got.count == expected, (map_class, problem.describe(), [label.text for label in problem.task.labels])
            assert got.exact


def matches_bruteforce(backend: str, problem) -> None:
    got = rscount.count_problem(problem, backend)
    assert got.count == rscount.count_problem(problem, "bruteforce").count, \
        ([label.text for label in problem.task.labels], problem.describe())
    assert got.exact and got.backend == backend


def oracle_problems_match(backend: str) -> int:
    """How many random oracle problems (disentangled, shared) ``backend`` applies to; each must match."""
    met = 0
    for seed in range(N):
        for cls in ("disentangled", "shared"):
            problem, expected = oracle(seed, cls)
            if rscount.get_counter(backend).applies(problem):
                met += 1
                assert rscount.count_problem(problem, backend).count == expected, problem.describe()
    return met
