"""Exact counts for knowledge that is one CNF over boolean concepts (MNLogic, DIMACS knowledge) on a listed support.

A map sends each predicted concept p to an *image*: the constant 0 or 1, or
a ground-truth concept read straight or negated (its source; under
``complete`` every gt concept is the source of one predicted concept). Each
clause of K then becomes a clause over gt literals and constants, so a map
keeps every label exactly when each image clause holds on every positive row
and the image clauses together falsify every negative row. The predicted
concepts are given images one at a time, in an order that closes clauses
early; a closed clause must cover the positive rows, and the negative rows
that no open clause can still falsify prune at once. Rows are bitsets
(Python integers), and states that leave the same sources used, the same
negative rows unfalsified and the same open clause values are merged.
"""
from __future__ import annotations

import math

import numpy as np

from ...errors import BackendError
from ...language.logic import Op, Var
from ...model.support import row_ids
from ...results.count import Tally
from ..base import Counter, Deadline, Options, briefly, run_isolated

CLASSES = ("complete", "permutation", "disentangled")
MAX_STATES = 2_000_000  # merged states held at once; past this the generic counters take over
STATE_BYTES = 3 << 29  # and the row bitsets they hold, 1.5 GB by the estimate below (measured: about half)
MAX_CONCEPTS = 400  # one recursion level per concept
QUICK_SECONDS = 0.2  # first tried in this process this long: most MNLogic samples take a few milliseconds
LAYERED_ROWS = 512  # up to this many support rows, partial maps advance a layer at a time in numpy
FEW_STATES = 32  # but depth first is tried first, up to this many partial maps
MERGE_BYTES = 1 << 26  # unmerged partial maps of a layer held before they are merged
ONE_STEP_PAIRS = 1 << 15  # partial maps x images extended in one numpy step; above, one step per image
INT64_SAFE = 1 << 62  # partial-map numbers below this bound (sums included) stay int64 in the layers


def cnf_form(expr) -> list | None:
    """``expr`` as clauses, each a tuple of (concept name, positive), or None if it is not a CNF of literals."""
    def flat(e, op: str) -> list:
        return [x for a in e.args for x in flat(a, op)] if isinstance(e, Op) and e.op == op else [e]

    def literal(e):
        positive = True
        while isinstance(e, Op) and e.op == "not" and len(e.args) == 1:
            positive, e = not positive, e.args[0]
        return (e.name, positive) if isinstance(e, Var) else None

    clauses = []
    for clause in flat(expr, "and"):
        lits = [literal(x) for x in flat(clause, "or")]
        if not lits or any(lit is None for lit in lits):
            return None
        clauses.append(tuple(lits))
    return clauses


def _why_not(problem) -> str | None:
    """Why clauses cannot count this problem, or None."""
    task = problem.task
    if problem.map_class not in CLASSES or not problem.support.listed or problem.supervision:
        return f"clauses counts classes {', '.join(CLASSES)} on a listed support without supervision"
    if len(task.labels) != 1 or not all(c.is_bool for c in task.concepts) or \
            cnf_form(task.labels[0].expr) is None:
        return "clauses counts knowledge that is one CNF (an AND of ORs of literals) over boolean concepts"
    if task.k > MAX_CONCEPTS:
        return f"clauses counts CNFs over at most {MAX_CONCEPTS} concepts, not {task.k}"
    return None


def applies(problem) -> bool:
    """Whether the knowledge is one CNF over boolean concepts, the class complete or disentangled, the support
    listed and nothing supervised."""
    return _why_not(problem) is None


def _order(clauses: list) -> list:
    """Predicted concepts in the order they get images: each next clause is the one with the fewest concepts
    not yet placed (then the most already placed), so clauses close early."""
    placed: list = []
    todo = list(range(len(clauses)))
    while todo:
        def cost(j):
            mine = {p for p, _ in clauses[j]}
            return len(mine - set(placed)), -len(mine & set(placed)), j
        j = min(todo, key=cost)
        todo.remove(j)
        placed += [p for p in dict.fromkeys(p for p, _ in clauses[j]) if p not in placed]
    return placed


class _Steps:
    """What both counting orders share: the clauses over concept indices, the rows, the image order."""

    def __init__(self, problem):
        task = problem.task
        index = {c.name: i for i, c in enumerate(task.concepts)}
        self.k = task.k
        self.clauses = [tuple((index[n], s) for n, s in c) for c in cnf_form(task.labels[0].expr)]
        self.rows = np.asarray(problem.support.vectors)
        self.wants = task.evaluate(self.rows)[:, 0] != 0
        self.complete = problem.map_class != "disentangled"
        self.read = _order(self.clauses)  # predicted concepts in the order they get images
        position = {p: t for t, p in enumerate(self.read)}
        self.closes = [max(position[p] for p, _ in c) for c in self.clauses]  # where each clause's last image is
        self.m = len(self.clauses)

    def images(self, p: int):
        """Images of predicted concept p: 0 and 1 are the constants, 2 + 2i reads gt concept i, 3 + 2i its negation."""
        return range(2 + 2 * self.k) if self.complete else (0, 1, 2 + 2 * p, 3 + 2 * p)

    def bit(self, image: int) -> int:
        """The source an image uses, as a bit of the used-sources mask (0: none, or disentangled)."""
        return 1 << (image // 2 - 1) if image >= 2 and self.complete else 0

    def literals(self, p: int) -> list:
        """(clause, positive) for each literal of predicted concept p."""
        return [(j, positive) for j, c in enumerate(self.clauses) for q, positive in c if q == p]

    def free_sources(self, used: int) -> int:
        """Ways to finish a complete map: the unused gt concepts go to the predicted ones in any order."""
        return math.factorial(self.k - bin(used).count("1")) if self.complete else 1

    def finish(self, found: int) -> int:
        """Predicted concepts no clause reads take any of their four images."""
        return found * 4 ** (self.k - len(self.read))

    def cap(self, row_bytes: int) -> int:
        """The most merged partial maps held at once, by MAX_STATES and by STATE_BYTES."""
        return min(MAX_STATES, STATE_BYTES // row_bytes)

    def too_many(self, most: int) -> BackendError:
        return BackendError(f"clauses: over {most} partial maps held at once ({len(self.rows)} rows each); "
                            f"use backend=search or ganak")


def count_clauses(problem, deadline: Deadline) -> tuple:
    """(count, merged partial maps) of the optimal maps of a problem that :func:`applies`.

    Up to LAYERED_ROWS support rows the partial maps advance a layer at a
    time in numpy; above, depth first with each row set one Python integer
    (a 2,048-bit AND is one operation there, and numpy's per-word work then
    costs more than it saves).
    """
    steps = _Steps(problem)
    if steps.complete and steps.k > 62 or len(steps.rows) > LAYERED_ROWS:
        return _depth_first(steps, deadline)
    try:  # few partial maps: depth first is quicker than numpy's setup per layer and image
        return _depth_first(steps, deadline, budget=FEW_STATES)
    except _OverBudget:
        return _layers(steps, deadline)


class _OverBudget(Exception):
    """Depth first met more partial maps than its budget: the layers take over."""


def _words(mask: np.ndarray, width: int) -> np.ndarray:
    """The rows where ``mask`` holds as ``width`` 64-bit words (row r is bit r % 64 of word r // 64)."""
    packed = np.packbits(mask.astype(np.uint8), bitorder="little")
    return np.pad(packed, (0, width * 8 - len(packed))).view("<u8").astype(np.int64)


def _merge(used, alive, values, weight) -> tuple:
    """Equal partial maps (used sources, unfalsified rows, open clause values) as one, their numbers added."""
    ids, first = row_ids(np.concatenate([used[:, None], alive, values.reshape(len(used), -1)], axis=1))
    order = np.argsort(ids, kind="stable")
    starts = np.flatnonzero(np.r_[True, np.diff(ids[order]) != 0])
    return used[first], alive[first], values[first], np.add.reduceat(weight[order], starts)


def _extensions(used: np.ndarray, bits: np.ndarray, most: int):
    """(partial maps, images) to extend them by, each image's source unused: every pair at once while there
    are at most ``most`` (numpy's setup per call is then much of the work), else image by image."""
    if len(used) * len(bits) <= most:
        free = np.flatnonzero((used[:, None] & bits[None, :]) == 0)
        yield free // len(bits), free % len(bits)
        return
    for w, bit in enumerate(bits.tolist()):
        yield (np.flatnonzero((used & bit) == 0) if bit else np.arange(len(used))), w


def _layers(steps: _Steps, deadline: Deadline) -> tuple:
    """Every partial map of a layer extended by every image at once; equal ones merged after each layer."""
    k, m, rows = steps.k, steps.m, steps.rows
    width = max(1, -(-len(rows) // 64))
    pos, every = _words(steps.wants, width), _words(np.ones(len(rows), dtype=bool), width)
    image_rows = [np.zeros(width, dtype=np.int64), every]
    for i in range(k):
        ones = _words(rows[:, i] == 1, width)
        image_rows += [ones, every ^ ones]
    image_rows = np.array(image_rows)
    row_bytes = 8 * (m + 1) * width + 64
    most = steps.cap(3 * row_bytes)  # a merge briefly holds about three copies of the layer
    big = (2 + 2 * k) ** len(steps.read) >= INT64_SAFE  # numbers of partial maps may pass int64: Python ints
    used = np.zeros(1, dtype=np.int64)
    alive = _words(~steps.wants, width)[None, :]  # negative rows no closed clause falsifies yet: all of them
    values = np.zeros((1, m, width), dtype=np.int64)  # per open clause, the rows its image holds on so far
    weight = np.ones(1, dtype=object if big else np.int64)
    held = 1
    for t, p in enumerate(steps.read):
        literals = steps.literals(p)
        touched = sorted({j for j, _ in literals})
        closing = [j for j in range(m) if steps.closes[j] == t]
        images = np.array(steps.images(p))
        bits = np.array([steps.bit(image) for image in images], dtype=np.int64)
        # per literal sign, the rows each image makes the literal true on
        reads = {True: image_rows[images], False: every ^ image_rows[images]}
        # negative rows every open clause the image leaves alone holds on (only the touched ones may still
        # falsify them), and those the closing ones leave unfalsified
        stays, left_base = alive.copy(), alive.copy()
        for j in range(m):
            if steps.closes[j] >= t and j not in touched:
                stays &= values[:, j]
                if j in closing:
                    left_base &= values[:, j]
        out, pending, merge_at = [], 0, MERGE_BYTES // row_bytes
        for at, which in _extensions(used, bits, min(ONE_STEP_PAIRS, merge_at)):
            deadline.check()
            new = {j: values[at, j] for j in touched}  # fancy indexing: copies
            for j, positive in literals:
                new[j] |= reads[positive][which]
            ok = np.ones(len(at), dtype=bool)
            for j in closing:  # a closed image clause must hold on every positive row
                ok &= ((new[j] if j in new else values[at, j]) & pos == pos).all(axis=1)
            stuck = stays[at]  # negative rows every open clause holds on: nothing can falsify them any more
            for j in touched:
                stuck &= new[j]
            ok &= ~(stuck != 0).any(axis=1)
            at, which = at[ok], which[ok] if isinstance(which, np.ndarray) else which
            now, left = values[at], left_base[at]
            for j in touched:
                now[:, j] = new[j][ok]
                if j in closing:
                    left &= now[:, j]
            now[:, closing] = 0
            out.append((used[at] | bits[which], left, now, weight[at]))
            pending += len(at)
            if pending > merge_at:  # merge early: a layer's unmerged maps can be many times more
                out = [_merge(*(np.concatenate(x) for x in zip(*out)))]
                pending = len(out[0][0])
                merge_at = max(merge_at, 2 * pending)  # not again before the merged maps have doubled
        used, alive, values, weight = (np.concatenate(x) for x in zip(*out))
        if not len(used):
            return 0, held
        used, alive, values, weight = _merge(used, alive, values, weight)
        held += len(used)
        if len(used) > most:
            raise steps.too_many(most)
    done = ~(alive != 0).any(axis=1)
    found = sum(int(w) * steps.free_sources(u) for u, w in zip(used[done].tolist(), weight[done].tolist()))
    return steps.finish(found), held


def _bits(mask: np.ndarray) -> int:
    """The rows where ``mask`` holds, as the bits of an integer (row r is bit r)."""
    return int.from_bytes(np.packbits(mask.astype(np.uint8), bitorder="little").tobytes(), "little")


def _depth_first(steps: _Steps, deadline: Deadline, budget: int | None = None) -> tuple:
    """Images given depth first, each row set one Python integer; equal partial maps counted once (memo).

    With a ``budget``, gives up (:class:`_OverBudget`) once the memo holds more partial maps than that.
    """
    rows, m = steps.rows, steps.m
    every = (1 << len(rows)) - 1
    pos, neg = _bits(steps.wants), _bits(~steps.wants)
    image_rows = [0, every]
    for i in range(steps.k):
        ones = _bits(rows[:, i] == 1)
        image_rows += [ones, every ^ ones]
    plan = []  # per position: for each image (source bit, clause values it adds), and the clauses it closes
    for t, p in enumerate(steps.read):
        options = tuple((steps.bit(image), tuple((j, image_rows[image] if positive else every ^ image_rows[image])
                                                 for j, positive in steps.literals(p)))
                        for image in steps.images(p))
        plan.append((options, tuple(j for j in range(m) if steps.closes[j] == t)))
    # a state holds the unfalsified rows and the open clauses' values (about half of them open at a time)
    most = steps.cap((m // 2 + 2) * (len(rows) // 8 + 32) + 100)
    limit = most if budget is None else min(budget, most)
    every_so_often = max(16, min(4096, limit // 16))  # visits between checks of the clock and the state count
    closed = -1  # the value of a closed clause in the state
    memo: dict = {}
    visits = [0]

    def go(t: int, used: int, alive: int, values: tuple) -> int:
        if t == len(plan):
            return 0 if alive else steps.free_sources(used)
        key = (t, used, alive, values)
        hit = memo.get(key)
        if hit is not None:
            return hit
        visits[0] += 1
        if visits[0] % every_so_often == 0:
            deadline.check()
            if len(memo) > limit:
                raise steps.too_many(most) if limit == most else _OverBudget()
        total = 0
        options, closing = plan[t]
        for bit, adds in options:
            if used & bit:
                continue
            now, left, ok = list(values), alive, True
            for j, value in adds:
                now[j] |= value
            for j in closing:
                if now[j] & pos != pos:  # the image clause fails a positive row
                    ok = False
                    break
                left &= now[j]
                now[j] = closed
            if not ok:
                continue
            if left:
                stuck = left  # negative rows every open clause already holds on: nothing can falsify them
                for v in now:
                    if v != closed:
                        stuck &= v
                if stuck:
                    continue
            total += go(t + 1, used | bit, left, tuple(now))
        memo[key] = total
        return total

    found = go(0, 0, neg, (0,) * m)
    return steps.finish(found), len(memo)


class ClausesCounter(Counter):
    """Exact counts for CNF knowledge over boolean concepts (``complete`` and ``disentangled``)."""

    name = "clauses"

    def applies(self, problem) -> bool:
        return applies(problem)

    def count(self, problem, encoding, options: Options) -> Tally:
        why = _why_not(problem)
        if why:
            raise BackendError(f"{why}; use backend=search or ganak")
        total, states = run_isolated(lambda: count_clauses(problem, options.deadline(self.name)),
                                     self.name, options.timeout, options.memory_mb, options.progress,
                         options.cancel)
        return self._tally(problem, total, states)

    def quick(self, problem) -> Tally | None:
        """The count if this process finds it within QUICK_SECONDS (no child process, no race), else None.

        Any give-up (time or the state cap) leaves the problem to the race, where Ganak may still answer.
        """
        if not self.applies(problem):
            return None
        done = briefly(lambda d: count_clauses(problem, d), QUICK_SECONDS, self.name, catch=(BackendError,))
        if done is None:
            return None
        return self._tally(problem, *done, " in this process (no child process, no race)")

    def _tally(self, problem, total: int, states: int, where: str = "") -> Tally:
        m = len(cnf_form(problem.task.labels[0].expr))
        return Tally(total, notes=(f"clauses: K is a CNF of {m} clauses; images given concept by concept, "
                                   f"{states} merged partial maps{where}",))


BACKEND = ClausesCounter()
