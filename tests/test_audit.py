"""The audit against brute force: the relation and its map counts, fixed values, fixes and their counts."""
from __future__ import annotations

import dataclasses
import itertools
import json
import time

import numpy as np
import pytest
from randomtasks import confounded, random_problem
from tiers import tiered

import rscount
import rscount.language.logic
from rscount.auditing import audit, audit_problem, compare, confusion, data_curve
from rscount.auditing.fixes import NARROWER, class_counts, data_fix, label_subsets
from rscount.auditing.supervision import _implicit, _items, item_text, supervision_fix, with_items
from rscount.auditing.maps import identity, list_maps
from rscount.cli import main
from rscount.counters.generic.bruteforce import _rows, candidates, label_table, optimal
from rscount.model.support import Support
from rscount.problems.problem import for_class
from rscount.results.count import ConceptMap

CLASSES = ["complete", "permutation", "disentangled", "shared", "free"]


def brute_maps(problem) -> list:
    """Every optimal map of a small problem, straight from the definitions."""
    task = problem.task
    table, rows = label_table(task), _rows(problem)
    return [a for a in candidates(problem) if optimal(a, rows, table, task.k)]


def brute_relation(problem) -> list:
    """Per concept, {(true, predicted): number of optimal maps realising it on some support row}."""
    k, rows = problem.task.k, _rows(problem)
    out = [dict() for _ in range(k)]
    for a in brute_maps(problem):
        pairs = set()
        for g, *_ in rows:
            pred = [None] * k
            for j, u in enumerate(g):
                i, v = a[j][u]
                pred[i] = v
            pairs |= {(j, g[j], pred[j]) for j in range(k)}
        for j, v, u in pairs:
            out[j][(v, u)] = out[j].get((v, u), 0) + 1
    return out


def brute_joint_relation(problem) -> list:
    task, k = problem.task, problem.task.k
    table, rows = label_table(task), _rows(problem)
    space = list(table)
    out = [dict() for _ in range(k)]
    for images in itertools.product(range(len(space)), repeat=len(space)):
        alpha = {space[a]: space[b] for a, b in enumerate(images)}
        if all(table[alpha[g]] == y and all(alpha[g][i] == g[i] for i in sup) for g, y, sup, _ in rows):
            for j, v, u in {(j, g[j], alpha[g][j]) for g, *_ in rows for j in range(k)}:
                out[j][(v, u)] = out[j].get((v, u), 0) + 1
    return out


def got_relation(rel) -> list:
    return [{(v, u): c.weight(v, u) for v in range(len(c.values)) for u in range(len(c.values)) if c.possible[v, u]}
            for c in rel.concepts]


def check_relation(problem, limit: int) -> None:
    result = rscount.count_problem(problem)
    rel = confusion(problem, result, limit=limit, seconds=None)
    expected = brute_joint_relation(problem) if problem.map_class == "joint" else brute_relation(problem)
    assert rel.complete
    if not rel.weighted:
        expected = [{pair: None for pair in w} for w in expected]
    assert got_relation(rel) == expected, rel.method
    for c, w in zip(rel.concepts, expected):
        assert c.identifiable == all(v == u for v, u in w)
        for v in range(len(c.values)):
            assert c.fixed(v) == ({p for p in w if p[0] == v} == {(v, v)})


@pytest.mark.parametrize("map_class", CLASSES + ["joint"])
@pytest.mark.parametrize("seed", range(8))
def test_relation_from_listed_maps_matches_brute_force(map_class, seed):
    check_relation(random_problem(seed, map_class), limit=50_000)


@pytest.mark.parametrize("seed", tiered(range(8), 3))
def test_joint_cells_past_the_exact_limit_are_the_brute_force_counts_to_four_digits(seed, monkeypatch):
    """Past JOINT_WEIGHT_BITS the joint cells are kept as log10 (the exact ones would have millions of digits):
    on small random tasks with the limit lowered, each is log10 of the brute-force count, and shows the same."""
    import math

    import rscount.auditing.relation as relation
    from rscount.auditing.cells import cell_text, shares_of
    from rscount.results.count import compact_count
    problem = random_problem(seed, "joint")
    result = rscount.count_problem(problem)
    expected = brute_joint_relation(problem)
    monkeypatch.setattr(relation, "JOINT_WEIGHT_BITS", 0)
    rel = confusion(problem, result, limit=50_000, seconds=None)
    assert rel.rounded and not rel.weighted and rel.complete
    for c, want in zip(rel.concepts, expected):
        assert {(v, u) for v, u in zip(*np.nonzero(c.possible))} == set(want)
        shares = shares_of(c, result.count)
        for (v, u), n in want.items():
            assert c.log10_weights[v, u] == pytest.approx(math.log10(n), abs=1e-9)
            assert shares[v, u] == pytest.approx(n / result.count, rel=1e-9)
            if n < 10 ** 6 or str(n)[4:8] not in ("9999", "0000"):  # not a hair from the next fourth digit
                assert cell_text(c, v, u) == compact_count(n)


@pytest.mark.parametrize("map_class", CLASSES)
@pytest.mark.parametrize("seed", tiered(range(8, 14), 2))
def test_relation_through_the_cnf_matches_brute_force(map_class, seed, monkeypatch):
    """limit=0 lists no map: existence by SAT per pair, weights by Ganak under unit assumptions (free maps too:
    not by the vector join, tested in test_vectors.py)."""
    import rscount.auditing.relation as relation
    monkeypatch.setattr(relation, "_by_vectors", lambda problem, seconds: None)
    check_relation(random_problem(seed, map_class), limit=0)


@pytest.mark.slow
@pytest.mark.parametrize("map_class", CLASSES + ["joint"])
@pytest.mark.parametrize("seed", range(14, 74))
def test_relation_many_random_problems(map_class, seed):
    problem = random_problem(seed, map_class)
    check_relation(problem, limit=50_000)
    if map_class != "joint":
        check_relation(problem, limit=0)


def brute_count(problem) -> int:
    """Brute force's count, or Ganak's where the class is too large to walk (free maps of 8 value bits)."""
    from rscount.counters.generic.bruteforce import LIMIT, number_of_candidates
    return rscount.count_problem(problem, "bruteforce" if number_of_candidates(problem) <= LIMIT else "ganak").count


def check_supervision(problem, fix, items) -> None:
    """The reported count is the brute-force count; a minimal set has no smaller set reaching its count (1, or the
    least any supervision leaves when some shortcuts agree with the intended map wherever supervision sees)."""
    chosen = [it for it in items if item_text(problem.task, it) in fix.items]
    assert len(chosen) == len(fix.items)
    assert brute_count(with_items(problem, chosen)) == fix.count
    assert fix.reaches_one == (fix.count == 1)
    if fix.minimal:
        assert brute_count(with_items(problem, items)) == fix.count
        for smaller in itertools.combinations(items, len(chosen) - 1) if chosen else ():
            assert brute_count(with_items(problem, smaller)) > fix.count


@pytest.mark.parametrize("map_class", CLASSES)
@pytest.mark.parametrize("seed", tiered(range(10), 2))
@pytest.mark.parametrize("by", ["value", "concept"])
def test_supervision_fix_is_minimal_and_counted(map_class, seed, by):
    problem = random_problem(seed, map_class)
    result = rscount.count_problem(problem)
    maps = list_maps(problem, result, 50_000, None)
    fix = supervision_fix(problem, result.count, maps, by=by, seconds=None)
    items = _items(problem, by)
    check_supervision(problem, fix, items)
    # without the listed maps: the implicit hitting set loop must reach the same size
    loop = supervision_fix(problem, result.count, None, by=by, seconds=None)
    check_supervision(problem, loop, items)
    if fix.minimal and loop.minimal:
        assert len(loop.items) == len(fix.items)
    if fix.count > 1:  # shortcuts no supervision removes: every item set leaves them
        assert brute_count(with_items(problem, items)) == fix.count


@pytest.mark.parametrize("map_class", ["complete", "disentangled", "shared"])
@pytest.mark.parametrize("seed", range(10))
def test_data_fix_counts_are_real(map_class, seed):
    problem = random_problem(seed, map_class)
    if problem.support.exhaustive:
        problem = dataclasses.replace(problem, support=Support(problem.support.vectors[:1], "one vector"),
                                      supervision=dataclasses.replace(problem.supervision, vectors=frozenset()))
    result = rscount.count_problem(problem)
    for maps in (list_maps(problem, result, 50_000, None), None):
        fix = data_fix(problem, result.count, maps, seconds=None)
        rows = problem.support.vectors
        task = problem.task
        for vector, count in zip(fix.vectors, fix.counts):
            rows = np.vstack([rows, [[c.index(x) for c, x in zip(task.concepts, vector)]]])
            grown = dataclasses.replace(problem, support=Support(rows, "grown"))
            assert brute_count(grown) == count
        full = dataclasses.replace(problem, support=rscount.model.support.exhaustive(task))
        if not problem.supervision.vectors:
            assert fix.floor == brute_count(full)
        assert fix.reaches_one == (result.count == 1 or (bool(fix.counts) and fix.counts[-1] == 1))


@pytest.mark.parametrize("seed", tiered(range(24), 6))
def test_source_sets_a_vector_breaks_lose_all_their_maps(seed):
    """A source split lists every set it stands for once, with weights summing to its own, and those are the sets
    of sources on which the labels are a function of the rows; a vector outside the support that breaks sets
    removes at least their maps, and checking each set's listed maps on a vector gives the maps it removes (all of
    them where the support shows every value; brute force before and after adding it)."""
    from rscount.auditing.breaking import breaking_weights, killing_weights
    from rscount.auditing.bysources import counted_split
    from rscount.model.support import grid, label_ids, row_codes
    from rscount.problems.sources import source_split
    task, rows = confounded(seed, shapes=2 + seed % 2)
    problem = rscount.make_problem(task, map_class="complete", support=rows)
    split = source_split(problem)
    search = rscount.get_counter("search")
    total = search.count_sum(split, rscount.counters.Options())[0]
    counts = search.rectangle_counts(split, rscount.counters.Options())[0]
    assert total == brute_count(problem)
    assert [sum(w for _, w, _, _ in m) for m in split.members] == list(split.weights)
    assert sum(c * w for c, m in zip(counts, split.members) for _, w, _, _ in m) == total
    G, codes = problem.support.vectors, label_ids(problem.labels)[0]

    def function_of(R):
        c = row_codes(G[:, list(R)], [task.sizes[i] for i in R])
        return all(len(set(codes[c == v].tolist())) == 1 for v in set(c.tolist()))
    assert sorted(S for m in split.members for S, _, _, _ in m) == [
        R for R in itertools.combinations(range(task.k), len(task.read)) if function_of(R)]
    have = {tuple(r) for r in G.tolist()}
    outside = np.array([r for r in grid(task.sizes).tolist() if tuple(r) not in have]).reshape(-1, task.k)
    weights = breaking_weights(problem, counted_split(problem), outside, task.evaluate(outside))
    assert weights is not None and len(weights) == len(outside)
    exact = killing_weights(problem, counted_split(problem), outside, task.evaluate(outside))  # the count's drop
    assert exact is not None and (exact >= weights * (1 - 1e-9)).all()
    for x in sorted(set(np.flatnonzero(weights)[:3].tolist()) | set(range(min(3, len(outside))))):
        grown = dataclasses.replace(problem, support=Support(np.vstack([G, outside[x:x + 1]]), "grown"))
        drop = total - brute_count(grown)
        assert drop >= max(weights[x], exact[x]) * (1 - 1e-9)
        if all(len(set(G[:, i].tolist())) == d for i, d in enumerate(task.sizes)):  # no value left unshown
            assert abs(drop - exact[x]) <= 1e-9 * max(drop, 1)


@pytest.mark.slow  # 10-15 s: the default tier stays under three minutes
def test_data_fix_breaks_source_sets():
    """ConCon task 3 alone at 2 objects: data lowers the count to the exhaustive support's (12,042,240 -> 24,576)
    by breaking the source sets a colour or a size may stand in for, then removing maps within the sets left
    (each set's maps listed and checked), each count real (Ganak)."""
    problem = rscount.make_problem("concon-t3", params={"objects": 2, "colors": 2}, map_class="complete")
    result = rscount.count_problem(problem)
    fix = data_fix(problem, result.count, None, seconds=None)
    assert fix.floor == 24576 and fix.counts[-1] == fix.floor < result.count
    assert list(fix.counts) == sorted(fix.counts, reverse=True) and len(set(fix.counts)) == len(fix.counts)
    rows, task = problem.support.vectors, problem.task
    for vector, count in zip(fix.vectors, fix.counts):
        rows = np.vstack([rows, [[c.index(x) for c, x in zip(task.concepts, vector)]]])
        grown = dataclasses.replace(problem, support=Support(rows, "grown"))
        assert rscount.count_problem(grown, "ganak").count == count


RELATION_SEEDS = [0, 5, 6, 9, 14, 18]  # several orbits or tables among them; the rest of range(30) run slow


@pytest.mark.parametrize("map_class, seed", [("complete", s) for s in RELATION_SEEDS] + [
    ("free", 22), ("free", 1)] + [pytest.param("complete", s, marks=pytest.mark.slow)
                                  for s in range(30) if s not in RELATION_SEEDS] + [
    pytest.param("free", s, marks=pytest.mark.slow) for s in (0, 3, 11, 13, 17, 25)])
def test_relation_summed_over_source_sets_matches_an_oracle(map_class, seed):
    """The confusion weights summed over the source sets (each orbit's read-concept maps listed once and carried to
    its other sets, the unread concepts' value maps in closed form) are the tallies of every optimal map listed;
    free maps too where they keep concepts together and every value shows (then they are complete maps)."""
    from rscount.auditing.bysources import weights_by_sources
    from rscount.auditing.relation import _tally
    task, rows = confounded(seed, shapes=2 + seed % 2, colours=2)
    problem = rscount.make_problem(task, map_class=map_class, support=rows)
    result = rscount.count_problem(problem)
    got = weights_by_sources(problem, result.count)
    assert got is not None and got[1] >= 1
    want = _tally(problem, list_maps(problem, result, 100_000, None))
    for w, c in zip(got[0], want):
        assert (w == c.weights).all(), c.name
    via = confusion(problem, result, limit=1, seconds=None)  # past the listing limit: the sums (free: join first)
    assert via.weighted and (map_class == "free" or via.method.startswith("summed over")) and all(
        (w == c.weights).all() for w, c in zip(got[0], via.concepts))


def test_xor_on_the_exhaustive_support_no_data_helps():
    a = audit("xor3")
    assert a.count == 24 and a.data.floor == 24 and not a.data.reaches_one and a.data.vectors == ()
    assert "already holds every concept vector" in a.data.note


def test_xor_one_example_data_reaches_the_floor():
    p = rscount.make_problem("xor3", support="1,1,1")
    a = audit(p)
    assert a.count == 192  # TASKS.md: xor3 on one example
    assert a.data.floor == 24 and a.data.counts[-1] == 24 and not a.data.reaches_one
    assert "no data can reach 1" in a.data.note


def test_mnadd_half_published_identifiability():
    """TASKS.md: digits 0 and 1 are identifiable, 2, 3, 4 are not."""
    a = audit("mnadd-half", map_class="shared")
    d1 = a.relation.concepts[0]
    assert [d1.fixed(v) for v in range(5)] == [True, True, False, False, False]
    assert a.supervise_values.count == 1 and a.supervise_values.minimal and len(a.supervise_values.items) == 1


def test_class_and_label_counts():
    classes = class_counts(rscount.make_problem("mnadd-half"), 10.0)
    for cls in rscount.MAP_CLASSES:
        assert classes[cls][0] == rscount.count("mnadd-half", map_class=cls).count
    p = rscount.make_problem("mnmath")
    subsets = label_subsets(p, None)
    assert [s[0] for s in subsets] == [("y1",), ("y2",)]
    for labels, count, _, _ in subsets:
        task = rscount.get_task("mnmath")
        sub = dataclasses.replace(task, labels=tuple(lab for lab in task.labels if lab.name in labels))
        assert count == rscount.count(sub).count


@pytest.mark.parametrize("map_class", ["free", "complete", "disentangled"])
@pytest.mark.parametrize("seed", tiered(range(40), 12))
def test_narrower_classes_from_listed_maps_are_their_brute_force_counts(map_class, seed):
    """With every optimal map listed, the class table counts each narrower class by filtering the list: the same
    numbers as counting that class from scratch."""
    problem = random_problem(seed, map_class)
    result = rscount.count_problem(problem, "bruteforce")
    task = problem.task
    maps = [ConceptMap(a, tuple(c.name for c in task.concepts), tuple(c.domain for c in task.concepts)) for a in brute_maps(problem)]
    assert len(maps) == result.count
    table = class_counts(problem, None, known=result, maps=maps)
    for cls in NARROWER[map_class]:
        direct = brute_count(dataclasses.replace(problem, map_class=cls, task=for_class(problem.task, cls)))
        assert table[cls][:2] == (direct, True), cls


@pytest.mark.slow  # 10-15 s: the default tier stays under three minutes
def test_raven_class_table_counts_shared_from_the_disentangled_maps():
    """RAVEN under disentangled: its 216 listed maps give shared's 6 without counting shared again."""
    problem = rscount.make_problem("raven", map_class="disentangled")
    result = rscount.count_problem(problem)
    table = class_counts(problem, 1.0, known=result, maps=list_maps(problem, result, 1000, None))
    assert table["disentangled"][0] == 216 and table["shared"][:2] == (6, True)


@pytest.mark.slow
def test_split_problem_relation_scales_by_the_other_parts():
    """SDD-OIA splits into three parts: each part's weights times the others' counts, and fixes per part."""
    a = audit("sdd-oia", map_class="disentangled")
    assert a.count == 4 and a.relation.weighted and a.relation.complete
    assert a.supervise_values.minimal and a.supervise_values.count == 1
    for c in a.relation.concepts:
        assert c.possible.any() and c.weights[c.possible].max() <= 4


def test_json_keys():
    data = audit("mnadd-evenodd", map_class="shared").to_dict()
    assert {"count", "exact", "map_class", "concepts", "fix", "classes"} <= set(data)
    assert {"supervise_values", "supervise_values_minimal", "supervise_concepts", "supervise_concepts_minimal",
            "add_vectors", "add_vectors_reaches_one"} <= set(data["fix"])
    value = data["concepts"][0]["values"][0]
    assert value["value"] == "0" and set(value) >= {"value", "fixed", "predicted"}
    assert all(isinstance(n, int) for n in value["predicted"].values())
    json.dumps(data)


def test_html_and_plot(tmp_path):
    pytest.importorskip("matplotlib")
    a = audit("mnadd-half", map_class="shared", curve=True, sizes=[1, 4, 25], seeds=[0, 1], workers=1)
    assert "<table class='relation'>" in a._repr_html_()
    path = tmp_path / "audit.png"
    a.plot(path)
    assert path.read_bytes()[:4] == b"\x89PNG"


def test_data_curve_counts_and_workers_agree():
    p = rscount.make_problem("mnadd-half", map_class="shared")
    one = data_curve(p, [1, 3, 25], [0, 1, 2], workers=1)
    two = data_curve(p, [1, 3, 25], [0, 1, 2], workers=2)
    assert one == two
    assert one.rows[-1][1] == (1, 1, 1)  # the whole space: shared mnadd-half on every vector has one map
    from rscount.auditing.curve import draw_support
    s = draw_support(p, 3, 1, "space")
    assert rscount.count_problem(dataclasses.replace(p, support=s)).count == one.rows[1][1][1]


def test_compare_two_designs():
    c = compare(["mnadd-evenodd", "mnadd-half"], map_class="shared")
    rows = c.rows()
    assert [r["count"] for r in rows] == [36, 3]
    assert "design 2: mnadd-half" in str(c)


def test_cli_audit_json_and_compare(capsys, tmp_path):
    assert main(["audit", "--task", "mnadd-half", "--map-class", "shared", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["count"] == 3 and data["fix"]["supervise_values_minimal"]
    assert main(["audit", "--task", "xor3", "--task", "and3", "--compare", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [d["count"] for d in data["designs"]] == [24, 6]


def test_cli_audit_bad_plot_path_is_refused_before_work(capsys, tmp_path):
    assert main(["audit", "--task", "xor3", "--plot", str(tmp_path / "missing" / "a.png")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["audit", "--task", "xor3", "--plot", str(tmp_path / "a.txt")]) == 2
    assert main(["audit", "--task", "xor3", "--plot", str(tmp_path)]) == 2
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("map_class", ["complete", "disentangled", "free"])
@pytest.mark.parametrize("seed", range(6))
def test_lazy_rows_decide_existence_like_brute_force(map_class, seed, monkeypatch):
    """Supports too large to encode are decided on a growing sample of rows: force that path on small ones."""
    import rscount.auditing.relation as relation
    monkeypatch.setattr(relation, "LAZY_ROWS", 0)
    monkeypatch.setattr(relation, "NARROWER", {})  # no witnesses from narrower classes: SAT decides every pair
    monkeypatch.setattr(relation, "_by_vectors", lambda problem, seconds: None)  # free: not by the join either
    monkeypatch.setattr(relation, "_by_sources", lambda problem, result, seconds: None)  # nor summed over sources
    problem = random_problem(seed, map_class)
    result = rscount.count_problem(problem)
    rel = confusion(problem, result, limit=0, seconds=None)
    expected = brute_relation(problem)
    assert rel.weighted == (result.count == 1)  # existence only, unless the identity is the only map
    got = [{pair for pair, _ in w.items()} for w in got_relation(rel)]
    undecided = [{(v, u) for v in range(len(c.values)) for u in range(len(c.values)) if c.undecided[v, u]}
                 for c in rel.concepts]
    for g, open_, w in zip(got, undecided, expected):
        assert g <= set(w) and set(w) <= g | open_
    if rel.complete:
        assert got == [set(w) for w in expected]


@pytest.mark.parametrize("seed", range(30))
def test_joint_digits_the_class_table_gives_are_the_counts(seed):
    """Past 512 concept vectors the class table gives the joint count as a power of ten: the same formula's
    log10 matches the exact closed-form count on small random tasks."""
    import math

    from rscount.counters.symmetry.closedform import joint_log10
    problem = dataclasses.replace(random_problem(seed, "joint"), supervision=rscount.Supervision())
    digits, exact = joint_log10(problem)
    assert exact and abs(digits - math.log10(rscount.count_problem(problem, "closed-form").count)) < 1e-6


def test_the_class_table_reuses_complete_for_permutation_and_free():
    a = audit("kand-logic", map_class="disentangled", timeout=None)  # counts, not whether they fit a loaded machine
    assert a.classes["complete"][0] == a.classes["permutation"][0] == a.classes["free"][0] == 13436928
    assert a.classes["joint"][0] is None and "about 10^2,914,532 maps" in a.classes["joint"][2]
    assert a.relation.weighted and a.supervise_values.minimal and a.supervise_values.count == 1


@pytest.mark.parametrize("cls", ["complete", "permutation", "disentangled"])
def test_relation_from_the_groups_orbits_is_the_tally_of_every_map(cls):
    """Where the optimal maps are a group's elements, the weights read off its orbits (no map listed) equal the
    tally over every listed map, on random exhaustive tasks."""
    from randomtasks import random_exhaustive_problem

    from rscount.auditing.relation import _by_orbits, _tally
    from rscount.auditing.maps import list_maps
    met = 0
    for seed in range(60):
        problem = random_exhaustive_problem(seed, cls)
        result = rscount.count_problem(problem)
        orbits = _by_orbits(problem, result, 30)
        if orbits is None:
            continue
        maps = list_maps(problem, result, 100_000, 60)
        tally = _tally(problem, maps)
        for mine, want in zip(orbits.concepts, tally):
            assert np.array_equal(mine.possible, want.possible), (seed, mine.name)
            assert [int(x) for x in mine.weights.ravel()] == [int(x) for x in want.weights.ravel()], (seed, mine.name)
        met += 1
    assert met >= 10, met


@pytest.mark.parametrize("seed", tiered(range(40), 8))
def test_value_maps_listed_are_the_optimal_maps_brute_force_lists(seed):
    """The audit lists disentangled and shared maps through the valuemaps counter (RAVEN: the CNF is too big for
    SAT enumeration): the same set of maps as brute force, each once."""
    from randomtasks import random_problem

    from rscount.counters import COUNTERS
    from rscount.counters.base import Deadline
    from rscount.counters.symmetry.valuemaps import applies, list_valuemaps
    for cls in ("disentangled", "shared"):
        problem = random_problem(seed, cls)
        if not applies(problem):
            continue
        listed = list_valuemaps(problem, Deadline(None, "listing", ""))
        brute = list(COUNTERS["bruteforce"].enumerate(problem, None, None))
        assert len({m.assign for m in listed}) == len(listed)
        assert {m.assign for m in listed} == {m.assign for m in brute}, problem.describe()


def test_data_candidates_past_numpys_integers_lie_outside_the_support_and_near_it():
    """RAVEN's 3^48 vectors overflowed numpy's choice; half the candidates are support vectors with one concept
    changed, and the audit does not say 'no vector helps' from a sample."""
    import numpy as np

    from rscount.auditing.fixes import CANDIDATES, _candidates
    problem = rscount.make_problem("raven", map_class="shared", params={"samples": 200})
    cand, every = _candidates(problem, np.random.default_rng(0))
    assert not every and 0.9 * CANDIDATES <= len(cand) <= CANDIDATES
    support = problem.support.vectors
    assert not {tuple(r) for r in cand.tolist()} & {tuple(r) for r in support.tolist()}
    one_off = [int((support != row).sum(axis=1).min()) == 1 for row in cand]
    assert sum(one_off) >= 0.4 * len(cand)
    small = rscount.make_problem("xor3", map_class="complete", support="by-label:2")
    cand, every = _candidates(small, np.random.default_rng(0))
    assert every and len(cand) == 8 - small.support.length


@pytest.mark.parametrize("seed", tiered(range(30), 6))
def test_class_bounds_hold_the_count(seed):
    """Where a class has no count the audit's table gives bounds: a class inside it counts fewer maps, the class's
    size more. Checked against brute force on random problems, one design in every class."""
    from rscount.auditing.fixes import NARROWER, class_bounds
    from rscount.counters.generic.bruteforce import LIMIT, number_of_candidates
    from rscount.problems.problem import for_class
    from rscount.results.count import short_count
    base = random_problem(seed, "complete")
    designs = {cls: dataclasses.replace(base, map_class=cls, task=for_class(base.task, cls))
               for cls in ("free", "complete", "permutation", "disentangled", "shared")}
    counts = {cls: (rscount.count_problem(p, "bruteforce").count, True, "") for cls, p in designs.items()
              if number_of_candidates(p) <= LIMIT}
    for cls, inner in NARROWER.items():
        if cls not in counts:
            continue
        count, size = counts[cls][0], number_of_candidates(designs[cls])
        assert count <= size
        low = max((counts[c][0] for c in inner if c in counts), default=None)
        assert low is None or low <= count, (cls, inner, counts)
        text = class_bounds(designs[cls], cls, counts)
        assert text.startswith(f"between {short_count(low)} and {short_count(size)}" if low is not None
                               else f"at most {short_count(size)}"), text


@pytest.mark.parametrize("support", ["exhaustive", "by-label:20", "by-label:3"])
def test_joint_power_of_ten_by_label_parts_is_the_listed_one_and_the_count(support):
    """Past the listable space (MNMath-B.1: 10^8 vectors) the joint class's power of ten comes from the labels'
    parts over disjoint concepts: the same number as reading the whole space, and log10 of the exact count."""
    import math

    from rscount.counters.symmetry.closedform import joint_log10
    from rscount.readers.spec import task_from_spec
    task = task_from_spec({"name": "two-parts", "concepts": {"a": "0..3", "b": "0..3", "c": "0..2", "d": "0..3",
                                                             "e": "0..2", "u": "0..1"},
                           "labels": {"y1": "a + b == c", "y2": "d * e > 3"}})
    problem = rscount.make_problem(task, map_class="joint", support=support, seed=3)
    listed, exact = joint_log10(problem)
    by_parts, also = joint_log10(problem, listable=48)  # the space (1,152) is not listable, each part (48, 12) is
    assert exact and also and by_parts == pytest.approx(listed, rel=1e-12)
    assert listed == pytest.approx(math.log10(rscount.count_problem(problem).count), rel=1e-9)
    assert joint_log10(problem, listable=8) == (pytest.approx((problem.task.space_size - problem.support.length)
                                                              * math.log10(problem.task.space_size)), False)


@pytest.mark.parametrize("seed", tiered(range(60), 10))
def test_smallest_base_of_the_maps_group_is_the_smallest_hitting_set(seed):
    """Where the optimal maps form a group on (concept, value) points, the cheapest supervision is a smallest
    base (no map listed: Kand-Logic complete's 13,436,928 maps). On random exhaustive designs it has the size
    of the MaxSAT hitting set over every listed map, and leaves only the identity among them."""
    from randomtasks import random_exhaustive_problem

    from rscount.auditing.supervision import _group_fix, _items, supervision_fix
    from rscount.counters.base import Deadline
    from rscount.counters.symmetry.automorphism import point_group
    for cls in ("complete", "disentangled", "permutation"):
        problem = random_exhaustive_problem(seed, cls)
        if problem.supervision or point_group(problem, Deadline(30, "group")) is None:
            continue
        r = rscount.count_problem(problem)
        maps = list_maps(problem, r, 5000, 30)
        if maps is None or r.count == 1:
            continue
        for by in ("value", "concept"):
            items = _items(problem, by)
            group = _group_fix(problem, items, by, r.count, 30)
            listed = supervision_fix(problem, r.count, maps, by=by, seconds=30)
            assert group is not None and group.minimal and group.count == 1
            assert len(group.items) == len(listed.items), (cls, by, group.items, listed.items)
            fixed = [(problem.task.index(t.split("=")[0]), t.split("=")[1] if "=" in t else None) for t in group.items]
            left = [m for m in maps if all(
                all(m.assign[j][u] == (j, u) for u in range(problem.task.sizes[j])) if v is None else
                m.assign[j][problem.task.concepts[j].domain.index(_value(problem.task.concepts[j], v))] ==
                (j, problem.task.concepts[j].domain.index(_value(problem.task.concepts[j], v))) for j, v in fixed)]
            assert len(left) == 1



def _value(concept, text: str):
    return next(v for v in concept.domain if str(v) == text)


@pytest.mark.slow  # 10-15 s: the default tier stays under three minutes
def test_kand_logic_supervision_from_its_group_matches_maxsat_and_reaches_complete():
    """Kand-Logic disentangled (1,296 maps, listed): the group's smallest base has the MaxSAT hitting set's size
    (8 values, 4 concepts); complete (13,436,928 maps, not listable) gets a proven smallest fix too."""
    from rscount.auditing.supervision import _group_fix, _items, supervision_fix
    problem = rscount.make_problem("kand-logic", map_class="disentangled")
    r = rscount.count_problem(problem)
    maps = list_maps(problem, r, 5000, 60)
    for by, size in (("value", 8), ("concept", 4)):
        group = _group_fix(problem, _items(problem, by), by, r.count, 60)
        assert len(group.items) == len(supervision_fix(problem, r.count, maps, by=by, seconds=60).items) == size
    complete = rscount.make_problem("kand-logic", map_class="complete")
    fix = supervision_fix(complete, 13436928, None, by="value", seconds=60)
    assert fix.minimal and fix.count == 1 and len(fix.items) == 8 and fix.method.startswith("smallest base")


def test_data_fix_stops_where_a_count_runs_out_of_time(monkeypatch):
    """A recount after adding a vector that times out ends the data fix with what it has and says why; it used to
    escape and end the whole audit as if the first count had not finished (rsbench's Kandinsky example, free)."""
    from rscount.auditing import fixes
    from rscount.errors import CountTimeout
    problem = random_problem(3, "complete")
    problem = dataclasses.replace(problem, support=Support(problem.support.vectors[:1], "one vector"),
                                  supervision=dataclasses.replace(problem.supervision, vectors=frozenset()))
    result = rscount.count_problem(problem)
    real = fixes.count_within

    def slow(p, seconds):
        if p.support.length > 1:
            raise CountTimeout("search timed out after 0.5 s; raise timeout=")
        return real(p, seconds)
    monkeypatch.setattr(fixes, "count_within", slow)
    fix = data_fix(problem, result.count, None, seconds=None)
    assert result.count == 336 and fix.vectors == () and "did not finish (search timed out after 0.5 s)" in fix.note


def test_large_cells_are_short_and_say_so():
    """Cells of 10^6 maps or more show four digits and the power of ten (the exact count is in the JSON), so a
    joint class's table stays readable; the text says once that cells are rounded."""
    from rscount.auditing.cells import cell_text
    from rscount.results.count import compact_count
    result = audit("mnadd-evenodd", map_class="joint")
    text = str(result)
    assert "prints every digit" not in text.split("What a model may confuse")[1].split("Cheapest fixes")[0]
    assert "to four digits" in text
    c = next(c for c in result.relation.concepts if not c.identifiable)
    v, u = map(int, np.argwhere(c.possible)[0])
    n = int(c.weights[v, u])
    assert cell_text(c, v, u) == compact_count(n) and float(compact_count(n)) == pytest.approx(float(n), rel=1e-3)
    assert [compact_count(x) for x in (0, 999_999, 1_234_567, -10 ** 40)] == ["0", "999999", "1.234e6", "-1.000e40"]


@pytest.mark.slow
def test_kand_logic_joint_audit_has_counts_in_its_cells():
    """Kand-Logic's joint count has 2.9 million digits: the audit's cells are its counts to four digits (all
    but a tiny share of the maps make every possible confusion), not marks of existence."""
    result = audit("kand-logic", map_class="joint")
    assert result.relation.rounded and result.relation.complete
    c = result.relation.concepts[0]
    assert c.possible.all()
    from rscount.auditing.cells import cell_text
    assert {cell_text(c, v, u) for v in range(3) for u in range(3)} == {"2.346e2914532"}
    assert "10^-" in result.relation.notes[0]
    data = result.to_dict()
    assert data["relation"]["rounded"] and data["concepts"][0]["values"][0]["predicted_log10"]["square"] > 2914532


def test_joint_label_subsets_past_the_limit_give_their_size(monkeypatch):
    """Past JOINT_SPACE vectors a joint label subset is given as about 10^X (its exact count has tens of
    thousands of digits here, millions on SDD-OIA): X is the exact count's log10, rounded."""
    from rscount.auditing import fixes
    from rscount.results.count import log10_count
    monkeypatch.setattr(fixes, "JOINT_SPACE", 0)
    task = rscount.get_task("mnmath")
    subsets = label_subsets(rscount.make_problem("mnmath", map_class="joint"), None)
    assert [s[0] for s in subsets] == [("y1",), ("y2",)]
    for labels, count, exact, why in subsets:
        sub = dataclasses.replace(task, labels=tuple(lab for lab in task.labels if lab.name in labels))
        exact_count = rscount.count(sub, map_class="joint").count
        assert count is None and why == f"about 10^{log10_count(exact_count):,.0f} maps"


def _read_source_maps_only(problem) -> bool:
    """Whether every optimal map (brute force) gives each read concept a read concept's source."""
    task = problem.task
    read = {task.index(n) for lab in task.labels for n in rscount.language.logic.variables(lab.expr)}
    return all(a[j][u][0] in read for a in brute_maps(problem) for j in read for u in range(task.sizes[j]))


@pytest.mark.parametrize("seed", tiered(range(24), 6))
@pytest.mark.parametrize("map_class", ["complete", "permutation"])
def test_audit_sets_unread_concepts_apart_exactly_when_no_map_mixes_them(seed, map_class):
    """The audit ranks the read concepts alone (the unread ones named apart) where its counts prove that every
    optimal map gives the read concepts the read sources: on ConCon-like designs, exactly where brute force finds
    no map giving a shape a colour's source, with brute force's count."""
    task, rows = confounded(seed, shapes=2, colours=2)
    problem = rscount.make_problem(task, map_class=map_class, support=rows)
    a = audit_problem(problem, timeout=None)
    assert a.result.count == brute_count(problem)
    assert bool(a.result.unread) == _read_source_maps_only(problem), (task.labels[0].text, len(rows))
    if a.result.unread:
        assert a.result.count == a.result.free_maps * (a.result.count // a.result.free_maps)
        assert set(a.result.unread) == {"c1", "c2"}


@pytest.mark.parametrize("seed", tiered(range(16), 4))
@pytest.mark.parametrize("map_class", ["complete", "free", "disentangled"])
@pytest.mark.parametrize("by", ["value", "concept"])
def test_items_on_unread_concepts_lead_a_smallest_fix(seed, map_class, by):
    """Without the maps listed, a fix starts from every item on the concepts no label reads (each needed) and
    adds a smallest fix of the rest: brute force finds no smaller set reaching its count, which is brute force's."""
    task, rows = confounded(seed, shapes=2, colours=2)
    problem = rscount.make_problem(task, map_class=map_class, support=rows)
    fix = supervision_fix(problem, brute_count(problem), None, by=by, seconds=None)
    items = _items(problem, by)
    unread = [it for it in items if task.concepts[it[0]].name.startswith("c")]
    assert unread and {item_text(task, it) for it in unread} <= set(fix.items)
    check_supervision(problem, fix, items)


def _hiding(seed: int):
    """A confounded design whose support shows no colour 2 on object 2 (and, on odd seeds, no shape 1 on object 1)."""
    task, rows = confounded(seed, shapes=2, colours=3)
    rows = np.asarray(rows)
    keep = (rows[:, 3] != 2) & ((rows[:, 1] != 1) | (seed % 2 == 0))
    return task, rows[keep].tolist()


@pytest.mark.parametrize("seed", tiered([0, 1, 3, 4, 6, 7, 10, 13], 2))
@pytest.mark.parametrize("by", ["value", "concept"])
def test_free_fix_on_the_read_part_counts_the_maps_of_values_no_vector_shows(seed, by):
    """Free maps send a value no vector shows anywhere (any predicted value of any concept): the read part's fix,
    scaled by those maps over the whole design against the read part's own, is brute force's count and smallest."""
    task, rows = _hiding(seed)
    problem = rscount.make_problem(task, map_class="free", support=rows)
    fix = supervision_fix(problem, brute_count(problem), None, by=by, seconds=None)
    check_supervision(problem, fix, _items(problem, by))


@pytest.mark.parametrize("seed", tiered([0, 1, 3, 4, 6, 7], 2))
@pytest.mark.parametrize("by", ["concept", pytest.param("value", marks=pytest.mark.slow)])
@pytest.mark.parametrize("map_class", ["complete", "disentangled"])
def test_implicit_fix_aims_at_the_floor_where_values_go_unshown(seed, by, map_class):
    """A shortcut that differs from the intended map only on values no vector shows gets no item wrong, so no
    supervision leaves 1: the implicit hitting set aims at the floor (every item supervised) and proves its set
    smallest there (it gave up to greedy sets before: ConCon's disjoint tasks); brute force checks both."""
    task, rows = _hiding(seed)
    problem = rscount.make_problem(task, map_class=map_class, support=rows)
    items = _items(problem, by)
    fix = _implicit(problem, items, identity(problem), time.monotonic(), None)
    assert fix.minimal and not fix.reaches_one and "no vector shows" in fix.method
    assert fix.count == brute_count(with_items(problem, items)) > 1
    check_supervision(problem, fix, items)


def test_free_fixes_take_the_read_part_where_values_go_unshown():
    """The read part's fix is taken under free maps with unshown values (it was declined there, leaving greedy
    sets): on these designs the counts prove the read part apart and the fix says what it scaled by."""
    taken = 0
    for seed in (0, 1, 3, 4):
        task, rows = _hiding(seed)
        problem = rscount.make_problem(task, map_class="free", support=rows)
        fix = supervision_fix(problem, rscount.count_problem(problem).count, None, by="value", seconds=None)
        taken += fix.minimal and "of the values no vector shows" in fix.method
    assert taken == 4


@pytest.mark.slow  # 10-15 s: the default tier stays under three minutes
def test_concon_two_objects_audits_the_read_concepts_with_a_proven_fix():
    """ConCon task 1 at 2 objects (8 colours, 6,512 scenes), complete and free: the whole count is the read
    concepts' 4 times the unread concepts' maps, and supervising one shape leaves 1 (proven smallest)."""
    for map_class in ("complete", "free"):
        a = audit("concon-t1", params={"objects": 2}, map_class=map_class, timeout=120)
        assert a.result.count == rscount.count("concon-t1", params={"objects": 2}, map_class=map_class).count
        assert a.result.count == 4 * a.result.free_maps
        assert set(a.result.unread) == {"color1", "material1", "color2", "material2"}
        assert a.supervise_values.count == 1 and a.supervise_values.minimal and len(a.supervise_values.items) == 1
        assert a.supervise_concepts.count == 1 and a.supervise_concepts.minimal


@pytest.mark.slow
def test_concon_task_three_fix_pins_the_unread_concepts_then_the_read_ones():
    """ConCon task 3 at 2 objects (where colours may stand in for sizes): the value fix supervises every colour
    and material value, then a smallest set of shape and size values; counted afresh it leaves 1."""
    problem = rscount.make_problem("concon-t3", params={"objects": 2})
    count = rscount.count_problem(problem).count
    for by, unread in (("value", 20), ("concept", 4)):
        fix = supervision_fix(problem, count, None, by=by, seconds=None)
        assert fix.count == 1 and fix.minimal and len(fix.items) > unread
        supervised = rscount.make_problem("concon-t3", params={"objects": 2}, supervise=list(fix.items))
        assert rscount.count_problem(supervised).count == 1


@pytest.mark.parametrize("seed", range(30))
def test_applying_a_map_to_many_vectors_is_applying_it_to_each(seed):
    from rscount.auditing.maps import PairIndex, apply_map, pair_codes
    from rscount.results.count import ConceptMap
    rng = np.random.default_rng(seed)
    sizes = tuple(int(s) for s in rng.integers(1, 4, size=int(rng.integers(1, 5))))
    k = len(sizes)
    kind = seed % 3  # a complete map, a disentangled one, or a free one with mixed targets
    targets = rng.permutation(k) if kind == 0 else np.arange(k)
    assign = tuple(tuple((int(rng.integers(k)) if kind == 2 else int(targets[j]), None) for _ in range(s))
                   for j, s in enumerate(sizes))
    assign = tuple(tuple((i, int(rng.integers(sizes[i]))) for i, _ in row) for row in assign)
    m = ConceptMap(assign, tuple(f"c{j}" for j in range(k)), tuple(tuple(range(s)) for s in sizes))
    vectors = np.stack([rng.integers(s, size=40) for s in sizes], axis=1)
    out = apply_map(m, vectors)
    for row, got in zip(vectors.tolist(), out.tolist()):
        given: dict = {}
        for j, u in enumerate(row):
            i, v = assign[j][u]
            given.setdefault(i, set()).add(v)
        if any(len(vs) > 1 for vs in given.values()):
            assert got == [-1] * k
        else:
            assert got == [given[i].pop() if i in given else -1 for i in range(k)]
    codes = pair_codes(m, vectors, sizes)
    for j, s in enumerate(sizes):
        keep = out[:, j] >= 0
        assert codes[j].tolist() == sorted(set((vectors[keep, j] * s + out[keep, j]).tolist()))
    assert [c.tolist() for c in PairIndex(vectors, sizes).codes(m)] == [c.tolist() for c in codes]


@pytest.mark.parametrize("supervise", [(), ("c1",), ("c2=1",)])
def test_kill_counts_are_the_kills_of_each_map_summed(supervise):
    from rscount.auditing.maps import kill_counts, kills
    from rscount.model.support import grid
    from rscount.results.count import ConceptMap
    problem = rscount.make_problem("and3", map_class="free", supervise=list(supervise))
    task, rng = problem.task, np.random.default_rng(len(supervise))
    maps = [ConceptMap(tuple(tuple((int(rng.integers(task.k)), int(rng.integers(2))) for _ in c.domain)
                             for c in task.concepts), tuple(c.name for c in task.concepts),
                       tuple(c.domain for c in task.concepts)) for _ in range(40)]
    vectors = grid(task.sizes)
    labels = task.evaluate(vectors)
    want = sum(kills(m, problem, vectors, labels).astype(np.int64) for m in maps)
    assert kill_counts(maps, problem, vectors, labels).tolist() == want.tolist()
    assert kill_counts(maps, problem, vectors, labels, chunk=16).tolist() == want.tolist()


def test_an_audit_whose_count_runs_out_says_how_long_it_ran(monkeypatch, capsys):
    """The count gets a share of the audit's limit; the message gives the time spent, not the whole limit (it
    said "timed out after 60 s" at 49 s), and the command line's one line names its flags."""
    import rscount.auditing as auditing
    from rscount.errors import CountTimeout
    from rscount.planning import execute

    def out_of_time(problem, **kwargs):
        raise CountTimeout("search timed out after 0.1 s; raise timeout=")
    monkeypatch.setattr(execute, "count_problem", out_of_time)
    problem = rscount.make_problem("xor3", map_class="complete")
    with pytest.raises(CountTimeout, match=r"^the audit of xor3 stopped after 0 s: its count did not finish in its "
                                           r"share of timeout=; raise timeout= or audit a smaller support$"):
        auditing.audit_problem(problem, timeout=30)
    assert main(["audit", "--task", "xor3", "--timeout", "30"]) == 3
    err = capsys.readouterr().err
    assert err.strip() == ("countrss: error: the audit of xor3 stopped after 0 s: its count did not finish in its "
                           "share of --timeout; raise --timeout or audit a smaller support"), err
