"""Supports and supervision options."""
import numpy as np
import pytest

import rscount
from rscount import support as S
from rscount.errors import SupportError, TaskError


def test_exhaustive_and_subsample():
    task = rscount.get_task("xor4")
    assert len(S.exhaustive(task)) == 16
    a = S.subsample(task, 0.5, seed=1)
    b = S.subsample(task, 0.5, seed=1)
    assert len(a) == 8 and np.array_equal(a.vectors, b.vectors)
    assert not np.array_equal(a.vectors, S.subsample(task, 0.5, seed=2).vectors)
    assert len(S.subsample(task, 3, seed=0)) == 3
    with pytest.raises(SupportError, match="only 16 exist"):
        S.subsample(task, 17)


def test_explicit_and_named_values():
    task = rscount.task_from_spec({"concepts": {"col": ["red", "blue"], "n": "0..2"}, "labels": ["col == red"]})
    sup = S.explicit(task, "red,2; blue,0")
    assert sup.vectors.tolist() == [[0, 2], [1, 0]]
    with pytest.raises(SupportError, match="not in the domain of col"):
        S.explicit(task, "green,1")


def test_duplicates_are_merged():
    assert len(S.explicit(rscount.get_task("xor3"), "1,1,1;1,1,1")) == 1


def test_concept_supervision_counts():
    # supervising c1 everywhere pins it: remaining maps permute and negate c2, c3 consistently
    assert rscount.count("xor3", supervise=["c1"]).count == 4
    assert rscount.count("xor3", supervise=["c1=1"], backend="bruteforce").count == \
        rscount.count("xor3", supervise=["c1=1"]).count
    with pytest.raises(SupportError, match="not in the domain"):
        rscount.count("xor3", supervise=["c1=5"])


def test_unknown_map_class():
    with pytest.raises(rscount.EncodingError, match="unknown map class"):
        rscount.count("xor3", map_class="weird")


def test_unknown_task_lists_known():
    with pytest.raises(TaskError, match="known tasks"):
        rscount.get_task("nope")


def test_label_first_sample_balances_labels():
    task = rscount.get_task("and4")  # one positive vector among 16
    sup = S.by_label(task, 4, seed=0)
    labels = task.evaluate(sup.vectors)[:, 0]
    assert len(sup) == 4 and labels.sum() == 1  # the rare label is drawn half the time
    assert np.array_equal(S.by_label(task, 4, seed=0).vectors, sup.vectors)
    assert rscount.count("and4", support="by-label:4", seed=0).support_size == 4
    with pytest.raises(SupportError, match="by-label:N"):
        rscount.count("and4", support="by-label:x")


def _label_first_reference(task, rows, n, seed):
    """The label-first draw written plainly: every row, np.unique over label rows, one pool per label."""
    import random
    _, group = np.unique(task.evaluate(rows), axis=0, return_inverse=True)
    group = group.reshape(-1)
    members = [np.flatnonzero(group == g) for g in range(group.max() + 1)]
    rng, chosen = random.Random(seed), set()
    while len(chosen) < min(n, len(rows)):
        pool = members[rng.randrange(len(members))]
        chosen.add(int(pool[rng.randrange(len(pool))]))
    return rows[sorted(chosen)]


@pytest.mark.parametrize("seed", range(60))
def test_evaluate_space_matches_the_grid(seed):
    import random

    from randomtasks import random_categorical_task, random_cnf_task
    rng = random.Random(seed)
    task = random_categorical_task(rng) if seed % 2 else random_cnf_task(rng, rng.randint(1, 6))
    rows = S.grid(task.sizes)
    labels = task.evaluate(rows)
    assert np.array_equal(task.evaluate_space(), labels)
    ids, kinds = S.label_ids(labels)
    _, inverse = np.unique(labels, axis=0, return_inverse=True)
    assert np.array_equal(ids, inverse.reshape(-1)) and kinds == inverse.max() + 1
    space_ids, space_kinds = S.space_label_ids(task)
    assert np.array_equal(space_ids, ids) and space_kinds == kinds
    n = rng.randint(1, len(rows))
    assert np.array_equal(S.by_label(task, n, seed).vectors, _label_first_reference(task, rows, n, seed))


def test_evaluate_space_broadcasts_constants_and_every_operator_shape():
    """Constant labels, a bare concept, n-ary Equivalent and ITE: each broadcast to the whole space."""
    task = rscount.task_from_spec({"name": "e", "concepts": {"a": "bool", "b": "bool", "c": "0..2"},
                                   "labels": ["1", "Equivalent(a, b, c > 0)", "ITE(a, 2, c)", "a", "And()"]})
    assert np.array_equal(task.evaluate_space(), task.evaluate(S.grid(task.sizes)))
    assert np.array_equal(S.space_label_ids(task)[0], S.label_ids(task.evaluate(S.grid(task.sizes)))[0])
    bare = rscount.task_from_spec({"name": "f", "concepts": {"a": "bool", "b": "bool"}, "labels": ["Or(a, ~a)"]})
    assert S.space_label_ids(bare)[1] == 1  # one constant boolean label: one label vector


@pytest.mark.parametrize("few", [0, 32])
def test_label_first_pools_by_pass_or_by_sort(few, monkeypatch):
    """Pools of rows per label vector, found by one pass per label vector or by a radix sort: the same draw."""
    monkeypatch.setattr(S, "FEW_KINDS", few)
    task = rscount.get_task("mnadd-evenodd")
    assert np.array_equal(S.by_label(task, 50, 3).vectors, _label_first_reference(task, S.grid(task.sizes), 50, 3))


@pytest.mark.parametrize("name", ["kand-logic", "mnmath", "cle4evr", "mnadd-evenodd",
                                  pytest.param("sdd-oia", marks=pytest.mark.slow)])
def test_label_first_sample_of_library_tasks_matches_the_plain_draw(name):
    task = rscount.get_task(name)
    assert np.array_equal(S.by_label(task, 300, 1).vectors, _label_first_reference(task, S.grid(task.sizes), 300, 1))


def test_drawn_label_first_sample_matches_the_plain_draw():
    task = rscount.get_task("mnmath-b1")  # too large to list: labels are met among uniform draws
    rng = np.random.default_rng(2)
    drawn = np.unique(np.stack([rng.integers(s, size=S.LABEL_DRAWS) for s in task.sizes], axis=1), axis=0)
    assert np.array_equal(S.by_label(task, 200, 2).vectors, _label_first_reference(task, drawn, 200, 2))
