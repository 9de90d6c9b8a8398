"""The generic counters (Ganak, SDD, SAT enumeration, the rsbench reference, brute force) against brute force,
and what they agree on."""

import pytest
from contract import CNF_CLASSES, Contract, oracle
from randomtasks import random_problem
from tiers import tiered

import rscount
from rscount.counters.base import Deadline


class TestGanak(Contract):
    backend = "ganak"


class TestSdd(Contract):
    backend = "sdd"


class TestPyedaReference:
    """The literal rsbench construction (pyeda, Tseitin, PicoSAT) agrees with brute force."""

    @pytest.mark.parametrize("seed", tiered(range(40), 6))
    def test_matches_bruteforce(self, seed):
        pytest.importorskip("pyeda")
        for map_class in CNF_CLASSES:
            problem, expected = oracle(seed, map_class)
            assert rscount.count_problem(problem, "pyeda-reference").count == expected, problem.describe()


class TestEnumerate(Contract):
    backend = "enumerate"

    @pytest.mark.parametrize("seed", range(20))
    def test_maps_are_optimal_and_distinct(self, seed):
        from rscount.counters.generic.bruteforce import _rows, label_table, optimal
        problem, expected = oracle(seed, "complete")
        result = rscount.count_problem(problem, "enumerate")
        maps = list(result.maps(None))
        assert len(maps) == expected == len({m.assign for m in maps})
        table, rows = label_table(problem.task), _rows(problem)
        assert all(optimal(m.assign, rows, table, problem.task.k) for m in maps)
        assert any(m.is_identity for m in maps)


class TestMapsOnSamples:
    """Maps listed for a sampled support start with those optimal everywhere, then SAT; all optimal, distinct."""

    @pytest.mark.slow  # a few seconds; the default tier keeps the cheaper checks
    @pytest.mark.parametrize("cls", ["complete", "disentangled", "shared"])
    def test_all_and_first_maps(self, cls):
        from rscount.planning.execute import _optimal_everywhere
        from rscount.counters.generic.bruteforce import _rows, label_table, optimal
        used = 0
        for seed in range(40):
            problem = random_problem(seed, cls)
            if problem.support.exhaustive:
                continue
            result = rscount.count_problem(problem)
            table, rows = label_table(problem.task), _rows(problem)
            everywhere = _optimal_everywhere(problem, None)
            used += bool(everywhere)
            for limit in (None, 3):
                maps = list(result.maps(limit))
                assert len(maps) == (result.count if limit is None else min(3, result.count))
                assert len({m.assign for m in maps}) == len(maps)
                assert all(optimal(m.assign, rows, table, problem.task.k) for m in maps), problem.describe()
            assert all(m in set(result.maps(None)) for m in everywhere)
        assert used >= 10

    def test_a_hard_solve_stops_at_the_deadline(self):
        """No SAT solver here finds a model of Kand-Logic's complete CNF on 100 vectors in minutes."""
        import time

        from rscount.counters.generic.enumerate import models
        from rscount.problems.encoding import encode
        enc = encode(rscount.make_problem("kand-logic", support="by-label:100"))
        began = time.monotonic()
        with pytest.raises(rscount.CountTimeout, match="^listing maps timed out after 1 s; raise timeout="):
            next(models(enc, None, Deadline(1, "listing maps", "raise timeout= or ask for fewer maps"), True))
        assert time.monotonic() - began < 30

    @pytest.mark.slow
    def test_counting_by_enumeration_stops_at_the_timeout(self):
        """``--backend enumerate --timeout`` once ran on for minutes inside one CaDiCaL solve."""
        import time
        problem = rscount.make_problem("kand-logic", support="by-label:100")
        began = time.monotonic()
        with pytest.raises(rscount.CountTimeout, match="^enumerate timed out after"):
            rscount.count_problem(problem, "enumerate", timeout=2)
        assert time.monotonic() - began < 30

    @pytest.mark.slow
    def test_kand_logic_lists_maps_at_once(self):
        """SAT enumeration finds no map of this complete CNF in minutes; the symmetries give them at once."""
        maps = list(rscount.count("kand-logic", support="by-label:1000").maps(3))
        assert len(maps) == 3 and maps[0].is_identity


@pytest.mark.slow
def test_permutation_equals_complete():
    for seed in range(50):
        problem, expected = oracle(seed, "complete")
        perm = rscount.Problem(problem.task, problem.support, "permutation", problem.supervision)
        assert rscount.count_problem(perm, "enumerate").count == expected


@pytest.mark.slow  # a few seconds; the default tier keeps the cheaper checks
@pytest.mark.parametrize("cls", ["free", "complete", "permutation", "disentangled", "shared"])
def test_bruteforce_says_how_many_maps_it_would_try(cls):
    """The size check is exact (it once printed 10^18 for any complete task over 6 concepts)."""
    from rscount.counters.generic.bruteforce import candidates, number_of_candidates
    checked = 0
    for seed in range(60):
        problem = random_problem(seed, cls)
        if number_of_candidates(problem) <= 200_000:
            assert sum(1 for _ in candidates(problem)) == number_of_candidates(problem)
            checked += 1
    assert checked >= 10
    kand = rscount.make_problem("kand-logic", support="by-label:100")
    assert number_of_candidates(kand) == (12 * 3 ** 3) ** 12  # each concept: a target, a value map into it
    with pytest.raises(rscount.BackendError, match=r"^bruteforce would try about 1\.3e\+30 maps"):
        rscount.count_problem(kand, "bruteforce")


@pytest.mark.parametrize("seed", tiered(range(60), 15))
def test_quantified_exhaustive_path_matches_per_vector_encoding(seed):
    import random

    from randomtasks import random_cnf_task

    from rscount.counters.generic import sdd
    rng = random.Random(seed)
    task = random_cnf_task(rng, rng.randint(2, 5))
    supervise = [rng.choice(task.concepts).name] if rng.random() < 0.3 else []
    for map_class in ("disentangled", "shared", "complete"):
        problem = rscount.make_problem(task, map_class=map_class, support="exhaustive", supervise=supervise)
        assert sdd.exhaustive_applies(problem)
        per_vector = rscount.count_problem(problem, "ganak").count
        if map_class == "complete":
            assert rscount.count_problem(problem, "structural").count == per_vector
        else:
            assert sdd.count_exhaustive(problem)[0] == per_vector
