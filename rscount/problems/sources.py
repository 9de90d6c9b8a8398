"""A complete problem as a sum over the source sets its read concepts may take.

Under ``complete`` (and ``permutation``, and ``free`` where its maps send each concept's shown values to one
predicted concept: then on the shown values, with any targets for the values no vector shows) every map is a
bijection of concepts with any value maps: each predicted concept comes out one-hot from one source. Only the
concepts the labels read meet them, so the count is a sum over the sets R of sources the read concepts take:
the read concepts' maps onto R that keep every label (a :class:`Rectangle`, counted by the search) times the
unread concepts' bijections onto the rest. R must leave the labels a function of its columns on the support,
which few sets do; sets that swapping objects maps onto each other count alike. This generalises
:func:`rscount.problems.split.unread_concepts`, where only the read concepts' own sources qualify.
"""
from __future__ import annotations

import dataclasses
import itertools
import math
from dataclasses import dataclass

import numpy as np

from ..model.support import Support, interchangeable_values, label_ids, representatives, row_codes
from ..model.task import Task
from ..runtime.lazy import Recent, digest
from .isomorphism import same_table, table
from .problem import Problem, free_keeps_concepts
from .split import bijection_weight, clash_masks, keeping

__all__ = ["Rectangle", "SourceSplit", "rectangle_on", "source_split", "splits_by_sources", "whole_rectangle"]


MAX_SOURCE_SETS = 1 << 18  # candidate source sets (k choose read) a source split may walk
MAX_SOURCE_ROWS = 1 << 20  # support rows a source split checks its candidate sets on


@dataclass(frozen=True, eq=False)
class Rectangle:
    """The read concepts of a complete problem reading a chosen set of sources, one each (any value maps):
    ``task`` holds the read concepts and the labels, ``support`` the original rows projected on ``sources``
    (distinct), ``labels`` those rows' labels (the original rows', not K of the projection). The search counts
    it as a problem whose predicted concepts and sources differ."""

    task: Task
    support: Support
    labels: np.ndarray
    sources: tuple  # the source concepts, as indices of the whole problem's task
    source_sizes: tuple
    map_class: str = "complete"
    truth: np.ndarray | None = None  # per row and read concept: its true value (the original column)
    observed: np.ndarray | None = None  # per row and read concept: supervised there (None: nothing is)
    inference = "knowledge"  # read as a problem's (the search, the CNF encoding): K itself, one task
    parts = ()

    def supervised(self, row: int, vector) -> tuple:
        """The read concepts supervised on ``row``: the map must give them their value in ``truth``."""
        return () if self.observed is None else tuple(np.flatnonzero(self.observed[row]).tolist())

    def representative(self, i: int) -> int:
        return i


@dataclass(frozen=True)
class SourceSplit:
    """A complete problem as a sum over the source sets its read concepts may read: count = sum over
    ``rectangles`` of weight x the rectangle's count (its weight: the unread concepts' bijections onto the
    sources left, with any value maps)."""

    rectangles: tuple
    weights: tuple
    read: tuple
    unread: tuple
    candidates: int  # source sets of the right size
    sets: int  # those that leave the labels a function of the sources (``rectangles``: one per symmetry orbit,
    # and one of the orbits whose labelled rows are one table up to renaming: :mod:`.isomorphism`)
    cores: tuple = ()  # per rectangle: its rows with one value of each class the rows cannot tell apart, or None
    unshown: int = 1  # free maps: the targets of the values no vector shows (in every weight)
    orbits: int = 0  # ``sets`` up to symmetry; ``rectangles`` keeps one of those that renaming makes one table
    members: tuple = ()  # per rectangle: (source set, its weight, the set of its orbit whose rows the rectangle's
    # are up to renaming, the column permutation p carrying that set onto this one: {p[c] for c in it}), for every
    # set it stands for


def source_split(problem: Problem, deadline=None) -> SourceSplit | None:
    """Under ``complete`` / ``permutation`` (and ``free`` where its maps keep concepts together:
    :func:`~rscount.problems.problem.free_keeps_concepts`; sources then have their shown values), nothing
    supervised, on a listed support: every complete map is a bijection of concepts with any value maps (each
    predicted concept comes out one-hot from one source), and only the read concepts meet the labels. So the
    count is a sum over the sets R of sources the read concepts take: the read concepts' maps onto R that keep
    every label (a :class:`Rectangle`), times the unread concepts' bijections onto the rest. R must leave the
    labels a function of its columns on the support (else no value map keeps them), which few sets do
    (ConCon task 1 at 3 objects: 85 of 924). None where this does not apply; ``deadline`` (anything with
    ``check()``) is checked while the sets are sought. Kept for the same problem asked again (:data:`_SPLITS`)."""
    if not splits_by_sources(problem):
        return None
    if problem.key not in _SPLITS:
        _SPLITS.update({problem.key: _split(problem, deadline)})
    return _SPLITS.get(problem.key)


_SPLITS = Recent(4)  # splits by Problem.key: an audit's fix counts a supervised design, then asks for its split


def _split(problem: Problem, deadline) -> SourceSplit:
    task = problem.task
    read = task.read
    unread = tuple(i for i in range(task.k) if i not in read)
    G = raw = np.asarray(problem.support.vectors, dtype=np.int64)
    observed = _observed(problem, raw, read) if problem.supervision else None
    sources, unshown = task.sizes, 1
    if problem.map_class == "free":  # complete maps on the shown values; a value no vector shows goes anywhere
        G, sources = _shown_ranks(G)
        unshown = sum(task.sizes) ** (sum(task.sizes) - sum(sources))
    codes, columns = label_ids(problem.labels)[0], np.ascontiguousarray(G.T)
    truth = seen = None
    if observed is not None:  # rows that differ only in what supervision sees stay apart in every rectangle
        truth = raw[:, list(read)]
        seen = row_codes(np.where(observed, truth + 1, 0), [task.sizes[i] + 1 for i in read])
        seen = np.unique(seen, return_inverse=True)[1].ravel()  # what supervision sees on a row, ranked
    perms = _tuple_symmetries(task, G, codes, sources, frozenset(i for i, _ in problem.supervision.concepts))
    sub_task = keeping(task, read)
    fits = {}  # supervised unread concepts: their value maps from each source
    if problem.supervision:
        apart = _observed(problem, raw, unread)
        for a, i in enumerate(unread):
            if apart is not None and apart[:, a].any():
                fits[i] = _fits(G, raw[:, i], apart[:, a], task.sizes[i], sources)
    rects, weights, cores, tables, members, sets, orbits = [], [], [], [], [], 0, 0
    needs = () if observed is None else _determiners(G, truth, observed)
    for R, orbit in _label_functions(G, codes, sources, len(read), perms, deadline, needs):
        sets, orbits = sets + orbit, orbits + 1
        first = _distinct_on(columns, R, sources, seen)
        rows = G[np.ix_(first, list(R))]
        each = unshown * unread_weight(unread, task.sizes, tuple(s for s in range(task.k) if s not in R), sources,
                                        fits)
        if not each:
            continue
        weight = orbit * each
        mine = table(rows, codes[first], tuple(sources[s] for s in R))
        same = None if observed is not None else next(
            (n for n, other in enumerate(tables) if same_table(mine, other)), None)
        images: dict = {}
        for p in perms:  # the identity first: R stands for itself
            images.setdefault(tuple(sorted(p[c] for c in R)), tuple(p))
        mates = tuple((T, each, R, p) for T, p in sorted(images.items()))
        if same is not None:  # a renaming of a rectangle already kept: its count, this set's weight
            weights[same] += weight
            members[same] += mates
            continue
        rects.append(Rectangle(sub_task, Support(rows, f"{problem.support.kind}, on {len(R)} sources"),
                               problem.labels[first], R, tuple(sources[s] for s in R),
                               truth=None if truth is None else truth[first],
                               observed=None if observed is None else observed[first]))
        cores.append(_core(rects[-1], codes[first]))
        weights.append(weight)
        tables.append(mine)
        members.append(mates)
    return SourceSplit(tuple(rects), tuple(weights), read, unread, math.comb(task.k, len(read)), sets, tuple(cores),
                       unshown, orbits, tuple(members))


def _distinct_on(columns: np.ndarray, R: tuple, sources: tuple, seen: np.ndarray | None = None) -> np.ndarray:
    """The first row of each distinct projection on the sources ``R`` (with ``seen``: the rank of what supervision
    sees on each row), in order. ``columns``: the rows column by column (``G.T`` contiguous), as gathering a
    set's columns from rows takes 6 times longer (ConCon's 122,112 rows) and np.unique on rows sorts bytes."""
    radix = [sources[s] for s in R]
    bound = math.prod(radix)
    if bound < 1 << 62:  # :func:`row_codes`'s mixed radix, built a column at a time
        codes = columns[R[0]].copy()
        for s in R[1:]:
            codes *= sources[s]
            codes += columns[s]
    else:
        codes = row_codes(columns[list(R)].T, radix)
    if seen is not None:
        width = int(seen.max()) + 1 if len(seen) else 1
        codes, bound = row_codes(np.column_stack([codes, seen]), [bound, width]), bound * width
    return representatives(codes, bound)


def rectangle_on(problem: Problem, R: tuple, columns: np.ndarray | None = None) -> Rectangle:
    """The rectangle of one source set ``R`` of a complete problem with nothing supervised: its read concepts
    reading ``R``, on the support's distinct rows there (as :func:`source_split` builds one per kept table).
    ``columns``: the support column by column, where the caller asks for many sets."""
    G, sizes = np.asarray(problem.support.vectors, dtype=np.int64), problem.task.sizes
    first = _distinct_on(np.ascontiguousarray(G.T) if columns is None else columns, R, sizes)
    return Rectangle(keeping(problem.task, problem.task.read),
                     Support(G[np.ix_(first, list(R))], f"{problem.support.kind}, on {len(R)} sources"),
                     problem.labels[first], tuple(R), tuple(sizes[s] for s in R))


def whole_rectangle(problem: Problem) -> Rectangle | None:
    """A complete / permutation problem whose labels read every concept, nothing supervised, one task under K,
    as its one rectangle (every concept reading the set of all sources): its maps are the problem's (the two
    classes count alike on a support), and SAT can list them where the search proves little per node
    (:mod:`rscount.counters.search.listing`). None elsewhere."""
    task = problem.task
    if (problem.map_class not in ("complete", "permutation") or problem.supervision or problem.parts
            or problem.inference != "knowledge" or not problem.support.listed or len(task.read) != task.k
            or not problem.support.length):
        return None
    return rectangle_on(problem, tuple(range(task.k)))


def _observed(problem: Problem, G: np.ndarray, concepts: tuple) -> np.ndarray | None:
    """Per support row (of ``G``) and concept of ``concepts``: whether supervision sees it there (None where it
    sees none of them): the map must give it its true value there."""
    out = np.zeros((len(G), len(concepts)), dtype=bool)
    for i, u in problem.supervision.concepts:
        if i in concepts:
            out[:, concepts.index(i)] |= True if u is None else G[:, i] == u
    return out if out.any() else None


def _fits(G: np.ndarray, truth: np.ndarray, observed: np.ndarray, size: int, sizes: tuple) -> list:
    """Per source, the value maps onto a concept of ``size`` values that give it its true value wherever
    supervision sees it: per source value, one where seen rows agree, none where they differ, any where unseen."""
    out = []
    for s, width in enumerate(sizes):
        seen = np.zeros((width, size), dtype=bool)
        seen[G[observed, s], truth[observed]] = True
        per_value = seen.sum(axis=1)
        out.append(0 if (per_value > 1).any() else size ** int((per_value == 0).sum()))
    return out


def unread_weight(unread: tuple, sizes: tuple, rest: tuple, sources: tuple, fits: dict) -> int:
    """The unread concepts' bijections onto the sources ``rest``, with their value maps: the supervised ones
    (``fits``: their value maps per source) placed one after another over the sets of sources they took (a sum
    per set, not per order: 2^8 states where 8 of 8 sources would be 40,320 orders), the others as
    :func:`bijection_weight` counts them on the sources left."""
    plain = tuple(sizes[i] for i in unread if i not in fits)
    if not fits:
        return bijection_weight(plain, tuple(sources[s] for s in rest))
    placed = {0: 1}  # bit mask of the rest's sources taken -> ways the supervised ones so far took them
    for f in fits.values():
        after: dict = {}
        for mask, ways in placed.items():
            for b, s in enumerate(rest):
                if not mask >> b & 1 and f[s]:
                    after[mask | 1 << b] = after.get(mask | 1 << b, 0) + ways * f[s]
        placed = after
    return sum(ways * bijection_weight(plain, tuple(sources[s] for b, s in enumerate(rest) if not mask >> b & 1))
               for mask, ways in placed.items())


def _shown_ranks(G: np.ndarray) -> tuple:
    """(the rows with each value replaced by its rank among the values its column shows, those counts)."""
    out, counts = np.empty_like(G), []
    for j in range(G.shape[1]):
        values, out[:, j] = np.unique(G[:, j], return_inverse=True)
        counts.append(len(values))
    return out, tuple(counts)


MAX_TUPLE_PERMUTATIONS = 720
CORE_SHARE = 4  # a rectangle's core is tried first where it keeps at most this share of its rows,
CORE_ROWS = 1024  # and the rectangle has at least this many


def _core(rect: Rectangle, codes: np.ndarray) -> Rectangle | None:
    """The rectangle on its rows that show, of each class of values the rows cannot tell apart (ConCon's seven
    colours other than blue), only the first: every optimal map of the rectangle is one of the core's (fewer
    rows), so a core without optimal maps proves the rectangle has none, at a fraction of the cost. None where
    no class shrinks many rows to a quarter."""
    rows = rect.support.vectors
    if len(rows) < CORE_ROWS:
        return None  # a search node over few rows costs little more than over fewer
    keep = np.ones(len(rows), dtype=bool)
    for s, classes in interchangeable_values(rows, codes, rect.source_sizes).items():
        for c in classes:
            keep &= ~np.isin(rows[:, s], c[1:])
    if not keep.any() or keep.sum() * CORE_SHARE > len(rows):
        return None  # a core near the rectangle's size proves little more cheaply
    return dataclasses.replace(rect, support=Support(rows[keep], f"{rect.support.kind}, one value per class"),
                               labels=rect.labels[keep], truth=None if rect.truth is None else rect.truth[keep],
                               observed=None if rect.observed is None else rect.observed[keep])


def _tuple_symmetries(task: Task, G: np.ndarray, codes: np.ndarray, sizes: tuple, fixed: frozenset = frozenset()
                      ) -> list:
    """Column permutations that keep the labelled rows: the same permutation of the members of every concept
    group of one length (ConCon's objects), where each adjacent swap keeps them (then all do); members at a
    position holding a ``fixed`` concept (a supervised one) stay. Identity first."""
    identity = list(range(task.k))
    top = int(codes.max(initial=0)) + 1

    def labelled(rows: np.ndarray) -> np.ndarray:  # the rows with their labels, as a sorted code array
        return np.sort(row_codes(rows, list(sizes)) * top + codes)

    by_length: dict = {}
    for g in task.groups:
        if len(g) > 1:
            by_length.setdefault(len(g), []).append([task.index(n) for n in g])
    for length, groups in sorted(by_length.items(), reverse=True):
        if math.factorial(length) > MAX_TUPLE_PERMUTATIONS or any(
                len({task.sizes[c] for c in g}) > 1 or len({sizes[c] for c in g}) > 1 for g in groups):
            continue
        free = [o for o in range(length) if not any(g[o] in fixed for g in groups)]
        if len(free) < 2:
            continue

        def moved(order):  # order: where each free position goes
            perm = list(identity)
            for g in groups:
                for o, p in zip(free, order):
                    perm[g[o]] = g[p]
            return perm
        swaps = [moved(free[:a] + [free[a + 1], free[a]] + free[a + 2:]) for a in range(len(free) - 1)]
        if all(np.array_equal(labelled(G[:, p]), labelled(G)) for p in swaps):
            return [moved(list(order)) for order in itertools.permutations(free)]
    return [identity]


def splits_by_sources(problem: Problem) -> bool:
    """Whether :func:`source_split` applies (checked without finding the source sets)."""
    task = problem.task
    if (problem.supervision.vectors or problem.parts or problem.inference != "knowledge" or task.k > 62
            or problem.map_class not in ("free", "complete", "permutation") or not problem.support.listed
            or problem.support.length > MAX_SOURCE_ROWS):
        return False
    if problem.map_class == "free" and (problem.supervision or not free_keeps_concepts(problem)):
        return False
    read = task.read
    return 0 < len(read) < task.k and math.comb(task.k, len(read)) <= MAX_SOURCE_SETS


def _determiners(G: np.ndarray, truth: np.ndarray, observed: np.ndarray) -> tuple:
    """Per supervised concept, the sources (a bit mask) on whose values its true value is a function wherever
    supervision sees it: the only sources it may read, as its value map must give that true value."""
    out = []
    for a in range(truth.shape[1]):
        rows = observed[:, a]
        if not rows.any():
            continue
        t = truth[rows, a]
        width, mask = int(t.max()) + 1, 0
        for s in range(G.shape[1]):
            col = G[rows, s]
            seen = np.bincount(col * width + t, minlength=(int(col.max()) + 1) * width).reshape(-1, width)
            if ((seen > 0).sum(axis=1) <= 1).all():
                mask |= 1 << s
        out.append(mask)
    return tuple(out)


def _label_functions(G: np.ndarray, codes: np.ndarray, sizes: tuple, m: int, perms: list, deadline=None,
                     needs: tuple = ()) -> list:
    """(set, its orbit's size) for one set per orbit under ``perms`` of every set of ``m`` columns on which the
    labels (``codes``) are a function of the rows of ``G``, and which meets every mask of ``needs``.

    The sets are kept between calls (:data:`_SETS`): an audit asks again under supervision (the same rows) and
    with one row more (the sets of those rows are among the sets of their first rows, checked again)."""
    if deadline is not None:
        deadline.check()
    key = (sizes, m, G.shape, len(G), _digest(G, codes))
    every = _SETS.get(key)
    if every is None:
        before = next(((n, sets) for (sz, mm, shape, n, d), sets in _SETS.items()
                       if (sz, mm) == (sizes, m) and shape[1] == G.shape[1] and n < len(G)
                       and d == _digest(G[:n], codes[:n])), None)
        if before is not None or not needs:
            every = [T for R, _ in _sought(G, codes, sizes, m, perms, deadline, within=before and before[1])
                     for T in sorted({tuple(sorted(p[c] for c in R)) for p in perms})]
        if every is not None:
            _SETS.update({key: sorted(every)})
    if every is None:
        return _sought(G, codes, sizes, m, perms, deadline, needs)
    out, seen = [], set()
    for R in sorted(every):
        if R in seen:
            continue
        orbit = {tuple(sorted(p[c] for c in R)) for p in perms}
        seen |= orbit
        mask = sum(1 << c for c in R)
        if all(n & mask for n in needs):
            out.append((R, len(orbit)))
    return out


_SETS = Recent(16)  # qualifying source sets by (sizes, m, shape, rows, digest of the rows and labels)


def _digest(G: np.ndarray, codes: np.ndarray) -> bytes:
    """A digest of the rows and their labels, numbered by rank (so the first rows of a support whose added rows
    bring a new label digest as they did alone)."""
    return digest(G, np.unique(codes, return_inverse=True)[1].astype(np.int64))


def _sought(G: np.ndarray, codes: np.ndarray, sizes: tuple, m: int, perms: list, deadline=None,
            needs: tuple = (), within: list | None = None) -> list:
    """:func:`_label_functions` found on the rows, among the sets ``within`` (sorted; default: every set of m
    columns): each such set meets the difference of every two rows with different labels. Those differences are
    found lazily: each candidate that meets the ones known so far is checked on the rows, and a failure adds the
    differences of the pairs it cannot tell apart, with their images (most candidates then fall without a pass
    over the rows)."""
    k = G.shape[1]
    full = row_codes(G, list(sizes))
    masks: set = set()
    out = []
    seen: set = set()
    for n, R in enumerate(itertools.combinations(range(k), m) if within is None else within):
        if deadline is not None and n % 64 == 0:
            deadline.check()
        if R in seen:
            continue
        orbit = {tuple(sorted(p[c] for c in R)) for p in perms}
        seen |= orbit
        mask = sum(1 << c for c in R)
        if any(not d & mask for d in masks) or any(not n & mask for n in needs):
            continue
        found = clash_masks(G, full, codes, sizes, list(R))
        if not found:
            out.append((R, len(orbit)))
            continue
        for d in sorted(found, key=int.bit_count)[:64]:
            if not any(e & d == e for e in masks):
                masks.update(sum(1 << p[c] for c in range(k) if d >> c & 1) for p in perms)
    return out
