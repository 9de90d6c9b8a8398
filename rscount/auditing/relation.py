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
from contextlib import closing
from dataclasses import dataclass, field, replace

import numpy as np

from ..counters.base import Deadline, run_isolated
from ..errors import BackendError, CountTimeout, EncodingError, RscountError
from ..model.support import Support
from ..problems.problem import NARROWER, Problem, Supervision
from ..results.count import CountResult, log10_count
from .bysources import weights_by_sources
from .maps import MapTable, PairIndex, list_maps, pair_codes

__all__ = ["ConceptRelation", "Relation", "confusion", "LIST_LIMIT"]

LIST_LIMIT = 50_000  # optimal maps listed and tallied one by one; past this pairs are counted through the CNF
SOLVE_SECONDS = 2.0  # one existence question to SAT; past this the pair stays undecided
INTERRUPTIBLE = "glucose4"  # CaDiCaL in python-sat ignores interrupt()
LAZY_ROWS = 20_000  # supports larger than this are encoded lazily, a sample of rows at a time


@dataclass(frozen=True)
class ConceptRelation:
    """One concept's relation: rows are true values, columns predicted values (as the harness draws them)."""

    name: str
    values: tuple
    possible: np.ndarray = field(repr=False)  # bool (d, d)
    weights: np.ndarray | None = field(repr=False)  # object ints (d, d), None where only existence is known
    undecided: np.ndarray = field(repr=False)  # bool (d, d): neither shown possible nor ruled out
    seen: np.ndarray = field(repr=False)  # bool (d,): the value occurs in the support
    log10_weights: np.ndarray | None = field(default=None, repr=False)  # float (d, d): log10 of each cell's
    # count where the exact counts are too long to hold (the joint class past JOINT_WEIGHT_BITS)

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

    @property
    def rounded(self) -> bool:
        """Not weighted, but every cell's count known to about nine digits (``log10_weights``)."""
        return bool(self.concepts) and all(c.log10_weights is not None for c in self.concepts)


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
    if problem.map_class == "joint" and problem.inference == "learned":
        return _sampled(problem, result, _empty(problem), seconds, "a learned head on the joint class")
    if problem.map_class == "joint" and problem.parts:
        return _sampled(problem, result, _empty(problem), seconds, "several tasks on the joint class")
    if problem.map_class == "joint":
        return _joint(problem, result)
    if result.exact and result.count == 1:  # only the identity: every seen value to itself
        rel = _empty(problem)
        for c in rel:
            c.possible[np.diag_indices(len(c.values))] = c.seen
            c.weights[np.diag_indices(len(c.values))] = c.seen.astype(int)
        return Relation(tuple(rel), "the identity is the only optimal map", True, True)
    if problem.map_class == "free" and result.exact and not problem.parts:
        by_vectors = _by_vectors(problem, None if seconds is None else seconds / 2)
        if by_vectors is not None:
            return by_vectors
    parts = independent_parts(problem)
    if parts is not None:
        return _from_parts(problem, parts, limit, seconds)
    if maps is None and result.exact and result.count > limit:  # half the time where the count was not such a sum
        share = None if seconds is None else seconds if "sources" in result.backend else seconds / 2
        by_sources = _by_sources(problem, result, share)
        if by_sources is not None:
            return by_sources
    if maps is None:
        maps = list_maps(problem, result, limit, seconds)
    if maps is not None:
        return Relation(tuple(_tally(problem, maps)), f"all {len(maps)} optimal maps listed", True, True)
    left = None if seconds is None else max(seconds - (time.monotonic() - start), 1.0)
    if problem.parts:  # deciding pairs row by row reads one task's rows: not for several
        return _sampled(problem, result, _empty(problem), left, "several tasks with too many optimal maps to list")
    if problem.inference == "learned:linear":  # the CNF holds every head's maps, not only the linear heads'
        return _sampled(problem, result, _empty(problem), left, "a linear head with too many maps to list")
    if result.exact and problem.inference == "knowledge":
        by_orbits = _by_orbits(problem, result, left)
        if by_orbits is not None:
            return by_orbits
    return _through_cnf(problem, result, left)


# --- the group's orbits --------------------------------------------------------------------------------------

def _by_orbits(problem: Problem, result: CountResult, seconds: float | None) -> Relation | None:
    """Exact weights without listing the maps, where the optimal maps are the elements of a group G acting on
    (concept, value) points (:func:`~rscount.counters.symmetry.automorphism.point_orbits`). Predicted concept j
    reads j itself in |G| / |concept orbit of j| maps, and those send v to u in |G| / |orbit of (j, v)| maps when
    (j, u) is in that orbit (orbit-stabilizer); the maps where j reads another concept realise every pair on the
    exhaustive support (a bijection of that concept's values)."""
    from ..counters.symmetry.automorphism import point_orbits
    try:
        found = point_orbits(problem, Deadline(seconds, "the audit's orbits"))
    except (BackendError, CountTimeout):
        return None
    if found is None:
        return None
    points, concepts, offsets = found
    G, rel = result.count, _empty(problem)
    for j, c in enumerate(rel):
        d = len(c.values)
        here = points[offsets[j]:offsets[j] + d]
        stays = G // int((concepts == concepts[j]).sum())
        moved = G - stays
        for v in range(d):
            orbit = int((points == here[v]).sum())
            for u in range(d):
                w = (G // orbit if here[u] == here[v] else 0) + moved
                c.possible[v, u] = w > 0
                c.weights[v, u] = w
    return Relation(tuple(rel), f"exact from the {result.count:,} maps' group: its orbits on (concept, value) "
                                f"points, no map listed", True, True)


def _by_vectors(problem: Problem, seconds: float | None) -> Relation | None:
    """Free maps on few support vectors (``vector-join``): each pair's weight is the total minus the maps whose
    local maps avoid it at every vector showing its true value, each one join; None where the join does not
    apply or does not finish."""
    from ..counters.free.vectors import BACKEND, pair_weights
    if not BACKEND.applies(problem):
        return None
    try:
        weights = pair_weights(problem, Deadline(seconds, "the audit's vector join"))
    except (BackendError, CountTimeout, MemoryError):
        return None
    rel = _empty(problem)
    for (j, v, u), w in weights.items():
        rel[j].possible[v, u] = True
        rel[j].weights[v, u] = w
    return Relation(tuple(rel), "exact from the support vectors' own maps joined (vector-join), one join per pair",
                    True, True)


# --- source sets ---------------------------------------------------------------------------------------------

def _by_sources(problem: Problem, result: CountResult, seconds: float | None) -> Relation | None:
    """Exact weights summed over the source sets of a complete design (:mod:`.bysources`); None where that does
    not apply or does not finish in ``seconds`` (the other methods then decide existence)."""
    try:
        found = weights_by_sources(problem, result.count, seconds)
    except (BackendError, MemoryError):  # a timeout is one
        return None
    if found is None:
        return None
    weights, sets, listed = found
    rel = []
    for c, w in zip(_empty(problem), weights):
        c.weights[:] = w
        c.possible[:] = w > 0
        rel.append(c)
    return Relation(tuple(rel), f"summed over the {sets:,} source sets of the read concepts ({listed:,} maps of theirs "
                    f"listed by SAT, one per orbit of the read concepts the knowledge swaps; the unread concepts' "
                    f"value maps counted in closed form)", True, True)


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
            for j, codes in enumerate(pair_codes(t, vec, sizes)):
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
    return PairIndex(vec, problem.task.sizes).pairs(j, i)


def _vectors(problem: Problem) -> np.ndarray:
    if problem.support.listed:
        return problem.support.vectors
    raise BackendError(f"the support of {problem.task.name} has {problem.support.length} vectors, too many to list")


# --- parts ---------------------------------------------------------------------------------------------------

def independent_parts(problem: Problem) -> list | None:
    """Independent sub-problems covering every concept, or None."""
    from ..problems.split import split_problem
    parts = split_problem(problem)
    if not parts or len(parts) < 2:
        return None
    names = sorted(c.name for p in parts for c in p.task.concepts)
    return parts if names == sorted(c.name for c in problem.task.concepts) else None


def _from_parts(problem: Problem, parts: list, limit: int, seconds: float | None) -> Relation:
    """A map of a split problem is one optimal map per part: scale each part's weights by the others' counts."""
    from ..planning.execute import count_problem
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

JOINT_WEIGHT_BITS = 1 << 16  # joint counts past this (about 20,000 digits) get exact cells, not counts in them


def _joint(problem: Problem, result: CountResult) -> Relation:
    """A joint map sends each support vector g to any vector of E(g) (its labels, its supervised values): the
    maps that never send a g with g_j = v to a u at j number prod_g |E(g) minus those with u at j|. Vectors of
    one key (:func:`~rscount.counters.symmetry.closedform.target_keys`) share E(g), so each product is a few
    powers; past JOINT_WEIGHT_BITS the cells say whether a pair is possible (exactly), not how many maps."""
    from ..counters.symmetry.closedform import _classes, target_keys, target_mask
    task = problem.task
    grid, labels = _classes(problem)
    rel = _empty(problem)
    vectors, which, keys = target_keys(problem)
    e_size, hist = [], []  # per key: |E(g)| and, per concept, how many of E(g) have each value
    for key in keys:
        mask = target_mask(key, grid, labels)
        e_size.append(int(mask.sum()))
        hist.append([np.bincount(grid[mask, j], minlength=d) for j, d in enumerate(task.sizes)])
    total = result.count
    weighted = total.bit_length() <= JOINT_WEIGHT_BITS
    log_total, fewest = log10_count(total), math.inf
    for j, d in enumerate(task.sizes):
        if not weighted:
            rel[j] = replace(rel[j], weights=None, log10_weights=np.full((d, d), -np.inf))
        for v in range(d):
            times = np.bincount(which[vectors[:, j] == v], minlength=len(keys)).tolist()
            if not any(times):
                continue
            present = [(k, n) for k, n in enumerate(times) if n]
            whole = math.prod(e_size[k] ** n for k, n in present) if weighted else 0
            for u in range(d):
                if not any(hist[k][j][u] for k, _ in present):
                    continue  # no vector of E(g) has u at j: no map sends value v there
                rel[j].possible[v, u] = True
                if weighted:
                    kept = math.prod((e_size[k] - int(hist[k][j][u])) ** n for k, n in present)
                    rel[j].weights[v, u] = total - kept * (total // whole)
                    continue
                # the share of maps that never do it: prod over g of (|E(g)| - those with u at j) / |E(g)|
                missing = sum(n * (math.log10(1 - int(hist[k][j][u]) / e_size[k]) if hist[k][j][u] < e_size[k]
                                   else -math.inf) for k, n in present)
                fewest = min(fewest, -missing)
                rel[j].log10_weights[v, u] = log_total + math.log1p(-10 ** missing) / math.log(10)
    if weighted:
        return Relation(tuple(rel), "closed form of the joint class", True, True)
    digits = f"{int(total.bit_length() * 0.30103):,}"
    note = ("every possible confusion is made by all optimal maps" if fewest == math.inf else
            f"every possible confusion is made by all but at most a 10^-{fewest:,.0f} share of the optimal maps")
    return Relation(tuple(rel), f"closed form of the joint class (cells: counts to four digits, from their log10; "
                                f"the exact counts would have about {digits} digits each)", False, True, (note,))


# --- through the CNF: SAT for existence, a counter per pair for weights --------------------------------------

def _through_cnf(problem: Problem, result: CountResult, seconds: float | None) -> Relation:
    from ..problems.encoding import encode
    start = time.monotonic()
    rel = _empty(problem)
    if problem.support.length > LAZY_ROWS:
        return _lazy(problem, result, rel, seconds)
    try:
        enc = encode(problem, deadline=Deadline(None if seconds is None else seconds / 2, "encoding for the audit"))
    except (BackendError, CountTimeout, EncodingError, MemoryError) as exc:
        return _sampled(problem, result, rel, seconds, f"the CNF could not be built ({exc})")
    clauses = _pair_clauses(problem, enc, _vectors(problem))
    open_ = _existence(enc, clauses, rel, Deadline(None if seconds is None else max(
        seconds - (time.monotonic() - start), 0.5), "deciding the relation"))
    weighted = result.exact
    notes = [f"{len(open_)} pairs stayed undecided: SAT gave no answer within {SOLVE_SECONDS} s each"] if open_ else []
    if weighted:
        from ..counters.generic.ganak import count_cnf
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
                without = run_isolated(lambda units=units: count_cnf(enc.nvars, enc.clauses + units, enc.alpha),
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
                    + (", Ganak per pair for the map counts" if weighted else ""), weighted, not open_, tuple(notes))


def _unweighted(c: ConceptRelation) -> ConceptRelation:
    return ConceptRelation(c.name, c.values, c.possible, None, c.undecided, c.seen)


def _pair_clauses(problem: Problem, enc, vec: np.ndarray) -> dict:
    """For each pair (j, v, u): the alpha variables any of which makes some vector of ``vec`` with g_j = v come
    out as u at j (one-hot on the support makes this exact)."""
    task = problem.task
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


def _lazy(problem: Problem, result: CountResult, rel: list, seconds: float | None) -> Relation:
    """Decide existence on a support too large to encode, from a growing sample R of its rows.

    A pair impossible for the maps optimal on R is impossible on the support
    (fewer rows, more maps). A map SAT finds for R is checked on every row:
    optimal there, it proves each pair it realises; otherwise the rows it
    gets wrong join R and the pair is tried again.
    """
    from ..problems.encoding import encode
    from .maps import kills
    deadline = Deadline(seconds, "deciding the relation row by row", "raise timeout=")
    try:
        vec = _vectors(problem)
    except RscountError as exc:
        return _sampled(problem, result, rel, seconds, str(exc))
    labels = problem.labels
    rng = np.random.default_rng(0)
    rows = set(problem.supervision.vectors) | set(rng.choice(len(vec), min(len(vec), 256), replace=False).tolist())
    rounds, open_, pairs = 0, set(), _pairs(rel, vec)
    for m in _narrower_maps(problem, None if seconds is None else seconds / 4):
        _mark(rel, m, pairs)
    try:
        while any((~c.possible & c.seen[:, None]).any() for c in rel):
            order = sorted(rows)
            where = {r: n for n, r in enumerate(order)}
            sub = Problem(problem.task, Support(vec[order], "audit rows"), problem.map_class,
                          Supervision(frozenset(where[r] for r in problem.supervision.vectors),
                                      problem.supervision.concepts), problem.inference)
            enc = encode(sub, deadline=deadline)
            grown = False
            with closing(_witnesses(enc, _pair_clauses(sub, enc, vec), rel, deadline, open_)) as found:
                for m in found:
                    wrong = np.flatnonzero(kills(m, problem, vec, labels))
                    if len(wrong):
                        rows |= set(wrong[:32].tolist())
                        grown = True
                        break
                    _mark(rel, m, pairs)
            rounds += 1
            if not grown:
                break
    except CountTimeout:
        for c in rel:
            c.undecided[:] = ~c.possible & c.seen[:, None]
        return Relation(tuple(_unweighted(c) for c in rel), f"SAT on {len(rows)} of {len(vec)} rows, checked on all",
                        False, False, ("the time ran out: pairs not yet shown possible are undecided",))
    if not rounds:
        return Relation(tuple(_unweighted(c) for c in rel), "every pair shown by optimal maps of narrower classes",
                        False, True, ("the support is too large to count maps pair by pair: only existence is "
                                      "decided",))
    for j, v, u in open_:
        rel[j].undecided[v, u] = not rel[j].possible[v, u]
    notes = ("the support is too large to count maps pair by pair: only existence is decided",)
    if open_:
        notes += (f"{len(open_)} pairs stayed undecided: SAT gave no answer within {SOLVE_SECONDS} s each",)
    return Relation(tuple(_unweighted(c) for c in rel),
                    f"SAT on {len(rows)} of {len(vec)} rows, every map found checked on all ({rounds} rounds)",
                    False, not open_, notes)


def _narrower_maps(problem: Problem, seconds: float | None) -> list:
    """Optimal maps of the narrower classes (a disentangled map is complete, a shared one disentangled), where
    they are few enough to list quickly: cheap witnesses for many pairs."""
    import dataclasses

    from ..planning.execute import count_problem
    out: list = []
    for cls in NARROWER.get(problem.map_class, ()):
        if cls == "shared" and not any(len(g) > 1 for g in problem.task.groups):
            continue
        narrow = dataclasses.replace(problem, map_class=cls)
        try:
            r = count_problem(narrow, timeout=seconds)
            maps = list_maps(narrow, r, 5000, seconds)
        except (RscountError, MemoryError):
            continue
        if maps is not None:
            out += maps
            if cls != "shared":
                break
    return out


def _solve(solver, assumptions: list, deadline: Deadline) -> bool | None:
    """One SAT call stopped after SOLVE_SECONDS (or at the deadline): True, False, or None when stopped."""
    import threading
    end = SOLVE_SECONDS if deadline.end is None else min(SOLVE_SECONDS, deadline.end - time.monotonic())
    timer = threading.Timer(max(end, 0.0), solver.interrupt)
    timer.start()
    try:
        return solver.solve_limited(assumptions=assumptions, expect_interrupt=True)
    finally:
        timer.cancel()
        solver.clear_interrupt()


def _existence(enc, clauses: dict, rel: list, deadline: Deadline) -> set:
    """Decide every pair on the CNF; each model found marks every pair it realises, so most pairs need no SAT
    call of their own. Return the pairs SAT left open."""
    pairs, open_ = _pairs(rel, _vectors(enc.problem)), set()
    for m in _witnesses(enc, clauses, rel, deadline, open_):
        _mark(rel, m, pairs)
    for j, v, u in open_:
        if not rel[j].possible[v, u]:
            rel[j].undecided[v, u] = True
    return {p for p in open_ if rel[p[0]].undecided[p[1], p[2]]}


def _witnesses(enc, clauses: dict, rel: list, deadline: Deadline, open_: set):
    """Yield, for each pair not yet possible nor open, a map of ``enc`` realising it (one incremental solver, a
    selector literal per pair); pairs SAT cannot settle in SOLVE_SECONDS join ``open_``. The caller marks what
    a map shows before the next pair is tried, or stops."""
    from pysat.solvers import Solver
    top = enc.nvars
    with Solver(name=INTERRUPTIBLE, bootstrap_with=enc.clauses) as solver:
        for (j, v, u), lits in clauses.items():
            if rel[j].possible[v, u] or not lits or (j, v, u) in open_:
                continue
            deadline.check()
            top += 1
            solver.add_clause([-top] + lits)
            sat = _solve(solver, [top], deadline)
            if sat is None:
                open_.add((j, v, u))
            elif sat:
                model = solver.get_model()
                yield enc.decode([x for x in enc.alpha if model[x - 1] > 0])


def _mark(rel: list, m, pairs: PairIndex) -> None:
    for j, codes in enumerate(pairs.codes(m)):
        rel[j].possible.reshape(-1)[codes] = True


def _pairs(rel: list, vec: np.ndarray) -> PairIndex:
    return PairIndex(vec, tuple(len(c.values) for c in rel))


def _some_vectors(problem: Problem, most: int) -> np.ndarray:
    """The support's vectors, or a seeded sample of ``most`` of them where it is larger (pairs realised on a
    sample are realised on the support)."""
    from ..model.support import grid
    if problem.support.given is not None and problem.support.length <= most:
        return problem.support.vectors
    if problem.support.given is not None:
        rows = np.random.default_rng(0).choice(problem.support.length, most, replace=False)
        return problem.support.vectors[np.sort(rows)]
    n = problem.task.space_size
    rows = np.arange(n) if n <= most else np.sort(np.random.default_rng(0).choice(n, most, replace=False))
    return grid(problem.task.sizes, rows)


def _sampled(problem: Problem, result: CountResult, rel: list, seconds: float | None, why: str) -> Relation:
    """Pairs shown by the maps that can be listed in time; the rest stay undecided (never reported impossible)."""
    sample = []
    try:
        sample.extend(result.maps(2000, seconds))
    except (RscountError, MemoryError, NotImplementedError):
        pass
    pairs = _pairs(rel, _some_vectors(problem, 1 << 16))
    for m in sample:
        _mark(rel, m, pairs)
    for j, c in enumerate(rel):
        c.undecided[:] = ~c.possible & c.seen[:, None]
    return Relation(tuple(_unweighted(c) for c in rel), f"pairs shown by {len(sample)} listed maps", False, False,
                    (f"{why}; pairs no listed map shows are undecided, not ruled out",))
