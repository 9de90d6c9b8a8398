"""Free maps on a few support vectors: each vector's own maps, joined over the source values vectors share.

A free map sends every source value (concept i, value v) to one predicted value (concept j, value w). On a
support vector the k source values it shows must hit every predicted concept once (each comes out one-hot),
so there the map is a bijection of concepts with a value per concept, and K must give the vector's labels
(and supervised concepts their own values). Those *local maps* of a vector are listed once per label vector
(k! bijections x the predicted vectors of its labels), each as the targets of the vector's source values.
The count is the number of ways to pick targets for all source values shown on the support that are local
maps of every vector, times any target for the values no vector shows: a join of the vectors' tables over
the source values they share, projecting out a source value as soon as no other table reads it (bucket
elimination; rsbench's Kandinsky example: 4 vectors of 6 concepts). Counts are Python integers.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from ...errors import BackendError
from ...model.support import distinct as distinct_values
from ...model.support import grid
from ...results.count import Tally
from ..base import Counter, Deadline, Options, small_first

__all__ = ["VectorJoin", "count_free", "list_free", "pair_weights", "MAX_LOCAL", "MAX_ROWS"]

MAX_LOCAL = 1 << 21  # bijections x predicted vectors, a bound on the local maps of one vector
MAX_VECTORS = 256  # support vectors whose local maps are listed
MAX_ROWS = 1 << 23  # rows of one joined table, and of all vectors' tables together
MAX_SPACE = 1 << 20  # predicted vectors whose labels are evaluated
INT64_SAFE = 1 << 62


@dataclass(eq=False)
class _Table:
    """Counts over assignments of some source values' targets: ``keys`` the source values (global ids),
    ``rows`` their targets (one column each), ``counts`` per row, ``bound`` a bound on any count."""

    keys: list
    rows: np.ndarray
    counts: np.ndarray
    bound: int

    def project(self, keep: list, width: int) -> "_Table":
        """Sum the counts over the source values not in ``keep`` (each has ``width`` targets)."""
        cols = [self.keys.index(v) for v in keep]
        bound = self.bound * width ** (len(self.keys) - len(keep))
        if cols:
            rows, groups = _distinct_rows(self.rows[:, cols], width)
        else:
            rows, groups = np.zeros((1, 0), dtype=self.rows.dtype), np.zeros(len(self.counts), dtype=np.int64)
        return _Table(list(keep), rows, _sum_by(self.counts, groups, len(rows), bound), bound)


def _distinct_rows(rows: np.ndarray, width: int) -> tuple:
    """(the distinct rows, each row's index among them) of a table of values below ``width``: through one
    integer per row where they fit (np.unique on rows sorts them as bytes, ten times slower)."""
    if width ** rows.shape[1] >= 1 << 62:
        out, inverse = np.unique(rows, axis=0, return_inverse=True)
        return out, inverse.ravel()
    codes = rows.astype(np.int64) @ (width ** np.arange(rows.shape[1], dtype=np.int64))
    _, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
    return rows[first], inverse.ravel()


def _sum_by(counts: np.ndarray, groups: np.ndarray, n: int, bound: int) -> np.ndarray:
    """Per group, the sum of ``counts`` (int64 while ``bound`` fits, else Python integers)."""
    out = np.zeros(n, dtype=np.int64 if bound < INT64_SAFE else object)
    np.add.at(out, groups, counts if out.dtype != object else counts.astype(object))
    return out


def _join(a: _Table, b: _Table, width: int, deadline: Deadline) -> _Table:
    """The rows of ``a`` and ``b`` that agree on their shared source values, counts multiplied."""
    shared = [v for v in a.keys if v in b.keys]
    rest = [v for v in b.keys if v not in a.keys]
    if shared:
        both = np.concatenate([a.rows[:, [a.keys.index(v) for v in shared]],
                               b.rows[:, [b.keys.index(v) for v in shared]]])
        ids = _distinct_rows(both, width)[1]
        ida, idb = ids[:len(a.rows)], ids[len(a.rows):]
    else:
        ida, idb = np.zeros(len(a.rows), dtype=np.int64), np.zeros(len(b.rows), dtype=np.int64)
    order = np.argsort(idb, kind="stable")
    sorted_b = idb[order]
    starts = np.searchsorted(sorted_b, ida, "left")
    lens = np.searchsorted(sorted_b, ida, "right") - starts
    total = int(lens.sum())
    if total > MAX_ROWS:
        raise BackendError(f"vector-join: joining two vectors' maps gives {total:,} rows (limit {MAX_ROWS:,})")
    deadline.check()
    ia = np.repeat(np.arange(len(a.rows)), lens)
    within = np.arange(total) - np.repeat(np.cumsum(lens) - lens, lens)
    ib = order[np.repeat(starts, lens) + within]
    rows = np.concatenate([a.rows[ia], b.rows[ib][:, [b.keys.index(v) for v in rest]]], axis=1)
    bound = a.bound * b.bound
    kind = np.int64 if bound < INT64_SAFE else object
    counts = a.counts[ia].astype(kind) * b.counts[ib].astype(kind)
    return _Table(a.keys + rest, rows, counts, bound)


def local_maps(offsets: np.ndarray, perms: np.ndarray, preds: np.ndarray) -> np.ndarray:
    """The local maps of one support vector, given the predicted vectors it may get (``preds``): rows of the
    predicted value (a global value id) each source concept's value goes to, one per bijection of concepts
    (``perms[a, i]``: the concept source i goes to) and predicted vector."""
    values = preds[:, perms]  # (preds, perms, k): the value the concept perms[a, i] takes
    return (offsets[perms][None, :, :] + values).reshape(-1, perms.shape[1])


def count_free(problem, deadline: Deadline) -> tuple:
    """(number of optimal free maps, largest table joined) of ``problem`` by joining its vectors' local maps."""
    local = _local(problem, deadline)
    return _eliminate(local, [np.ones(len(rows), dtype=bool) for rows in local.rows], deadline)


def pair_weights(problem, deadline: Deadline) -> dict:
    """The confusion relation's weights: (concept j, true value v, predicted value u) -> the optimal free maps
    that send some support vector whose j is v to a prediction whose j is u (the total minus those whose local
    maps at every such vector avoid u at j), for the values the support shows; pairs with no map are left out."""
    local = _local(problem, deadline)
    everything = [np.ones(len(rows), dtype=bool) for rows in local.rows]
    total = _eliminate(local, everything, deadline)[0]
    out = {}
    vectors = np.asarray(problem.support.vectors)
    for j, d in enumerate(problem.task.sizes):
        for v in distinct_values(vectors[:, j]):
            at = np.flatnonzero(vectors[:, j] == v)
            for u in range(d):
                target = local.offsets[j] + u
                keep = list(everything)
                for r in at:
                    keep[r] = ~(local.rows[r] == target).any(axis=1)
                weight = total - _eliminate(local, keep, deadline)[0]
                if weight:
                    out[j, int(v), u] = weight
    return out


def list_free(problem, deadline: Deadline) -> list:
    """Every optimal free map of ``problem`` (as :class:`~rscount.results.count.ConceptMap`): the vectors' local
    maps joined without summing anything out, each row a choice of targets for the shown source values, times
    every target of the values no vector shows. Far faster than SAT enumeration with blocking clauses."""
    from ...results.count import ConceptMap
    task, local = problem.task, _local(problem, deadline)
    tables = [_Table(ks, rows, np.ones(len(rows), dtype=np.int64), 1) for ks, rows in zip(local.keys, local.rows)]
    while len(tables) > 1:
        tables = _join_cheapest(tables, local.width, deadline)
    shown = tables[0].keys if tables else []
    unshown = [v for v in range(local.width) if v not in shown]
    rows = tables[0].rows if tables else np.zeros((1, 0), dtype=np.int64)
    where = {v: (int(np.searchsorted(local.offsets, v, "right")) - 1) for v in range(local.width)}
    target = [(where[t], t - int(local.offsets[where[t]])) for t in range(local.width)]
    names, domains = tuple(c.name for c in task.concepts), tuple(c.domain for c in task.concepts)
    out = []
    for row in rows.tolist():
        deadline.check()
        for rest in itertools.product(range(local.width), repeat=len(unshown)):
            to = dict(zip(shown, row)) | dict(zip(unshown, rest))
            out.append(ConceptMap(tuple(tuple(target[to[int(local.offsets[i]) + v]] for v in range(d))
                                        for i, d in enumerate(task.sizes)), names, domains))
    return out


@dataclass(frozen=True)
class _Local:
    """Each support vector's local maps (``rows``, targets per source value in ``keys``) and the value ids."""

    keys: list
    rows: list
    offsets: np.ndarray
    width: int


def _local(problem, deadline: Deadline) -> _Local:
    """The local maps of every support vector of ``problem``."""
    task = problem.task
    sizes, k = task.sizes, task.k
    width = sum(sizes)
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    perms = np.array(list(itertools.permutations(range(k))), dtype=np.int64)
    space, every = task.evaluate_space(), grid(tuple(sizes))
    vectors = np.asarray(problem.support.vectors, dtype=np.int64)
    by_labels: dict = {}
    keys, tables, listed = [], [], 0
    for r, (vector, labels) in enumerate(zip(vectors, problem.labels)):
        deadline.check()
        label_key = tuple(int(x) for x in labels)
        if label_key not in by_labels:
            by_labels[label_key] = every[(space == labels).all(axis=1)]
        preds = by_labels[label_key]
        for c in problem.supervised(r, vector):
            preds = preds[preds[:, c] == vector[c]]
        rows = local_maps(offsets, perms, preds).astype(np.int16 if width < 1 << 15 else np.int64)
        listed += len(rows)
        if listed > MAX_ROWS:
            raise BackendError(f"vector-join: the support vectors' local maps pass {MAX_ROWS:,} rows")
        keys.append([int(offsets[i] + vector[i]) for i in range(k)])
        tables.append(rows)
    return _Local(keys, tables, offsets, width)


def _eliminate(local: _Local, keep: list, deadline: Deadline) -> tuple:
    """(the maps whose targets for the shown source values are, at every vector, one of its local maps kept by
    ``keep``, times any target for the values no vector shows; the largest table joined)."""
    width = local.width
    uses: dict = {}
    for ks in local.keys:
        for v in ks:
            uses[v] = uses.get(v, 0) + 1
    total = width ** (width - len(uses))
    tables = [_Table(ks, rows[mask], np.ones(int(mask.sum()), dtype=np.int64), 1)
              for ks, rows, mask in zip(local.keys, local.rows, keep)]
    largest = max((len(t.rows) for t in tables), default=0)
    while tables:
        deadline.check()
        uses = {}
        for t in tables:
            for v in t.keys:
                uses[v] = uses.get(v, 0) + 1
        tables = [t.project([v for v in t.keys if uses[v] > 1], width) if any(uses[v] == 1 for v in t.keys) else t
                  for t in tables]
        for t in tables:
            if not t.keys:
                total *= int(t.counts.sum()) if len(t.counts) else 0
        tables = [t for t in tables if t.keys]
        if not total or not tables:
            return (total if not tables else 0), largest
        tables = _join_cheapest(tables, width, deadline)
        largest = max(largest, len(tables[-1].rows))
    return total, largest


def _join_cheapest(tables: list, width: int, deadline: Deadline) -> list:
    """``tables`` with the pair :func:`_cost` ranks first replaced by their join (last)."""
    a, b = min(itertools.combinations(range(len(tables)), 2), key=lambda p: _cost(tables[p[0]], tables[p[1]]))
    return [t for i, t in enumerate(tables) if i not in (a, b)] + [_join(tables[a], tables[b], width, deadline)]


def _cost(a: _Table, b: _Table) -> tuple:
    """Join the pair that shares the most source values, and of those the smallest."""
    return (-len(set(a.keys) & set(b.keys)), len(a.rows) * len(b.rows))


class VectorJoin(Counter):
    """Free maps on few listed support vectors of few concepts: their local maps joined (see the module)."""

    name = "vector-join"
    scope = ("vector-join counts free maps on a listed support of at most 256 vectors, with k! x the number of "
             "concept vectors at most 2^21, labels given by the knowledge, one task")

    def applies(self, problem) -> bool:
        task = problem.task
        if (problem.map_class != "free" or problem.inference != "knowledge" or problem.parts
                or not problem.support.listed or problem.support.length > MAX_VECTORS or task.k > 9
                or task.space_size > MAX_SPACE):
            return False
        return math.factorial(task.k) * task.space_size <= MAX_LOCAL

    def count(self, problem, encoding, options: Options) -> Tally:
        self.require(problem)
        (total, largest), _ = small_first(lambda d: count_free(problem, d), problem.support.length, self.name,
                                          options, "raise timeout= or name backend=ganak")
        return Tally(total, notes=(f"vector-join: each of the {problem.support.length} support vectors' local maps "
                                   f"(a bijection of concepts, the predicted values keeping its labels) joined over "
                                   f"the source values they share; largest table {largest:,} rows",))


BACKEND = VectorJoin()
