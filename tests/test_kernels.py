"""The kernels counter (learned heads under disentangled and shared) against the CNF counters on random tasks
larger than the pair oracle takes: more values, listed and exhaustive supports, label parts over disjoint
concepts, concept supervision and images restricted for orbit counting."""
from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest
from tiers import tiered

import rscount
from rscount.counters import COUNTERS
from rscount.counters.base import Options
from rscount.counters.generic.colourings import colour
from rscount.counters.generic.kernels import count_free, count_kernels, count_learned, count_moved
from rscount.problems.encoding import encode
from rscount.model.support import Support, every_value_meets_every_other


def _task(rng: random.Random, small: bool = False):
    k = rng.randint(2, 3 if small else 4)
    sizes = [rng.randint(2, 3 if small else 4) for _ in range(k)]
    concepts = {f"c{i + 1}": f"0..{s - 1}" for i, s in enumerate(sizes)}
    names = list(concepts)
    if k >= 3 and rng.random() < 0.4:  # two labels over disjoint concepts: label parts on an exhaustive grid
        cut = rng.randint(1, k - 1)
        left, right = names[:cut], names[cut:]
        labels = [f"({' + '.join(left)}) % {rng.randint(2, 3)}", f"Max({', '.join(right)}) > {rng.randint(0, 2)}"]
    else:
        a, b = rng.sample(names, 2)
        labels = [rng.choice([f"({a} + {b}) % 3", f"{a} > {b}", f"({a} * {b}) % 2 == 0", f"Max({a}, {b})",
                              f"({' + '.join(names)}) % 2"])]
    same = [n for n in names if concepts[n] == concepts[names[0]]]
    groups = [same] if len(same) >= 2 else []
    return rscount.task_from_spec({"name": "rk", "concepts": concepts, "labels": labels, "groups": groups})


def _problem(seed: int, cls: str, small: bool = False):
    rng = random.Random(seed)
    task = _task(rng, small)
    problem = rscount.make_problem(task, map_class=cls, inference="learned")
    if rng.random() < 0.6:  # a listed support: a random subset of the vectors
        space = rscount.model.support.exhaustive(task).vectors
        keep = sorted(rng.sample(range(len(space)), rng.randint(2, min(len(space), 12 if small else 24))))
        problem = dataclasses.replace(problem, support=Support(np.asarray(space[keep]), "random rows"))
    if rng.random() < 0.4:
        i = rng.randrange(task.k)
        u = rng.choice([None, rng.randrange(task.sizes[i])])
        problem = dataclasses.replace(problem, supervision=rscount.problems.problem.Supervision(concepts=((i, u),)))
    return problem


def _cnf_count(problem, restrict=None) -> int:
    enc = encode(problem)
    if restrict:
        units = [(-var,) for var, (i, v, _, _) in enc.alpha_keys.items()
                 if v >= restrict.get(problem.representative(i), problem.task.sizes[i])]
        enc = dataclasses.replace(enc, clauses=enc.clauses + units, constraints=enc.constraints + units)
    return COUNTERS["ganak"].count(problem, enc, Options(timeout=240)).count  # a loaded machine is slow


@pytest.mark.parametrize("seed", tiered(range(150), 12))
@pytest.mark.parametrize("cls", ["disentangled", "shared"])
def test_kernels_match_ganak(seed, cls):
    problem = _problem(seed, cls)
    assert count_kernels(problem)[0] == _cnf_count(problem), problem.describe()


@pytest.mark.parametrize("seed", tiered(range(1, 41), 2))
@pytest.mark.parametrize("cls", ["complete", "permutation"])
def test_bijections_of_concepts_match_ganak(seed, cls):
    problem = dataclasses.replace(_problem(seed, cls, small=True), supervision=rscount.problems.problem.Supervision())
    assert count_moved(problem)[0] == _cnf_count(problem), problem.describe()
    images = [random.Random(seed).randint(1, d) for d in problem.task.sizes]  # the orbit counts' restriction
    assert count_moved(problem, images)[0] == _cnf_count(problem, dict(enumerate(images))), (problem.describe(), images)


@pytest.mark.parametrize("seed", tiered(range(60), 6))
@pytest.mark.parametrize("cls", ["disentangled", "shared"])
def test_kernels_with_restricted_images_match_ganak(seed, cls):
    problem = dataclasses.replace(_problem(seed, cls), supervision=rscount.problems.problem.Supervision())
    rng = random.Random(seed + 1000)
    reps = sorted({problem.representative(i) for i in range(problem.task.k)})
    restrict = {r: rng.randint(1, problem.task.sizes[r]) for r in reps}
    assert count_kernels(problem, restrict)[0] == _cnf_count(problem, restrict), (problem.describe(), restrict)


def test_colourings_match_listing():
    import itertools
    rng = random.Random(3)
    for _ in range(200):
        n, m = rng.randint(1, 6), rng.randint(0, 4)
        edges = frozenset(e for e in itertools.combinations(range(n), 2) if rng.random() < 0.5)
        listed = sum(all(f[a] != f[b] for a, b in edges) for f in itertools.product(range(m), repeat=n))
        assert colour((n, edges), m) == listed


@pytest.mark.parametrize("seed", tiered(range(8), 2))
def test_the_last_two_value_maps_match_listing(seed):
    """count_two (partition tables and matrix products) against every pair of value maps, on random clashes."""
    import itertools
    import math
    from rscount.counters.generic.lasttwo import count_two
    rng = random.Random(seed)
    for _ in range(40):
        va, vb = list(range(rng.randint(1, 4))), list(range(rng.randint(1, 4)))
        ma, mb = rng.randint(1, 4), rng.randint(1, 4)
        tuples = {(rng.choice(va), rng.choice(va), rng.choice(vb), rng.choice(vb)) for _ in range(rng.randint(0, 6))}
        if rng.random() < 0.3:  # a part that does not read one side merges its rows there
            tuples.add((None, None, rng.choice(vb), rng.choice(vb)))
        listed = sum(all(not ((a is None or f[a] == f[a2]) and (b is None or g[b] == g[b2])) for a, a2, b, b2 in tuples)
                     for f in itertools.product(range(ma), repeat=len(va))
                     for g in itertools.product(range(mb), repeat=len(vb)))
        got = count_two(tuples, va, vb, lambda k: math.perm(ma, k), lambda k: math.perm(mb, k))
        assert got == listed, (tuples, va, vb, ma, mb)


@pytest.mark.slow
def test_kand_logic_on_every_vector_by_hand():
    # each of the 12 value maps (3 values) must be a bijection; shapes and colours share one map each
    assert rscount.count("kand-logic", map_class="disentangled", inference="learned",
                         backend="kernels").count == 6 ** 12
    assert rscount.count("kand-logic", map_class="shared", inference="learned", backend="kernels").count == 36


def test_library_counts_by_hand():
    # MNMath on every vector: 2*c1 + c2 and c3 + c4 on the full grid keep every digit apart
    assert rscount.count("mnmath", map_class="disentangled", inference="learned",
                         backend="kernels").count == 3628800 ** 4
    assert rscount.count("mnadd-evenodd", map_class="shared", inference="learned").count == 4207365450


def test_the_plan_counts_a_learned_head_with_kernels_in_the_race():
    plan = rscount.planning.dispatch.plan(rscount.make_problem("mnadd-half", map_class="disentangled", inference="learned"))
    assert "kernels" in plan.steps[-1].counters
    assert rscount.count("mnadd-half", map_class="disentangled", inference="learned").count == 2215200


@pytest.mark.parametrize("params", [dict(objects=2, colors=3, samples=30),
                                    dict(objects=2, colors=4, samples=40, mode="disjoint")])
@pytest.mark.parametrize("cls", ["disentangled", "shared"])
def test_concon_scenes_match_ganak(params, cls):
    problem = rscount.make_problem("concon-t2", params=params, map_class=cls, inference="learned")
    assert count_kernels(problem)[0] == _cnf_count(problem)


@pytest.mark.parametrize("seed", tiered(range(1, 31), 2))
def test_free_maps_on_every_vector_are_the_complete_ones(seed):
    task = _task(random.Random(seed), small=True)
    problem = rscount.make_problem(task, map_class="free", inference="learned")
    complete = dataclasses.replace(problem, map_class="complete")
    assert count_moved(problem)[0] == _cnf_count(problem) == _cnf_count(complete), problem.describe()


@pytest.mark.parametrize("seed", tiered(range(1, 61), 4))
def test_free_maps_on_a_listed_support_match_ganak(seed):
    rng = random.Random(seed)
    task = _task(rng, small=True)
    space = rscount.model.support.exhaustive(task).vectors
    keep = sorted(rng.sample(range(len(space)), rng.randint(1, min(len(space), 10))))
    problem = rscount.make_problem(task, map_class="free", inference="learned", support=space[keep].tolist())
    assert count_free(problem)[0] == _cnf_count(problem), problem.describe()


@pytest.mark.parametrize("seed", tiered(range(1, 31), 4))
def test_free_maps_where_every_value_meets_every_other_match_ganak(seed):
    """A listed support showing every two values of different concepts together: free maps are complete ones
    (counted by the bijections of concepts), against Ganak on the free problem's own CNF."""
    rng = random.Random(seed)
    task = _task(rng, small=True)
    space = rscount.model.support.exhaustive(task).vectors
    keep = [n for n in range(len(space)) if rng.random() < 0.8]
    problem = rscount.make_problem(task, map_class="free", inference="learned", support=space[keep].tolist())
    if not every_value_meets_every_other(np.asarray(space[keep]), task.sizes):
        keep = list(range(len(space)))
        problem = rscount.make_problem(task, map_class="free", inference="learned", support=space.tolist())
    assert every_value_meets_every_other(np.asarray(space[keep]), task.sizes)
    assert count_learned(problem)[0] == count_free(problem)[0] == _cnf_count(problem), problem.describe()


@pytest.mark.parametrize("seed", tiered(range(1, 31), 6))
def test_free_as_complete_on_listed_supports_under_k(seed):
    """With K: where a listed support shows every value with every value of the other concepts, or links each
    concept's values by vectors differing in it alone, the plan counts the free maps as the complete ones; the
    count is Ganak's on the free problem's own CNF."""
    from rscount.problems.problem import free_is_complete
    rng = random.Random(seed)
    task = _task(rng, small=True)
    space = rscount.model.support.exhaustive(task).vectors
    keep = [n for n in range(len(space)) if rng.random() < 0.8]
    problem = rscount.make_problem(task, map_class="free", support=space[keep].tolist())
    meets = every_value_meets_every_other(np.asarray(space[keep]), task.sizes) or \
        rscount.model.support.neighbours_link_every_value(np.asarray(space[keep]), task.sizes)
    assert free_is_complete(problem) == meets
    got = rscount.count_problem(problem)
    assert got.count == rscount.count_problem(problem, "ganak").count, problem.describe()
    assert (rscount.plan(problem).steps[0].counters == ("complete",)) == meets
