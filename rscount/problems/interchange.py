"""Symmetries of a problem: concepts that can be swapped without changing anything.

Two concepts are interchangeable in the knowledge when swapping them never
changes a label, and in the support when swapping their columns maps the
support onto itself. Swaps compose, so interchangeability is an equivalence
and each side's symmetry group contains the product of the symmetric groups
on its classes (a Young subgroup).
"""
from __future__ import annotations

import math
import random
import time

import numpy as np

from ..errors import BackendError
from ..language.circuit import Circuit
from ..model.support import grid
from ..model.task import Task
from ..runtime.lazy import ByIdentity
from .problem import Problem

__all__ = ["knowledge_blocks", "support_blocks", "meet", "partition", "value_symmetries", "compose", "ENUMERATE_UP_TO"]

ENUMERATE_UP_TO = 1 << 20  # label cells (vectors x labels) up to which a swap is checked on the table
PROBES, PROBES_ABOVE = 64, 1 << 12  # random concept vectors a swap is first tried on, in spaces larger than this
SUPPORT_PROBES = 256  # and vectors of the task's default support
SAMPLE = 1 << 11  # prefix cells checked per axis before the last


def partition(k: int, same, key=None) -> list:
    """Partition 0..k-1 by the equivalence ``same(i, j)`` (tested against one member per block).

    ``key[i]``, where given, is equal for any two members of a block: only
    blocks with i's key are tried.
    """
    blocks: list = []
    by_key: dict = {}
    for i in range(k):
        for block in by_key.setdefault(None if key is None else key[i], []):
            if same(block[0], i):
                block.append(i)
                break
        else:
            block = [i]
            blocks.append(block)
            by_key[None if key is None else key[i]].append(block)
    return [tuple(b) for b in blocks]


_BLOCKS = ByIdentity(8)  # task -> {fixed: blocks}: one search per task, however many counters ask


def knowledge_blocks(task: Task, fixed: frozenset = frozenset()) -> list:
    """Classes of concepts that can be swapped without changing beta_K (``fixed`` stay alone); found once per
    task (the task is kept with its blocks, so its id is not reused while cached)."""
    held = _BLOCKS.get(task, lambda _: {})
    if fixed not in held:
        try:
            held[fixed] = _knowledge_blocks(task, frozenset(fixed))
        except BackendError as exc:  # asked again (each map class of an audit asks), it gives up at once
            held[fixed] = exc
    if isinstance(held[fixed], BackendError):
        raise held[fixed]
    return list(held[fixed])


def _knowledge_blocks(task: Task, fixed: frozenset) -> list:
    """Classes of concepts that can be swapped without changing beta_K (``fixed`` stay alone).

    In a large space a swap is first tried on PROBES random concept vectors and
    on the task's default support (most pairs of concepts are told apart there
    at once); it is proved on
    the table of every label where that has at most ENUMERATE_UP_TO cells,
    else by SAT.
    """
    table = probe = None
    if task.space_size * len(task.labels) <= ENUMERATE_UP_TO:
        table = task.evaluate_space().reshape(task.sizes + (-1,))
    if task.space_size > PROBES_ABOVE:
        rng = random.Random(0)
        probe = np.array([[rng.randrange(n) for n in task.sizes] for _ in range(PROBES)], dtype=np.int64)
        if task.default_support:  # where labels vary (RAVEN: random puzzles almost all answer 0)
            probe = np.concatenate([probe, np.asarray(task.default_support[:SUPPORT_PROBES], dtype=np.int64)])
        seen = task.evaluate(probe)

    sig = _signatures(task)
    nodes = _size(task)
    checks, start = [0], time.monotonic()

    def same(i: int, j: int) -> bool:
        if i in fixed or j in fixed or task.concepts[i].domain != task.concepts[j].domain or sig[i] != sig[j]:
            return False
        checks[0] += 1
        if checks[0] * nodes > MAX_PAIR_WORK or time.monotonic() - start > MAX_PAIR_SECONDS:
            raise BackendError(f"finding which of the {task.k} concepts the knowledge can swap would take over "
                               f"{checks[0]} pairwise checks of a {nodes}-operator knowledge; count a smaller task "
                               f"or give the symmetric parts as one chain")
        if probe is not None:
            swapped = probe.copy()
            swapped[:, [i, j]] = probe[:, [j, i]]
            if not np.array_equal(task.evaluate(swapped), seen):
                return False
        if table is not None:
            return bool(np.array_equal(np.swapaxes(table, i, j), table))
        return _swap_invariant(task, i, j)
    return partition(task.k, same, key=sig)


MAX_PAIR_WORK = 2_000_000  # pairwise swap checks x operators of the knowledge (about 10 s of probing)
MAX_PAIR_SECONDS = 2.0  # and the time they may take (RAVEN: 680 checks of 0.05 s and SAT proofs of 2 s each)


def _size(task: Task) -> int:
    """Operators and leaves over all labels (shared subexpressions once)."""
    seen, stack = set(), [label.expr for label in task.labels]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.extend(getattr(node, "args", ()))
    return len(seen)


SIGNATURE_CELLS = 1 << 22  # evaluated cells (vectors x concepts) past which concepts get no signature


def _signatures(task: Task) -> list:
    """A label fingerprint per concept that any two swappable concepts share.

    Concept i's fingerprint lists the labels of the vectors with every concept
    at value u except i at value v (for each u, v of its domain): swapping i
    and j maps those vectors onto j's, so swappable concepts agree on all of
    them. Comparing fingerprints first spares the pairwise checks of concepts
    that differ (a 1000-concept knowledge has 500,000 pairs).
    """
    k = task.k
    width = max(task.sizes)
    if k * width * width * k > SIGNATURE_CELLS:
        width = min(width, 2)
    if k * width * width * k > SIGNATURE_CELLS:
        return [0] * k
    rows, owner = [], []
    for i, n in enumerate(task.sizes):
        for u in range(min(width, n)):
            for v in range(min(width, n)):
                row = np.array([min(u, m - 1) for m in task.sizes], dtype=np.int64)
                row[i] = v
                rows.append(row)
                owner.append(i)
    labels = task.evaluate(np.array(rows))
    out: list = [[] for _ in range(k)]
    for i, lab in zip(owner, labels.tolist()):
        out[i].append(tuple(lab))
    return [hash(tuple(x)) for x in out]


def _swap_invariant(task: Task, i: int, j: int) -> bool:
    """SAT check that swapping concepts i and j changes no label."""
    from pysat.solvers import Solver
    kc = task.compiled
    c = Circuit()
    inputs = {key: c.var(("in",) + key) for key in kc.inputs}
    swapped = {(j if a == i else i if a == j else a, u): var for (a, u), var in inputs.items()}
    roots = [lit for tab in kc.tables for lit in tab.values()]
    m1 = kc.circuit.copy_into(c, {kc.inputs[key]: inputs[key] for key in kc.inputs}, roots)
    m2 = kc.circuit.copy_into(c, {kc.inputs[key]: swapped[key] for key in kc.inputs}, roots)
    differs = []
    for tab in kc.tables:
        for lit in tab.values():
            differs.append(c.XOR(Circuit.lookup(m1, lit), Circuit.lookup(m2, lit)))
    for a in range(task.k):
        c.exactly_one([inputs[(a, u)] for u in range(task.sizes[a])])
    c.add(differs)
    if any(len(cl) == 0 for cl in c.clauses):  # every label literal maps to itself
        return True
    with Solver(name="cadical153", bootstrap_with=c.clauses) as s:
        return not s.solve()


def support_blocks(problem: Problem, fixed: frozenset = frozenset()) -> list:
    """Classes of concepts whose columns can be swapped without changing the support."""
    task, rows = problem.task, problem.support.vectors
    if problem.support.exhaustive:
        return partition(task.k, lambda i, j: i not in fixed and j not in fixed
                       and task.concepts[i].domain == task.concepts[j].domain)
    base = {tuple(r) for r in rows.tolist()}

    def same(i: int, j: int) -> bool:
        if i in fixed or j in fixed or task.concepts[i].domain != task.concepts[j].domain:
            return False
        swapped = rows.copy()
        swapped[:, [i, j]] = swapped[:, [j, i]]
        return {tuple(r) for r in swapped.tolist()} == base
    return partition(task.k, same)


def meet(a: list, b: list) -> list:
    """The common refinement of two partitions."""
    where = {x: n for n, block in enumerate(b) for x in block}
    out: dict = {}
    for n, block in enumerate(a):
        for x in block:
            out.setdefault((n, where[x]), []).append(x)
    return [tuple(v) for v in out.values()]


def value_symmetries(table: np.ndarray, ties: tuple = (), limit: int = 1 << 14,
                     budget: int = 1 << 12) -> np.ndarray | None:
    """Every tuple of per-axis value permutations that leaves the label ``table`` unchanged.

    ``table`` holds a label code per cell; axes in one tuple of ``ties``
    must be permuted alike. Returns an array (elements, axes, max size),
    identity first, or None when the group has more than ``limit`` elements
    or finding it takes more than ``budget`` steps. The group is built as
    a product of transversals (level j: one element per permutation of axis
    j among the elements fixing every earlier axis); a partial choice must
    keep each prefix's histogram of labels over the remaining axes, so a
    wrong one is dropped before the later axes are tried.
    """
    sizes, k = table.shape, table.ndim
    labels = int(table.max()) + 1 if table.size else 1
    if table.size * labels > 1 << 21:
        return None
    codes = table.astype(np.int8 if labels < 128 else np.int64)
    hist = [np.eye(labels, dtype=np.int32)[table]]
    for a in reversed(range(k)):
        hist.insert(0, hist[0].sum(axis=a))
    tied = {b: t[0] for t in ties for b in t[1:]}
    rng: list = []  # made on first use: importing numpy.random costs 15 ms, more than a small count
    steps = [0]

    def tick():
        steps[0] += 1
        if steps[0] > budget:
            raise OverflowError

    def options(perms: list) -> list:
        """The permutations of the next axis that keep every prefix's label histogram."""
        j = len(perms)
        here = hist[j + 1]
        total = math.prod(sizes[:j])
        if j + 1 < k and total > SAMPLE:  # a sample is enough to prune; the last axis checks every cell
            rng or rng.append(np.random.default_rng(0))
            cells = grid(sizes[:j], rng[0].choice(total, SAMPLE, replace=False))
            a = here[tuple(cells.T)].swapaxes(0, 1)
            b = here[tuple(sigma[cells[:, c]] for c, sigma in enumerate(perms))].swapaxes(0, 1)
        else:
            here = codes if j + 1 == k else here  # the last axis: the labels themselves
            a = np.moveaxis(here, j, 0)
            b = np.moveaxis(here[np.ix_(*perms, *(np.arange(n) for n in here.shape[j:]))], j, 0) if perms else a
        a, b = a.reshape(sizes[j], -1), b.reshape(sizes[j], -1)
        compat = (a[:, None, :] == b[None, :, :]).all(axis=2)  # compat[u, w]: u may go to w
        if j in tied:
            sigma = perms[tied[j]]
            return [sigma] if compat[np.arange(sizes[j]), sigma].all() else []
        out: list = []

        def match(u: int, taken: list):
            tick()
            if u == sizes[j]:
                out.append(np.array(taken, dtype=np.int64))
                return
            for w in np.flatnonzero(compat[u]).tolist():
                if w not in taken:
                    match(u + 1, taken + [w])
        match(0, [])
        return out

    def complete(perms: list) -> list | None:
        """One element of the group that starts with ``perms``, or None."""
        tick()
        if len(perms) == k:
            return perms
        for sigma in options(perms):
            found = complete(perms + [sigma])
            if found is not None:
                return found
        return None

    width = max(sizes) if k else 1

    def as_array(perms: list) -> np.ndarray:
        out = np.tile(np.arange(width, dtype=np.int64), (k, 1))
        for a, sigma in enumerate(perms):
            out[a, :len(sigma)] = sigma
        return out

    try:
        transversals = []
        for j in range(k):
            prefix = [np.arange(n, dtype=np.int64) for n in sizes[:j]]
            level = [complete(prefix + [sigma]) for sigma in options(prefix)]
            transversals.append(np.array([as_array(p) for p in level if p is not None]))
    except OverflowError:
        return None
    if math.prod(len(t) for t in transversals) > limit:
        return None
    group = np.arange(width, dtype=np.int64)[None, None, :].repeat(k, axis=1)
    for level in reversed(transversals):  # G_j = T_j . G_(j+1)
        group = compose(level, group)
    return group


def compose(outer: np.ndarray, inner: np.ndarray) -> np.ndarray:
    """Every product a . b (b first, per axis) of permutation tuples a in ``outer`` and b in ``inner``.

    Both are arrays (elements, axes, values); the result lists the products
    with ``outer``'s index varying slowest.
    """
    products = np.take_along_axis(outer[:, None, :, :], inner[None, :, :, :], axis=3)
    return products.reshape(-1, *outer.shape[1:])
