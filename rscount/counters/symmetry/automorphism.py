"""Exact counts on the exhaustive support from the symmetries of the quotient knowledge.

On the exhaustive support an optimal map (sigma, f_1..f_k) never merges two
values the knowledge tells apart, and it sends indistinguishable values to
indistinguishable ones (docs/guide.md has the proof). So it induces a
bijection g of the quotient (:mod:`rscount.problems.quotient`) that permutes concepts
by sigma, permutes value classes within each concept and keeps every label;
conversely each such g comes from exactly ``prod_i prod_u |g_i([u])|`` maps
(any value of the target class). The g are found by a search that fixes one
predicted concept at a time (which ground-truth concept it reads, up to
interchangeable concepts, and its class bijection) and prunes with the label
histograms of the concepts fixed so far. When every bijection lifts to the
same number of maps, the bijections form a group and only its order is
needed: a stabilizer chain gets it from a few existence searches per
concept (Kand-Logic 2x3 complete: 13,436,928 maps from 3,927 partial maps).
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from ...errors import BackendError
from ...model.support import distinct_rows
from ...problems.interchange import partition
from ...problems.quotient import MAX_TABLE, Quotient, quotient
from ...results.count import ConceptMap, Tally
from ..base import Counter, Deadline, Options

CLASSES = ("complete", "permutation", "disentangled", "shared")
MAX_NODES = 200_000
MAX_HISTOGRAM = 1 << 24  # cells; larger partial histograms are skipped (the full check still runs)


class _Search:
    """Weighted count of the label-keeping bijections of a quotient for one concept assignment."""

    def __init__(self, q: Quotient, groups: tuple | None, deadline: Deadline, swaps: list):
        """``swaps``: the blocks of concepts the knowledge can swap (:func:`interchangeable`)."""
        self.q, self.groups, self.deadline, self.swaps = q, groups, deadline, swaps
        self.cache: dict = {}
        self.options: dict = {}
        self.nodes = 0
        self.boxes: list | None = None  # shared maps found by the full walk, as per-value allowed sets
        self.leaf = None  # called with (sigma, gs) on every complete bijection of the full walk
        self._order: list | None = None

    def histogram(self, axes: tuple):
        """Label counts over the other concepts, one row per value tuple of ``axes`` (C order).

        With every concept in ``axes`` a row is just the label; None when too large to keep.
        """
        if axes in self.cache:
            return self.cache[axes]
        table, L = self.q.table, self.q.labels
        rest = [a for a in range(table.ndim) if a not in axes]
        rows, width = math.prod(table.shape[a] for a in axes), math.prod(table.shape[a] for a in rest)
        t = np.transpose(table, list(axes) + rest).reshape(rows, width)
        if width == 1:
            h = t
        elif rows * L > MAX_HISTOGRAM:
            h = None
        else:
            flat = (np.arange(rows, dtype=np.int64)[:, None] * L + t).ravel()
            h = np.bincount(flat, minlength=rows * L).reshape(rows, L)
        self.cache[axes] = h
        return h

    def order(self) -> list:
        """Predicted concepts in search order: each next one tells the most value tuples apart.

        Concepts the knowledge can swap score alike, so only the first unused
        one of each such block is scored (the pick is the same: ties go to the
        lowest index).
        """
        if self._order is None:
            k, left, out = self.q.table.ndim, list(range(self.q.table.ndim)), []
            while left and len(out) < k - 2:
                firsts = [min(free) for free in (set(b).intersection(left) for b in self.swaps) if free]
                best = max(firsts, key=lambda i: (_distinct(self.histogram(tuple(out + [i]))), -i))
                out.append(best)
                left.remove(best)
            self._order = out + left
        return self._order

    def candidates(self, i: int, j: int):
        """Bijections from the classes of gt concept j to those of predicted concept i that keep histograms."""
        hg, hp = self.histogram((j,)), self.histogram((i,))
        by_color: dict = {}
        for a in range(len(hg)):
            by_color.setdefault(hg[a].tobytes(), ([], []))[0].append(a)
        for b in range(len(hp)):
            key = hp[b].tobytes()
            if key not in by_color:
                return
            by_color[key][1].append(b)
        if any(len(src) != len(dst) for src, dst in by_color.values()):
            return
        parts = list(by_color.values())
        for choice in itertools.product(*(itertools.permutations(dst) for _, dst in parts)):
            g = np.empty(len(hg), dtype=np.int64)
            for (src, _), dst in zip(parts, choice):
                g[src] = dst
            yield g

    def count(self, blocks: list | None) -> int:
        """Sum of weights over the bijections; concepts stay in place when ``blocks`` is None.

        Otherwise a predicted concept may read any unused ground-truth concept;
        those in one block are interchangeable, so it tries the first unused
        member of each block and counts it once for every unused member.
        """
        return self._walk(0, [], [list(b) for b in blocks] if blocks is not None else None, {},
                          1, np.zeros(1, dtype=np.int64), first=False)

    def group_order(self, blocks: list | None) -> int:
        """Number of bijections, as the product of orbit sizes down a stabilizer chain.

        The bijections form a group G. Let G_t be those that are the identity on
        the first t predicted concepts of the search order; the choices G_t
        makes for concept t are its cosets over G_{t+1}, so |G| = prod_t n_t
        with n_t the choices for which one extension exists: a few existence
        searches instead of visiting every element.
        """
        q, order, total = self.q, self.order(), 1
        for t, i in enumerate(order):
            prefix = order[:t]
            unused = None if blocks is None else [[j for j in b if j not in prefix] for b in blocks]
            index = np.arange(math.prod(q.shape[a] for a in prefix), dtype=np.int64)
            gs = {a: np.arange(q.shape[a], dtype=np.int64) for a in prefix}
            total *= self._walk(t, list(prefix), unused, gs, 1, index, first=True)
        return total

    def _walk(self, t: int, sigma: list, unused: list | None, gs: dict, weight: int, index, *, first: bool) -> int:
        """Weighted count of the completions of a partial bijection fixed on ``order[:t]``.

        With ``first`` it stops each choice at level t at its first completion
        and returns how many choices (times their interchangeable copies) have one.
        """
        q, order, k = self.q, self.order(), self.q.table.ndim
        options = self.options

        def level(t: int, weight: int, index, top: bool) -> int:
            if t == k:
                if self.leaf is not None:
                    self.leaf(sigma, gs)
                if self.groups is None:
                    return weight
                w = self.shared_weight(gs)
                return min(w, 1) if first else w
            i, total = order[t], 0
            hp = self.histogram(tuple(order[:t + 1]))
            for free in ([[i]] if unused is None else unused):
                if not free or q.shape[free[0]] != q.shape[i]:
                    continue
                j, times = free.pop(0), len(free) + 1
                sigma.append(j)
                hg = self.histogram(tuple(sigma))
                if (i, j) not in options:
                    options[i, j] = list(self.candidates(i, j))
                for g in options[i, j]:
                    self.nodes += 1
                    if self.nodes > MAX_NODES:
                        raise BackendError(f"automorphism: more than {MAX_NODES} partial maps to check "
                                           f"(too little structure); use backend=structural, sdd or ganak")
                    if self.nodes % 256 == 0:
                        self.deadline.check()
                    gs[i] = g
                    if self.groups is not None and not self.shared_possible(gs, i):
                        continue
                    # index[a_0..a_t] = flat position of (g_0(a_0), .., g_t(a_t)) among predicted tuples
                    deeper = (index[:, None] * q.shape[i] + g[None, :]).ravel()
                    if hp is None or hg is None or np.array_equal(hp[deeper], hg):
                        found = level(t + 1, weight * times * self.lift(i, j, g), deeper, False)
                        if first and top:
                            total += times if found else 0
                        elif first and found:
                            gs.pop(i, None)
                            sigma.pop()
                            free.insert(0, j)
                            return 1
                        else:
                            total += found
                gs.pop(i, None)
                sigma.pop()
                free.insert(0, j)
            return total

        return level(t, weight, index, True)

    def lift(self, i: int, j: int, g) -> int:
        """Value maps of concept j into concept i that induce the class bijection g."""
        ci, cj = self.q.classes[i], self.q.classes[j]
        return math.prod(len(ci[g[a]]) ** len(cj[a]) for a in range(len(cj)))

    def allowed(self, members, gs: dict) -> tuple:
        """Per value: the values every member's class bijection allows one shared map to send it to."""
        q = self.q
        size = sum(len(c) for c in q.classes[members[0]])
        return tuple(frozenset.intersection(*(frozenset(q.classes[m][gs[m][q.class_of[m][u]]]) for m in members))
                     for u in range(size))

    def shared_possible(self, gs: dict, i: int) -> bool:
        """Whether the members of i's group fixed so far still leave every value somewhere to go."""
        group = next(grp for grp in self.groups if i in grp)
        chosen = [m for m in group if m in gs]
        return len(chosen) < 2 or all(self.allowed(chosen, gs))

    def shared_allowed(self, gs: dict) -> tuple:
        """Per group, per value: the values a shared map inducing gs may send it to."""
        return tuple(self.allowed(group, gs) for group in self.groups)

    def shared_weight(self, gs: dict) -> int:
        """Shared value maps inducing gs (the product of the allowed sets); kept in ``boxes`` when asked."""
        allowed = self.shared_allowed(gs)
        total = math.prod(len(a) for group in allowed for a in group)
        if total and self.boxes is not None:
            self.boxes.append(allowed)
        return total


def count_bijections(problem, deadline: Deadline, by_group: bool | None = None) -> tuple:
    """Optimal maps of an exhaustive problem, and the search that found them.

    ``by_group`` picks the stabilizer chain (True) or the full walk (False);
    None takes the chain whenever every bijection lifts to the same number of maps.
    """
    task = problem.task
    q = quotient(task)
    groups = _groups(task) if problem.map_class == "shared" else None
    swaps = interchangeable(q, task)
    blocks = None if problem.map_class in ("disentangled", "shared") else swaps
    search = _Search(q, groups, deadline, swaps)
    sizes = [{len(c) for c in cls} for cls in q.classes]
    if groups is not None:
        constant = all(s == {1} for s in sizes)
    elif blocks is None:
        constant = all(len(s) == 1 for s in sizes)
    else:
        constant = len(set().union(*sizes)) == 1
    if by_group and not constant:
        raise ValueError("the stabilizer chain needs every bijection to lift to the same number of maps")
    if constant if by_group is None else by_group:
        lifts = math.prod(len(c) ** len(c) for cls in q.classes for c in cls) if groups is None else 1
        return lifts * search.group_order(blocks), search
    return search.count(blocks), search


def count_shared_parts(problem, parts: list, deadline: Deadline) -> tuple:
    """Shared maps of an exhaustive problem whose labels split into ``parts`` but whose groups cross them.

    A shared map is optimal iff it is optimal on every part (each part's
    labels read only its concepts). Each part's optimal maps are disjoint
    boxes (per group and value, a set of allowed images); the count is the
    size of the intersection of the parts' unions of boxes. Returns the
    count and the number of boxes the parts produced.
    """
    task = problem.task
    full = {n: g for g in task.groups for n in g}
    acc: list = [{}]
    made = 0
    for part in parts:
        sub = part.task
        q = quotient(sub)
        search = _Search(q, _groups(sub), deadline, interchangeable(q, sub))
        search.boxes = []
        search.count(None)
        made += len(search.boxes)
        keys = [full.get(sub.concepts[g[0]].name, (sub.concepts[g[0]].name,)) for g in search.groups]
        merged = []
        for have in acc:
            for box in search.boxes:
                new = dict(have)
                for key, allowed in zip(keys, box):
                    if key in new:
                        allowed = tuple(a & b for a, b in zip(new[key], allowed))
                        if not all(allowed):
                            break
                    new[key] = allowed
                else:
                    merged.append(new)
            if len(merged) > MAX_NODES:
                raise BackendError(f"automorphism: more than {MAX_NODES} combinations of the parts' shared maps")
            deadline.check()
        acc = merged
    return sum(math.prod(len(a) for allowed in box.values() for a in allowed) for box in acc), made


def interchangeable(q: Quotient, task) -> list:
    """Blocks of concepts that can be swapped (with their values) without changing any label."""
    t = q.table
    full = [sum(len(c) for c in cls) for cls in q.classes]

    def same(i: int, j: int) -> bool:
        return (task.concepts[i].domain == task.concepts[j].domain and q.classes[i] == q.classes[j]
                and full[i] == full[j] and np.array_equal(t, np.swapaxes(t, i, j)))
    return partition(task.k, same)


def _groups(task) -> tuple:
    """The concept groups of ``task`` as index tuples, ungrouped concepts alone."""
    return tuple({task.group_of(i) for i in range(task.k)})


def _distinct(h) -> int:
    """Number of different rows of a histogram (0 when it was too large to keep)."""
    if h is None:
        return 0
    return distinct_rows(h)


class Automorphism(Counter):
    name = "automorphism"

    def applies(self, problem) -> bool:
        """Exhaustive support, no supervision, a class with one value map per concept, a listable space."""
        return (problem.map_class in CLASSES and problem.support.exhaustive and not problem.supervision
                and problem.task.space_size <= MAX_TABLE)

    def count(self, problem, encoding, options: Options) -> Tally:
        if not self.applies(problem):
            raise BackendError("automorphism counts the exhaustive support without supervision under "
                               f"{', '.join(CLASSES)}, with at most {MAX_TABLE} concept vectors")
        total, search = count_bijections(problem, options.deadline(self.name))
        q = search.q
        note = (f"automorphism: label-keeping bijections of the quotient knowledge ({q.table.size} of "
                f"{problem.task.space_size} vectors after merging values no label tells apart), "
                f"{search.nodes} partial maps checked")
        return Tally(total, notes=(note,), encoding={"quotient_vectors": int(q.table.size), "nodes": search.nodes})

    def enumerate(self, problem, encoding, limit, deadline: Deadline | None = None):
        """Optimal maps, read off the bijections: disentangled ones as products of the stabilizer chain's coset
        representatives (a few existence searches, then no search at all), the others off the full walk."""
        task = problem.task
        q = quotient(task)
        groups = _groups(task) if problem.map_class == "shared" else None
        search = _Search(q, groups, deadline or Deadline(None, self.name), interchangeable(q, task))
        if problem.map_class == "disentangled":
            yield from itertools.islice(_chain_maps(task, q, search), limit)
            return
        found: list = []

        def leaf(sigma, gs):
            reads = dict(zip(search.order(), sigma))
            for m in _lifts(task, q, reads, gs, search.shared_allowed(gs) if groups else None, groups):
                found.append(m)
                if limit is not None and len(found) >= limit:
                    raise _Enough
        search.leaf = leaf
        try:
            search.count(None if problem.map_class in ("disentangled", "shared") else [[j] for j in range(task.k)])
        except _Enough:
            pass
        yield from found


class _Enough(Exception):
    """Enough maps listed."""


def transversals(search: _Search) -> list:
    """Per level t of the search order: one label-keeping bijection for each choice at concept order[t] that
    extends the identity on order[:t] (coset representatives of the stabilizer chain G_t > G_t+1)."""
    q, order, out = search.q, search.order(), []
    for t in range(len(order)):
        prefix = order[:t]
        found: list = []
        search.leaf = lambda sigma, gs: found.append({i: g.copy() for i, g in gs.items()})
        gs = {a: np.arange(q.shape[a], dtype=np.int64) for a in prefix}
        index = np.arange(math.prod(q.shape[a] for a in prefix), dtype=np.int64)
        search._walk(t, list(prefix), None, gs, 1, index, first=True)
        out.append(found)
    search.leaf = None
    return out


def point_orbits(problem, deadline: Deadline) -> tuple | None:
    """The group of label-keeping bijections acting on (concept, value) points, where every optimal map is one
    element (:func:`point_group`): (orbit id per point, orbit id per concept, offsets of each concept's points).
    None where :func:`point_group` is."""
    found = point_group(problem, deadline)
    if found is None:
        return None
    gens, offsets = found
    owner = np.repeat(np.arange(problem.task.k), np.diff(offsets))
    points, concepts = _UnionFind(int(offsets[-1])), _UnionFind(problem.task.k)
    for g in gens:
        for p, image in enumerate(g.tolist()):
            points.join(p, image)
            concepts.join(int(owner[p]), int(owner[image]))
    return points.roots(), concepts.roots(), offsets


_GROUPS: dict = {}  # one search per design, however many audit steps ask (relation, value fix, concept fix)
CACHED_GROUPS = 8


def point_group(problem, deadline: Deadline) -> tuple | None:
    """:func:`_point_group`, kept for the last few designs (task, class, supervision, support, inference)."""
    key = (id(problem.task), problem.map_class, problem.supervision, problem.support.exhaustive, problem.inference)
    held = _GROUPS.get(key)
    if held is not None and held[0] is problem.task:
        return held[1]
    found = _point_group(problem, deadline)
    while len(_GROUPS) >= CACHED_GROUPS:
        _GROUPS.pop(next(iter(_GROUPS)))
    _GROUPS[key] = (problem.task, found)
    return found


def _point_group(problem, deadline: Deadline) -> tuple | None:
    """Generators of the group whose elements are the optimal maps, as permutations of the (concept, value)
    points (point offsets[j] + u is value u of concept j; a map sends it to the point it predicts), with the
    offsets; None unless the support is exhaustive, nothing is supervised, the class has one value map per
    concept and every quotient class is a single value (Kand-Logic). Generators: the stabilizer chain's coset
    representatives and the swaps of interchangeable concepts."""
    task = problem.task
    if problem.map_class not in CLASSES or problem.map_class == "shared" or not Automorphism().applies(problem):
        return None
    q = quotient(task)
    if any(len(c) != 1 for cls in q.classes for c in cls):
        return None
    swaps = interchangeable(q, task)
    blocks = None if problem.map_class == "disentangled" else swaps
    search = _Search(q, None, deadline, swaps)
    order, found = search.order(), []
    search.leaf = lambda sigma, gs: found.append((list(sigma), {i: g.copy() for i, g in gs.items()}))
    for t in range(len(order)):
        prefix = order[:t]
        gs = {a: np.arange(q.shape[a], dtype=np.int64) for a in prefix}
        unused = None if blocks is None else [[j for j in b if j not in prefix] for b in blocks]
        index = np.arange(math.prod(q.shape[a] for a in prefix), dtype=np.int64)
        search._walk(t, list(prefix), unused, gs, 1, index, first=True)
    search.leaf = None
    offsets = np.cumsum([0] + [q.shape[j] for j in range(task.k)])
    gens = []
    for sigma, gs in found:  # predicted concept i reads concept j: value a of j goes to value gs[i][a] of i
        g = np.arange(int(offsets[-1]), dtype=np.int64)
        for i, j in zip(order, sigma):
            g[offsets[j]:offsets[j + 1]] = offsets[i] + np.asarray(gs[i], dtype=np.int64)
        gens.append(g)
    for block in ([] if blocks is None else swaps):
        for x, y in zip(block, block[1:]):  # swapping two interchangeable concepts, values kept
            g = np.arange(int(offsets[-1]), dtype=np.int64)
            g[offsets[x]:offsets[x + 1]], g[offsets[y]:offsets[y + 1]] = \
                np.arange(offsets[y], offsets[y + 1]), np.arange(offsets[x], offsets[x + 1])
            gens.append(g)
    return gens, offsets


class _UnionFind:
    def __init__(self, n: int):
        self.up = list(range(n))

    def find(self, x: int) -> int:
        while self.up[x] != x:
            self.up[x] = self.up[self.up[x]]
            x = self.up[x]
        return x

    def join(self, x: int, y: int) -> None:
        self.up[self.find(x)] = self.find(y)

    def roots(self) -> np.ndarray:
        return np.array([self.find(x) for x in range(len(self.up))], dtype=np.int64)


def _chain_maps(task, q: Quotient, search: _Search):
    """Every disentangled optimal map: each bijection is one product tau_0 o tau_1 o ... of coset
    representatives (per concept, tau_0[i][tau_1[i][...]]), lifted to the value maps that induce it."""
    levels = transversals(search)
    k = q.table.ndim
    reads = {i: i for i in range(k)}
    for taus in itertools.product(*levels):
        g = {i: np.arange(q.shape[i], dtype=np.int64) for i in range(k)}
        for tau in reversed(taus):
            g = {i: tau[i][g[i]] for i in range(k)}
        yield from _lifts(task, q, reads, g, None, None)


def _lifts(task, q: Quotient, reads: dict, gs: dict, allowed, groups):
    """The concept maps inducing one bijection: each value goes to any value of its image class."""
    names, domains = tuple(c.name for c in task.concepts), tuple(c.domain for c in task.concepts)
    slots = []  # (the (gt concept, value, predicted concept) it decides, candidate values)
    if groups is None:
        for i, j in reads.items():
            slots += [([(j, u, i)], q.classes[i][gs[i][q.class_of[j][u]]]) for u in range(len(domains[j]))]
    else:
        slots = [([(m, u, m) for m in grp], sorted(allowed[n][u]))
                 for n, grp in enumerate(groups) for u in range(len(domains[grp[0]]))]
    for pick in itertools.product(*(vs for _, vs in slots)):
        rows = [[None] * len(d) for d in domains]
        for (where, _), v in zip(slots, pick):
            for j, u, i in where:
                rows[j][u] = (i, v)
        yield ConceptMap(tuple(tuple(r) for r in rows), names, domains)


BACKEND = Automorphism()
