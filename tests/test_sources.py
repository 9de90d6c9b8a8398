"""Complete maps as a sum over the sources the read concepts take (problems.sources.source_split), and source values
the rows cannot tell apart (the search's sorted classes), against brute force, Ganak and the plain search."""
import itertools
import math
import random

import numpy as np
import pytest
from randomtasks import confounded as _confounded
from tiers import tiered

import rscount
from rscount.problems.sources import source_split, splits_by_sources


def _oracle(problem) -> int:
    """Brute force where the class is small enough, else Ganak."""
    from rscount.counters.generic.bruteforce import LIMIT, number_of_candidates
    return rscount.count_problem(problem, "bruteforce" if number_of_candidates(problem) <= LIMIT else "ganak").count


@pytest.mark.parametrize("seed", tiered(range(24), 8))
def test_source_split_matches_an_oracle(seed):
    """Shapes read colours where the confounder lets them: the sum over source sets (one per orbit of the object
    swap) is brute force's (or Ganak's) count."""
    task, rows = _confounded(seed)
    problem = rscount.make_problem(task, map_class="complete", support=rows)
    split = source_split(problem)
    assert split is not None and split.candidates == 6 and split.sets >= len(split.rectangles)
    want = _oracle(problem)
    got = rscount.count_problem(problem)
    assert got.count == want, (task.labels[0].text, len(rows), got.backend)
    if got.backend == "sources(search)":
        assert "sources:" in got.notes[-1]
    search = rscount.get_counter("search")
    total = search.count_sum(split, rscount.counters.Options())[0]
    assert total == want


@pytest.mark.parametrize("seed", tiered(range(16), 2))
def test_source_split_three_objects_matches_ganak(seed):
    """Three objects (six object orders, a read set of three): against Ganak."""
    task, rows = _confounded(seed, n=3, shapes=2, colours=2 + seed % 2)
    problem = rscount.make_problem(task, map_class="complete", support=rows)
    split = source_split(problem)
    got = rscount.get_counter("search").count_sum(split, rscount.counters.Options())[0]
    assert got == rscount.count_problem(problem, "ganak").count


def _supervision(task, rng: random.Random) -> list:
    """One to three supervision items: whole concepts or single values, of read shapes or unread colours."""
    items = []
    for c in rng.sample(task.concepts, rng.randint(1, min(3, task.k))):
        items.append(c.name if rng.random() < 0.4 else f"{c.name}={rng.choice(c.domain)}")
    return items


@pytest.mark.parametrize("seed", tiered(range(48), 10))
def test_supervised_source_split_matches_an_oracle(seed):
    """Supervised concepts or values: a read one keeps its true value inside each rectangle (its rows kept apart
    where it is seen), an unread one restricts its value maps in the weight: brute force's (or Ganak's) count."""
    rng = random.Random(seed)
    task, rows = _confounded(seed, n=2 + (seed % 7 == 6), shapes=2 + seed % 2, colours=3)
    problem = rscount.make_problem(task, map_class=rng.choice(["complete", "permutation"]), support=rows,
                                   supervise=_supervision(task, rng))
    split = source_split(problem)
    assert split is not None
    want = _oracle(problem)
    assert rscount.get_counter("search").count_sum(split, rscount.counters.Options())[0] == want, \
        (task.labels[0].text, problem.supervision.describe(task))
    from rscount.counters.base import Deadline
    from rscount.counters.search.branch import Search
    from rscount.counters.search.listing import listed_count
    for rect in split.rectangles:  # SAT's list (the CNF pins supervised values to the rows' true ones) agrees
        search = Search(rect, Deadline(None, "search"))
        assert listed_count(rect, search.state, Deadline(None, "listing"), limit=1 << 17) == search.total()
    got = rscount.count_problem(problem)
    assert got.count == want and got.exact, (task.labels[0].text, len(rows), got.backend)


@pytest.mark.parametrize("seed", tiered(range(12), 3))
def test_supervising_one_object_keeps_the_others_symmetric(seed):
    """Three objects, a concept or value of object 1 supervised: swapping objects 2 and 3 still keeps the rows,
    so source sets count once per orbit of that swap, and the sum is Ganak's."""
    rng = random.Random(seed)
    task, rows = _confounded(seed, n=3, shapes=2, colours=2 + seed % 2)
    name = rng.choice(["s1", "c1"])
    item = name if seed % 2 else f"{name}={rng.choice(task.concepts[task.index(name)].domain)}"
    problem = rscount.make_problem(task, map_class="complete", support=rows, supervise=[item])
    from rscount.model.support import label_ids
    from rscount.problems.sources import _tuple_symmetries
    G = np.asarray(problem.support.vectors)
    perms = _tuple_symmetries(task, G, label_ids(problem.labels)[0], task.sizes, frozenset({task.index(name)}))
    assert sorted(perms) == [[0, 1, 2, 3, 4, 5], [0, 1, 4, 5, 2, 3]]  # identity, and objects 2 and 3 swapped
    split = source_split(problem)
    got = rscount.get_counter("search").count_sum(split, rscount.counters.Options())[0]
    assert got == rscount.count_problem(problem, "ganak").count


@pytest.mark.slow
@pytest.mark.parametrize("items", [["shape1"], ["color1=blue"], ["size2=small"], ["material1", "shape2=sphere"]])
def test_supervised_concon_matches_ganak(items):
    """ConCon task 1 at 2 objects and 3 colours, with a read or unread concept or value supervised: the split's
    count is Ganak's on the whole CNF (191,808 / 117,504 / 383,616 / 13,608 maps)."""
    problem = rscount.make_problem("concon-t1", params={"objects": 2, "colors": 3}, map_class="complete",
                                   supervise=items)
    got = rscount.count_problem(problem)
    assert got.backend == "sources(search)"
    assert got.count == rscount.count_problem(problem, "ganak").count


def test_supervision_of_whole_rows_is_left_to_the_other_counters():
    """Fully observed rows make every concept read: no split, the count still right."""
    task, rows = _confounded(3)
    problem = rscount.make_problem(task, map_class="complete", support=rows, concept_sup=1, seed=0)
    assert source_split(problem) is None
    assert rscount.count_problem(problem).count == _oracle(problem)


@pytest.mark.parametrize("seed", tiered(range(40), 8))
def test_free_maps_on_shown_values_match_an_oracle(seed):
    """Free maps where each concept's shown values stay together, with some values never shown (ConCon's
    disjoint supports: no metal, no large object): the sum over source sets on the shown values, times every
    target of each unshown value, is brute force's (or Ganak's) count; the plan takes it."""
    from rscount.problems.problem import free_keeps_concepts
    task, rows = _confounded(seed, shapes=2 + seed % 2, colours=3)
    rng = random.Random(seed)
    for column in rng.sample(range(task.k), rng.randint(0, 2)):  # drop one value of a column or two
        value = task.concepts[column].domain[rng.randrange(task.sizes[column])]
        kept = [r for r in rows if r[column] != value]
        rows = kept or rows
    problem = rscount.make_problem(task, map_class="free", support=rows)
    if not free_keeps_concepts(problem):
        assert source_split(problem) is None
        return
    split = source_split(problem)
    want = _oracle(problem)
    assert split is not None and rscount.get_counter("search").count_sum(split, rscount.counters.Options())[0] == want
    got = rscount.count_problem(problem)
    assert got.count == want and got.exact, (task.labels[0].text, len(rows), got.backend)


@pytest.mark.parametrize("seed", tiered(range(16), 6))
def test_sorted_source_classes_match_an_oracle(seed):
    """The plain search with interchangeable source values (colours 1 and 2 of each object) set as sorted
    tuples, weighted by their orderings: the oracle's count; the classes are found."""
    from rscount.counters.search.state import build_state
    task, rows = _confounded(seed)
    problem = rscount.make_problem(task, map_class="complete", support=rows)
    state = build_state(problem)
    if len(state.group) == 1:
        assert any(len(c) > 1 for classes in state.classes.values() for c in classes)
    assert rscount.count_problem(problem, "search").count == _oracle(problem)


def test_classes_need_the_whole_row_set_to_agree():
    """Values whose rows differ elsewhere are no class: a support that shows colour 1 with s=0 only."""
    from rscount.model.support import interchangeable_values
    G = np.array([[0, 1], [0, 2], [1, 2], [1, 0]])
    codes = np.array([0, 0, 1, 1])
    assert interchangeable_values(G, codes, (2, 3)) == {}
    G = np.array([[0, 1], [0, 2], [1, 0]])
    assert interchangeable_values(G, np.array([0, 0, 1]), (2, 3)) == {1: [(1, 2)]}


class TestConCon:
    """ConCon's tasks alone: the counts other counters give at 2 objects, and the split's at 3."""

    TWO = [("strict", 1, 24_576), ("strict", 3, 12_042_240), ("disjoint", 1, 2_015_232), ("disjoint", 3, 24_133_632)]

    @pytest.mark.parametrize("mode,t,want", TWO)
    def test_two_objects_two_colours(self, mode, t, want):
        problem = rscount.make_problem(f"concon-t{t}", params=dict(mode=mode, objects=2, colors=2))
        assert splits_by_sources(problem)
        assert rscount.count_problem(problem).count == want
        assert rscount.get_counter("search").count_sum(source_split(problem), rscount.counters.Options())[0] == want

    @pytest.mark.slow
    @pytest.mark.parametrize("mode,t,want", TWO)
    def test_two_objects_two_colours_as_ganak(self, mode, t, want):
        problem = rscount.make_problem(f"concon-t{t}", params=dict(mode=mode, objects=2, colors=2))
        assert rscount.count_problem(problem, "ganak").count == want

    def test_two_objects_eight_colours_as_the_search(self):
        problem = rscount.make_problem("concon-t1", params=dict(objects=2))
        split = source_split(problem)
        got = rscount.get_counter("search").count_sum(split, rscount.counters.Options())[0]
        assert got == 72_127_967_077_072_896 == rscount.count_problem(problem, "search").count

    def test_three_objects(self):
        got = rscount.count("concon-t1", params=dict(objects=3, colors=2))
        assert (got.count, got.backend) == (17_694_720, "sources(search)")
        assert "85 leave the labels a function of them (21 up to symmetry, 9 tables up to renaming" in got.notes[-1]

    def test_the_three_tasks_together_at_concons_own_setting(self):
        """ConCon's 4 objects with 8 colours, 2,000 sampled scenes per task, strict: on the union only the true
        shapes' and sizes' sources leave the labels a function of them, and 24 maps of them (the object
        orders) keep every label; the unread concepts' maps are counted apart in the headline."""
        from rscount.planning.execute import count_problem
        from rscount.problems.union import join, merged_groups, union_concepts
        problems = rscount.make_problems(["concon-t1", "concon-t2", "concon-t3"], params=dict(mode="strict"))
        tasks = [p.task for p in problems]
        joint = join(problems, union_concepts(tasks), merged_groups(tasks))
        single = rscount.problems.union.as_single(joint)[0]
        split = source_split(single)
        assert (split.sets, split.rectangles[0].sources) == (1, split.read)
        got = count_problem(joint)
        assert (got.read_count, got.free_maps) == (24, split.weights[0])
        assert got.count == 281_479_882_183_619_965_221_723_510_071_623_680


def test_finding_the_source_sets_keeps_the_time_limit():
    """The sets are sought under the caller's deadline (on 500,000 scenes it takes seconds), and a count that
    runs out of time fails with the typed error, naming the time limit."""
    from rscount.counters.base import Deadline
    from rscount.errors import CountTimeout
    task, rows = _confounded(1)
    problem = rscount.make_problem(task, map_class="complete", support=rows)
    with pytest.raises(CountTimeout):
        source_split(problem, Deadline(0.0, "sources"))
    with pytest.raises(CountTimeout, match="timed out"):
        rscount.count("concon-t1", params=dict(objects=3, colors=8), timeout=1)


@pytest.mark.parametrize("seed", tiered(range(24), 8))
def test_listed_rectangles_match_the_search(seed):
    """SAT's list of a rectangle's maps (object orders fixed, unshown values counted apart) gives the search's
    count on every source set, also with two or three objects and a value no row shows; past the limit, None."""
    from rscount.counters.base import Deadline
    from rscount.counters.search.branch import Search
    from rscount.counters.search.listing import listed_count
    from rscount.counters.search.state import build_state
    task, rows = _confounded(seed, n=2 + seed % 2, shapes=2 + seed % 2, colours=3)
    if seed % 3 == 1:
        rows = [r for r in rows if r[1] != task.concepts[1].domain[2]] or rows  # colour 2 unshown in object 1
    split = source_split(rscount.make_problem(task, map_class="complete", support=rows))
    assert split is not None and split.rectangles
    for rect in split.rectangles:
        want = Search(rect, Deadline(None, "search")).total()
        state = build_state(rect)
        assert listed_count(rect, state, Deadline(None, "listing")) == want
        if want > 1:
            assert listed_count(rect, state, Deadline(None, "listing"), limit=0) is None


@pytest.mark.slow
def test_concon_four_objects_two_colours_by_listing():
    """ConCon task 1 alone at 4 objects with 2 colours: 43 source sets up to symmetry, most without maps, proved
    by SAT where the search took 5-30 s each; the count is the true sources' 24 maps times the rest."""
    got = rscount.count("concon-t1", params={"objects": 4, "colors": 2}, timeout=None)
    assert got.exact and got.backend == "sources(search)"
    assert got.count == 24 * math.factorial(8) * 4 ** 8  # object orders x the unread concepts' maps


@pytest.mark.parametrize("seed", tiered(range(24), 8))
def test_renamed_rectangles_are_one_table_and_count_alike(seed):
    """A rectangle with its columns permuted (among columns of one size) and each column's values renamed is
    found to be the same table, and the search counts it alike; a changed label is not the same table."""
    import dataclasses
    from rscount.counters.base import Deadline
    from rscount.counters.search.branch import Search
    from rscount.model.support import Support, label_ids
    from rscount.problems.isomorphism import same_table, table
    task, rows = _confounded(seed, n=2 + seed % 2, shapes=2 + seed % 2, colours=3)
    split = source_split(rscount.make_problem(task, map_class="complete", support=rows))
    rng = np.random.default_rng(seed)
    for rect in split.rectangles:
        sizes, rows = rect.source_sizes, rect.support.vectors
        order = np.arange(len(sizes))
        for size in set(sizes):
            at = [j for j, s in enumerate(sizes) if s == size]
            order[at] = rng.permutation(at)
        renamed = np.stack([rng.permutation(sizes[j])[rows[:, j]] for j in order], axis=1)
        twin = dataclasses.replace(rect, support=Support(renamed, "renamed"),
                                   source_sizes=tuple(sizes[j] for j in order), sources=tuple(order))
        codes = label_ids(rect.labels)[0]
        assert same_table(table(rows, codes, sizes), table(renamed, codes, twin.source_sizes))
        assert Search(twin, Deadline(None, "s")).total() == Search(rect, Deadline(None, "s")).total()
        if len(np.unique(codes)) > 1:
            flipped = codes.copy()
            flipped[0] = 1 - flipped[0] if flipped[0] < 2 else 0
            assert not same_table(table(rows, codes, sizes), table(renamed, flipped, twin.source_sizes))


@pytest.mark.parametrize("seed", tiered(range(16), 4))
def test_merging_renamed_source_sets_keeps_the_count(seed, monkeypatch):
    """The sum over source sets is the same with renamed sets merged and with every orbit counted apart."""
    import rscount.problems.sources as sources
    task, rows = _confounded(seed, n=3, shapes=2, colours=2 + seed % 2)
    problem = rscount.make_problem(task, map_class="complete", support=rows)
    merged = source_split(problem)
    total = rscount.get_counter("search").count_sum(merged, rscount.counters.Options())[0]
    monkeypatch.setattr(sources, "same_table", lambda a, b: False)
    monkeypatch.setattr(sources, "_SPLITS", sources.Recent(4))  # not the split kept from the first call
    apart = source_split(problem)
    assert len(apart.rectangles) == apart.orbits == merged.orbits >= len(merged.rectangles)
    assert rscount.get_counter("search").count_sum(apart, rscount.counters.Options())[0] == total


def test_a_rectangle_too_large_to_list_goes_to_the_search(monkeypatch):
    """Past MAX_ROWS rows no CNF is built: the listing says None and the rectangle's count is the search's."""
    from rscount.counters.base import Deadline
    from rscount.counters.search import listing, sources
    from rscount.counters.search.branch import Search
    from rscount.counters.search.state import build_state
    task, rows = _confounded(1, n=3, shapes=2, colours=3)
    split = source_split(rscount.make_problem(task, map_class="complete", support=rows))
    monkeypatch.setattr(listing, "MAX_ROWS", 0)
    for rect in split.rectangles:
        assert listing.listed_count(rect, build_state(rect), Deadline(None, "listing")) is None
        count, _, by_sat = sources.rectangle_count(rect, Deadline(None, "search"), quick=0)
        assert count == Search(rect, Deadline(None, "search")).total() and not by_sat


def test_listing_encodes_only_the_rows_wrong_maps_break(monkeypatch):
    """SAT's list adds a rectangle's rows to the CNF as listed maps break them: on ConCon task 3 at 2 objects
    (2 colours) every rectangle's list is the search's count, and the big ones encode a fraction of their rows."""
    from rscount.counters.base import Deadline
    from rscount.counters.search import listing
    from rscount.counters.search.branch import Search
    encoded = []

    class Counted(listing.RowEncoder):
        def add(self, row, g):
            encoded.append(row)
            return super().add(row, g)
    monkeypatch.setattr(listing, "RowEncoder", Counted)
    problem = rscount.make_problem("concon-t3", params={"objects": 2, "colors": 2}, map_class="complete")
    split = source_split(problem)
    fractions = []
    for rect in split.rectangles:
        encoded.clear()
        want = Search(rect, Deadline(None, "search")).total()
        assert listing.listed_count(rect, Search(rect, Deadline(None, "s")).state, Deadline(None, "listing"),
                                    limit=1 << 17) == want
        fractions.append(len(encoded) / rect.support.length)
    assert min(fractions) < 0.5


@pytest.mark.parametrize("seed", tiered(range(24), 4))
def test_counts_kept_between_calls_match_an_oracle(seed, monkeypatch):
    """An audit counts a design again under supervision of unread concepts (the same rectangles, kept) and with a
    row added (its source sets sought among those of the rows before): each sum is the oracle's."""
    from rscount.model.support import Support, grid
    from rscount.problems import sources
    within = []
    sought = sources._sought
    monkeypatch.setattr(sources, "_sought", lambda *a, **k: within.append(k.get("within")) or sought(*a, **k))
    rng = random.Random(seed)
    task, rows = _confounded(seed, n=2 + (seed % 6 == 5), shapes=2 + seed % 2, colours=3)

    def summed(problem) -> int:
        return rscount.get_counter("search").count_sum(source_split(problem), rscount.counters.Options())[0]
    problem = rscount.make_problem(task, map_class="complete", support=rows)
    assert summed(problem) == _oracle(problem)
    unread = [c.name for i, c in enumerate(task.concepts) if i not in task.read]
    again = rscount.make_problem(task, map_class="complete", support=rows,
                                 supervise=rng.sample(unread, rng.randint(1, len(unread))))
    assert summed(again) == _oracle(again)
    have = {tuple(r) for r in problem.support.vectors.tolist()}
    outside = [r for r in grid(task.sizes).tolist() if tuple(r) not in have]
    if outside:
        added = np.vstack([problem.support.vectors, np.array(rng.sample(outside, min(len(outside), 2)))])
        more = rscount.make_problem(task, map_class="complete", support=Support(added, "added"))
        assert summed(more) == _oracle(more)
        assert within[-1] is not None  # sought among the sets of the rows before


@pytest.mark.parametrize("seed", range(12))
def test_supervised_unread_weight_by_sets_is_the_sum_over_orders(seed):
    """The unread concepts' weight with supervised ones placed over sets of sources equals the sum over every
    order of placing them (the loop it replaces), zero fits included."""
    from rscount.problems import sources
    rng = random.Random(seed)
    k = rng.randint(3, 7)
    sizes = tuple(rng.randint(2, 4) for _ in range(k))
    unread = tuple(sorted(rng.sample(range(k), rng.randint(1, k))))
    rest = tuple(sorted(rng.sample(range(k), len(unread))))
    fitted = rng.sample(unread, rng.randint(1, len(unread)))
    fits = {i: [rng.choice([0, 1, 2, 9]) for _ in range(k)] for i in fitted}
    plain = tuple(sizes[i] for i in unread if i not in fits)
    orders = sum(math.prod(f[s] for f, s in zip(fits.values(), chosen)) * sources.bijection_weight(
        plain, tuple(sizes[s] for s in rest if s not in chosen)) for chosen in itertools.permutations(rest, len(fits)))
    assert sources.unread_weight(unread, sizes, rest, sizes, fits) == orders


@pytest.mark.parametrize("seed", tiered(range(24), 6))
@pytest.mark.parametrize("map_class", ["complete", "free"])
def test_split_bounds_hold_the_count(seed, map_class, monkeypatch):
    """Guaranteed bounds from a source split: with time for every set they are the count (brute force's or
    Ganak's); with a set's count withheld, that set's class size stands in for it above and nothing below; with
    no time, the upper bound alone, and it is at least the count."""
    from rscount.counters.search import sources as by_sources
    task, rows = _confounded(seed, shapes=2 + seed % 2, colours=3)
    problem = rscount.make_problem(task, map_class=map_class, support=rows)
    split = source_split(problem)
    if split is None:
        return
    want = _oracle(problem)
    assert by_sources.split_bounds(split, 60.0) == (want, want, len(split.rectangles))
    low, high, counted = by_sources.split_bounds(split, 0.0)
    assert low == counted == 0 and high >= want
    heaviest = max(range(len(split.rectangles)), key=lambda n: split.weights[n])
    counts = [by_sources.rectangle_count(r, rscount.counters.base.Deadline(60, "t"))[0] for r in split.rectangles]
    real = by_sources.rectangle_count

    def withheld(rect, deadline, *args, **kwargs):  # every set but the heaviest runs out of its time
        if rect is not split.rectangles[heaviest]:
            raise rscount.CountTimeout("withheld")
        return real(rect, deadline, *args, **kwargs)
    monkeypatch.setattr(by_sources, "rectangle_count", withheld)
    monkeypatch.setattr(by_sources, "BOUND_MISSES", len(split.rectangles))
    low, high, counted = by_sources.split_bounds(split, 60.0)
    cores = split.cores or (None,) * len(split.rectangles)
    empty = [n for n, core in enumerate(cores) if n != heaviest and core is not None and counts[n] == 0
             and rscount.counters.search.branch.Search(core, rscount.counters.base.Deadline(60, "t")).total() == 0]
    assert low == split.weights[heaviest] * counts[heaviest] <= want <= high
    assert counted == 1 + len(empty)
    sizes = rscount.problems.split.bijection_weight
    assert high - low == sum(split.weights[n] * sizes(r.task.sizes, r.source_sizes)
                             for n, r in enumerate(split.rectangles) if n != heaviest and n not in empty)


@pytest.mark.slow
def test_concon_task_one_is_bounded_where_it_is_not_counted():
    """ConCon task 1 on its own sampled design (4 objects, 8 colours): approx=True gives guaranteed bounds, the
    lower one the read concepts' own sources (24 object orders x the colours' and materials' maps), exact."""
    problem = rscount.make_problem("concon-t1")
    split = source_split(problem)
    own = max(range(len(split.rectangles)), key=lambda n: split.weights[n])
    assert split.rectangles[own].sources == split.read
    r = rscount.count_problem(problem, approx=True, timeout=30)
    assert r.backend == "source-bounds" and not r.exact and r.delta == 0
    assert r.lower == r.count == 24 * split.weights[own] < r.upper
    assert "guaranteed" in str(r)
