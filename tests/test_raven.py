"""RAVEN: the knowledge against an independent reading of the four rules and the model's scoring, on random
panels; the support as rsbench's Phase 1 draws it; counts of small instances agreeing across counters."""
from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

import rscount
from rscount.errors import TaskError


def _follows(rule: str, row) -> bool:
    """The four rules, written again from their definitions (not from the task's module)."""
    x, y, z = row
    return {"constant": x == y and y == z,
            "progression": (x + 1, x + 2) == (y, z) or (x - 1, x - 2) == (y, z),
            "arithmetic": z in (x + y, x - y),
            "distribute_three": sorted(row) == sorted(set(row)) and len(set(row)) == 3}[rule]


RULES = {"type": ("constant", "progression", "distribute_three"),
         "size": ("constant", "progression", "arithmetic", "distribute_three"),
         "color": ("constant", "progression", "arithmetic", "distribute_three")}


def _answer(panels: list, attrs: list, candidates: int) -> int:
    """The model's answer: per candidate the product over attributes of the rules all three rows follow; the
    first candidate of the highest product."""
    scores = []
    for c in range(candidates):
        score = 1
        for a in attrs:
            rows = [[panels[p][a] for p in (0, 1, 2)], [panels[p][a] for p in (3, 4, 5)],
                    [panels[6][a], panels[7][a], panels[8 + c][a]]]
            score *= sum(all(_follows(r, row) for row in rows) for r in RULES[a])
        scores.append(score)
    return scores.index(max(scores))


@pytest.mark.parametrize("params", [{}, {"candidates": 3, "attributes": "size,color"},
                                    {"candidates": 2, "attributes": "type,size", "values": 2}])
def test_knowledge_matches_an_independent_reading_on_random_panels(params):
    task = rscount.get_task("raven", samples=20, **params)
    attrs = [a for a in ("type", "size", "color") if a in params.get("attributes", "type,size,color")]
    k, d = params.get("candidates", 8), params.get("values", 3)
    rng = random.Random(7)
    vectors = [[rng.randrange(d) for _ in task.concepts] for _ in range(3000)]
    vectors += [list(v) for v in task.default_support]
    got = task.evaluate(np.array(vectors)).ravel().tolist()
    for v, label in zip(vectors, got):
        panels = [{a: v[p * len(attrs) + i] for i, a in enumerate(attrs)} for p in range(8 + k)]
        assert label == _answer(panels, attrs, k), v


def test_support_is_drawn_as_rsbench_phase_one():
    task = rscount.get_task("raven", samples=200, seed=3)
    attrs = ["type", "size", "color"]
    assert len(task.default_support) > 150
    for v in task.default_support:
        panels = [{a: v[p * 3 + i] for i, a in enumerate(attrs)} for p in range(16)]
        rows = {a: [[panels[p][a] for p in range(3 * r, 3 * r + 3)] for r in range(2)] for a in attrs}
        varying = [a for a in attrs if not all(_follows("constant", row) for row in rows[a])]
        assert len(varying) <= 1  # one attribute varies (a Distribute/Progression row is never constant)
        for a in attrs:
            assert any(all(_follows(r, row) for row in rows[a]) for r in RULES[a])
    assert rscount.get_task("raven", samples=50, seed=3).default_support == \
        rscount.get_task("raven", samples=50, seed=3).default_support


def test_small_instances_count_alike_across_counters():
    task = rscount.get_task("raven", candidates=2, attributes="size", samples=40)
    shared = {rscount.count(task, map_class="shared", backend=b).count for b in ("valuemaps", "bruteforce", "ganak")}
    assert len(shared) == 1
    dis = {rscount.count(task, map_class="disentangled", backend=b).count for b in ("modules", "ganak")}
    assert len(dis) == 1 and dis <= {rscount.count(task, map_class="disentangled").count}


@pytest.mark.parametrize("params, fragment", [({"candidates": 9}, "candidates=9"), ({"attributes": "shape"}, "names"),
                                              ({"values": 4}, "values=4"), ({"nope": 1}, "no parameter")])
def test_bad_parameters_are_refused(params, fragment):
    with pytest.raises(TaskError, match=fragment):
        rscount.get_task("raven", **params)


def test_cli_counts_a_small_raven(capsys):
    from rscount.cli import main
    assert main(["--task", "raven", "--param", "candidates=2", "--param", "attributes=size", "--param", "samples=30",
                 "--map-class", "shared"]) == 0
    assert "optimal maps" in capsys.readouterr().out


def test_every_rule_has_rows():
    for rule in ("constant", "progression", "arithmetic", "distribute_three"):
        assert any(_follows(rule, row) for row in itertools.product(range(3), repeat=3))


@pytest.mark.slow
def test_the_whole_task_is_bounded_where_no_counter_reaches_complete(capsys):
    """RAVEN under complete (35 million clauses): --exact says why and points to --approx, which bounds the count
    by the 216 disentangled maps and the class's size; the audit says which class it can audit instead."""
    from rscount.cli import main
    from rscount.counters.generic.bruteforce import number_of_candidates
    assert main(["--task", "raven", "--map-class", "complete", "--exact", "--timeout", "60"]) != 0
    err = capsys.readouterr().err.strip()
    assert "35 million clauses" in err and err.endswith("--approx gives guaranteed bounds instead")
    assert "\n" not in err and err.count("35 million") == 1  # sdd and ganak said one reason: said once
    r = rscount.count_problem(rscount.make_problem("raven", map_class="complete"), approx=True, timeout=60)
    assert (r.lower, r.upper, r.delta) == (216, number_of_candidates(rscount.make_problem("raven")), 0.0)
    assert r.backend.startswith("class-bounds(disentangled") and r.plan.steps[-1].kind == "bounds"
    assert main(["audit", "--task", "raven", "--map-class", "complete", "--timeout", "60"]) != 0
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "--map-class disentangled audits" in err and "--approx bounds" in err
