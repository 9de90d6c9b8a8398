"""The counters that exploit symmetry (automorphism, value maps, structural double cosets, the joint closed
form) and the symmetry finders they rest on, against brute force and each other."""
import math

import numpy as np
import pytest
from contract import Contract, matches_bruteforce, oracle_problems_match
from randomtasks import random_problem

import rscount
from rscount.counters.base import Deadline


class TestStructural(Contract):
    backend = "structural"
    classes = ["complete", "permutation"]


class TestClosedForm(Contract):
    backend = "closed-form"
    classes = ["joint"]


@pytest.mark.parametrize("k", range(2, 9))
def test_structural_closed_forms(k):
    import math
    assert rscount.count(f"xor{k}", backend="structural").count == math.factorial(k) * 2 ** (k - 1)
    assert rscount.count(f"and{k}", backend="structural").count == math.factorial(k)


def test_structural_double_cosets_cover_all_permutations():
    import math

    from rscount.counters.symmetry.structural import cosets
    for gt, pred in [([(0, 1), (2,), (3, 4)], [(0,), (1, 2, 3), (4,)]), ([(0, 1, 2, 3)], [(0, 1), (2, 3)])]:
        reps = list(cosets(gt, pred))
        assert sum(size for _, size in reps) == math.factorial(5 if len(gt) == 3 else 4)
        assert len({sigma for sigma, _ in reps}) == len(reps)


@pytest.mark.parametrize("name", ["xor4", "cle4evr", "mnadd-half", "mnlogic-random", "kand-logic", "random"])
def test_symmetry_by_sat_agrees_with_enumeration(name, monkeypatch):
    """Blocks proved on the label table, by SAT, and with (almost) no random probes first, agree."""
    import random

    from randomtasks import random_categorical_task

    from rscount import symmetry
    tasks = ([random_categorical_task(random.Random(seed)) for seed in range(30)] if name == "random"
             else [rscount.get_task(name)])
    for task in tasks:
        by_enumeration = symmetry.knowledge_blocks(task)
        with monkeypatch.context() as patch:
            patch.setattr(symmetry, "PROBES_ABOVE", 0)  # probes on every task
            assert symmetry.knowledge_blocks(task) == by_enumeration
            patch.setattr(symmetry, "PROBES", 1)
            assert symmetry.knowledge_blocks(task) == by_enumeration
            patch.setattr(symmetry, "ENUMERATE_UP_TO", 0)
            assert symmetry.knowledge_blocks(task) == by_enumeration


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("sample", [2, 2048])
def test_value_symmetries_are_every_label_keeping_permutation(seed, sample, monkeypatch):
    """The group found axis by axis (a sampled prefix check, a full last check) equals a walk over all tuples."""
    import itertools

    from rscount import symmetry
    monkeypatch.setattr(symmetry, "SAMPLE", sample)
    rng = np.random.default_rng(seed)
    sizes = tuple(int(x) for x in rng.integers(1, 4, size=int(rng.integers(1, 5))))
    if seed % 3:  # functions of the value sum have many symmetries; random tables few
        total = np.indices(sizes).sum(axis=0)
        table = total % 2 if seed % 3 == 1 else (total >= sum(sizes) // 2).astype(int)
    else:
        table = rng.integers(0, 2, size=sizes)
    ties = ((0, 1),) if len(sizes) > 1 and sizes[0] == sizes[1] and seed % 2 else ()
    group = symmetry.value_symmetries(table, ties)
    want = {perms for perms in itertools.product(*(itertools.permutations(range(s)) for s in sizes))
            if not (ties and perms[0] != perms[1]) and np.array_equal(table[np.ix_(*map(list, perms))], table)}
    got = [tuple(tuple(int(x) for x in g[a, :s]) for a, s in enumerate(sizes)) for g in group]
    assert len(got) == len(set(got)) and set(got) == want
    assert got[0] == tuple(tuple(range(s)) for s in sizes)


def test_value_symmetries_of_library_knowledge():
    from rscount import symmetry
    from rscount.problems.quotient import label_table
    table, _ = label_table(rscount.get_task("kand-logic"))
    assert len(symmetry.value_symmetries(table)) == 6 ** 4  # one color and one shape permutation per figure
    table, _ = label_table(rscount.get_task("xor4"))
    assert len(symmetry.value_symmetries(table)) == 2 ** 3  # flip an even number of bits
    assert symmetry.value_symmetries(table, limit=4) is None


class TestAutomorphism:
    """Bijections of the quotient knowledge against brute force, closed forms and hand-derived counts."""

    @pytest.mark.parametrize("seed", range(120))
    def test_matches_bruteforce(self, seed):
        from randomtasks import random_exhaustive_problem
        for cls in ["complete", "permutation", "disentangled", "shared"]:
            problem = random_exhaustive_problem(seed, cls)
            want = rscount.count_problem(problem, "bruteforce").count
            assert rscount.count_problem(problem, "automorphism").count == want, (seed, cls)

    @pytest.mark.parametrize("seed", range(60))
    def test_group_order_equals_full_walk(self, seed):
        from randomtasks import random_exhaustive_problem

        from rscount.counters.symmetry.automorphism import count_bijections
        for cls in ["complete", "disentangled", "shared"]:
            problem = random_exhaustive_problem(seed, cls)
            walk, _ = count_bijections(problem, Deadline(None, "test"), by_group=False)
            try:
                chain, _ = count_bijections(problem, Deadline(None, "test"), by_group=True)
            except ValueError:  # lifts differ between bijections: only the walk applies
                continue
            assert chain == walk, (seed, cls)

    @pytest.mark.parametrize("seed", range(40))
    def test_search_order_scores_one_member_per_symmetric_block(self, seed):
        """Scoring the first unused member of each block of swappable concepts picks the order scoring all does."""
        from randomtasks import random_exhaustive_problem

        from rscount.counters.symmetry.automorphism import _distinct, _Search, interchangeable
        from rscount.problems.quotient import quotient
        for task in (random_exhaustive_problem(seed, "complete").task, rscount.get_task(f"xor{2 + seed % 6}")):
            q = quotient(task)
            search = _Search(q, None, Deadline(None, "test"), interchangeable(q, task))
            k, left, want = task.k, list(range(task.k)), []
            while left and len(want) < k - 2:
                best = max(left, key=lambda i: (_distinct(search.histogram(tuple(want + [i]))), -i))
                want.append(best)
                left.remove(best)
            assert search.order() == want + left, seed

    @pytest.mark.parametrize("n", range(2, 13))
    def test_closed_forms(self, n):
        assert rscount.count(f"xor{n}", backend="automorphism").count == math.factorial(n) * 2 ** (n - 1)
        assert rscount.count(f"and{n}", backend="automorphism").count == math.factorial(n)
        assert rscount.count(f"xor{n}", map_class="disentangled", backend="automorphism").count == 2 ** (n - 1)

    @pytest.mark.parametrize("primitives, want", [(2, 165888), pytest.param(3, 13436928, marks=pytest.mark.slow)])
    def test_kand_logic_complete(self, primitives, want):
        """y = [colour pattern of figure 1 == of figure 2] or [same for shapes]. A bijection keeps every
        pattern (pattern classes have distinct sizes), so per figure and attribute it is one value
        permutation (6) times a permutation of the primitives (P!); the four attribute tuples may also
        swap figures within an attribute and swap colours with shapes (8): (6 P!)^4 * 8."""
        got = rscount.count("kand-logic", params={"primitives": primitives}, backend="automorphism")
        assert got.count == want == (6 * math.factorial(primitives)) ** 4 * 8

    def test_sdd_oia_ambulance_complete(self):
        """Ten concepts no label reads (any permutation, any of 4 value maps each); the rest keep
        stop = obstacle (OR of 4: S4), turn_left and turn_right (AND of 3 literals: S3 each; swapping
        left with right would swap two labels): 10! * 4^10 * 24 * 6 * 6. The read concepts' 864 are counted
        apart from the unread concepts' maps (and then by label part)."""
        r = rscount.count("sdd-oia-ambulance")
        assert r.count == math.factorial(10) * 4 ** 10 * 24 * 6 * 6
        assert r.read_count == 24 * 6 * 6 and r.free_maps == math.factorial(10) * 4 ** 10 and len(r.unread) == 10
        assert rscount.count("sdd-oia-ambulance", backend="automorphism").count == r.count

    @pytest.mark.slow
    def test_kand_logic_small_matches_sdd(self):
        for cls in ["disentangled", "shared"]:
            a = rscount.count("kand-logic", params={"primitives": 2}, map_class=cls, backend="automorphism")
            b = rscount.count("kand-logic", params={"primitives": 2}, map_class=cls, backend="sdd")
            assert a.count == b.count == {"disentangled": 1296, "shared": 36}[cls]

    @pytest.mark.slow
    @pytest.mark.parametrize("task, cls, other", [("cle4evr", "complete", "structural"),
                                                  ("mnmath", "disentangled", "sdd"),
                                                  ("mnadd", "complete", "structural")])
    def test_library_tasks_match_other_backends(self, task, cls, other):
        problem = rscount.make_problem(task, map_class=cls)
        assert (rscount.count_problem(problem, "automorphism").count
                == rscount.count_problem(problem, other, timeout=120).count)

    def test_falls_back_to_the_generic_counters(self, monkeypatch):
        from rscount.counters.symmetry import automorphism
        monkeypatch.setattr(automorphism, "MAX_NODES", 1)
        r = rscount.count("xor4")
        assert r.count == 192 and r.backend != "automorphism"
        assert any("automorphism gave up" in n for n in r.notes)

    @pytest.mark.parametrize("seed", range(80))
    def test_shared_groups_across_label_parts(self, seed):
        from randomtasks import random_crossing_shared_problem

        from rscount.problems.split import split_shared
        problem = random_crossing_shared_problem(seed)
        want = rscount.count_problem(problem, "bruteforce").count
        got = rscount.count_problem(problem)
        assert got.count == want, ([l.text for l in problem.task.labels], problem.task.groups, got.notes)
        if split_shared(problem):
            assert got.backend == "automorphism" and "shared parts" in got.notes[0]

    def test_mnmath_b1_shared(self):
        """The 10^8-vector exhaustive support: only x -> x keeps both c1+c2 == c3+c4 and c5*c6 == c7*c8."""
        r = rscount.count("mnmath-b1", map_class="shared")
        assert r.count == 1 and r.exact

    @pytest.mark.parametrize("seed", range(40))
    def test_lists_the_maps_sat_enumeration_lists(self, seed):
        from randomtasks import random_exhaustive_problem

        from rscount.counters import COUNTERS
        for cls in ["complete", "disentangled", "shared"]:
            problem = random_exhaustive_problem(seed, cls)
            mine = list(COUNTERS["automorphism"].enumerate(problem, None, None))
            sat = set(COUNTERS["enumerate"].enumerate(problem, rscount.encode(problem), None))
            assert len(mine) == len(set(mine)) and set(mine) == sat, (seed, cls)

    def test_lists_every_disentangled_map_of_kand_logic_from_the_chain(self):
        """1,296 maps from the stabilizer chain's coset representatives (a second, where walking the whole group
        took 96 s): all distinct, each keeping the labels of sampled concept vectors."""
        import numpy as np
        task = rscount.get_task("kand-logic")
        r = rscount.count(task, map_class="disentangled")
        maps = list(r.maps(None, timeout=120))
        assert len(maps) == len(set(maps)) == r.count == 1296
        vectors = np.random.default_rng(1).integers(0, 3, size=(300, task.k))
        want = task.evaluate(vectors)
        for m in maps[::37]:
            assert np.array_equal(task.evaluate(np.array([m(v) for v in vectors.tolist()])), want)

    @pytest.mark.slow  # a few seconds; the default tier keeps the cheaper checks
    def test_lists_maps_of_a_large_exhaustive_task(self):
        import numpy as np
        task = rscount.get_task("kand-logic")
        maps = list(rscount.count(task).maps(5))
        assert len(set(maps)) == 5
        vectors = np.random.default_rng(0).integers(0, 3, size=(3000, task.k))
        want = task.evaluate(vectors)
        for m in maps:
            assert np.array_equal(task.evaluate(np.array([m(v) for v in vectors.tolist()])), want)


class TestValueMaps:
    """Every value map tried at once, for disentangled and shared maps where they are few."""

    @pytest.mark.parametrize("table", [True, False, "filtered"])
    @pytest.mark.parametrize("cls", ["disentangled", "shared"])
    def test_matches_bruteforce(self, cls, table, monkeypatch):
        """Labels read off the table of the whole space, (spaces too large for one) evaluated per map, and (many
        maps) filtered row block by row block."""
        from rscount.counters.symmetry import valuemaps
        monkeypatch.setattr(valuemaps, "MAX_SPACE", valuemaps.MAX_SPACE if table is True else 0)
        if table == "filtered":
            monkeypatch.setattr(valuemaps, "MAX_ALL", 2)
            monkeypatch.setattr(valuemaps, "FIRST_ROWS", 1)
            monkeypatch.setattr(valuemaps, "CHUNK_VECTORS", 8)
        met = shared = 0
        for seed in range(150):
            problem = random_problem(seed, cls)
            if rscount.get_counter("valuemaps").applies(problem):
                met += 1
                shared += len({problem.representative(j) for j in range(problem.task.k)}) < problem.task.k
                matches_bruteforce("valuemaps", problem)
        assert met >= 60 and (cls == "disentangled" or shared >= 10), (met, shared)

    @pytest.mark.slow
    def test_raven_shared_filters_its_19683_tuples(self, monkeypatch):
        """Small RAVEN filtered against bruteforce and Ganak; the default RAVEN (19,683 shared tuples, 1,000
        puzzles) counted in seconds by filtering."""
        from rscount.counters.symmetry import valuemaps
        small = rscount.make_problem("raven", params={"candidates": 3, "values": 2, "attributes": "type,size"},
                                     map_class="shared")
        with monkeypatch.context() as m:
            for name, value in (("MAX_ALL", 2), ("FIRST_ROWS", 1), ("MAX_SPACE", 0)):
                m.setattr(valuemaps, name, value)
            filtered = rscount.count_problem(small, "valuemaps").count
        assert filtered == rscount.count_problem(small, "bruteforce").count == \
            rscount.count_problem(small, "ganak").count
        r = rscount.count("raven", map_class="shared", backend="valuemaps", timeout=120)
        assert r.exact and r.count >= 1

    def test_random_tasks_it_applies_to(self):
        assert oracle_problems_match("valuemaps") >= 40

    def test_kand_logic_shared(self):
        """One value map for the shapes and one for the colors: 729 maps, 36 of them keep the labels."""
        for size in (100, 1000):
            r = rscount.count("kand-logic", support=f"by-label:{size}", map_class="shared")
            assert r.backend == "valuemaps" and r.count == 36
        problem = rscount.make_problem("kand-logic", support="by-label:100", map_class="shared")
        assert rscount.count_problem(problem, "ganak").count == 36

    def test_does_not_apply(self):
        from rscount.counters.symmetry.valuemaps import applies
        assert not applies(rscount.make_problem("kand-logic", support="by-label:100", map_class="disentangled"))
        assert not applies(rscount.make_problem("kand-logic", support="by-label:100", map_class="complete"))
        assert not applies(rscount.make_problem("kand-logic", support="by-label:100", map_class="shared",
                                                supervise=["col1_1"]))
        with pytest.raises(rscount.BackendError, match="value-map tuples"):
            rscount.count_problem(rscount.make_problem("mnadd", map_class="shared"), "valuemaps")


def test_contingency_tables_match_a_brute_force_listing_and_take_many_blocks():
    """The double cosets' tables: every matrix with the row and column sums, once each, and no recursion limit
    on designs of many concepts (RAVEN's 48 singleton blocks reached it in the audit's class table)."""
    import itertools
    import random

    from rscount.counters.symmetry.structural import _tables

    def brute(rows, cols):
        r, c = len(rows), len(cols)
        top = max(rows + cols) + 1
        out = []
        for cells in itertools.product(range(top), repeat=r * c):
            m = [list(cells[i * c:(i + 1) * c]) for i in range(r)]
            if [sum(x) for x in m] == rows and [sum(m[i][j] for i in range(r)) for j in range(c)] == cols:
                out.append(m)
        return out
    rng = random.Random(5)
    for _ in range(150):
        rows, cols = [0] * rng.randint(1, 3), [0] * rng.randint(1, 3)
        for _ in range(rng.randint(0, 4)):
            rows[rng.randrange(len(rows))] += 1
            cols[rng.randrange(len(cols))] += 1
        got = list(_tables(rows, cols))
        assert sorted(got) == sorted(brute(rows, cols)), (rows, cols)
        assert len({str(m) for m in got}) == len(got)
    assert sum(1 for _, _ in zip(range(2001), _tables([1] * 48, [1] * 48))) == 2001
