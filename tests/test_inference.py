"""Learned inference heads (inference="learned"): a concept map counts when some label head makes the pair
(map, head) give every support label. Checked against an oracle that tries every map of the class and every
head on the map's image of the support, on small random tasks in every class, and against hand counts."""
from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np
import pytest
from randomtasks import CLASSES, random_problem
from tiers import tiered

import rscount
from rscount.cli import main
from rscount.counters.generic.bruteforce import candidates
from rscount.errors import BackendError, EncodingError


def _image(assign, g, k):
    out = [None] * k
    for j, u in enumerate(g):
        i, v = assign[j][u]
        if out[i] is not None and out[i] != v:
            return None
        out[i] = v
    return None if None in out else tuple(out)


def _pair_oracle(problem) -> int:
    """Maps alpha of the class (and supervision) for which some head beta over the labels K takes gives
    beta(alpha(g)) == K(g) on every support vector: every head on alpha's image of the support is tried."""
    task = problem.task
    rows = [(g, tuple(map(int, y)), problem.supervised(r, g))
            for r, (g, y) in enumerate(zip(problem.support.rows(), problem.labels))]
    values = sorted({y for _, y, _ in rows})
    if problem.map_class == "joint":
        space = [tuple(map(int, g)) for g in rscount.model.support.exhaustive(task).vectors]
        maps = ({a: space[b] for a, b in zip(space, images)}
                for images in itertools.product(range(len(space)), repeat=len(space)))
        image = lambda m, g: m[g]  # noqa: E731
    else:
        maps = candidates(problem)
        image = lambda m, g: _image(m, g, task.k)  # noqa: E731
    total = 0
    for m in maps:
        seen = [image(m, g) for g, *_ in rows]
        if any(p is None or any(p[i] != g[i] for i in sup) for p, (g, _, sup) in zip(seen, rows)):
            continue
        points = sorted(set(seen))
        if len(values) ** len(points) <= 512:  # small: try every head on the image
            fits = 0
            for head in itertools.product(values, repeat=len(points)):
                beta = dict(zip(points, head))
                fits += all(beta[p] == y for p, (_, y, _) in zip(seen, rows))
            assert fits <= 1  # a head that fits is fixed on the support's image
        else:  # a head exists when each prediction is asked for one label
            wanted = {}
            for p, (_, y, _) in zip(seen, rows):
                wanted.setdefault(p, set()).add(y)
            fits = int(all(len(ys) == 1 for ys in wanted.values()))
        total += fits
    return total


def _problem(seed: int, cls: str):
    import dataclasses
    problem = random_problem(seed, cls)
    if cls == "joint":
        problem = dataclasses.replace(problem, supervision=rscount.problems.problem.Supervision())
    return dataclasses.replace(problem, inference="learned")


@pytest.mark.parametrize("seed", tiered(range(120), 5))
@pytest.mark.parametrize("cls", CLASSES)
def test_every_backend_matches_the_pair_oracle(seed, cls):
    problem = _problem(seed, cls)
    if cls == "joint" and problem.task.space_size > 5:
        pytest.skip("the pair oracle tries N^N joint maps")
    expected = _pair_oracle(problem)
    assert rscount.count_problem(problem).count == expected, problem.describe()
    assert rscount.count_problem(problem, "bruteforce").count == expected
    if cls != "joint":
        assert rscount.count_problem(problem, "ganak").count == expected, problem.describe()
    if cls in ("disentangled", "shared"):  # SDD compiles the pairs of the classes that move concepts slowly
        assert rscount.count_problem(problem, "sdd").count == expected, problem.describe()
        assert rscount.count_problem(problem, "kernels").count == expected, problem.describe()


@pytest.mark.parametrize("seed", tiered(range(60), 4))
@pytest.mark.parametrize("cls", ["complete", "disentangled", "shared"])
def test_with_every_support_vector_supervised_learned_equals_knowledge(seed, cls):
    import dataclasses
    problem = random_problem(seed, cls)
    full = dataclasses.replace(problem, supervision=dataclasses.replace(
        problem.supervision, vectors=frozenset(range(problem.support.length))))
    knowledge = rscount.count_problem(full).count
    assert rscount.count_problem(dataclasses.replace(full, inference="learned")).count == knowledge


@pytest.mark.parametrize("text, concepts, support, counts", [
    # one boolean concept read as the label: the map must keep 0 and 1 apart, and either order does
    ("a", "a", None, {"free": 2, "complete": 2, "permutation": 2, "disentangled": 2, "shared": 2, "joint": 2}),
    # a & b on every vector: 11 apart from 01, 10, 00 makes each value map a bijection
    ("a & b", "a,b", None, {"disentangled": 4, "shared": 2, "complete": 8, "free": 8}),
    # a ^ b on 00, 11 (same label): no constraint, every map counts
    ("a ^ b", "a,b", "0,0;1,1", {"disentangled": 16, "shared": 4}),
    # a on 00 and 10: f_a must separate 0 from 1; f_b is free on its one seen value and the other
    ("a", "a,b", "0,0;1,0", {"disentangled": 2 * 4, "shared": 2}),
])
def test_hand_counts(text, concepts, support, counts):
    task = rscount.task_from_text(text, concepts)
    for cls, expected in counts.items():
        assert rscount.count(task, map_class=cls, support=support, inference="learned").count == expected, cls


def test_the_joint_closed_form_by_hand():
    # a & b on all 4 vectors: 11 alone in its class (1 block), the 3 others in k blocks, k = 1..3:
    # sum_k 4 * (3)(2)..(3-k+1) * S(3, k) = 4 * (3 * 1 + 6 * 3 + 6 * 1) = 108
    task = rscount.task_from_text("a & b", "a,b")
    assert rscount.count(task, map_class="joint", inference="learned").count == 108


@pytest.mark.parametrize("with_flint", [True, False])
def test_the_joint_closed_form_matches_maps_with_disjoint_images(with_flint, monkeypatch):
    """Label classes of n_c support vectors sent onto pairwise disjoint image sets among m vectors: the closed
    form (FLINT's polynomial product, or the Python convolution without it) against every such tuple of maps."""
    from collections import Counter
    from rscount.counters.symmetry import closedform
    if with_flint:
        pytest.importorskip("flint")
    else:
        monkeypatch.setitem(__import__("sys").modules, "flint", None)
    rng = np.random.default_rng(7)
    for _ in range(25):
        sizes = [int(x) for x in rng.integers(1, 4, size=int(rng.integers(1, 4)))]
        m = int(rng.integers(1, 6))
        c = closedform._images_per_class(Counter(sizes))
        closed = sum(ck * math.perm(m, k) for k, ck in enumerate(c))
        owner = [cl for cl, n in enumerate(sizes) for _ in range(n)]
        listed = sum(all(not set(f[i] for i, o in enumerate(owner) if o == a) & set(f[i] for i, o in enumerate(owner)
                                                                                   if o == b)
                         for a in range(len(sizes)) for b in range(a))
                     for f in itertools.product(range(m), repeat=len(owner)))
        assert closed == listed, (sizes, m)


@pytest.mark.parametrize("seed", range(40))
def test_the_joint_bracket_holds_the_learned_joint_count(seed):
    """The log10 bracket printed where the learned-head joint count is out of reach holds the exact count."""
    from rscount.counters.symmetry.closedform import learned_joint_log10
    problem = random_problem(seed, "joint")
    problem = dataclasses.replace(problem, inference="learned", supervision=type(problem.supervision)())
    exact = rscount.count_problem(problem, "closed-form").count
    low, high = learned_joint_log10(problem)
    assert 10 ** low <= exact * (1 + 1e-9) and exact <= 10 ** high * (1 + 1e-9), (low, math.log10(exact), high)


def test_an_out_of_reach_joint_count_says_its_bracket():
    with pytest.raises(BackendError, match=r"it lies between 10\^2,914,532 and 10\^3,042,742"):
        rscount.count("kand-logic", map_class="joint", inference="learned")


def test_knowledge_stays_the_default():
    for name in ("xor3", "and3", "mnadd-half"):
        assert rscount.count(name).count == rscount.count(name, inference="knowledge").count


def test_results_say_which_inference_they_count():
    r = rscount.count("and3", map_class="disentangled", inference="learned")
    assert r.count == 8 and r.inference == "learned" and r.to_dict()["inference"] == "learned"
    assert "inference     learned" in str(r)
    assert rscount.count("and3").to_dict()["inference"] == "knowledge"
    maps = list(r.maps(None))
    assert len(maps) == 8 and len({m.assign for m in maps}) == 8 and any(m.is_identity for m in maps)


def test_a_counter_of_k_alone_refuses_a_learned_head():
    with pytest.raises(BackendError, match="counts with the knowledge K, not inference learned; use one of"):
        rscount.count("xor3", inference="learned", backend="automorphism")
    with pytest.raises(EncodingError, match="unknown inference 'lerned'"):
        rscount.make_problem("xor3", inference="lerned")


def test_the_command_line_takes_the_inference(capsys):
    assert main(["--task", "and3", "--map-class", "shared", "--inference", "learned", "--json"]) == 0
    import json
    data = json.loads(capsys.readouterr().out)
    assert data["count"] == 2 and data["inference"] == "learned"
    assert main(["--task", "and3", "--inference", "nosuch"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--inference" in err


def _orbits(problem) -> int:
    """Optimal maps up to renamings of predicted values, by listing the maps and the renamings."""
    from rscount.heads.renaming import owners
    task = problem.task
    names = [n for n, _ in owners(problem)]
    owner = [names.index(task.concepts[problem.representative(i)].name if problem.map_class == "shared"
                         else task.concepts[i].name) for i in range(task.k)]
    group = list(itertools.product(*[list(itertools.permutations(range(n))) for _, n in owners(problem)]))
    maps = rscount.count_problem(problem, "bruteforce").maps(None)
    seen = set()
    for m in maps:
        if problem.map_class == "joint":
            forms = [tuple((a, tuple(s[owner[i]][x] for i, x in enumerate(b))) for a, b in m.pairs) for s in group]
        else:
            forms = [tuple(tuple((i, s[owner[i]][v]) for i, v in row) for row in m.assign) for s in group]
        seen.add(min(forms))
    return len(seen)


@pytest.mark.parametrize("seed", tiered(range(60), 4))
@pytest.mark.parametrize("cls", CLASSES)
def test_counts_up_to_renaming_match_the_listed_orbits(seed, cls):
    import dataclasses
    problem = dataclasses.replace(_problem(seed, cls), supervision=rscount.problems.problem.Supervision())
    if cls == "joint" and problem.task.space_size > 5:
        pytest.skip("listing joint maps")
    result = rscount.count_problem(problem)
    assert result.up_to_renaming() == _orbits(problem), problem.describe()


def test_renaming_counts_need_a_learned_head_and_no_concept_supervision():
    with pytest.raises(BackendError, match="for an exact count under a learned head"):
        rscount.count("and3").up_to_renaming()
    with pytest.raises(BackendError, match="concept supervision names the predicted values"):
        rscount.count("and3", inference="learned", supervise="c1").up_to_renaming()
    assert rscount.count("and3", map_class="complete", inference="learned").up_to_renaming() == 6  # 3! orders


def test_the_audit_of_a_learned_head_sits_beside_the_knowledges():
    from rscount.auditing.maps import pair_codes
    a = rscount.audit("mnadd-half", map_class="shared", inference="learned", timeout=120)
    problem = rscount.make_problem("mnadd-half", map_class="shared", inference="learned")
    maps = list(rscount.count_problem(problem, "bruteforce").maps(None))
    assert a.count == len(maps) == 1560
    d = a.relation.concepts[0]
    expected = set()
    for m in maps:
        expected |= set(pair_codes(m, problem.support.vectors, problem.task.sizes)[0].tolist())
    assert {v * 5 + u for v in range(5) for u in range(5) if d.possible[v, u]} == expected
    assert a.supervise_concepts.count == 1 and a.supervise_concepts.minimal
    fixed = rscount.count(problem.task, map_class="shared", inference="learned",
                          supervise=list(a.supervise_values.items))
    assert fixed.count == a.supervise_values.count == 1
    for vector, count in zip(a.data.vectors, a.data.counts):
        assert count >= 120  # a learned head absorbs the 5! renamings of the digits
    k = rscount.count("mnadd-half", map_class="shared")
    assert a.other["count"] == k.count and a.to_dict()["under_knowledge"]["count"] == k.count
    assert a.to_dict()["inference"] == "learned" and "inference     learned" in str(a)
    assert "for a model that reasons with K" in str(a)


def test_a_new_vector_kills_a_map_under_a_learned_head_when_it_meets_another_label():
    import numpy as np
    from rscount.auditing.maps import identity, kills
    problem = rscount.make_problem(rscount.task_from_text("a", "a,b"), map_class="disentangled",
                                   support="0,0;1,0", inference="learned")
    collapse_b = rscount.results.count.ConceptMap((((0, 0), (0, 1)), ((1, 0), (1, 0))), ("a", "b"), ((0, 1), (0, 1)))
    vectors, labels = np.array([[0, 1], [1, 1]]), np.array([[0], [1]])
    assert not kills(identity(problem), problem, vectors, labels).any()
    assert not kills(collapse_b, problem, vectors, labels).any()  # b is read by no label: collapsing it is fine
    odd = np.array([[0, 1]]), np.array([[1]])  # a vector whose label differs from the support's 0,0
    assert kills(collapse_b, problem, *odd).all()  # its prediction is 0,0's, whose label is 0: no head fits
    assert not kills(identity(problem), problem, *odd).any()  # predicted apart from the support: a head fits


def test_a_trained_pair_is_read_with_its_own_head():
    import numpy as np
    from rscount.harness.learned import head_on_images, learned_map
    problem = rscount.make_problem("mnadd-half", map_class="shared", inference="learned")
    task = problem.task
    true = np.repeat(problem.support.vectors, 3, axis=0)
    rename = np.array([4, 3, 2, 1, 0])  # the extractor calls every digit d "4 - d"
    pred = rename[true]
    right = head_on_images(true, pred, task.evaluate(true))  # a head giving each image its vector's label
    pair = learned_map(problem, true, pred, head=right)
    assert pair.optimal and pair.in_class and pair.verdict == "shortcut" and pair.broken == 0
    assert pair.head_read == problem.support.length
    wrong = head_on_images(true, pred, task.evaluate(true) + 1)  # labels off by one
    off = learned_map(problem, true, pred, head=wrong)
    assert off.verdict == "not optimal" and off.map_counted and off.map_broken == 0  # the head's fault, not the map's
    assert off.broken == problem.support.length
    assert learned_map(problem, true, pred).verdict == "shortcut"  # some head fits: the renaming merges nothing
    assert learned_map(problem, true, true, head=head_on_images(true, true, task.evaluate(true))).verdict == "intended"
    collapse = np.zeros_like(true)
    merged = learned_map(problem, true, collapse, head=right)
    assert merged.verdict == "not optimal" and not merged.map_counted  # one prediction, many labels
    assert merged.map_broken == merged.broken == problem.support.length and pair.map_counted
    assert learned_map(problem, true, pred).map_counted is None  # no pair reading without a head


def test_the_head_is_read_where_the_model_perceives_the_map_s_image():
    import numpy as np
    from rscount.harness.learned import head_on_images, learned_map
    problem = rscount.make_problem("mnadd-half", map_class="shared", inference="learned")
    task = problem.task
    true = np.repeat(problem.support.vectors, 3, axis=0)
    pred, labels = true.copy(), task.evaluate(true)
    pred[0] = (pred[0] + 1) % 5  # misread, yet labelled right (a soft bottleneck leaks): it votes for no image
    pair = learned_map(problem, true, pred, head=head_on_images(true, pred, labels))
    assert pair.verdict == "intended" and pair.broken == 0  # the per-concept map and the head on its images
    labels[4] = labels[4] + 1  # perceived as its image and labelled wrong: outvoted by the other two
    assert learned_map(problem, true, pred, head=head_on_images(true, pred, labels)).broken == 0
    labels[5] = labels[5] + 1  # now the head gives that image a wrong label
    assert learned_map(problem, true, pred, head=head_on_images(true, pred, labels)).broken == 1
    given, read = head_on_images(np.array([[0, 1], [0, 1], [2, 2]]), np.array([[0, 1], [1, 1], [2, 2]]),
                                 np.array([[1], [3], [4]]))(np.array([[2, 2], [0, 1], [0, 1]]),
                                                            np.array([[2, 2], [0, 1], [2, 2]]))
    assert given[:2].tolist() == [[4], [1]] and read.tolist() == [True, True, False]
    unseen = head_on_images(true[3:], pred[3:], labels[3:])  # the first vector's examples never seen
    reading = learned_map(problem, true, pred, head=unseen)
    assert reading.head_read == problem.support.length - 1


def _threshold_separable(points, labels) -> bool:
    """Boolean labels over boolean concepts: some integer threshold function w.x + b (|w| <= 3) gives every label;
    an oracle independent of the linear program (every threshold function of up to 3 inputs has such weights)."""
    import itertools
    k = len(points[0])
    for w in itertools.product(range(-3, 4), repeat=k):
        for b in [x + 0.5 for x in range(-10, 10)]:
            if all((sum(wi * xi for wi, xi in zip(w, p)) + b > 0) == bool(y) for p, y in zip(points, labels)):
                return True
    return False


@pytest.mark.parametrize("map_class", ["free", "complete", "disentangled", "shared"])
@pytest.mark.parametrize("seed", tiered(range(8), 3))
def test_linear_head_count_matches_threshold_oracle(map_class, seed):
    import random

    from randomtasks import random_cnf_task
    from rscount.counters.generic.bruteforce import candidates, number_of_candidates
    rng = random.Random(seed)
    task = random_cnf_task(rng, rng.randint(2, 3) if map_class != "free" else 2)
    space = rscount.model.support.grid(task.sizes).tolist()
    rows = rng.sample(space, rng.randint(2, len(space)))
    problem = rscount.make_problem(task, map_class=map_class, support=rows, inference="learned:linear")
    if number_of_candidates(problem) > 200_000:
        pytest.skip("too many maps for the oracle")
    rows = problem.support.vectors.tolist()  # the support's own order, which its labels follow
    labels = [int(y) for y in problem.labels[:, 0]]
    expected = 0
    for assign in candidates(problem):
        image = []
        for g in rows:
            out = [None] * task.k
            for j, u in enumerate(g):
                i, v = assign[j][u]
                out[i] = v if out[i] in (None, v) else -1
            image.append(tuple(out))
        if any(None in p or -1 in p for p in image):
            continue
        heads = {}
        if any(heads.setdefault(p, y) != y for p, y in zip(image, labels)):
            continue
        expected += _threshold_separable(list(heads), list(heads.values()))
    result = rscount.count_problem(problem)
    assert result.count == expected
    assert result.intended == _threshold_separable(rows, labels)
    assert rscount.count_problem(problem, "bruteforce").count == expected


def _threshold_tables(k: int) -> set:
    """Every boolean function of k <= 3 boolean inputs a threshold w.x + b gives, as its truth table over the
    grid (an oracle for linear heads independent of the linear programs)."""
    import itertools
    grid = list(itertools.product((0, 1), repeat=k))
    return {tuple(int(sum(wi * xi for wi, xi in zip(w, p)) + b > 0) for p in grid)
            for w in itertools.product(range(-3, 4), repeat=k) for b in [x + 0.5 for x in range(-10, 10)]}


@pytest.mark.parametrize("seed", tiered(range(12), 4))
def test_linear_heads_off_the_image_match_the_threshold_oracle(seed):
    import itertools
    import random

    from randomtasks import random_cnf_task
    rng = random.Random(seed)
    task = random_cnf_task(rng, 3)
    space = [tuple(v) for v in rscount.model.support.grid(task.sizes).tolist()]
    problem = rscount.make_problem(task, map_class="disentangled", support=rng.sample(space, rng.randint(1, 7)),
                                   inference="learned:linear")
    result = rscount.count_problem(problem)
    tables = _threshold_tables(3)
    labels = {tuple(g): int(y) for g, y in zip(problem.support.vectors.tolist(), problem.labels[:, 0])}
    two = len(set(task.evaluate(np.array(space))[:, 0].tolist())) == 2
    for m in itertools.islice(result.maps(None), 6):
        image = {tuple(m(g)): y for g, y in labels.items()}
        fits = [t for t in tables if all(t[space.index(p)] == y for p, y in image.items())] if two else [()]
        space_ = result.head_space(m)
        assert space_.image == len(image) and space_.heads == len(fits)
        if two:
            forced = [v for n, v in enumerate(space) if v not in image and len({t[n] for t in fits}) == 1]
            assert space_.forced == len(forced) and space_.free == 8 - len(image) - len(forced)
    unrestricted = rscount.count_problem(dataclasses.replace(problem, inference="learned")).head_space()
    shown = len(set(map(tuple, task.evaluate(np.array(space)).tolist())))
    assert unrestricted.heads == shown ** (8 - len(labels)) and unrestricted.forced == 0


@pytest.mark.parametrize("seed", tiered(range(16), 5))
def test_linear_head_joint_count_matches_threshold_oracle(seed):
    import itertools
    import random

    from randomtasks import random_cnf_task
    rng = random.Random(seed)
    k = rng.choice((2, 2, 3))
    task = random_cnf_task(rng, k)
    space = [tuple(v) for v in rscount.model.support.grid(task.sizes).tolist()]
    rows = rng.sample(space, rng.randint(1, 4 if k == 3 else 4))
    problem = rscount.make_problem(task, map_class="joint", support=rows, inference="learned:linear")
    rows = [tuple(g) for g in problem.support.vectors.tolist()]
    labels = [int(y) for y in problem.labels[:, 0]]
    tables = _threshold_tables(k)
    two = len(set(task.evaluate(np.array(space))[:, 0].tolist())) == 2
    expected = 0
    for image in itertools.product(space, repeat=len(rows)):  # the support's images; the rest go anywhere
        asked: dict = {}
        if any(asked.setdefault(p, y) != y for p, y in zip(image, labels)):
            continue
        expected += any(all(t[space.index(p)] == y for p, y in asked.items()) for t in tables) if two else 1
    result = rscount.count_problem(problem)
    assert result.count == expected * len(space) ** (len(space) - len(rows))
    assert result.intended == (any(all(t[space.index(g)] == y for g, y in zip(rows, labels)) for t in tables)
                               or not two)
    if k == 2:  # 256 maps: brute force over every pair agrees too
        assert rscount.count_problem(problem, "bruteforce").count == result.count


@pytest.mark.parametrize("seed", tiered(range(40), 12))
def test_linear_head_joint_count_matches_brute_force_on_categorical_tasks(seed):
    problem = dataclasses.replace(random_problem(seed, "joint"), inference="learned:linear")
    if problem.supervision or problem.task.space_size > 5:
        pytest.skip("brute force lists N^N joint maps; the joint linear count takes no supervision")
    result = rscount.count_problem(problem)
    brute = rscount.count_problem(problem, "bruteforce")
    assert (result.count, result.intended) == (brute.count, brute.intended)
    assert result.up_to_renaming() == _orbits(problem)


def test_head_space_refuses_what_it_cannot_answer():
    with pytest.raises(rscount.RscountError, match="learned head"):
        rscount.count("and3").head_space()
    with pytest.raises(rscount.RscountError, match="no head fits"):
        rscount.count("and3", inference="learned").head_space(lambda g: (0, 0, 0))
    with pytest.raises(rscount.RscountError, match="no linear head"):
        rscount.count("xor3", inference="learned:linear").head_space()
    assert rscount.count("xor3", inference="learned").head_space().heads == 1
    from rscount.heads.space import head_space
    with pytest.raises(rscount.RscountError, match="limit"):  # 2^20 predicted vectors, a program each
        head_space(rscount.make_problem("sdd-oia", map_class="disentangled", inference="learned:linear"))


def test_linear_head_cannot_fit_xor():
    r = rscount.count("xor3", inference="learned:linear")
    assert r.count == 0 and not r.intended and r.rs_count == 0
    assert rscount.count("and3", inference="learned:linear").count == rscount.count("and3", inference="learned").count
    with pytest.raises(rscount.RscountError, match="not joint"):
        rscount.audit("and3", map_class="joint", inference="learned:linear")
    with pytest.raises(rscount.RscountError, match="limit 64"):
        rscount.count("mnadd-evenodd", map_class="joint", inference="learned:linear")


@pytest.mark.parametrize("map_class", ["complete", "disentangled", "shared"])
@pytest.mark.parametrize("seed", tiered(range(8), 3))
def test_linear_head_orbits_match_the_listed_orbits(map_class, seed):
    import dataclasses
    import random

    from randomtasks import random_cnf_task
    from rscount.counters.generic.bruteforce import number_of_candidates
    rng = random.Random(seed)
    task = random_cnf_task(rng, rng.randint(2, 3))
    space = rscount.model.support.grid(task.sizes).tolist()
    problem = rscount.make_problem(task, map_class=map_class, support=rng.sample(space, rng.randint(2, len(space))),
                                   inference="learned:linear")
    if number_of_candidates(problem) > 20_000:
        pytest.skip("too many maps to list")
    result = rscount.count_problem(problem)
    assert result.up_to_renaming() == _orbits(dataclasses.replace(problem))


def test_the_audit_of_a_linear_head():
    a = rscount.audit("and3", map_class="disentangled", inference="learned:linear")
    assert a.result.count == 8
    assert a.supervise_concepts.count == 1 and a.supervise_concepts.reaches_one  # every concept supervised: the identity alone
    xor = rscount.audit("xor3", map_class="disentangled", inference="learned:linear")
    assert xor.result.count == 0 and not xor.supervise_values.reaches_one
    assert "not among the counted ones" in xor.supervise_values.method
    assert "not proposed under a linear head" in str(xor)
