"""Counting by label parts (exhaustive and sampled supports) against brute force."""

import numpy as np
import pytest
from contract import oracle
from tiers import tiered

import rscount


class TestSplit:
    """Labels over disjoint concepts on the exhaustive support: the product of the parts, as brute force says."""

    TASKS = [
        (["a ^ b", "c & d"], "a,b,c,d"),
        (["a | b", "c ^ d"], "a,b,c,d"),
        (["a & ~b", "c", "d ^ a"], "a,b,c,d"),
        (["x + y", "z == 1"], "x=0..2,y=0..2,z=0..1"),
        (["Max(x, y)", "z != w"], "x=0..1,y=0..2,z=0..1,w=0..1"),
        (["a ^ b", "c & (d | ~d)", "d"], "a,b,c,d"),  # d is mentioned by a label that ignores it
    ]

    @pytest.mark.parametrize("n", range(len(TASKS)))
    @pytest.mark.parametrize("cls", ["complete", "permutation", "disentangled", "shared"])
    def test_matches_bruteforce(self, n, cls):
        labels, concepts = self.TASKS[n]
        task = rscount.task_from_text(labels, concepts)
        problem = rscount.make_problem(task, map_class=cls)
        want = rscount.count_problem(problem, "bruteforce").count
        got = rscount.count_problem(problem)
        assert got.count == want, (labels, cls, got.backend)

    def test_split_is_used_and_said(self):
        r = rscount.count(rscount.task_from_text(["a ^ b", "c & d"], "a,b,c,d"))
        assert r.backend.startswith("split(") and "product of the parts" in r.notes[0]

    def test_no_split_when_a_part_has_idle_concepts_elsewhere(self):
        from rscount.problems.split import split_problem
        task = rscount.task_from_text(["a ^ (b & ~b)", "c & (d | ~d)"], "a,b,c,d")
        assert split_problem(rscount.make_problem(task)) is None
        assert split_problem(rscount.make_problem(task, map_class="disentangled")) is not None

    @pytest.mark.parametrize("seed", range(60))
    def test_random_exhaustive_problems(self, seed):
        for cls in ["complete", "disentangled", "shared"]:
            problem, expected = oracle(seed, cls)
            if problem.support.exhaustive and not problem.supervision.vectors:
                assert rscount.count_problem(problem).count == expected


class TestSampledSplit:
    """Disentangled and shared maps factor over label parts on any support (projected supports)."""

    TASKS = TestSplit.TASKS

    @pytest.mark.parametrize("n", range(len(TASKS)))
    @pytest.mark.parametrize("cls", ["disentangled", "shared"])
    @pytest.mark.parametrize("seed", range(4))
    def test_matches_bruteforce(self, n, cls, seed):
        import random

        from rscount.problems.split import split_problem
        from rscount.model.support import grid
        labels, concepts = self.TASKS[n]
        task = rscount.task_from_text(labels, concepts)
        rng = random.Random(seed)
        rows = grid(task.sizes, rng.sample(range(task.space_size), rng.randint(1, task.space_size // 2))).tolist()
        problem = rscount.make_problem(task, map_class=cls, support=rows, concept_sup=rng.choice([None, 1]),
                                       seed=seed)
        want = rscount.count_problem(problem, "bruteforce").count
        got = rscount.count_problem(problem)
        if split_problem(problem) is not None:
            assert got.backend.startswith("split(") and "reads each part's concepts alone" in got.notes[0]
        assert got.count == want, (labels, cls, rows, got.backend)

    def test_complete_does_not_split_on_a_sample_that_allows_crossing(self):
        from rscount.problems.split import split_problem
        task = rscount.task_from_text(["a ^ b", "c & d"], "a,b,c,d")
        problem = rscount.make_problem(task, support="0,0,0,0;1,0,1,1")  # c alone tells both labels here
        assert split_problem(problem) is None
        assert rscount.count_problem(problem).count == rscount.count_problem(problem, "bruteforce").count

    @pytest.mark.parametrize("n", tiered(range(len(TASKS)), 3))
    @pytest.mark.parametrize("cls", ["complete", "permutation"])
    def test_complete_matches_bruteforce(self, n, cls):
        """Complete maps split on a sample only where the sample keeps every part's sources inside it; large
        samples often do, small ones rarely."""
        import random

        from rscount.problems.split import split_problem
        from rscount.model.support import grid
        labels, concepts = self.TASKS[n]
        task = rscount.task_from_text(labels, concepts)
        split = 0
        for seed in range(12):
            rng = random.Random(seed)
            n_rows = rng.randint(task.space_size // 2, task.space_size - 1) if seed % 3 else rng.randint(1, 4)
            rows = grid(task.sizes, rng.sample(range(task.space_size), n_rows)).tolist()
            problem = rscount.make_problem(task, map_class=cls, support=rows, concept_sup=rng.choice([None, 1]),
                                           seed=seed)
            want = rscount.count_problem(problem, "bruteforce").count
            got = rscount.count_problem(problem)
            if split_problem(problem) is not None:
                split += 1
                assert got.backend.startswith("split(") and "no optimal map lets a part read" in got.notes[0]
            assert got.count == want, (labels, cls, rows, got.backend)
        assert split

    def test_rigid_parts(self):
        """A part is rigid when only its own concepts tell its labels apart on the rows."""

        from rscount.problems.split import _rigid
        from rscount.model.support import grid, row_codes
        G = grid((2, 2, 2, 2))
        full = row_codes(G, [2, 2, 2, 2])
        xor_ab = G[:, 0] ^ G[:, 1]
        assert _rigid(G, full, xor_ab, (2, 2, 2, 2), 0b0011, 2)
        assert not _rigid(G, full, xor_ab, (2, 2, 2, 2), 0b0111, 3)  # {a, b} alone already decides it
        rows = G[[0, 3, 5, 6]]  # 0000, 0011, 0101, 0110: b alone equals a ^ b here
        assert not _rigid(rows, row_codes(rows, [2] * 4), rows[:, 0] ^ rows[:, 1], (2, 2, 2, 2), 0b0011, 2)
        assert not _rigid(G[:0], full[:0], xor_ab[:0], (2, 2, 2, 2), 0b0011, 2)  # no rows: anything fits
        mixed = grid((3, 2, 3))  # a categorical part: y = (x == 2) ^ z, over x, y, z with z of 3 values
        wanted = (mixed[:, 0] == 2).astype(np.int64) ^ (mixed[:, 2] == 1)
        assert _rigid(mixed, row_codes(mixed, [3, 2, 3]), wanted, (3, 2, 3), 0b101, 2)

    @pytest.mark.parametrize("limit", ["MAX_HITTING_NODES", "MAX_HITTING_ROUNDS"])
    def test_a_rigidity_proof_out_of_budget_does_not_split(self, limit, monkeypatch):
        from rscount import split
        task = rscount.task_from_text(["a ^ b", "c & d"], "a,b,c,d")
        problem = rscount.make_problem(task, support=split.grid((2, 2, 2, 2)).tolist()[1:])
        assert split.split_problem(problem) is not None
        monkeypatch.setattr(split, limit, 1)
        assert split.split_problem(problem) is None
        assert rscount.count_problem(problem).count == rscount.count_problem(problem, "bruteforce").count

    @pytest.mark.slow  # test_complete_matches_bruteforce checks the same path on small tasks
    def test_sdd_oia_complete_splits_on_its_sample(self):
        """The three action parts of SDD-OIA keep their sources on the 1,000-vector sample: the split count
        equals the search over whole maps (4,242 partial maps, about 1 s)."""
        problem = rscount.make_problem("sdd-oia", support="by-label:1000")
        got = rscount.count_problem(problem)
        assert got.backend.startswith("split(") and got.count == 1_244_160
        assert rscount.count_problem(problem, "search").count == 1_244_160


@pytest.mark.parametrize("map_class", ["disentangled", "shared"])
@pytest.mark.parametrize("seed", tiered(range(12), 4))
def test_unread_concepts_are_free_factors(map_class, seed):
    """Concepts no label reads: the rest counted on the projected support times their free value maps, against
    brute force over every map (supervision on the unread concepts pins values)."""
    import random

    import rscount
    from rscount.planning.dispatch import plan
    from randomtasks import _bool_expr
    rng = random.Random(seed)
    concepts = {"a": "bool", "b": "0..2", "c": "bool", "d": "0..2", "e": "bool"}
    read = ["a", "c"] if seed % 2 else ["a", "b"]
    task = rscount.task_from_spec({"name": "idle", "concepts": concepts,
                                   "labels": [_bool_expr(rng, [n for n in read if concepts[n] != "bool"],
                                                         [n for n in read if concepts[n] == "bool"], 2) + " | (a & ~a)"],
                                   "groups": [["a", "c", "e"], ["b", "d"]] if seed % 3 == 0 else []})
    space = rscount.model.support.grid(task.sizes).tolist()
    rows = rng.sample(space, rng.randint(1, 20))
    supervise = rng.choice([[], ["d"], ["e=1"], ["a"]])
    whole = seed % 3 == 1  # the exhaustive support: the rest counts on its own space, nothing listed
    problem = rscount.make_problem(task, map_class=map_class, support="exhaustive" if whole else [
        [task.concepts[i].domain[u] for i, u in enumerate(r)] for r in rows], supervise=supervise,
        concept_sup=None if whole else rng.choice([None, 1]), seed=seed)
    brute = rscount.count_problem(problem, "bruteforce").count
    result = rscount.count_problem(problem)
    assert result.count == brute
    assert all(len(m.assign) == task.k for m in result.maps(3))  # maps of this problem, not of the reduced one
    first = plan(problem).steps[0]
    assert first.kind in ("as", "parts", "try", "run", "race")


@pytest.mark.parametrize("map_class", ["complete", "permutation"])
@pytest.mark.parametrize("seed", tiered(range(24), 8))
def test_unread_concepts_under_complete_maps(map_class, seed):
    """Complete maps on the exhaustive support: where every read concept tells labels apart, the read concepts
    read the read sources and the unread ones each other (any value maps), so the count is the read concepts'
    count times those bijections; against brute force over every map. A read concept that tells nothing apart
    (``u == 1 & ~(u == 1)`` below) keeps the count whole."""
    import random

    import rscount
    from rscount.problems.split import bijection_weight, unread_concepts
    from randomtasks import _bool_expr
    rng = random.Random(seed)
    concepts = [{"a": "bool", "b": "0..2", "u": "bool", "v": "bool"}, {"a": "bool", "b": "bool", "u": "0..2"},
                {"a": "bool", "b": "bool", "c": "bool", "u": "bool"}, {"a": "bool", "b": "0..2", "u": "0..2"}][seed % 4]
    ints = [n for n in "b" if concepts["b"] != "bool"]
    text = _bool_expr(rng, ints, [n for n in "abc" if concepts.get(n) == "bool"], 2)
    if seed % 3 == 0:
        text = f"({text}) ^ a"
    if seed % 5 == 4:
        text = f"({text}) | (a & (u == 1) & ~(u == 1))"
    task = rscount.task_from_spec({"name": "idle", "concepts": concepts, "labels": [text]})
    problem = rscount.make_problem(task, map_class=map_class, support="exhaustive")
    brute = rscount.count_problem(problem, "bruteforce").count
    result = rscount.count_problem(problem)
    assert result.count == brute, text
    found = unread_concepts(problem)
    if found is not None:
        free, factor = found
        unread = [task.concepts[i].name for i in free]
        assert {"u", "v"} & set(concepts) <= set(unread)
        assert factor == bijection_weight(*[tuple(task.sizes[i] for i in free)] * 2)
        assert result.unread == tuple(unread) and result.count == result.read_count * factor


@pytest.mark.parametrize("map_class", ["complete", "permutation"])
@pytest.mark.parametrize("seed", tiered(range(40), 10))
def test_unread_concepts_under_complete_maps_on_listed_supports(map_class, seed):
    """The same split on a listed support (ConCon's three tasks together): it applies where every read concept
    tells labels apart there (two rows differing in it alone, with different labels), and then the count is
    brute force's."""
    import random

    import rscount
    from rscount.problems.split import tells_labels_apart, unread_concepts
    from randomtasks import _bool_expr
    rng = random.Random(seed)
    concepts = [{"a": "bool", "b": "0..2", "u": "bool", "v": "bool"}, {"a": "bool", "b": "bool", "u": "0..2"},
                {"a": "bool", "b": "bool", "c": "bool", "u": "bool"}, {"a": "bool", "b": "0..2", "u": "0..2"}][seed % 4]
    ints = [n for n in "b" if concepts["b"] != "bool"]
    text = _bool_expr(rng, ints, [n for n in "abc" if concepts.get(n) == "bool"], 2)
    task = rscount.task_from_spec({"name": "idle", "concepts": concepts, "labels": [f"({text}) ^ a"]})
    space = rscount.model.support.grid(task.sizes).tolist()
    rows = rng.sample(space, rng.randint(len(space) // 3, len(space) - 1))
    problem = rscount.make_problem(task, map_class=map_class, support=[
        [task.concepts[i].domain[u] for i, u in enumerate(r)] for r in rows])
    from rscount.language.logic import variables
    read = sorted({task.index(n) for n in variables(task.labels[0].expr)})
    codes = rscount.model.support.label_ids(problem.labels)[0]
    apart = all(tells_labels_apart(problem.support.vectors, codes, i) for i in read)
    assert (unread_concepts(problem) is not None) == apart
    assert rscount.count_problem(problem).count == rscount.count_problem(problem, "bruteforce").count, text
