"""The clauses counter (one CNF over booleans on a listed support) against brute force and the search."""

import pytest
from tiers import tiered

import rscount
from rscount.counters.base import Deadline


class TestClauses:
    """One CNF over boolean concepts: images given concept by concept, clauses checked against the rows."""

    @pytest.mark.parametrize("order", ["depth first", "layers", "layers image by image"])
    @pytest.mark.parametrize("cls", ["complete", "permutation", "disentangled"])
    @pytest.mark.parametrize("seeds", tiered([range(0, 12), range(12, 120)], 1), ids=["first", "rest"])
    def test_matches_bruteforce(self, cls, order, seeds, monkeypatch):
        from randomtasks import random_clauses_problem

        from rscount.counters.boolean import clauses
        from rscount.counters.boolean.clauses import applies
        monkeypatch.setattr(clauses, "FEW_STATES" if order.startswith("layers") else "LAYERED_ROWS", 0)
        if order == "layers image by image":
            monkeypatch.setattr(clauses, "ONE_STEP_PAIRS", 0)
        for seed in seeds:
            problem = random_clauses_problem(seed, cls)
            assert applies(problem), problem.describe()
            want = rscount.count_problem(problem, "bruteforce").count
            assert rscount.count_problem(problem, "clauses").count == want, (seed, problem.describe())

    @pytest.mark.parametrize("seed", range(12))
    def test_rows_over_one_word(self, seed, monkeypatch):
        """65-256 rows: the layers keep row sets in several 64-bit words; brute force (disentangled) and depth
        first (complete, its row sets one Python integer) must agree."""
        import random

        from rscount.counters.boolean import clauses
        rng = random.Random(seed)
        names = [f"x{i}" for i in range(1, 9)]
        text = " & ".join("(" + " | ".join(v if rng.random() < 0.5 else f"~{v}" for v in rng.sample(names, 3)) + ")"
                          for _ in range(rng.randint(2, 5)))
        task = rscount.task_from_spec({"name": "wide", "concepts": names, "labels": [text]})
        from randomtasks import _rows
        support = _rows(task, rng.sample(range(256), rng.randint(65, 256)))
        monkeypatch.setattr(clauses, "FEW_STATES", 0)
        for cls in ("disentangled", "complete"):
            problem = rscount.make_problem(task, map_class=cls, support=support)
            layers = clauses.count_clauses(problem, Deadline(None, "clauses"))[0]
            with monkeypatch.context() as patch:
                patch.setattr(clauses, "ONE_STEP_PAIRS", 0)  # image by image
                assert layers == clauses.count_clauses(problem, Deadline(None, "clauses"))[0], (cls, text)
                patch.setattr(clauses, "LAYERED_ROWS", 0)
                assert layers == clauses.count_clauses(problem, Deadline(None, "clauses"))[0], (cls, text)
            if cls == "disentangled":
                assert layers == rscount.count_problem(problem, "bruteforce").count, text

    def test_layers_carry_python_integers_where_int64_could_overflow(self, monkeypatch):
        """Past INT64_SAFE the layers add numbers of partial maps as Python integers (forced here)."""
        from rscount.counters.boolean import clauses
        names = [f"x{i}" for i in range(1, 15)]
        text = "(x14 | ~x13 | x7) & (x10 | ~x8 | x3) & (~x13 | x4 | ~x3) & (x9 | ~x11 | ~x13)"
        task = rscount.task_from_spec({"name": "wide", "concepts": names, "labels": [text]})
        problem = rscount.make_problem(task, map_class="complete", subsample=40, seed=1)
        monkeypatch.setattr(clauses, "FEW_STATES", 0)
        monkeypatch.setattr(clauses, "INT64_SAFE", 1)
        layers = clauses.count_clauses(problem, Deadline(None, "clauses"))[0]
        monkeypatch.setattr(clauses, "LAYERED_ROWS", 0)
        assert layers == clauses.count_clauses(problem, Deadline(None, "clauses"))[0] == 17_317_232_640

    @pytest.mark.parametrize("params, subsample, want", [
        ({"k": 6, "m": 3, "seed": 0}, 0.1, 1_064_688),  # large: many free entries, counted by merging states
        ({"k": 8, "m": 6, "seed": 2}, 0.1, 7),
        ({"k": 12, "m": 3, "seed": 1}, 0.5, 491_520),
    ])
    @pytest.mark.slow  # a few seconds; the default tier keeps the cheaper checks
    def test_mnlogic_random_agrees_with_search(self, params, subsample, want, monkeypatch):
        from rscount.counters.boolean import clauses
        problem = rscount.make_problem("mnlogic-random", params={"l": 3, **params}, subsample=subsample)
        assert rscount.count_problem(problem, "clauses").count == want
        for switch in ("FEW_STATES", "LAYERED_ROWS"):  # layers alone, then depth first alone
            with monkeypatch.context() as patch:
                patch.setattr(clauses, switch, 0)
                assert clauses.count_clauses(problem, Deadline(None, "clauses"))[0] == want
        if params["k"] <= 6:
            assert rscount.count_problem(problem, "search").count == want

    def test_does_not_apply(self):
        from rscount.counters.boolean.clauses import applies
        sample = {"subsample": 0.5}
        assert not applies(rscount.make_problem("mnlogic-random", map_class="shared", **sample))
        assert not applies(rscount.make_problem("mnlogic-random", supervise=["c1"], **sample))
        assert not applies(rscount.make_problem("xor3", **sample))  # not a CNF
        assert not applies(rscount.make_problem("mnadd", **sample))  # not boolean
        with pytest.raises(rscount.BackendError, match="^clauses counts knowledge that is one CNF"):
            rscount.count_problem(rscount.make_problem("xor3", **sample), "clauses")

    def test_timeout_and_state_limit(self, monkeypatch):
        from rscount.counters.boolean import clauses
        problem = rscount.make_problem("mnlogic-random", params={"k": 12, "m": 6, "l": 3}, subsample=0.5)
        with pytest.raises(rscount.CountTimeout, match="^clauses timed out"):
            rscount.count_problem(problem, "clauses", timeout=0.5)
        monkeypatch.setattr(clauses, "MAX_STATES", 1000)
        with pytest.raises(rscount.BackendError, match=r"^clauses: over 1000 partial maps held at once \(2048 rows each\)"):
            rscount.count_problem(problem, "clauses")

    @pytest.mark.slow
    def test_a_give_up_in_the_quick_try_leaves_the_race_to_ganak(self, monkeypatch):
        """The in-process try once let the state cap end the whole count instead of racing Ganak."""
        from rscount.counters.boolean import clauses
        problem = rscount.make_problem("mnlogic-random", params={"k": 8, "m": 6, "l": 3}, subsample=0.5)
        want = rscount.count_problem(problem, "ganak").count
        monkeypatch.setattr(clauses, "MAX_STATES", 50)
        result = rscount.count_problem(problem)
        assert (result.count, result.backend) == (want, "ganak")
        assert "clauses gave up (clauses: over 50 partial maps" in result.notes[0]
