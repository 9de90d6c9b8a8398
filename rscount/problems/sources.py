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

from ..language.logic import variables
from ..model.support import Support, interchangeable_values, label_ids, row_codes
from ..model.task import Task
from .isomorphism import same_table, table
from .problem import Problem, free_keeps_concepts
from .split import bijection_weight, clash_masks, keeping

__all__ = ["Rectangle", "SourceSplit", "source_split", "splits_by_sources"]


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
    inference = "knowledge"  # read as a problem's (the search, the CNF encoding): K itself, one task
    parts = ()

    def supervised(self, row: int, vector) -> tuple:
        return ()

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


def source_split(problem: Problem, deadline=None) -> SourceSplit | None:
    """Under ``complete`` / ``permutation`` (and ``free`` where its maps keep concepts together:
    :func:`~rscount.problems.problem.free_keeps_concepts`; sources then have their shown values), nothing
    supervised, on a listed support: every complete map is a bijection of concepts with any value maps (each
    predicted concept comes out one-hot from one source), and only the read concepts meet the labels. So the
    count is a sum over the sets R of sources the read concepts take: the read concepts' maps onto R that keep
    every label (a :class:`Rectangle`), times the unread concepts' bijections onto the rest. R must leave the
    labels a function of its columns on the support (else no value map keeps them), which few sets do
    (ConCon task 1 at 3 objects: 85 of 924). None where this does not apply; ``deadline`` (anything with
    ``check()``) is checked while the sets are sought."""
    if not splits_by_sources(problem):
        return None
    task = problem.task
    read = tuple(sorted({task.index(n) for lab in task.labels for n in variables(lab.expr)}))
    unread = tuple(i for i in range(task.k) if i not in read)
    G = np.asarray(problem.support.vectors, dtype=np.int64)
    sources, unshown = task.sizes, 1
    if problem.map_class == "free":  # complete maps on the shown values; a value no vector shows goes anywhere
        G, sources = _shown_ranks(G)
        unshown = sum(task.sizes) ** (sum(task.sizes) - sum(sources))
    codes = label_ids(problem.labels)[0]
    perms = _tuple_symmetries(task, G, codes, sources)
    sub_task = keeping(task, read)
    unread_sizes = tuple(task.sizes[i] for i in unread)
    rects, weights, cores, tables, sets, orbits = [], [], [], [], 0, 0
    for R, orbit in _label_functions(G, codes, sources, len(read), perms, deadline):
        sets, orbits = sets + orbit, orbits + 1
        first = np.unique(row_codes(G[:, list(R)], [sources[s] for s in R]), return_index=True)[1]
        rows = G[np.ix_(first, list(R))]  # the distinct rows in order (np.unique on rows sorts bytes: slow)
        weight = unshown * orbit * bijection_weight(unread_sizes, tuple(sources[s] for s in range(task.k)
                                                                          if s not in R))
        mine = table(rows, codes[first], tuple(sources[s] for s in R))
        same = next((n for n, other in enumerate(tables) if same_table(mine, other)), None)
        if same is not None:  # a renaming of a rectangle already kept: its count, this set's weight
            weights[same] += weight
            continue
        rects.append(Rectangle(sub_task, Support(rows, f"{problem.support.kind}, on {len(R)} sources"),
                               problem.labels[first], R, tuple(sources[s] for s in R)))
        cores.append(_core(rects[-1], codes[first]))
        weights.append(weight)
        tables.append(mine)
    return SourceSplit(tuple(rects), tuple(weights), read, unread, math.comb(task.k, len(read)), sets, tuple(cores),
                       unshown, orbits)


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
                               labels=rect.labels[keep])


def _tuple_symmetries(task: Task, G: np.ndarray, codes: np.ndarray, sizes: tuple) -> list:
    """Column permutations that keep the labelled rows: the same permutation of the members of every concept
    group of one length (ConCon's objects), where each adjacent swap keeps them (then all do). Identity first."""
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
        def moved(order):
            perm = list(identity)
            for g in groups:
                for o, p in enumerate(order):
                    perm[g[o]] = g[p]
            return perm
        swaps = [moved(tuple(range(o)) + (o + 1, o) + tuple(range(o + 2, length))) for o in range(length - 1)]
        if all(np.array_equal(labelled(G[:, p]), labelled(G)) for p in swaps):
            return [moved(order) for order in itertools.permutations(range(length))]
    return [identity]


def splits_by_sources(problem: Problem) -> bool:
    """Whether :func:`source_split` applies (checked without finding the source sets)."""
    task = problem.task
    if (problem.supervision or problem.parts or problem.inference != "knowledge" or task.k > 62
            or problem.map_class not in ("free", "complete", "permutation") or not problem.support.listed
            or problem.support.length > MAX_SOURCE_ROWS):
        return False
    if problem.map_class == "free" and not free_keeps_concepts(problem):
        return False
    read = {task.index(n) for lab in task.labels for n in variables(lab.expr)}
    return 0 < len(read) < task.k and math.comb(task.k, len(read)) <= MAX_SOURCE_SETS


def _label_functions(G: np.ndarray, codes: np.ndarray, sizes: tuple, m: int, perms: list, deadline=None) -> list:
    """(set, its orbit's size) for one set per orbit under ``perms`` of every set of ``m`` columns on which the
    labels (``codes``) are a function of the rows of ``G``.

    Such a set meets the difference of every two rows with different labels. Those differences are found
    lazily: each candidate that meets the ones known so far is checked on the rows, and a failure adds the
    differences of the pairs it cannot tell apart, with their images (most candidates then fall without a pass
    over the rows).
    """
    k = G.shape[1]
    full = row_codes(G, list(sizes))
    masks: set = set()
    out = []
    seen: set = set()
    for n, R in enumerate(itertools.combinations(range(k), m)):
        if deadline is not None and n % 64 == 0:
            deadline.check()
        if R in seen:
            continue
        orbit = {tuple(sorted(p[c] for c in R)) for p in perms}
        seen |= orbit
        mask = sum(1 << c for c in R)
        if any(not d & mask for d in masks):
            continue
        found = clash_masks(G, full, codes, sizes, list(R))
        if not found:
            out.append((R, len(orbit)))
            continue
        for d in sorted(found, key=int.bit_count)[:64]:
            if not any(e & d == e for e in masks):
                masks.update(sum(1 << p[c] for c in range(k) if d >> c & 1) for p in perms)
    return out
