"""Exact counts of complete maps for knowledge built from modules: prune source sets, count the rest.

A *module* is a set of concepts the labels read only through a few classes
(Kand-Logic: a figure's three colors, read only as "all equal / two / all
different"). Base modules are the classes of swappable concepts; two
modules whose union still has fewer classes than pairs of theirs merge into
a larger one, which gives a tree (Kand-Logic: colors = colors of figure 1 +
colors of figure 2, and likewise shapes).

A complete map gives each module a set of source concepts. Whatever the
value maps, a module's class on a support vector is then *some* function of
that vector's values on its source set, so a split of the sources survives
only if some tables (source values -> class), one per module of the
frontier, reproduce every label: a small SAT problem, solved as the tree is
split top-down. A split that survives down to the base modules fixes the
concept assignment up to swappable concepts; its value maps are counted
exactly (Ganak on that assignment's CNF). Sibling modules the knowledge can
swap take their sources in order of their smallest source, and the count is
multiplied back by the orbit sizes. With enough support vectors almost every
split dies at the top (Kand-Logic by-label:1000: 1 of 462).
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from ...errors import BackendError, CountTimeout
from ...model.support import distinct, grid, row_codes, row_ids, space_label_ids
from ...problems.encoding import encode
from ...problems.interchange import knowledge_blocks, partition
from ...results.count import Tally
from ..base import Counter, Deadline, Options, briefly, missing, run_isolated
from ..generic.ganak import NOTE as GANAK_NOTE
from ..generic.ganak import count_cnf
from . import join as modjoin

CLASSES = ("complete", "permutation", "disentangled")  # disentangled: joined only
MAX_GRID = 1 << 20  # concept vectors evaluated to find the modules
MAX_BASE = 8  # base modules (pairs of them are tried for merging)
MAX_TUPLES = 1 << 12  # class tuples of a frontier beyond which its split is not tested
MAX_LEAVES = 1 << 20  # splits down to the base modules, before any pruning
QUICK_SECONDS = 0.2  # a disentangled count is first tried this long in this process


@dataclass(eq=False)
class Module:
    """Concepts read only through ``classes`` (combo of ``concepts`` in mixed radix -> class id)."""

    concepts: tuple
    classes: np.ndarray = field(repr=False)
    children: tuple = ()
    families: tuple = ()  # children indices the knowledge can swap, in classes

    def __post_init__(self) -> None:
        self.size, self.range = len(self.concepts), int(self.classes.max()) + 1


class _Grid:
    """Label codes of every concept vector, for finding modules and their class tables."""

    def __init__(self, task):
        self.task, self.sizes = task, tuple(task.sizes)
        kind = np.int8 if max(self.sizes) <= 127 else np.int64
        self.columns = np.stack([np.repeat(np.tile(np.arange(n, dtype=kind), math.prod(self.sizes[:j])),
                                           math.prod(self.sizes[j + 1:])) for j, n in enumerate(self.sizes)])
        self.points = self.columns.T  # grid order (lexicographic), a view
        self.codes, _ = space_label_ids(task)  # grid order, as the columns above; a small unsigned type
        self.cube = self.codes.reshape(self.sizes)  # one axis per concept
        order = np.argsort(self.codes, kind="stable")
        ranked = self.codes[order]
        first = order[np.flatnonzero(np.r_[True, ranked[1:] != ranked[:-1]])]  # a vector of each label code
        self.label_rows = task.evaluate(grid(self.sizes, first))

    def code_of(self, rows: np.ndarray) -> np.ndarray:
        """The grid's code of each row of label codes (shape (n, labels))."""
        hits = (np.asarray(rows, dtype=np.int64)[:, None, :] == self.label_rows[None]).all(axis=2)
        return hits.argmax(axis=1)

    def combos(self, concepts: tuple, vectors: np.ndarray | None = None) -> np.ndarray:
        """Mixed-radix index of each vector's values on ``concepts`` (grid points by default)."""
        radix = [self.sizes[c] for c in concepts]
        if vectors is None and math.prod(radix) < 1 << 62:  # Horner over contiguous columns: 4x faster
            out = np.zeros(len(self.points), dtype=np.int64)
            for c in concepts:
                out *= self.sizes[c]
                out += self.columns[c]
            return out
        vectors = self.points if vectors is None else vectors
        return row_codes(vectors[:, list(concepts)], radix)

    def module(self, concepts: tuple, children: tuple = ()) -> Module:
        """The module of ``concepts``: its classes are the distinct label functions of the other concepts."""
        rest = tuple(c for c in range(len(self.sizes)) if c not in concepts)
        table = np.transpose(self.cube, concepts + rest).reshape(math.prod(self.sizes[c] for c in concepts), -1)
        return Module(concepts, row_ids(table)[0], children)

    def labels_of(self, frontier: list) -> np.ndarray:
        """The label code of each tuple of the frontier modules' classes (-1: no vector has it)."""
        shape = tuple(m.range for m in frontier)
        index = np.ravel_multi_index(tuple(m.classes[self.combos(m.concepts)] for m in frontier), shape)
        table = np.full(math.prod(shape), -1, dtype=np.int64)
        table[index] = self.codes
        if not np.array_equal(table[index], self.codes):
            raise BackendError("modules: the knowledge does not factor through its modules; please report")
        return table.reshape(shape)

    def pair_table(self, m: Module) -> np.ndarray:
        """m's class for each pair of classes of its two children (-1: no vector has the pair)."""
        a, b = (c.classes[self.combos(c.concepts)] for c in m.children)
        mine = m.classes[self.combos(m.concepts)]
        table = np.full((m.children[0].range, m.children[1].range), -1, dtype=np.int64)
        table[a, b] = mine
        if not np.array_equal(table[a, b], mine):
            raise BackendError("modules: a module's class is not a function of its children's; please report")
        return table

    def swaps(self, a: Module, b: Module) -> bool:
        """Whether mapping a's concepts onto b's (in order) and back keeps every label."""
        if a.size != b.size or any(self.sizes[x] != self.sizes[y] for x, y in zip(a.concepts, b.concepts)):
            return False
        perm = list(range(len(self.sizes)))
        for x, y in zip(a.concepts, b.concepts):
            perm[x], perm[y] = y, x
        return bool(np.array_equal(np.transpose(self.cube, perm), self.cube))


_TREES: dict = {}  # id(task) -> (task, grid, top): finding modules costs a grid evaluation


def _tree(task) -> tuple:
    """(the grid, the top module) of a task, or (None, reason it does not apply)."""
    hit = _TREES.get(id(task))
    if hit is None or hit[0] is not task:
        if len(_TREES) > 8:
            _TREES.clear()
        _TREES[id(task)] = hit = (task,) + _find_tree(task)
    return hit[1:]


def _find_tree(task) -> tuple:
    if task.space_size > MAX_GRID:
        return None, f"{task.space_size} concept vectors (over {MAX_GRID}) to find the modules"
    base_concepts = knowledge_blocks(task)
    if len(base_concepts) < 2 or len(base_concepts) > MAX_BASE or max(map(len, base_concepts)) < 2:
        return None, "no knowledge modules (needs 2 to 8 classes of swappable concepts, one of 2 or more)"
    splits = math.factorial(task.k) // math.prod(math.factorial(len(b)) for b in base_concepts)
    if splits > MAX_LEAVES * math.factorial(len(base_concepts)):  # siblings swap at most this much away
        return None, f"{splits} ways to give the modules their sources (limit {MAX_LEAVES})"
    g = _Grid(task)
    nodes = [g.module(tuple(b)) for b in base_concepts]
    while len(nodes) > 2:
        best = None
        for i, j in itertools.combinations(range(len(nodes)), 2):
            union = g.module(nodes[i].concepts + nodes[j].concepts, (nodes[i], nodes[j]))
            ratio = union.range / (nodes[i].range * nodes[j].range)
            if ratio < 1 and (best is None or ratio < best[0]):
                best = (ratio, i, j, union)
        if best is None:
            break
        _, i, j, union = best
        nodes = [n for t, n in enumerate(nodes) if t not in (i, j)] + [union]
    top = g.module(tuple(c for n in nodes for c in n.concepts), tuple(nodes))
    for m in _walk(top):
        if m.children:
            m.families = tuple(partition(len(m.children), lambda s, t: g.swaps(m.children[s], m.children[t])))
    return g, top


def _walk(m: Module):
    yield m
    for c in m.children:
        yield from _walk(c)


def _splits(m: Module) -> int:
    """Source splits of ``m`` down to its base modules, one per orbit of swappable siblings."""
    if not m.children:
        return 1
    ways = math.factorial(m.size) // math.prod(math.factorial(c.size) for c in m.children)
    ways //= math.prod(math.factorial(len(f)) for f in m.families)
    return ways * math.prod(_splits(c) for c in m.children)


def _frontiers(top: Module) -> list:
    """The frontiers met while splitting top-down: each internal module in turn replaced by its children."""
    frontier, out = list(top.children), []
    out.append(list(frontier))
    while any(m.children for m in frontier):
        i = next(t for t, m in enumerate(frontier) if m.children)
        frontier[i:i + 1] = frontier[i].children
        out.append(list(frontier))
    return out


def _assignments(sources: tuple, m: Module):
    """Ways to deal ``sources`` to m's children; swappable siblings in order of their smallest source."""
    after = {}  # child -> the sibling before it in its family
    for fam in m.families:
        for a, b in zip(fam, fam[1:]):
            after[b] = a
    pick: list = [None] * len(m.children)

    def go(t: int, left: tuple):
        if t == len(m.children):
            yield tuple(pick)
            return
        for chosen in itertools.combinations(left, m.children[t].size):
            if t in after and chosen[0] < pick[after[t]][0]:
                continue
            pick[t] = chosen
            yield from go(t + 1, tuple(s for s in left if s not in chosen))

    yield from go(0, sources)


class _Tables:
    """Whether some table per frontier module (source values -> class) reproduces every label (SAT).

    A table entry that one support vector alone reads can take whatever value
    suits that vector, so it is projected out of the vector's constraint first.
    """

    def __init__(self, g: _Grid, problem, frontiers: list):
        self.vectors = np.asarray(problem.support.vectors, dtype=np.int64)
        self.wanted = g.code_of(problem.labels)
        self.g, self.tables, self.forbidden = g, {}, {}
        for f in frontiers:
            if math.prod(m.range for m in f) <= MAX_TUPLES:
                self.tables[_key(f)] = g.labels_of(f)
        self.tested = 0

    def _forbidden(self, key: tuple, y: int, private: int) -> np.ndarray:
        """Class tuples of the shared modules for which no value of the private ones gives label ``y``."""
        hit = self.forbidden.get((key, y, private))
        if hit is None:
            ok = self.tables[key] == y
            axes = tuple(i for i in range(ok.ndim) if private >> i & 1)
            hit = self.forbidden[(key, y, private)] = np.argwhere(~ok.any(axis=axes) if axes else ~ok)
        return hit

    def possible(self, frontier: list, sources: list) -> bool:
        key = _key(frontier)
        if key not in self.tables:
            return True
        self.tested += 1
        entries = [np.unique(self.g.combos(s, self.vectors), return_inverse=True)[1].ravel() for s in sources]
        # return_inverse: a plain np.unique imports numpy.ma (about 10 ms cold)
        rows = np.unique(np.stack(entries + [self.wanted], axis=1), axis=0, return_inverse=True)[0]
        ranges = np.array([m.range for m in frontier], dtype=np.int64)
        offsets = np.concatenate([[1], 1 + np.cumsum((rows[:, :-1].max(axis=0) + 1) * ranges)[:-1]])
        private = np.zeros(len(rows), dtype=np.int64)
        for i in range(len(frontier)):
            _, inverse, uses = np.unique(rows[:, i], return_inverse=True, return_counts=True)
            private |= (uses[inverse.ravel()] == 1).astype(np.int64) << i
        clauses, shared = [], set()
        for y, mask in {(int(y), int(p)) for y, p in zip(rows[:, -1], private)}:
            bad = self._forbidden(key, y, mask)
            if len(bad) == 0:
                continue
            cols = [i for i in range(len(frontier)) if not mask >> i & 1]
            if not cols:
                return False  # no class tuple gives this label at all
            mine = rows[(rows[:, -1] == y) & (private == mask)][:, cols]
            first = offsets[cols] + mine * ranges[cols]
            clauses.append(-(first[:, None, :] + bad[None, :, :]).reshape(-1, len(cols)))
            shared.update((i, int(e)) for i in cols for e in distinct(first[:, cols.index(i)]).tolist())
        if not clauses:
            return True
        formula = [list(range(e, e + int(ranges[i]))) for i, e in shared]
        for block in clauses:
            formula.extend(block.tolist())
        return _satisfiable(formula)


class _Joins:
    """Value-map counts of source splits, joining class vectors up the tree (see :mod:`.join`).

    The classes each module may take on a support row are pushed down from
    the row's label; a join keeps only pairs that respect them. At the top,
    the first child's candidates are built first, and the classes they take
    on each row narrow what the second child may take there.
    """

    def __init__(self, g: _Grid, top: Module, problem, deadline: Deadline):
        self.g, self.top, self.deadline = g, top, deadline
        self.vectors = np.asarray(problem.support.vectors, dtype=np.int64)
        self.pair = {id(m): g.pair_table(m) for m in _walk(top) if m.children and m is not top}
        self.pair[id(top)] = g.labels_of(list(top.children))
        self.base: dict = {}
        self.rules: dict = {}
        self._push(top, np.arange(len(g.label_rows))[None, :] == g.code_of(problem.labels)[:, None], self.rules)

    def _push(self, m: Module, ok: np.ndarray, rules: dict) -> None:
        """Rules of m and the modules below it, when m's class on row r must be one with ok[r, class]."""
        if m.children:
            r = rules[id(m)] = modjoin.rule(self.pair[id(m)], ok)
            self._push(m.children[0], r.allowed.any(axis=2), rules)
            self._push(m.children[1], r.allowed.any(axis=1), rules)

    def _base(self, m: Module, sources: tuple) -> modjoin.Cands:
        hit = self.base.get((id(m), sources))
        if hit is None:
            sizes = self.g.sizes
            hit = self.base[(id(m), sources)] = modjoin.base_cands(
                m.classes, tuple(sizes[c] for c in m.concepts), self.vectors, sources, sizes)
        return hit

    def cands(self, m: Module, sources: tuple, rules: dict):
        """Candidates of ``m`` over every split of ``sources`` among its base modules."""
        if not m.children:
            return self._base(m, sources)
        return modjoin.merge([modjoin.join(self.cands(m.children[0], deal[0], rules),
                                           self.cands(m.children[1], deal[1], rules), rules[id(m)], self.deadline)
                              for deal in _assignments(sources, m)])

    def count(self, deal: tuple) -> int:
        """Value maps of every split below the top's ``deal`` (one source set per child of the top)."""
        (left, right), top = self.top.children, self.top
        a = self.cands(left, deal[0], self.rules)
        if a is None:
            return 0
        vecs = a.rows(np.arange(len(a.weights)))
        present = (vecs[:, :, None] == np.arange(left.range)[None, None, :]).any(axis=0)
        narrowed: dict = {}
        self._push(right, (self.rules[id(top)].allowed & present[:, :, None]).any(axis=1), narrowed)
        b = self.cands(right, deal[1], narrowed)
        return modjoin.total(modjoin.join(a, b, self.rules[id(top)], self.deadline))

    def count_fixed(self, sources: dict) -> int:
        """Value maps when each base module reads ``sources[id(module)]`` (in its concept order)."""
        def up(m: Module):
            if not m.children:
                return self._base(m, sources[id(m)])
            return modjoin.join(up(m.children[0]), up(m.children[1]), self.rules[id(m)], self.deadline)
        return modjoin.total(up(self.top))


def joinable(top: Module, sizes: tuple) -> bool:
    """Whether the tree is binary and every base module's value maps are few enough to enumerate."""
    widest = max(sizes)
    for m in _walk(top):
        if m.range > modjoin.MAX_CLASSES or (m.children and len(m.children) != 2):
            return False
        targets = tuple(sizes[c] for c in m.concepts)
        if not m.children and (modjoin.value_maps(targets, (widest,) * m.size) > modjoin.MAX_MAPS
                               or widest ** m.size > modjoin.MAX_COMBOS):
            return False
    return True


def _satisfiable(clauses) -> bool:
    from pysat.solvers import Solver
    with Solver(name="minisat22", bootstrap_with=clauses) as solver:
        return solver.solve()


def _key(frontier: list) -> tuple:
    return tuple(id(m) for m in frontier)


def count_modules(problem, deadline: Deadline, join: bool = True) -> tuple:
    """(count, notes on what was done) for a problem that :func:`applies`.

    ``join=False`` counts the surviving splits with Ganak even where the tree
    could be joined (the tests compare the two).
    """
    why = _why_not(problem)
    if why:
        raise BackendError(why)
    g, top = _tree(problem.task)
    if problem.map_class == "disentangled":  # each concept reads its own: one split, nothing to multiply
        own = {id(m): m.concepts for m in _walk(top) if not m.children}
        return _Joins(g, top, problem, deadline).count_fixed(own), ("class vectors joined, each concept its own source",)
    frontiers = _frontiers(top)
    tables = _Tables(g, problem, frontiers)
    k = problem.task.k
    orbit = math.prod(math.factorial(len(f)) for m in _walk(top) for f in m.families)
    blocks = math.prod(math.factorial(m.size) for m in _walk(top) if not m.children)
    wide = ""
    if join and joinable(top, g.sizes):
        try:
            joins, joined, total = _Joins(g, top, problem, deadline), 0, 0
            for deal in _assignments(tuple(range(k)), top):
                deadline.check()
                if tables.possible(frontiers[0], list(deal)):
                    joined += 1
                    total += joins.count(deal)
            return total * orbit * blocks, (f"{tables.tested} top splits tested, {joined} counted by joining class "
                                            f"vectors",)
        except modjoin.TooWide as exc:
            wide, tables = f" ({exc}, so not joined)", _Tables(g, problem, frontiers)
    counted = [0]

    def leaf(frontier: list, sources: list) -> int:
        sigma = [0] * k
        for m, s in zip(frontier, sources):
            for c, src in zip(m.concepts, sorted(s)):
                sigma[c] = src
        enc = encode(problem, sigma=tuple(sigma), deadline=deadline)
        if not _satisfiable(enc.clauses):
            return 0
        counted[0] += 1
        return count_cnf(enc.nvars, enc.clauses, enc.alpha)

    def go(level: int, sources: list) -> int:
        deadline.check()
        frontier = frontiers[level]
        if not tables.possible(frontier, sources):
            return 0
        if level == len(frontiers) - 1:
            return leaf(frontier, sources)
        i = next(t for t, m in enumerate(frontier) if m.children)
        return sum(go(level + 1, sources[:i] + list(deal) + sources[i + 1:])
                   for deal in _assignments(tuple(sorted(sources[i])), frontier[i]))

    total = sum(go(0, list(deal)) for deal in _assignments(tuple(range(k)), top))
    return total * orbit * blocks, (f"{tables.tested} source splits tested, {counted[0]} concept assignment(s) "
                                    f"counted by Ganak{wide}", GANAK_NOTE)


def _why_not(problem) -> str | None:
    """Why modules cannot count this problem, or None."""
    if problem.map_class not in CLASSES or not problem.support.listed or problem.supervision:
        return f"modules counts classes {', '.join(CLASSES)} on a listed support without supervision"
    g, top = _tree(problem.task)
    if g is None:
        return f"modules: {top}"
    if problem.map_class == "disentangled":
        if not joinable(top, g.sizes):
            return ("modules counts disentangled maps only by joining class vectors, which needs a tree of two "
                    "children per module and base modules of few value maps")
    elif _splits(top) > MAX_LEAVES:
        return f"modules: {_splits(top)} source splits (over {MAX_LEAVES})"
    return None


def applies(problem) -> bool:
    """Whether the class fits, the support is listed, nothing is supervised, and the knowledge has modules."""
    return _why_not(problem) is None


class ModulesCounter(Counter):
    """Exact counts of complete (and disentangled) maps when the knowledge reads its concepts through modules."""

    name = "modules"

    def unavailable(self) -> str | None:
        return missing("pyganak", "pyganak") or missing("pysat", "python-sat")

    def applies(self, problem) -> bool:
        return applies(problem)

    def count(self, problem, encoding, options: Options) -> Tally:
        why = _why_not(problem)
        if why:
            raise BackendError(f"{why}; use backend=ganak")
        top = _tree(problem.task)[1]
        total, done = run_isolated(lambda: count_modules(problem, options.deadline(self.name)),
                                   self.name, options.timeout, options.memory_mb, options.progress,
                         options.cancel)
        return Tally(total, notes=(f"modules: {_show(top, problem.task)}; {done[0]}",) + done[1:])

    def quick(self, problem) -> Tally | None:
        """A ``disentangled`` count (one join along the identity) in this process, else None.

        It usually takes a few tens of milliseconds once the tree is known;
        forking the race with Ganak would cost more.
        """
        if problem.map_class != "disentangled" or not self.applies(problem):
            return None
        done = briefly(lambda d: count_modules(problem, d), QUICK_SECONDS, self.name,
                       catch=(CountTimeout, BackendError))
        if done is None:
            return None
        top = _tree(problem.task)[1]
        return Tally(done[0], notes=(f"modules: {_show(top, problem.task)}; {done[1][0]}, in this process (no "
                                     f"child process, no race)",))


def _show(m: Module, task) -> str:
    if not m.children:
        return "{" + ", ".join(task.concepts[c].name for c in m.concepts) + "}"
    return "(" + " + ".join(_show(c, task) for c in m.children) + f") [{m.range} classes]"


BACKEND = ModulesCounter()
