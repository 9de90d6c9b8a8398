"""ApproxMC: the pinned version, the known pyapproxmc bug, and the (epsilon, delta) guarantee."""
from importlib.metadata import version

import pytest
from randomtasks import random_problem

import rscount
from rscount.counters.generic.approxmc import VERIFIED, count_cnf


def test_pinned_version_is_verified():
    assert version("pyapproxmc") in VERIFIED


def test_known_bug_xor_of_two_variables():
    # pyapproxmc 4.3.x / 4.4.0 answer 1 here.
    assert count_cnf([(1, 2), (-1, -2)], [1, 2], 0.8, 0.2) == 2


def test_known_bug_variable_in_no_clause():
    # Variables that appear in no clause must still double the count.
    assert count_cnf([(1, 2), (-1, -2)], [1, 2, 3], 0.8, 0.2) == 4
    assert count_cnf([(1, 2)], [1, 2, 3, 4, 5], 0.8, 0.2) == 24


def test_result_is_marked_approximate():
    r = rscount.count("xor3", backend="approxmc", approx=True, epsilon=0.5, delta=0.1)
    assert not r.exact and r.backend == "approxmc"
    assert r.epsilon == 0.5 and r.delta == 0.1
    assert r.lower <= 24 <= r.upper


@pytest.mark.slow
@pytest.mark.parametrize("epsilon, delta", [(0.8, 0.2), (0.3, 0.1)])
def test_within_factor_with_stated_probability(epsilon, delta):
    misses, total = 0, 0
    for seed in range(60):
        for map_class in ("free", "complete", "disentangled"):
            problem = random_problem(seed, map_class)
            truth = rscount.count_problem(problem, "bruteforce").count
            est = rscount.count_problem(problem, "approxmc", epsilon=epsilon, delta=delta, seed=seed + 1)
            total += 1
            if not (truth / (1 + epsilon) <= est.count <= truth * (1 + epsilon)):
                misses += 1
            else:
                assert est.lower <= truth <= est.upper
    # Each estimate fails with probability <= delta; allow sampling slack above delta * total.
    assert misses <= delta * total + 3 * (delta * total) ** 0.5


@pytest.mark.slow
def test_large_count_estimate():
    exact = rscount.count("xor4", map_class="free", backend="ganak").count
    est = rscount.count("xor4", map_class="free", approx=True, backend="approxmc")
    assert not est.exact and est.lower <= exact <= est.upper


def test_a_time_out_does_not_advise_approximating():
    """ApproxMC already approximates: its time-out suggests a looser epsilon/delta, not --approx. Named: a plain
    approx=True first tries the exact plan and leaves bounds their share, so 1 s may end while encoding."""
    problem = rscount.make_problem("kand-logic", support="by-label:100")
    with pytest.raises(rscount.CountTimeout, match="loosen epsilon=") as info:
        rscount.count_problem(problem, "approxmc", approx=True, timeout=1)
    assert "approx=True" not in str(info.value)


def test_approx_is_exact_where_symmetry_counts():
    """--approx first tries the exact count by symmetry: xor3 exhaustive needs no estimate."""
    r = rscount.count("xor3", approx=True)
    assert r.exact and r.count == 24 and r.backend == "automorphism"


def test_exact_and_approx_exclude_each_other_even_where_symmetry_counts():
    with pytest.raises(rscount.EncodingError, match="exclude each other"):
        rscount.count("xor3", exact=True, approx=True)
