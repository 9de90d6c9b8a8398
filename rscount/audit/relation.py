"""The predicted confusion relation: which true value of each concept an optimal map may predict as which.

Pair (v, u) of concept j is *possible* when some optimal map sends some
support vector whose concept j is v to a prediction whose concept j is u; its
weight is the number of optimal maps that do so (DESIGN.md). Weights are
exact where every map can be listed, where the problem splits into parts,
for the joint class (closed form) and where a CNF counter can count each pair
in time; past that only existence is decided (SAT), and where not even the
CNF can be built, pairs no listed map shows stay undecided (and say so).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from ..counters.base import Deadline, run_isolated
from ..errors import BackendError, CountTimeout, EncodingError
from ..problem import Problem
from ..result import CountResult
from .maps import MapTable, apply_map, list_maps

__all__ = ["ConceptRelation", "Relation", "confusion", "LIST_LIMIT"]

LIST_LIMIT = 50_000  # optimal maps listed and tallied one by one; past this pairs are counted through the CNF


@dataclass(frozen=True)
class ConceptRelation:
    """One concept's relation: rows are true values, columns predicted values (as the harness draws them)."""

    name: str
    values: tuple
    possible: np.ndarray = field(repr=False)  # bool (d, d)
    weights: np.ndarray | None = field(repr=False)  # object ints (d, d), None where only existence is known
    undecided: np.ndarray = field(repr=False)  # bool (d, d): neither shown possible nor ruled out
    seen: np.ndarray = field(repr=False)  # bool (d,): the value occurs in the support

    @property
    def identifiable(self) -> bool:
        """Only diagonal pairs are possible (and none is undecided)."""
        off = ~np.eye(len(self.values), dtype=bool)
        return not (self.possible & off).any() and not (self.undecided & off).any()

    def fixed(self, v: int) -> bool:
        """Value index v occurs in the support and its only pair is (v, v)."""
        row, open_ = self.possible[v].copy(), self.undecided[v].copy()
        row[v] = open_[v] = False
        return bool(self.seen[v] and self.possible[v, v] and not row.any() and not open_.any())

    def weight(self, v: int, u: int) -> int | None:
        return None if self.weights is None or not self.possible[v, u] else int(self.weights[v, u])


@dataclass(frozen=True)
class Relation:
    """The relation of every concept, how it was obtained, and whether its weights are exact map counts."""

    concepts: tuple
    method: str
    weighted: bool
    complete: bool  # every pair decided
    notes: tuple = ()


def _empty(problem: Problem) -> list:
    task = problem.task
    seen = _seen(problem)
    return [ConceptRelation(c.name, c.domain, np.zeros((d, d), bool), np.zeros((d, d), object),
                            np.zeros((d, d), bool), seen[j]) for j, (c, d) in enumerate(zip(task.concepts, task.sizes))]


def _seen(problem: Problem) -> list:
    sizes = problem.task.sizes
    if problem.support.exhaustive:
        return [np.ones(d, bool) for d in sizes]
    vec = problem.support.vectors
    return [np.bincount(vec[:, j], minlength=d) > 0 for j, d in enumerate(sizes)]


def confusion(problem: Problem, result: CountResult, *, limit: int = LIST_LIMIT, seconds: float | None = 30.0,
              maps: list | None = None) -> Relation:
    """Return the predicted confusion relation of ``problem`` (``result`` is its count).

    ``maps``: every optimal map, when the caller has listed them already.
    """
    start = time.monotonic()
    if problem.map_class == "joint":
        return _joint(problem, result)
    parts = _parts(problem)
    if parts is not None:
        return _from_parts(problem, parts, limit, seconds)
    if maps is None:
        maps = list_maps(problem, result, limit, seconds)
    if maps is not None:
        return Relation(tuple(_tally(problem, maps)), f"all {len(maps)} optimal maps listed", True, True)
    left = None if seconds is None else max(seconds - (time.monotonic() - start), 1.0)
    return _through_cnf(problem, result, left)


# --- every map listed ----------------------------------------------------------------------------------------

def _tally(problem: Problem, maps: list) -> list:
    """Add up, over the listed maps, which pairs each realises."""
    rel = _empty(problem)
    for c, present in zip(rel, realised(problem, maps)):
        d = len(c.values)
        sums = present.sum(axis=0)
        c.possible[:] = (sums > 0).reshape(d, d)
        c.weights[:] = np.array([int(x) for x in sums], dtype=object).reshape(d, d)
    return rel


def realised(problem: Problem, maps: list) -> list:
    """Per concept j, a bool array (maps, d_j * d_j): map m realises pair (v, u) at code v * d_j + u.

    Where each ground-truth concept feeds one predicted concept (every class
    but ``free``), predicted j copies some source i, so its pairs are the
    support's (value of j, value of i) pairs under i's value map: one
    vectorised step per concept and source, whatever the support's size.
    """
    task = problem.task
    sizes, k = task.sizes, task.k
    tables = [MapTable.of(m) for m in maps]
    out = [np.zeros((len(maps), d * d), bool) for d in sizes]
    if not maps:
        return out
    single = all(len(set(t.target[j].tolist())) == 1 for t in tables for j in range(k))
    vec = None if single and problem.support.exhaustive else _vectors(problem)
    if not single:  # free maps: a gt concept's values may go to different predicted concepts
        for m, t in enumerate(tables):
            for j, codes in enumerate(_pair_codes(t, vec, sizes)):
                out[j][m, codes] = True
        return out
    targets = np.array([[t.target[j][0] for j in range(k)] for t in tables])  # (M, k)
    for j, d in enumerate(sizes):
        reads = targets == j
        source = np.where(reads.any(axis=1), reads.argmax(axis=1), -1)  # a gt concept that feeds predicted j
        for i in np.unique(source):
            if i < 0:
                continue
            chosen = np.flatnonzero(source == i)
            pairs = _support_pairs(problem, vec, j, i)
            values = np.stack([tables[m].value[i] for m in chosen])  # (Mi, d_i)
            codes = pairs[:, 0][None, :] * d + values[:, pairs[:, 1]]  # (Mi, |pairs|)
            out[j][chosen[:, None], codes] = True
    return out


def _support_pairs(problem: Problem, vec: np.ndarray | None, j: int, i: int) -> np.ndarray:
    """The (value of j, value of i) pairs that occur together on the support."""
    if problem.support.exhaustive:
        dj, di = problem.task.sizes[j], problem.task.sizes[i]
        if i == j:
            return np.stack([np.arange(dj)] * 2, axis=1)
        return np.stack(np.meshgrid(np.arange(dj), np.arange(di), indexing="ij"), axis=-1).reshape(-1, 2)
    return np.unique(vec[:, [j, i]], axis=0)


def _vectors(problem: Problem) -> np.ndarray:
    if problem.support.listed:
        return problem.support.vectors
    raise BackendError(f"the support of {problem.task.name} has {len(problem.support)} vectors, too many to list")


# --- parts ---------------------------------------------------------------------------------------------------

def _parts(problem: Problem) -> list | None:
    """Independent sub-problems covering every concept, or None."""
    from ..split import split_problem
    parts = split_problem(problem)
    if not parts or len(parts) < 2:
        return None
    names = sorted(c.name for p in parts for c in p.task.concepts)
    return parts if names == sorted(c.name for c in problem.task.concepts) else None


def _from_parts(problem: Problem, parts: list, limit: int, seconds: float | None) -> Relation:
    """A map of a split problem is one optimal map per part: scale each part's weights by the others' counts."""
    from ..api import count_problem
    start = time.monotonic()
    counts, relations = [], []
    for n, part in enumerate(parts):
        left = None if seconds is None else max(seconds - (time.monotonic() - start), 1.0) / (len(parts) - n)
        r = count_problem(part, timeout=left)
        counts.append(r.count)
        relations.append(confusion(part, r, limit=limit, seconds=left))
    by_name = {}
    for n, rel in enumerate(relations):
        others = math.prod(c for m, c in enumerate(counts) if m != n)
        for c in rel.concepts:
            by_name[c.name] = ConceptRelation(c.name, c.values, c.possible,
                                              None if c.weights is None else c.weights * others, c.undecided, c.seen)
    concepts = tuple(by_name[c.name] for c in problem.task.concepts)
    how = "; ".join(f"{p.task.name}: {r.method}" for p, r in zip(parts, relations))
    return Relation(concepts, f"split into {len(parts)} independent parts ({how})",
                    all(r.weighted for r in relations), all(r.complete for r in relations),
                    tuple(n for r in relations for n in r.notes))


# --- joint: closed form --------------------------------------------------------------------------------------

def _joint(problem: Problem, result: CountResult) -> Relation:
    """A joint map sends each support vector g to any vector E(g) with its label (and supervised values): the
    maps that never send a g with g_j = v to a u at j number prod_g |E(g) minus those with u at j|."""
    from ..counters.closedform import _classes
    task = problem.task
    grid, labels = _classes(problem)
    rel = _empty(problem)
    vec = _vectors(problem)
    sizes = task.sizes
    e_size, hist = [], []  # per support row: |E(g)| and, per concept, how many of E(g) have each value
    for row, g in enumerate(vec):
        mask = np.all(labels == problem.labels[row], axis=1)
        for i in problem.supervised(row, g):
            mask &= grid[:, i] == g[i]
        e_size.append(int(mask.sum()))
        hist.append([np.bincount(grid[mask, j], minlength=d) for j, d in enumerate(sizes)])
    total = result.count
    for j, d in enumerate(sizes):
        for v in range(d):
            rows = [r for r in range(len(vec)) if vec[r, j] == v]
            if not rows:
                continue
            for u in range(d):
                kept = math.prod(e_size[r] - int(hist[r][j][u]) for r in rows)
                rest = total // math.prod(e_size[r] for r in rows)
                w = total - kept * rest
                if w:
                    rel[j].possible[v, u] = True
                    rel[j].weights[v, u] = w
    return Relation(tuple(rel), "closed form of the joint class", True, True)


# --- through the CNF: SAT for existence, a counter per pair for weights --------------------------------------

def _through_cnf(problem: Problem, result: CountResult, seconds: float | None) -> Relation:
    from ..encoding import encode
    start = time.monotonic()
    rel = _empty(problem)
    try:
        enc = encode(problem, deadline=Deadline(None if seconds is None else seconds / 2, "encoding for the audit"))
    except (BackendError, CountTimeout, EncodingError, MemoryError) as exc:
        return _sampled(problem, result, rel, seconds, f"the CNF could not be built ({exc})")
    clauses = _pair_clauses(problem, enc)
    _existence(enc, clauses, rel, Deadline(None if seconds is None else max(seconds - (time.monotonic() - start),
                                                                              0.5), "deciding the relation"))
    weighted = result.exact
    notes = []
    if weighted:
        from ..counters.ganak import count_cnf
        for (j, v, u), lits in clauses.items():
            if not rel[j].possible[v, u]:
                continue
            left = None if seconds is None else seconds - (time.monotonic() - start)
            if left is not None and left <= 0.05:
                weighted = False
                notes.append("the time for counting maps pair by pair ran out: only existence is decided")
                break
            units = [(-x,) for x in lits]
            try:
                without = run_isolated(lambda: count_cnf(enc.nvars, enc.clauses + units, enc.alpha),
                                       "ganak", left)
            except (BackendError, CountTimeout) as exc:
                weighted = False
                notes.append(f"counting maps pair by pair stopped ({exc}): only existence is decided")
                break
            rel[j].weights[v, u] = result.count - int(without)
    else:
        notes.append("the count is approximate, so pairs carry no map counts")
    concepts = tuple(rel if weighted else [_unweighted(c) for c in rel])
    return Relation(concepts, f"SAT per pair on the CNF ({enc.size['vars']} vars)"
                    + (", Ganak per pair for the map counts" if weighted else ""), weighted, True, tuple(notes))


def _unweighted(c: ConceptRelation) -> ConceptRelation:
    return ConceptRelation(c.name, c.values, c.possible, None, c.undecided, c.seen)


def _pair_clauses(problem: Problem, enc) -> dict:
    """For each pair (j, v, u): the alpha variables any of which makes some support vector with g_j = v come
    out as u at j (one-hot on the support makes this exact)."""
    task, vec = problem.task, _vectors(problem)
    var_of = {key: var for var, key in enc.alpha_keys.items()}
    rep = problem.representative
    local = problem.map_class in ("disentangled", "shared")
    out = {}
    for j, d in enumerate(task.sizes):
        sources = [j] if local else range(task.k)
        for v in range(d):
            rows = vec[vec[:, j] == v]
            if not len(rows):
                continue
            for u in range(d):
                lits = set()
                for i in sources:
                    for w in np.unique(rows[:, i]).tolist():
                        key = (rep(j), u, rep(j), w) if local else (j, u, i, w)
                        if key in var_of:
                            lits.add(var_of[key])
                out[(j, v, u)] = sorted(lits)
    return out


def _existence(enc, clauses: dict, rel: list, deadline: Deadline) -> None:
    """Decide every pair with one incremental SAT solver (a selector literal per pair); each model found marks
    every pair it realises, so most pairs need no call of their own."""
    from pysat.solvers import Solver
    vec = _vectors(enc.problem)
    top = enc.nvars
    with Solver(name="cadical153", bootstrap_with=enc.clauses) as solver:
        selector = {}
        for key, lits in clauses.items():
            top += 1
            selector[key] = top
            solver.add_clause([-top] + lits)
        for (j, v, u), s in selector.items():
            if rel[j].possible[v, u] or not clauses[(j, v, u)]:
                continue
            deadline.check()
            if not solver.solve(assumptions=[s]):
                continue
            model = solver.get_model()
            _mark(rel, enc.decode([x for x in enc.alpha if model[x - 1] > 0]), vec)


def _pair_codes(m, vec: np.ndarray, sizes: tuple) -> list:
    """Per concept j, the codes v * d_j + u of the pairs map ``m`` realises on ``vec``."""
    out = apply_map(m, vec)
    return [np.unique((vec[:, j] * d + out[:, j])[out[:, j] >= 0]) for j, d in enumerate(sizes)]


def _mark(rel: list, m, vec: np.ndarray) -> None:
    for j, codes in enumerate(_pair_codes(m, vec, tuple(len(c.values) for c in rel))):
        rel[j].possible.reshape(-1)[codes] = True


def _some_vectors(problem: Problem, most: int) -> np.ndarray:
    """The support's vectors, or a seeded sample of ``most`` of them where it is larger (pairs realised on a
    sample are realised on the support)."""
    from ..support import grid
    if problem.support.given is not None and len(problem.support) <= most:
        return problem.support.vectors
    if problem.support.given is not None:
        rows = np.random.default_rng(0).choice(len(problem.support), most, replace=False)
        return problem.support.vectors[np.sort(rows)]
    n = problem.task.space_size
    rows = np.arange(n) if n <= most else np.sort(np.random.default_rng(0).choice(n, most, replace=False))
    return grid(problem.task.sizes, rows)


def _sampled(problem: Problem, result: CountResult, rel: list, seconds: float | None, why: str) -> Relation:
    """Pairs shown by the maps that can be listed in time; the rest stay undecided (never reported impossible)."""
    sample = []
    try:
        for m in result.maps(2000, seconds):
            sample.append(m)
    except (BackendError, CountTimeout, MemoryError, NotImplementedError):
        pass
    vec = _some_vectors(problem, 1 << 16)
    for m in sample:
        _mark(rel, m, vec)
    for j, c in enumerate(rel):
        c.undecided[:] = ~c.possible & c.seen[:, None]
    return Relation(tuple(_unweighted(c) for c in rel), f"pairs shown by {len(sample)} listed maps", False, False,
                    (f"{why}; pairs no listed map shows are undecided, not ruled out",))
