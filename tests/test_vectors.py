"""The free class: maps joined vector by vector (counters/free/vectors.py) against brute force and Ganak, and the
supports on which free maps are the complete ones."""
import itertools
import random

import numpy as np
import pytest
from contract import Contract
from tiers import tiered

import rscount
from rscount.counters.free.vectors import count_free


class TestVectorJoin(Contract):
    """Random small tasks, supports and supervision under ``free``: brute force's count."""

    backend = "vector-join"
    classes = ["free"]


def _mid_problem(seed: int):
    """Four or five concepts of two or three values, a few random support vectors: past brute force."""
    from randomtasks import _bool_expr, _int_expr
    rng = random.Random(seed)
    k = rng.randint(4, 5)
    sizes = [rng.randint(2, 3) for _ in range(k)]
    names = [f"c{i + 1}" for i in range(k)]
    concepts = {n: f"0..{s - 1}" for n, s in zip(names, sizes)}
    label = _bool_expr(rng, names, [], 3) if seed % 2 else _int_expr(rng, names, 2)
    task = rscount.task_from_spec({"name": f"mid{seed}", "concepts": concepts, "labels": [label]})
    rows = sorted({tuple(rng.randrange(s) for s in sizes) for _ in range(rng.randint(2, 6))})
    supervise = [rng.choice(names)] if seed % 5 == 0 else []
    return rscount.make_problem(task, map_class="free", support=[list(r) for r in rows], supervise=supervise)


@pytest.mark.parametrize("seed", tiered(range(16), 2))
def test_mid_size_matches_ganak(seed):
    """Beyond brute force (up to 14 source values, 14^14 free maps): Ganak's count."""
    problem = _mid_problem(seed)
    got = rscount.count_problem(problem, "vector-join")
    assert got.exact and got.count == rscount.count_problem(problem, "ganak").count, problem.describe()


def test_kandinsky_example_free():
    """rsbench's Kandinsky example (4 vectors, 6 concepts of 3 values) under free: Ganak's count, 392,751,394,928,640
    (its CNF: 822 variables, about 30 s; checked in the slow tier below), and the plan takes this counter."""
    result = rscount.count(rscount.load_config("knowledge/examples/kandinsky-two-colors.yml"), map_class="free")
    assert result.count == 392_751_394_928_640 and result.exact and result.backend == "vector-join"


@pytest.mark.slow
def test_kandinsky_example_free_against_ganak():
    problem = rscount.make_problem(rscount.load_config("knowledge/examples/kandinsky-two-colors.yml"), map_class="free")
    assert rscount.count_problem(problem, "ganak").count == count_free(problem, _NoDeadline())[0]


class _NoDeadline:
    def check(self) -> None:
        return None


def test_no_local_map_gives_zero():
    """A supervised value no predicted vector with the right label keeps: no optimal map."""
    task = rscount.task_from_spec({"name": "eq", "concepts": ["a", "b"], "labels": ["a & ~a"]})
    problem = rscount.make_problem(task, map_class="free", support=[[1, 1]])
    assert rscount.count_problem(problem, "vector-join").count == rscount.count_problem(problem, "bruteforce").count


def test_linked_values_make_free_maps_complete():
    """Where every value shows and each concept's values are linked by vectors differing in it alone, brute force
    counts the same free and complete maps, and the plan counts free as complete; on some of these supports two
    values of different concepts never meet (the older test alone would not apply)."""
    import dataclasses
    from randomtasks import random_categorical_task
    from rscount.model.support import every_value_meets_every_other, grid, neighbours_link_every_value
    from rscount.problems.problem import free_is_complete
    from rscount.counters.generic.bruteforce import LIMIT, number_of_candidates
    rng = random.Random(7)
    linked = only_linked = unlinked = 0
    while linked < 10 or unlinked < 4:
        task = random_categorical_task(rng)
        space = grid(task.sizes)
        rows = space[sorted(rng.sample(range(len(space)), rng.randint(len(space) // 2, len(space))))]
        problem = rscount.make_problem(task, map_class="free", support=rows.tolist())
        if number_of_candidates(problem) > LIMIT // 10:
            continue
        holds = neighbours_link_every_value(rows, task.sizes)
        if not holds and unlinked >= 4:
            continue
        free = rscount.count_problem(problem, "bruteforce").count
        complete = rscount.count_problem(dataclasses.replace(problem, map_class="complete"), "bruteforce").count
        if holds:
            linked += 1
            only_linked += not every_value_meets_every_other(rows, task.sizes)
            assert free == complete and free_is_complete(problem), problem.describe()
            assert rscount.count_problem(problem).count == free
        else:
            unlinked += 1
            assert free >= complete
    assert only_linked >= 3


@pytest.mark.parametrize("seed", tiered(range(6), 2))
def test_linked_classes_keep_every_free_map_on_concepts(seed):
    """The linking's fixpoint (classes merge when two rows hold them with the same classes everywhere else)
    against brute force on sparse random supports: where it says every column ends in one class, every way of
    sending shown values to predicted concepts that hits each predicted concept once per row keeps each
    concept's values together; some supports are linked only through classes, not values differing alone."""
    from rscount.model.support import _shown_values_linked, distinct
    rng = random.Random(seed)
    checked = through_classes = 0
    while checked < 12 or through_classes < 2:
        k = rng.randint(2, 3)
        sizes = [rng.randint(2, 3) for _ in range(k)]
        rows = np.array(sorted({tuple(rng.randrange(d) for d in sizes) for _ in range(rng.randint(3, 10))}))
        shown = [(j, v) for j in range(k) for v in distinct(rows[:, j]).tolist()]
        keeps = True
        for targets in itertools.product(range(k), repeat=len(shown)):
            to = dict(zip(shown, targets))
            if all(len({to[(j, int(r[j]))] for j in range(k)}) == k for r in rows):
                keeps &= all(len({to[(j, v)] for (i, v) in shown if i == j}) == 1 for j in range(k))
        linked = _shown_values_linked(rows)
        if linked:
            assert keeps, rows.tolist()
            checked += 1
            through_classes += not _values_differing_alone_link(rows)


def _values_differing_alone_link(rows) -> bool:
    """The older rule: each column's values linked by rows that differ in that column alone."""
    k = rows.shape[1]
    for j in range(k):
        values = sorted(set(rows[:, j].tolist()))
        parent = {v: v for v in values}

        def root(u):
            while parent[u] != u:
                u = parent[u]
            return u
        for a, b in itertools.combinations(rows.tolist(), 2):
            if all(a[i] == b[i] for i in range(k) if i != j) and a[j] != b[j]:
                parent[root(a[j])] = root(b[j])
        if len({root(v) for v in values}) > 1:
            return False
    return True


def test_concon_one_task_free_is_complete():
    """ConCon t1 at 2 objects: no blue object meets a cylinder of the other, yet every value is linked, so the
    free count is the complete one (24,576 with 2 colours; it timed out before)."""
    from rscount.problems.problem import free_is_complete
    problem = rscount.make_problem("concon-t1", params=dict(objects=2, colors=2), map_class="free")
    assert free_is_complete(problem)
    assert rscount.count_problem(problem).count == 24_576 == rscount.count("concon-t1", params=dict(
        objects=2, colors=2), map_class="complete").count


@pytest.mark.parametrize("seed", tiered(range(40), 8))
def test_pair_weights_match_the_listed_maps(seed):
    """The audit's confusion weights from the join: the tally over every optimal free map listed (brute force's
    maps), cell by cell, on random small problems (supervision included)."""
    from contract import oracle
    from rscount.auditing.maps import list_maps
    from rscount.auditing.relation import _tally
    from rscount.counters.free.vectors import pair_weights
    problem, expected = oracle(seed, "free")
    maps = list_maps(problem, rscount.count_problem(problem, "bruteforce"), 100_000, None)
    assert maps is not None and len(maps) == expected
    got = pair_weights(problem, _NoDeadline())
    for j, c in enumerate(_tally(problem, maps)):
        d = len(c.values)
        for v in range(d):
            for u in range(d):
                assert got.get((j, v, u), 0) == c.weights[v, u], (j, v, u, problem.describe())


@pytest.mark.parametrize("seed", tiered(range(40), 8))
def test_listed_maps_are_brute_force_maps(seed):
    """The audit lists free maps on few vectors by the join (no sum taken): the same set of maps brute force
    finds, on random small problems (supervision included)."""
    from contract import oracle
    from rscount.counters.free.vectors import list_free
    from rscount.counters.generic.bruteforce import BACKEND as brute
    problem, expected = oracle(seed, "free")
    joined = list_free(problem, _NoDeadline())
    assert len(joined) == expected and set(joined) == set(brute.enumerate(problem, None, None))


def test_kandinsky_example_free_audit_has_counts():
    """The audit of rsbench's Kandinsky example under free counts its cells (it was existence only, pair by
    pair through Ganak), each at most the count."""
    from rscount.auditing.relation import confusion
    problem = rscount.make_problem(rscount.load_config("knowledge/examples/kandinsky-two-colors.yml"),
                                   map_class="free")
    result = rscount.count_problem(problem)
    rel = confusion(problem, result, seconds=60)
    assert rel.weighted and rel.complete and "vector-join" in rel.method
    assert all(0 < w <= result.count for c in rel.concepts for w in c.weights[c.possible])


def test_concon_task_three_free_links_sizes_through_classes():
    """ConCon t3 at 2 objects: a small and a large size never differ alone in a scene, but scenes differing in
    a size and only in linked values elsewhere tie them, so the free count is the complete one: 12,042,240 with
    2 colours (Ganak's count on the free problem's CNF, 116 s on 2026-11-27; was not counted)."""
    from rscount.problems.problem import free_is_complete
    problem = rscount.make_problem("concon-t3", params=dict(objects=2, colors=2), map_class="free")
    assert free_is_complete(problem)
    assert rscount.count_problem(problem).count == 12_042_240 == rscount.count("concon-t3", params=dict(
        objects=2, colors=2), map_class="complete").count
