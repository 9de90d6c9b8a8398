"""ConCon's confounded supports, checked row by row against the strict / disjoint definitions (Busch et al.,
Eq. 1-2), and its logic as counts: with the rule fixed (concept maps) and with the rule learned (rules)."""
from __future__ import annotations

import numpy as np
import pytest

import rscount
from rscount.errors import RscountError
from rscount.rules.dnf import hypotheses, rule_sequence
from rscount.model.support import grid
from rscount.tasks.concon import scene_predicates, setting

G = [(("shape", "sphere"),), (("shape", "cube"), ("size", "small"))]
ANY_CONFOUNDER = [[(("color", "blue"),)], [(("material", "metal"),)], [(("size", "large"),)]]


def _attrs(task):
    return {a: list(task.concept(f"{a}1").domain) for a in ("shape", "color", "size", "material")}


@pytest.mark.parametrize("mode", ["strict", "disjoint"])
@pytest.mark.parametrize("objects, colors", [(2, 2), (2, 3), (3, 2)])
def test_support_is_exactly_the_definition(mode, objects, colors):
    base = setting()
    tasks = [rscount.get_task(f"concon-t{t}", mode=mode, objects=objects, colors=colors) for t in (1, 2, 3)]
    attrs = _attrs(tasks[0])
    space = grid(tasks[0].sizes)
    g, cs = scene_predicates(space, attrs, objects, base["rule"], base["confounders"])
    for t, task in enumerate(tasks):
        others = np.logical_and.reduce([~c for i, c in enumerate(cs) if i != t])
        if mode == "strict":  # Eq. 1: p_t = g & c_t, n_t = ~(g | c_t)
            pos, neg = g & cs[t], ~(g | cs[t])
        else:  # Eq. 2: p_t = g & c_t & AND_{i != t} ~c_i, n_t = ~(g | OR_i c_i)
            pos, neg = g & cs[t] & others, ~(g | np.logical_or.reduce(cs))
        want = {tuple(r) for r in space[pos | neg].tolist()}
        rows = {tuple(r) for r in task.default_support}
        assert rows == want
        labels = task.evaluate(np.array(sorted(rows)))[:, 0]
        truth = {tuple(r): bool(x) for r, x in zip(space.tolist(), g)}
        assert [bool(x) for x in labels] == [truth[r] for r in sorted(rows)]  # labelled by g


def test_default_is_concon_setting_sampled():
    task = rscount.get_task("concon-t1")
    assert task.k == 16 and task.sizes[:4] == (3, 8, 2, 2)
    rows = np.array(task.default_support)
    y = task.evaluate(rows)[:, 0]
    assert 900 < y.sum() <= 1000 and 900 < (1 - y).sum() <= 1000  # about 1000 each, duplicates merged
    assert "seeded sample" in task.notes[0]


def _rules(mode, h_kw, **params):
    problems = [rscount.make_problem(rscount.get_task(f"concon-t{t}", mode=mode, **params)) for t in (1, 2, 3)]
    h = hypotheses(problems[0].task, **h_kw)
    return rule_sequence(problems, h, grid(problems[0].task.sizes), {"g": [G], "any confounder": ANY_CONFOUNDER})


def test_disjoint_admits_the_disjunction_of_confounders_and_strict_does_not():
    disjoint = _rules("disjoint", dict(terms=3, literals=1), objects=2, colors=2)
    strict = _rules("strict", dict(terms=3, literals=1), objects=2, colors=2)
    assert disjoint["joint"].has["any confounder"] and disjoint["joint"].rules >= 1
    assert not strict["joint"].has["any confounder"]
    assert strict["joint"].has["g"] and disjoint["joint"].has["g"]


def test_strict_with_exhaustive_exclusive_confounders_admits_only_g():
    # one object: "some small object" and "some large object" are exhaustive and mutually exclusive
    rule, confs = [{"shape": "sphere"}], [{"size": "small"}, {"size": "large"}]
    problems = [rscount.make_problem(rscount.get_task(f"concon-t{t}", mode="strict", objects=1, colors=2, rule=rule,
                                                      confounders=confs)) for t in (1, 2)]
    h = hypotheses(problems[0].task, terms=2, literals=1, values=2)
    space = grid(problems[0].task.sizes)
    found = rule_sequence(problems, h, space, {"g": [[(("shape", "sphere"),)]]})
    assert found["joint"].behaviours == 1 and found["joint"].has["g"]
    assert all(r.behaviours > 1 for r in found["per_task"])  # each task alone is confounded


def test_rule_counts_match_brute_force():
    """Every DNF of the class, written out and checked on the data, against count_rules."""
    import itertools
    problems = [rscount.make_problem(rscount.get_task(f"concon-t{t}", mode="disjoint", objects=2, colors=2))
                for t in (1, 2)]
    h = hypotheses(problems[0].task, terms=2, literals=1, values=1)
    truth = h.truth(np.concatenate([p.support.vectors for p in problems]))
    y = np.concatenate([p.labels[:, 0] for p in problems]).astype(bool)
    fits = 0
    for r in (1, 2):
        for combo in itertools.combinations(range(len(h.terms)), r):
            fits += bool((np.logical_or.reduce(truth[list(combo)], axis=0) == y).all())
    assert rule_sequence(problems, h)["joint"].rules == fits


def test_concept_counts_strict_pins_what_g_reads():
    """With g fixed (a NeSy model given the rule), the strict joint support leaves only the value maps of the
    attributes g does not read (colours, materials) free; the disjoint one does not pin shape and size."""
    kw = dict(objects=2, colors=2)
    strict = rscount.count([rscount.get_task(f"concon-t{t}", mode="strict", **kw) for t in (1, 2, 3)],
                           map_class="disentangled")
    disjoint = rscount.count([rscount.get_task(f"concon-t{t}", mode="disjoint", **kw) for t in (1, 2, 3)],
                             map_class="disentangled")
    free = (2 ** 2) ** 2 * (2 ** 2) ** 2  # colour and material value maps of two objects
    assert strict.count == free and disjoint.count > free
    assert list(strict.cumulative) == sorted(strict.cumulative, reverse=True)


@pytest.mark.parametrize("params, fragment", [
    ({"mode": "loose"}, "must be one of strict, disjoint"),
    ({"objects": 1}, "the rule needs 2 distinct objects"),
    ({"shapes": 1}, "leaves out"),
    ({"colours": 2}, "has no parameter 'colours'"),
])
def test_bad_parameters(params, fragment):
    with pytest.raises(RscountError, match=fragment):
        rscount.get_task("concon-t1", **params)
