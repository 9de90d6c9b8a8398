"""Exact disentangled counts for RAVEN (:mod:`rscount.tasks.raven`): the answer is the first candidate of the
highest product over attributes of rule agreements, and each attribute's agreements read only its own panels.

So an attribute's value maps meet the others only through its agreement vectors, one per puzzle (how many
rules rows 1, 2 and the row completed by each candidate follow), and a label other than candidate 0 needs
every attribute to agree at least once on it (a product of zeros answers candidate 0). That necessary
condition, checked row by row (rows 1 and 2, then row 3's two panels, then each candidate value by value),
leaves a few dozen agreement patterns of each attribute out of 27^16 value-map tuples; the patterns are
joined over the attributes with the argmax checked on every puzzle, their value-map tuples counted by
multiplicity. The 48 concepts of RAVEN's 1,000 default puzzles count in seconds, where the CNF would hold
25 million clauses.
"""
from __future__ import annotations

import itertools
import math
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ...errors import BackendError, RscountError
from ...results.count import Tally
from ...runtime.lazy import ByIdentity
from ..base import Deadline, Screened

MAX_CELLS = 1 << 26  # value-map combinations x puzzles held in one array
MAX_PATTERNS = 1 << 11  # agreement patterns of one attribute
MAX_JOIN = 1 << 20  # combinations of the attributes' patterns and the candidates' options joined
POPCOUNT = np.array([bin(i).count("1") for i in range(1 << 4)], dtype=np.uint8)


@dataclass(frozen=True)
class _Setting:
    attributes: tuple  # (name, rules, panel column indices)
    candidates: int
    values: int
    context: int


_SETTINGS = ByIdentity(8)  # task -> setting: comparing RAVEN's knowledge text takes 0.1 s, asked per call


def _raven_setting(problem) -> _Setting | None:
    """The RAVEN setting ``problem``'s task is built from, or None where its knowledge is not a library RAVEN
    task's (checked once per task against one built afresh with the task's parameters)."""
    return _SETTINGS.get(problem.task, _setting_of)


def _setting_of(task) -> _Setting | None:
    params = dict(task.params) if isinstance(task.params, tuple) else dict(task.params or {})
    if not task.name.startswith("raven") or set(params) != {"candidates", "attributes", "values"}:
        return None
    try:
        fresh = _fresh(params["candidates"], params["attributes"], params["values"])
    except RscountError:
        return None
    if fresh is None or [c.name for c in task.concepts] != [c.name for c in fresh.concepts] \
            or [c.domain for c in task.concepts] != [c.domain for c in fresh.concepts] \
            or [str(lab.expr) for lab in task.labels] != [str(lab.expr) for lab in fresh.labels]:
        return None
    from ...tasks.raven import CONTEXT, panel_concept, rules_of
    attrs = tuple((a, rules_of(a), tuple(task.index(panel_concept(a, p)) for p in range(CONTEXT + params["candidates"])))
                  for a in params["attributes"].split(","))
    return _Setting(attrs, params["candidates"], params["values"], CONTEXT)


@lru_cache(maxsize=8)
def _fresh(candidates, attributes, values):
    from ...tasks.raven import raven
    return raven(candidates=candidates, attributes=attributes, values=values, samples=1)


def _why_not(problem) -> str | None:
    if problem.map_class != "disentangled" or problem.parts or problem.inference != "knowledge":
        return "agreement counts class disentangled of one RAVEN task with its knowledge"
    if not problem.support.listed:
        return "agreement needs a listed support"
    if _raven_setting(problem) is None:
        return "agreement counts the library's RAVEN tasks (rscount.tasks.raven) only"
    return None


def applies(problem) -> bool:
    """Whether ``problem`` is a RAVEN task under ``disentangled`` with K on a listed support."""
    return _why_not(problem) is None


def count_agreement(problem, deadline: Deadline) -> int:
    """The number of disentangled maps of a RAVEN problem that keep every puzzle's answer."""
    s, answers, built = _built(problem, deadline)
    patterns = [b[0] for b in built]
    total = 0
    for head, weight, low, high, zero in _matches(patterns, answers, s.candidates, deadline):
        total += weight * _within(zero, low, high)
    return total


LIST_ALL = 1_000_000  # maps ``enumerate`` lists before it picks the first ones asked for


def list_agreement(problem, deadline: Deadline, limit: int) -> list:
    """Every disentangled map of a RAVEN problem that keeps every puzzle's answer (ConceptMap), or BackendError
    past ``limit``: the joined patterns expanded into their value maps."""
    from ...results.count import ConceptMap
    s, answers, built = _built(problem, deadline)
    task = problem.task
    names, domains = tuple(c.name for c in task.concepts), tuple(c.domain for c in task.concepts)
    table = _table(s.values)
    out = []
    for head, weight, low, high, zero in _matches([b[0] for b in built], answers, s.candidates, deadline):
        for zeros in _within_listed(zero, low, high):
            parts = [_members(b[1], head[a][0], head[a][1], zeros[a]) for a, b in enumerate(built)]
            if len(out) + math.prod(len(p) for p in parts) > limit:
                raise BackendError(f"agreement: more than {limit:,} maps to list")
            for combo in itertools.product(*parts):
                chosen = {}
                for (_, _, cols), maps in zip(s.attributes, combo):
                    chosen.update(zip(cols, maps))
                out.append(ConceptMap(tuple(tuple((j, int(table[chosen[j]][x])) for x in range(s.values))
                                            for j in range(task.k)), names, domains))
    return out


def _table(d: int) -> np.ndarray:
    """Every value map of d values, one per row: row m sends x to digit x of m in base d."""
    return np.array(list(itertools.product(range(d), repeat=d)), dtype=np.int64)[:, ::-1]


_BUILT: dict = {}  # id(problem) -> (problem, built): an audit counts the maps, then lists them


def _built(problem, deadline: Deadline) -> tuple:
    """(setting, answers, per attribute (its patterns, what listing needs)), kept for the last problem."""
    held = _BUILT.get(id(problem))
    if held is not None and held[0] is problem:
        return held[1]
    _BUILT.clear()
    out = _build(problem, deadline)
    _BUILT[id(problem)] = (problem, out)
    return out


def _build(problem, deadline: Deadline) -> tuple:
    s = _raven_setting(problem)
    G = np.asarray(problem.support.vectors, dtype=np.int64)
    answers = np.asarray(problem.labels, dtype=np.int64)[:, 0]
    table = _table(s.values)
    allowed = _allowed_maps(problem, table)
    return s, answers, [_patterns(G[:, list(cols)], answers, rules, table, [allowed[c] for c in cols], s, deadline)
                        for _, rules, cols in s.attributes]


def _allowed_maps(problem, table: np.ndarray) -> list:
    """Per concept, the value maps (rows of ``table``) its supervision allows: a supervised value maps to itself."""
    G = problem.support.vectors
    pinned = [set() for _ in range(problem.task.k)]
    if problem.supervision:
        for r in range(len(G)):
            for i in problem.supervised(r, G[r]):
                pinned[i].add(int(G[r, i]))
    return [np.flatnonzero(np.all(table[:, sorted(p)] == sorted(p), axis=1)) if p else np.arange(len(table))
            for p in pinned]


def _rule_table(rules: tuple, d: int) -> np.ndarray:
    """RULE[x, y, z]: the bit mask of the rules the row (x, y, z) follows."""
    from ...tasks.raven import rule_holds
    out = np.zeros((d, d, d), dtype=np.uint8)
    for x, y, z in itertools.product(range(d), repeat=3):
        out[x, y, z] = sum(1 << j for j, r in enumerate(rules) if rule_holds(r, x, y, z))
    return out


def _check(cells: int, what: str) -> None:
    if cells > MAX_CELLS:
        raise BackendError(f"agreement: {what} would hold {cells:,} cells (limit {MAX_CELLS:,})")


def _row_masks(V: np.ndarray, table: np.ndarray, maps: list, rule: np.ndarray, need: np.ndarray) -> tuple:
    """(distinct rule-mask vectors over the puzzles of one row of three panels, how many value-map triples give
    each), keeping those that follow some rule on every puzzle in ``need``."""
    X = [table[m][:, V[:, j]] for j, m in enumerate(maps)]
    _check(math.prod(len(m) for m in maps) * len(V), "a row's value-map triples x puzzles")
    R = rule[X[0][:, None, None, :], X[1][None, :, None, :], X[2][None, None, :, :]].reshape(-1, len(V))
    kept = np.flatnonzero((R[:, need] != 0).all(axis=1))
    rows, counts, inverse = _distinct(R[kept], inverse=True)
    order = np.argsort(inverse, kind="stable")
    members = np.split(kept[order], np.cumsum(counts)[:-1]) if len(kept) else []
    shape = tuple(len(m) for m in maps)
    return rows, counts, [np.stack([m[i] for m, i in zip(maps, np.unravel_index(g, shape))], axis=1)
                          for g in members]


def _distinct(R: np.ndarray, inverse: bool = False) -> tuple:
    """(the distinct rows of ``R``, how often each occurs[, each row's index among them]), compared as bytes
    (np.unique's axis=0 is slow on wide rows)."""
    if not len(R):
        return (R, np.zeros(0, dtype=np.int64)) + ((np.zeros(0, dtype=np.int64),) if inverse else ())
    R = np.ascontiguousarray(R)
    keys = R.view(np.dtype((np.void, R.dtype.itemsize * R.shape[1])))[:, 0]
    _, first, back, counts = np.unique(keys, return_index=True, return_inverse=True, return_counts=True)
    return (R[first], counts) + ((back.ravel(),) if inverse else ())


def _patterns(V: np.ndarray, answers: np.ndarray, rules: tuple, table: np.ndarray, maps: list, s: _Setting,
              deadline: Deadline) -> list:
    """One attribute's agreement patterns: (number of value-map tuples of rows 1-2 and row 3's two panels,
    per candidate its options as (agreement vector over the puzzles, how many value maps give it)), those of
    the same options merged. Candidate c > 0 must agree on every puzzle it answers."""
    rule, d = _rule_table(rules, s.values), s.values
    need = answers != 0
    u1, c1, m1 = _row_masks(V[:, 0:3], table, maps[0:3], rule, need)
    u2, c2, m2 = _row_masks(V[:, 3:6], table, maps[3:6], rule, need)
    both: dict = defaultdict(int)
    pairs: dict = defaultdict(list)  # rows 1-2's mask vector -> the (row 1, row 2) mask indices giving it
    for i, (a, wa) in enumerate(zip(u1, c1)):
        deadline.check()
        R = a[None, :] & u2
        ok = np.flatnonzero((R[:, need] != 0).all(axis=1))
        for j, row in zip(ok, R[ok]):
            both[row.tobytes()] += int(wa) * int(c2[j])
            pairs[row.tobytes()].append((i, j))
    third = rule[table[maps[6]][:, None, V[:, 6], None], table[maps[7]][None, :, V[:, 7], None],
                 np.arange(d)[None, None, None, :]].reshape(-1, len(V), d)
    _check(third.size, "row 3's panel pairs x puzzles x values")
    merged: dict = defaultdict(int)
    sources: dict = defaultdict(list)  # pattern -> the (rows 1-2 mask vector, panel-pair map) giving it
    for key, weight in both.items():
        deadline.check()
        s12 = np.frombuffer(key, dtype=np.uint8)
        P = POPCOUNT[s12[None, :, None] & third]  # (panel-pair maps, puzzles, candidate value) -> agreement
        ok = [_agreeing(P, V[:, s.context + c], answers == c, table, maps[s.context + c]) if c else None
              for c in range(s.candidates)]
        alive = np.all([o.any(axis=1) for o in ok[1:]], axis=0) if s.candidates > 1 else np.ones(len(P), bool)
        for f in np.flatnonzero(alive):
            options = tuple(_options(P[f], V[:, s.context + c],
                                     table[maps[s.context + c] if c == 0 else maps[s.context + c][ok[c][f]]])
                            for c in range(s.candidates))
            merged[options] += weight
            sources[options].append((key, f))
        if len(merged) > MAX_PATTERNS:
            raise BackendError(f"agreement: over {MAX_PATTERNS} agreement patterns of one attribute")
    patterns = [(weight, [[(np.frombuffer(col, dtype=np.uint8).astype(np.int64), n) for col, n in opts]
                          for opts in key]) for key, weight in merged.items()]
    detail = _Detail(V, table, maps, third, m1, m2, pairs, [sources[key] for key in merged], s.context)
    return patterns, detail


@dataclass(frozen=True)
class _Detail:
    """What listing an attribute's maps needs beyond its patterns."""

    V: np.ndarray
    table: np.ndarray
    maps: list
    third: np.ndarray
    row1: list  # per distinct row-1 mask vector: its value-map triples
    row2: list
    pairs: dict
    sources: list  # per pattern: (rows 1-2 mask vector, panel-pair map) pairs
    context: int


def _members(detail: _Detail, pattern: int, picks: tuple, zero: bytes) -> list:
    """An attribute's value-map tuples (panel by panel) that give ``pattern`` with candidate 0's agreement
    vector ``zero`` and the others' ``picks``."""
    out = []
    rows = np.arange(len(detail.V))
    m7 = len(detail.maps[7])
    for key, f in detail.sources[pattern]:
        P = POPCOUNT[np.frombuffer(key, dtype=np.uint8)[:, None] & detail.third[f]]
        cands = []
        for c, want in enumerate((zero,) + picks):
            mine = detail.maps[detail.context + c]
            cols = P[rows[None, :], detail.table[mine][:, detail.V[:, detail.context + c]]].astype(np.int64)
            cands.append([int(m) for m, col in zip(mine, cols) if col.tobytes() == want])
        if not all(cands):
            continue
        panel67 = (int(detail.maps[6][f // m7]), int(detail.maps[7][f % m7]))
        for i, j in detail.pairs[key]:
            for first in detail.row1[i]:
                for second in detail.row2[j]:
                    head = tuple(int(x) for x in first) + tuple(int(x) for x in second) + panel67
                    out.extend(head + tail for tail in itertools.product(*cands))
    return out


def _agreeing(P: np.ndarray, v: np.ndarray, answered: np.ndarray, table: np.ndarray, maps: np.ndarray) -> np.ndarray:
    """(panel-pair map, candidate value map): whether the candidate then agrees on every puzzle it answers."""
    ok = np.ones((P.shape[0], len(maps)), dtype=bool)
    for x in np.unique(v[answered]):
        good = (P[:, answered & (v == x), :] >= 1).all(axis=1)  # (f, value z)
        ok &= good[:, table[maps, x]]
    return ok


def _options(P: np.ndarray, v: np.ndarray, chosen: np.ndarray) -> tuple:
    """A candidate's options under one panel-pair map: (agreement vector bytes, value maps giving it), sorted.
    ``chosen``: the candidate's value maps (rows of the value-map table)."""
    cols, counts = _distinct(P[np.arange(len(v))[None, :], chosen[:, v]])
    return tuple(sorted((c.tobytes(), int(n)) for c, n in zip(cols, counts)))


def _matches(patterns: list, answers: np.ndarray, k: int, deadline: Deadline):
    """Yield, for each choice of one pattern per attribute and one option per candidate 1..k-1 and attribute
    under which every puzzle answered by such a candidate keeps its answer: ((pattern, picked agreement
    vectors) per attribute, the value maps giving them, the bounds [low, high] candidate 0's product must keep
    on every puzzle, candidate 0's options per attribute). The attributes but the last in turn, the last's
    variants at once."""
    variants = [_variants(p, k) for p in patterns]
    combos = math.prod(len(v[0]) for v in variants)
    if combos > MAX_JOIN:
        raise BackendError(f"agreement: {combos:,} combinations of the attributes' patterns (limit {MAX_JOIN:,})")
    n, answered = len(answers), answers != 0
    rows = np.flatnonzero(answered)
    pick = answers[rows] - 1  # the answer's row among candidates 1..k-1
    before = (np.arange(1, k)[:, None] < answers[None, rows])[None]  # candidate c comes before the answer
    last_cols, last_weights, last_zero, last_origin = variants[-1]
    for head in itertools.product(*(range(len(v[0])) for v in variants[:-1])):
        deadline.check()
        part = np.ones((k - 1, n), dtype=np.int64)
        for a, i in enumerate(head):
            part = part * variants[a][0][i]
        S = last_cols * part[None]  # (variant of the last attribute, candidate 1..k-1, puzzle)
        Sa = S[:, :, rows]
        best = np.take_along_axis(Sa, np.broadcast_to(pick[None, None, :], (len(S), 1, len(rows))), axis=1)[:, 0]
        later = np.where(before, -1, Sa).max(axis=1, initial=-1)  # the answer must reach these
        earlier = np.where(before, Sa, -1).max(axis=1, initial=-1)  # and beat these
        for j in np.flatnonzero(((best >= later) & (best > earlier)).all(axis=1)):
            low = np.where(answered, 0, S[j].max(axis=0, initial=0))  # candidate 0 answers: it reaches the rest
            high = np.where(answered, S[j][np.maximum(answers - 1, 0), np.arange(n)] - 1, np.iinfo(np.int64).max)
            chosen = [(a, i) for a, i in enumerate(head)] + [(len(variants) - 1, j)]
            yield ([variants[a][3][i] for a, i in chosen], math.prod(variants[a][1][i] for a, i in chosen),
                   low, high, [variants[a][2][i] for a, i in chosen])


def _variants(patterns: list, k: int) -> tuple:
    """An attribute's patterns with one option for each candidate 1..k-1: (agreement arrays (variant,
    candidate 1..k-1, puzzle), weights: the pattern's value maps times the options', candidate 0's options,
    (pattern, picked agreement vectors as bytes))."""
    cols, weights, zero, origin = [], [], [], []
    n = len(patterns[0][1][0][0][0]) if patterns else 0
    for index, (weight, opts) in enumerate(patterns):
        for pick in itertools.product(*opts[1:]):
            cols.append(np.stack([c for c, _ in pick]) if pick else np.ones((0, n), np.int64))
            weights.append(weight * math.prod(m for _, m in pick))
            zero.append(opts[0])
            origin.append((index, tuple(c.tobytes() for c, _ in pick)))
    return (np.stack(cols) if cols else np.zeros((0, k - 1, n), np.int64)), weights, zero, origin


def _products(options: list) -> list:
    """One candidate's options over all attributes: (product of agreement vectors, product of counts), merged."""
    out = [(np.ones(len(options[0][0][0]), dtype=np.int64), 1)]
    for opts in options:
        merged: dict = {}
        for col, m in out:
            for c, n in opts:
                prod = col * c
                key = prod.tobytes()
                merged[key] = (prod, merged[key][1] + m * n) if key in merged else (prod, m * n)
        out = list(merged.values())
    return out


def _within(options: list, low: np.ndarray, high: np.ndarray) -> int:
    """The value maps, over all attributes, whose product of agreement vectors lies within [low, high] on
    every puzzle (candidate 0's): the products of all attributes but the last, each against the last's."""
    last = np.stack([c for c, _ in options[-1]])
    counts = np.array([m for _, m in options[-1]], dtype=object)
    total = 0
    for col, m in _products(options[:-1]) if len(options) > 1 else [(1, 1)]:
        prod = last * col
        total += m * int(counts[((prod >= low) & (prod <= high)).all(axis=1)].sum())
    return total


def _within_listed(options: list, low: np.ndarray, high: np.ndarray) -> list:
    """Candidate 0's agreement vectors, one per attribute (as bytes), whose product lies within [low, high]."""
    out = []
    for combo in itertools.product(*options):
        prod = math.prod(c for c, _ in combo)
        if ((prod >= low) & (prod <= high)).all():
            out.append(tuple(c.tobytes() for c, _ in combo))
    return out


class AgreementCounter(Screened):
    """Exact disentangled counts of the library's RAVEN tasks: agreement patterns per attribute, joined."""

    name = "agreement"
    scope = "agreement counts class disentangled of the library's RAVEN tasks (no other knowledge)"

    def why_not(self, problem) -> str | None:
        return _why_not(problem)

    def tally(self, problem, deadline: Deadline) -> Tally:
        return Tally(count_agreement(problem, deadline), notes=(
            "agreement: each attribute's value maps grouped by their rule-agreement patterns over the puzzles, "
            "joined over the attributes",))

    def enumerate(self, problem, encoding, limit, deadline: Deadline | None = None):
        """The first ``limit`` maps of those listed (past LIST_ALL maps in all: BackendError, as the CNF would be)."""
        maps = list_agreement(problem, deadline or Deadline(None, "listing maps"), LIST_ALL)
        return iter(maps if limit is None else maps[:limit])


BACKEND = AgreementCounter()
