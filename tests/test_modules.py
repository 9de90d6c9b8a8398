"""The modules counter (source splits pruned top-down, class vectors joined) against brute force and Ganak."""

import pytest
from contract import matches_bruteforce

import rscount
from rscount.counters.base import Deadline


class TestModules:
    """Complete maps of knowledge read through modules: source splits pruned, survivors counted exactly."""

    @pytest.mark.parametrize("twins", [pytest.param(False, marks=pytest.mark.slow), True])
    def test_matches_bruteforce(self, twins):
        """Random modular tasks; ``twins`` have sibling modules the knowledge can swap (counted once per orbit)."""
        from randomtasks import random_modular_problem

        from rscount.counters.modules.prune import _tree, _walk, applies
        met = swapped = 0
        for seed in range(80 if twins else 100):
            for cls in ("permutation",) if twins else ("complete", "permutation"):
                problem = random_modular_problem(seed, cls, twins)
                if applies(problem):
                    met += 1
                    swapped += any(len(f) > 1 for m in _walk(_tree(problem.task)[1]) for f in m.families)
                    matches_bruteforce("modules", problem)
        assert met >= 40 if twins else met >= 100
        assert swapped >= 30 if twins else True

    @pytest.mark.slow
    def test_joins_match_ganak_on_module_trees(self):
        """Class vectors joined up two-level trees (the Kand-Logic shape) against the same splits counted by
        Ganak (the one-level random modular tasks above are checked against brute force)."""
        from randomtasks import random_module_tree_problem

        from rscount.counters.modules.prune import _tree, applies, count_modules, joinable
        checked = deep = 0
        for seed in range(40):
            problem = random_module_tree_problem(seed)
            if not applies(problem) or not joinable(_tree(problem.task)[1], problem.task.sizes):
                continue
            got = count_modules(problem, Deadline(None, "modules"))[0]
            try:
                want = count_modules(problem, Deadline(1, "modules"), join=False)[0]
            except rscount.CountTimeout:  # too many splits for Ganak one by one
                continue
            assert got == want, ([label.text for label in problem.task.labels], problem.describe())
            checked += 1
            deep += any(c.children for c in _tree(problem.task)[1].children)
        assert checked >= 25 and deep >= 15, (checked, deep)

    @pytest.mark.parametrize("seed", range(30))
    def test_disentangled_joins_match_ganak(self, seed):
        from randomtasks import random_module_tree_problem
        problem = random_module_tree_problem(seed, "disentangled")
        if rscount.get_counter("modules").applies(problem):
            got = rscount.count_problem(problem, "modules")
            assert got.count == rscount.count_problem(problem, "ganak").count and got.exact

    def test_too_wide_joins_fall_back_to_ganak(self, monkeypatch):
        """Where the labels prune little below the top (XOR-like labels), a join keeps too many pairs; the
        splits are then counted by Ganak (forced here with a tiny cap)."""
        from rscount.counters.modules import join as modjoin
        monkeypatch.setattr(modjoin, "MAX_PAIRS", 0)
        problem = rscount.make_problem("kand-logic", params={"figures": 2, "primitives": 2}, support="by-label:200")
        got = rscount.count_problem(problem, "modules")
        assert got.count == 165888 and any("so not joined" in n and "by Ganak" in n for n in got.notes)

    def test_kand_logic_tree(self):
        from rscount.counters.modules.prune import _show, _splits, _tree
        task = rscount.resolve_task("kand-logic")
        _, top = _tree(task)
        assert _show(top, task) == ("(({sha1_1, sha1_2, sha1_3} + {sha2_1, sha2_2, sha2_3}) [2 classes] + "
                                    "({col1_1, col1_2, col1_3} + {col2_1, col2_2, col2_3}) [2 classes]) [2 classes]")
        assert [m.families for m in (top, *top.children)] == [((0, 1),)] * 3
        assert _splits(top) == 12 * 11 * 10 * 9 * 8 * 7 * 6 * 5 * 4 * 3 * 2 // (6 ** 4 * 8)

    @pytest.mark.slow
    def test_small_kand_logic_matches_search(self):
        problem = rscount.make_problem("kand-logic", params={"figures": 2, "primitives": 2}, support="by-label:200")
        got = rscount.count_problem(problem, "modules")
        assert got.count == rscount.count_problem(problem, "search").count == 165888

    @pytest.mark.slow
    def test_kand_logic_by_label_1000(self):
        """No method counted this before. With 1,000 vectors one split of the sources survives (the true one),
        and it keeps exactly the maps that are optimal on every concept vector."""
        r = rscount.count("kand-logic", support="by-label:1000")
        assert r.backend == "modules" and r.exact
        assert r.count == rscount.count("kand-logic", support="exhaustive").count == 13436928
        assert any("462 top splits tested, 1 counted by joining" in n for n in r.notes)

    @pytest.mark.slow
    def test_a_time_out_stays_a_time_out(self):
        problem = rscount.make_problem("kand-logic", support="by-label:100")
        with pytest.raises(rscount.CountTimeout, match="^modules timed out"):
            rscount.count_problem(problem, "modules", timeout=2)

    def test_kand_logic_disentangled(self, patient_quick_tries):
        r = rscount.count("kand-logic", support="by-label:100", map_class="disentangled")
        assert r.backend == "modules" and r.count == 1296
        assert "in this process" in r.notes[0]  # one join along the identity: no fork, no race
        assert rscount.count("kand-logic", support="by-label:100", map_class="disentangled", backend="ganak").count == 1296

    def test_sdd_oia_disentangled_part_is_joined_in_process(self):
        """SDD-OIA's stop/forward part reads its obstacles and lights through modules; the turn parts' projections
        hold all 64 vectors of their concepts, so they are counted as exhaustive."""
        problem = rscount.make_problem("sdd-oia", support="by-label:1000", map_class="disentangled")
        r = rscount.count_problem(problem)
        assert r.backend.startswith("split(") and r.count == rscount.count_problem(problem, "ganak").count
        parts = rscount.problems.split.split_problem(problem)
        joined = rscount.count_problem(parts[0], "modules")
        assert "class vectors joined" in joined.notes[0]
        assert joined.count == rscount.count_problem(parts[0], "ganak").count
        assert "every vector" in str(parts[1].support.kind)

    def test_does_not_apply(self):
        from rscount.counters.modules.prune import applies
        kand = "kand-logic"
        assert not applies(rscount.make_problem(kand, support="by-label:100", map_class="shared"))
        assert not applies(rscount.make_problem(kand, support="by-label:100", supervise=["col1_1"]))
        assert not applies(rscount.make_problem("xor4", support="exhaustive"))  # one block: nothing to split
