"""The entry search against brute force, Ganak and the published counts; its parts (star tables, supports)
by hand."""
import math

import numpy as np
import pytest
from contract import Contract, N, oracle
from tiers import tiered

import rscount


class TestSearch(Contract):
    """The entry search (any listed support, supervision included) against brute force and other backends."""

    backend = "search"
    classes = ["complete", "permutation", "disentangled", "shared"]

    @pytest.mark.parametrize("seed", tiered(range(0, N, 4), 10))
    def test_stacked_row_codes_count_the_same(self, seed, monkeypatch):
        """The collision check's row codes stacked and ranked (past CODE_BOUND) give the fixed-weight counts."""
        from rscount.counters.search import propagate
        monkeypatch.setattr(propagate, "CODE_BOUND", 0)
        for map_class in self.classes:
            problem, expected = oracle(seed, map_class)
            assert rscount.count_problem(problem, "search").count == expected, (map_class, problem.describe())

    @pytest.mark.parametrize("targets, sources", [((2, 2, 2), (2, 2, 2)), ((2, 3, 3), (3, 2, 3)),
                                                  ((3, 2), (2, 2)), ((4,), (3,)), ((2, 3, 2, 3), (3, 3, 2, 2))])
    def test_bijection_weight(self, targets, sources):
        import itertools

        from rscount.problems.split import bijection_weight
        want = sum(math.prod(t ** sources[p[n]] for n, t in enumerate(targets))
                   for p in itertools.permutations(range(len(sources))))
        assert bijection_weight(targets, sources) == want

    @pytest.mark.parametrize("task, support, cls", [
        ("mnmath", "by-label:100", "complete"), ("mnmath", "by-label:100", "disentangled"),
        ("mnmath", "by-label:1000", "shared"), ("mnadd-half", None, "complete"),
        ("mnadd-evenodd", None, "disentangled"), ("mnadd-evenodd", None, "shared"),
        pytest.param("kand-logic", "by-label:100", "shared", marks=pytest.mark.slow),  # test_symmetry_and_... too
        ("sdd-oia", "by-label:1000", "disentangled"),
        ("xor4", "0,1,1,0;1,1,1,1;0,0,0,1", "complete")])
    def test_sampled_library_tasks_match_ganak(self, task, support, cls):
        problem = rscount.make_problem(task, map_class=cls, support=support)
        assert not problem.support.exhaustive
        got = rscount.count_problem(problem, "search")
        assert got.count == rscount.count_problem(problem, "ganak").count, got.notes

    @pytest.mark.parametrize("seed", range(6))
    def test_residual_ids_name_functions(self, seed):
        """Two star cells share an id exactly when every completion of their unknowns gives the same label."""
        import itertools

        from rscount.counters.search.tables import residual_ids
        rng = np.random.default_rng(seed)
        sizes = tuple(int(x) for x in rng.integers(2, 4, size=3))
        labels = rng.integers(0, 2 + seed % 3, size=sizes)
        star = np.zeros(tuple(s + 1 for s in sizes), dtype=np.int64)
        star[tuple(slice(0, s) for s in sizes)] = labels + 1
        strides = [int(x) // star.itemsize for x in star.strides]
        ids, n_ids = residual_ids(star.ravel(), sizes, strides)
        assert ids.max() < n_ids

        def function(cell):  # labels of every vector, keeping the known values of the cell
            grids = [range(s) if c == s else [c] * s for c, s in zip(cell, sizes)]
            return tuple(int(labels[v]) for v in itertools.product(*grids))
        cells = list(itertools.product(*(range(s + 1) for s in sizes)))
        functions = {cell: function(cell) for cell in cells}
        flat = {cell: int(ids[np.ravel_multi_index(cell, star.shape)]) for cell in cells}
        for a, b in itertools.combinations(cells, 2):
            assert (flat[a] == flat[b]) == (functions[a] == functions[b]), (a, b)

    @pytest.mark.slow
    @pytest.mark.parametrize("params, subsample, want", [
        ({"k": 6, "m": 6, "seed": 0}, 0.5, 1), ({"k": 8, "m": 3, "seed": 0}, 0.5, 16),
        ({"k": 6, "m": 3, "seed": 1}, 0.1, 26048)])
    def test_random_logic_matches_ganak(self, params, subsample, want):
        """Rows bound to end alike must want one label: the cut that makes these fast keeps the count."""
        problem = rscount.make_problem("mnlogic-random", params={**params, "l": 3}, subsample=subsample)
        got = rscount.count_problem(problem, "search")
        assert got.count == want == rscount.count_problem(problem, "ganak").count
        nodes = int(got.notes[0].split()[1])
        assert nodes < 10_000, got.notes  # k=6 m=6: 93,209 visits before the cut and the residual cache, 3,248 now

    @pytest.mark.parametrize("task, support, cls, want, most", [
        ("kand-logic", "by-label:100", "shared", 36, 30), ("mnmath-b1", "by-label:100", "shared", 1, 100)])
    def test_symmetry_and_consistency_prune(self, task, support, cls, want, most):
        """One value per orbit of the label-keeping value permutations (Kand-Logic: 121 visits without,
        7 with), and arc consistency on rows with 2-3 open entries (MNMath-B.1: 931 without, 26 with)."""
        got = rscount.count_problem(rscount.make_problem(task, map_class=cls, support=support), "search")
        assert got.count == want
        assert int(got.notes[0].split()[1]) < most, got.notes

    @pytest.mark.parametrize("vector, want", [("0,0,0", 192), ("1,1,1", 192), ("0,1,1", 192)])
    def test_published_single_examples(self, vector, want):
        assert rscount.count("xor3", support=vector, backend="search").count == want
        assert rscount.count("and3", support="1,1,1", backend="search").count == 48
        assert rscount.count("and3", support="0,0,0", backend="search").count == 336

    @pytest.mark.parametrize("seed", range(12))
    def test_label_parts_on_disjoint_concepts_match_bruteforce(self, seed):
        """Three label parts: a step that sets an entry re-checks only its own part for rows bound to collide."""
        import random
        rng = random.Random(seed)
        names = [f"c{i}" for i in range(4)]
        blocks = [names[:2], names[2:3], names[3:]]
        ops = ["{} & {}", "{} | {}", "{} ^ {}", "~{} | {}", "{} & ~{}"]
        labels = [rng.choice(ops).format(*b) if len(b) == 2 else rng.choice(["~{}", "{}"]).format(*b) for b in blocks]
        task = rscount.task_from_spec({"name": "parts", "concepts": names, "labels": labels})
        rows = rng.sample(range(task.space_size), rng.randint(3, 14))
        from randomtasks import _rows
        for cls in ("complete", "disentangled"):
            problem = rscount.make_problem(task, map_class=cls, support=_rows(task, rows))
            assert rscount.count_problem(problem, "search").count == \
                rscount.count_problem(problem, "bruteforce").count, (cls, labels, rows)

    def test_chosen_for_sampled_supports(self):
        r = rscount.count("mnmath-b1", support="by-label:1000", map_class="shared", timeout=120)
        assert r.count == 1 and r.backend in ("search", "ganak")
        assert any(note.startswith("search and ganak ran side by side") for note in r.notes)

    @pytest.mark.parametrize("seed", range(20))
    def test_supports_by_matrix_products_equal_boolean_ones(self, seed):
        from rscount.counters.search.propagate import supports
        rng = np.random.default_rng(seed)
        width = int(rng.integers(2, 11))
        ok = rng.random((7, width, width, width)) < rng.random()
        local = rng.random((7, 3, width)) < 0.6
        for j in range(3):
            want = np.array([[any(ok[r][(v, b, c) if j == 0 else (b, v, c) if j == 1 else (b, c, v)]
                                  and local[r, [k for k in range(3) if k != j][0], b]
                                  and local[r, [k for k in range(3) if k != j][1], c]
                                  for b in range(width) for c in range(width)) for v in range(width)]
                             for r in range(7)])
            assert (supports(ok, local, j) == want).all()
            assert (supports(ok.astype(np.float32), local, j) == want).all()

    def test_small_problems_are_counted_in_process(self, patient_quick_tries):
        quick = 0
        for seed in range(60):
            for cls in self.classes:
                problem, expected = oracle(seed, cls)
                if problem.support.exhaustive or problem.map_class == "joint":
                    continue
                got = rscount.count_problem(problem)
                assert got.count == expected, problem.describe()
                quick += any("in this process" in note for note in got.notes)
        assert quick >= 20
        r = rscount.count("xor3", support="0,0,0")
        assert (r.count, r.backend) == (192, "search") and "in this process" in r.notes[-1]

    def test_quick_attempt_gives_way_to_the_race(self, monkeypatch):
        from rscount.counters import search
        monkeypatch.setattr(search, "QUICK_SECONDS", 0.0)
        r = rscount.count("xor3", support="0,0,0")
        assert r.count == 192 and any("ran side by side" in note for note in r.notes)

    def test_times_out_cleanly(self):
        from rscount.errors import CountTimeout
        problem = rscount.make_problem("mnmath-b1", support="by-label:100", map_class="complete")
        with pytest.raises(CountTimeout):
            rscount.count_problem(problem, "search", timeout=0.5)


def _object_task(seed: int, n: int, unread: bool):
    """n objects of attributes a and b (and an unread c), with knowledge symmetric under permuting objects."""
    import random

    from rscount.readers.spec import task_from_spec
    rng = random.Random(seed)
    attrs = {"a": list(range(rng.choice([2, 3]) if n == 2 else 2)), "b": [0, 1], **({"c": [0, 1]} if unread else {})}
    va, vb, wa = (rng.randrange(len(attrs["a"])), rng.randrange(2), rng.randrange(len(attrs["a"])))
    if seed % 2:  # ConCon's shape: one object with a pattern and another with a value
        text = " | ".join(f"((a{o} == {va}) & (b{o} == {vb}) & (a{q} == {wa}))"
                          for o in range(1, n + 1) for q in range(1, n + 1) if o != q)
    else:  # a count over objects
        text = " + ".join(f"((a{o} == {va}) | (b{o} == {vb}))" for o in range(1, n + 1))
    return task_from_spec({"name": f"objects{seed}", "labels": {"y": text},
                           "concepts": {f"{x}{o}": v for o in range(1, n + 1) for x, v in attrs.items()},
                           "groups": {x: [f"{x}{o}" for o in range(1, n + 1)] for x in attrs}})


@pytest.mark.parametrize("seed", range(16))
def test_objects_swapped_together_match_bruteforce(seed):
    """Tuples the knowledge swaps together (an object's a and b) read sources in increasing order, the count
    times the tuples' factorial: the same count as brute force (or Ganak, where brute force is too slow)."""
    from rscount.counters.generic.bruteforce import number_of_candidates
    from rscount.counters.search.state import build_state
    from rscount.problems.interchange import knowledge_blocks
    n, unread = (2, True) if seed % 4 == 0 else (2 + seed % 2, False)
    problem = rscount.make_problem(_object_task(seed, n, unread), map_class="complete", subsample=0.6, seed=seed)
    got = rscount.count_problem(problem, "search").count
    assert got == rscount.count_problem(problem, "bruteforce" if number_of_candidates(problem) <= 3_000_000
                                        else "ganak").count
    names = [c.name for c in problem.task.concepts]
    singles = [b for b in knowledge_blocks(problem.task) if len(b) > 1 and not names[b[0]].startswith("c")]
    if unread and not singles:  # a1, a2 can only move with b1, b2: a block of tuple leads, not of single concepts
        blocks = set(build_state(problem).block_of.values())
        assert any(len(b) == n and all(names[i].startswith("a") for i in b) for b in blocks)


def _listed_whole(problem):
    """The count of a problem whose labels read every concept, by SAT's list of its one rectangle (the path the
    search takes once its quick budget is spent), the interchangeable concepts reading sources in order."""
    from rscount.counters.base import Deadline
    from rscount.counters.search.branch import Search
    from rscount.counters.search.listing import listed_count
    from rscount.problems.sources import whole_rectangle
    rect = whole_rectangle(problem)
    assert rect is not None, problem.describe()
    return listed_count(rect, Search(rect, Deadline(None, "test")).state, Deadline(None, "test"), limit=1 << 20)


@pytest.mark.parametrize("seed", tiered(range(40), 12))
def test_whole_problems_listed_by_sat_match_bruteforce(seed):
    """Random complete / permutation problems whose labels read every concept, and object tasks whose objects
    swap together: SAT's list (values no row shows counted in closed form, one map per block order) gives brute
    force's count."""
    import itertools

    from rscount.counters.generic.bruteforce import number_of_candidates
    from rscount.problems.sources import whole_rectangle
    if seed % 2:
        problem = rscount.make_problem(_object_task(seed, 2 + seed % 3 // 2, False),
                                       map_class="complete", subsample=0.5, seed=seed)
        expected = rscount.count_problem(problem, "bruteforce" if number_of_candidates(problem) <= 3_000_000
                                         else "ganak").count
    else:  # the (seed // 2)-th oracle problem it applies to (not: a concept no label reads, supervision)
        cls = "complete" if seed % 4 else "permutation"
        fit = (oracle(j, cls) for j in range(N) if whole_rectangle(oracle(j, cls)[0]) is not None)
        problem, expected = next(itertools.islice(fit, seed // 2, None))
    assert _listed_whole(problem) == expected, problem.describe()


@pytest.mark.slow
def test_read_part_of_concon_t3_at_4_objects_listed():
    """ConCon task 3's read concepts at 4 objects with 2 colours (8 concepts, 477 rows): the search proves little
    per node (1.2 million partial maps, 202 s); SAT lists its maps in about a second. The same count by both."""
    from rscount.problems.split import without_unread
    problem = rscount.make_problem("concon-t3", params={"objects": 4, "colors": 2})
    unread = tuple(i for i in range(problem.task.k) if i not in problem.task.read)
    sub = without_unread(problem, (unread, 1))[0]
    got = rscount.count_problem(sub, "search")
    assert got.count == _listed_whole(sub) == 12144
    assert "SAT listed" in got.notes[-1]


@pytest.mark.parametrize("seed", tiered(range(24), 6))
def test_maps_listed_per_orbit_are_every_map(seed):
    """SAT's list of one map per orbit (leads reading sources in increasing order), each moved by every
    permutation of its blocks' tuples, is the list of every map (no orbit ordering), map for map; and the
    audit's list of a whole problem's maps is the SAT enumeration's."""
    from rscount.auditing.maps import list_maps
    from rscount.counters.base import Deadline
    from rscount.counters.search.listing import rectangle_maps
    from rscount.counters.search.state import build_state
    from rscount.problems.sources import whole_rectangle
    problem = rscount.make_problem(_object_task(seed, 2 + seed % 3 // 2, False), map_class="complete",
                                   subsample=0.5 + 0.1 * (seed % 4), seed=seed)
    rect = whole_rectangle(problem)
    tuples = build_state(rect).tuples
    key = lambda m: (m[0], tuple(tuple(v.tolist()) for v in m[1]), m[2])  # noqa: E731
    moved = rectangle_maps(rect, Deadline(None, "test"), 1 << 20, tuples)
    every = rectangle_maps(rect, Deadline(None, "test"), 1 << 20)
    assert sorted(map(key, moved)) == sorted(map(key, every))
    result = rscount.count_problem(problem, "ganak")
    assert set(list_maps(problem, result, 1 << 20, None)) == set(result.maps(None))
    if seed < 8:
        assert any(len(block) > 1 for block in tuples), (seed, problem.task.labels[0].text)
