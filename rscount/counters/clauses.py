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

from ..errors import BackendError
from ..logic import Op, Var
from ..result import Tally
from .base import Deadline, Options, briefly, run_isolated

CLASSES = ("complete", "permutation", "disentangled")
MAX_STATES = 2_000_000  # merged states held at once; past this the generic counters take over
STATE_BYTES = 3 << 29  # and the row bitsets they hold, 1.5 GB by the estimate below (measured: about half)
MAX_CONCEPTS = 400  # one recursion level per concept
QUICK_SECONDS = 0.2  # first tried in this process this long: most MNLogic samples take a few milliseconds


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
    if problem.map_class not in CLASSES or problem.support.data is None or problem.supervision:
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


def _bits(mask: np.ndarray) -> int:
    """The rows where ``mask`` holds, as the bits of an integer (row r is bit r)."""
    return int.from_bytes(np.packbits(mask.astype(np.uint8), bitorder="little").tobytes(), "little")


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


def count_clauses(problem, deadline: Deadline) -> tuple:
    """(count, merged states) of the optimal maps of a problem that :func:`applies`."""
    task, k = problem.task, problem.task.k
    index = {c.name: i for i, c in enumerate(task.concepts)}
    clauses = [tuple((index[n], s) for n, s in c) for c in cnf_form(task.labels[0].expr)]
    rows = np.asarray(problem.support.vectors)
    wants = task.evaluate(rows)[:, 0] != 0
    every = (1 << len(rows)) - 1
    pos, neg = _bits(wants), _bits(~wants)
    ones = [_bits(rows[:, i] == 1) for i in range(k)]
    # images: 0 and 1 are the constants, 2 + 2i reads gt concept i, 3 + 2i its negation
    image_rows = [0, every] + [b for i in range(k) for b in (ones[i], every ^ ones[i])]
    complete = problem.map_class != "disentangled"
    read = _order(clauses)
    position = {p: t for t, p in enumerate(read)}
    choices = [list(range(2 + 2 * k)) if complete else [0, 1, 2 + 2 * p, 3 + 2 * p] for p in read]
    literals_at: dict = {}  # position -> (clause, positive) for each literal of that predicted concept
    closes_at: dict = {}  # position -> clauses whose last concept gets its image there
    for j, clause in enumerate(clauses):
        for p, positive in clause:
            literals_at.setdefault(position[p], []).append((j, positive))
        closes_at.setdefault(max(position[p] for p, _ in clause), []).append(j)
    steps = []  # per position: for each image (source bit, clause values it adds), and the clauses it closes
    for t in range(len(read)):
        options = []
        for image in choices[t]:
            bit = 1 << (image // 2 - 1) if image >= 2 and complete else 0
            adds = tuple((j, image_rows[image] if positive else every ^ image_rows[image])
                         for j, positive in literals_at[t])
            options.append((bit, adds))
        steps.append((tuple(options), tuple(closes_at.get(t, ()))))
    # a state holds the unfalsified rows and the open clauses' values (about half of them open at a time)
    most = min(MAX_STATES, STATE_BYTES // ((len(clauses) // 2 + 2) * (len(rows) // 8 + 32) + 100))
    every_so_often = max(16, min(4096, most // 16))  # visits between checks of the clock and the state count
    closed = -1  # the value of a closed clause in the state
    memo: dict = {}
    visits = [0]

    def go(t: int, used: int, alive: int, values: tuple) -> int:
        if t == len(read):
            if alive:
                return 0
            return math.factorial(k - bin(used).count("1")) if complete else 1
        key = (t, used, alive, values)
        hit = memo.get(key)
        if hit is not None:
            return hit
        visits[0] += 1
        if visits[0] % every_so_often == 0:
            deadline.check()
            if len(memo) > most:
                raise BackendError(f"clauses: over {most} partial maps held at once ({len(rows)} rows each); "
                                   f"use --backend search or ganak")
        total = 0
        options, closing = steps[t]
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

    found = go(0, 0, neg, (0,) * len(clauses))
    return found * 4 ** (k - len(read)), len(memo)


class ClausesCounter:
    """Exact counts for CNF knowledge over boolean concepts (``complete`` and ``disentangled``)."""

    name = "clauses"
    exact = True
    needs_cnf = False

    def unavailable(self) -> str | None:
        return None

    def applies(self, problem) -> bool:
        return applies(problem)

    def count(self, problem, encoding, options: Options) -> Tally:
        why = _why_not(problem)
        if why:
            raise BackendError(f"{why}; use --backend search or ganak")
        total, states = run_isolated(lambda: count_clauses(problem, Deadline(options.timeout, self.name)),
                                     self.name, options.timeout, options.memory_mb, options.progress)
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

    def enumerate(self, problem, encoding, limit):
        raise NotImplementedError


BACKEND = ClausesCounter()
