"""Closed form for the ``joint`` class (rsbench Eq. 8-9).

A joint map sends each support vector g to any vector with the same label
(and the same supervised concepts); vectors outside the support go anywhere:
``count = prod_{g in S} |E(g)| * N^(N - |S|)`` with N concept vectors.
"""
from __future__ import annotations

import itertools
import math
from collections import Counter as Multiset

import numpy as np

from ...errors import BackendError
from ...model.support import MAX_EXHAUSTIVE, exhaustive
from ...results.count import JointMap, Tally
from ..base import Counter, Options


def _classes(problem):
    """Every concept vector of the task and its label codes (the joint class needs them all)."""
    task = problem.task
    if task.space_size > MAX_EXHAUSTIVE:
        raise BackendError(f"the joint closed form evaluates all {task.space_size} concept vectors "
                           f"(limit {MAX_EXHAUSTIVE}); choose another map class")
    grid = exhaustive(task).vectors
    return grid, task.evaluate(grid)


def _targets(problem, grid, labels, row, g):
    seen = list(problem.observed(row))
    mask = np.all(labels[:, seen] == problem.labels[row][seen], axis=1)
    for i in problem.supervised(row, g):
        mask &= grid[:, i] == g[i]
    return mask


def target_keys(problem) -> tuple:
    """(the distinct support vectors, per vector the index of its key, the keys). A vector's images keep every
    label its rows show (several tasks: each row its own) and every supervised value: the key (labels shown,
    values fixed); vectors of one key have the same images E(g), so their sets are built once per key."""
    if not problem.parts:  # one task: a vector's key is its labels and its supervised values, found at once
        _, first, row_of = _distinct_vectors(problem)
        vectors = np.asarray(problem.support.vectors)[first]
        fixed = _fixed(problem, vectors, row_of)
        labels = problem.labels[first]
        rows = np.hstack([labels, np.where(fixed, vectors, -1)])
        shifted = rows - rows.min(axis=0) if len(rows) else rows  # label codes may be negative
        radix = shifted.max(axis=0) + 1 if len(rows) else np.ones(rows.shape[1], dtype=np.int64)
        if math.prod(int(r) for r in radix) < 1 << 62:  # one integer per key: a 1-d sort, not a sort of rows
            _, pick, which = np.unique(_codes(shifted, radix), return_index=True, return_inverse=True)
            keys = rows[pick]
        else:
            keys, which = np.unique(rows, axis=0, return_inverse=True)
        shown = labels.shape[1]
        return vectors, np.asarray(which).ravel(), [
            (frozenset((t, int(k[t])) for t in range(shown)),
             frozenset((i, int(v)) for i, v in enumerate(k[shown:].tolist()) if v >= 0)) for k in keys]
    wants: dict = {}
    for row, g in enumerate(problem.support.rows()):
        shown, fixed = wants.setdefault(g, (set(), set()))
        shown.update((t, int(problem.labels[row][t])) for t in problem.observed(row))
        fixed.update((i, g[i]) for i in problem.supervised(row, g))
    index: dict = {}
    which = [index.setdefault((frozenset(shown), frozenset(fixed)), len(index)) for shown, fixed in wants.values()]
    return np.array(list(wants), dtype=np.int64).reshape(-1, problem.task.k), np.array(which, dtype=np.int64), \
        list(index)


def power_product(pairs) -> int:
    """prod base^exponent as a Python int; with python-flint (the heads extra) the powers of counts of millions of
    digits take a fraction of a second (SDD-OIA joint: 812,250^812,250 took Python 5 s)."""
    pairs = [(int(b), int(e)) for b, e in pairs]
    bits = sum(e * max(b, 1).bit_length() for b, e in pairs)
    if bits > 1 << 20:
        try:
            import flint
        except ImportError:
            pass
        else:
            total = flint.fmpz(1)
            for b, e in pairs:
                total *= flint.fmpz(b) ** e
            return int(total)
    total = 1
    for b, e in pairs:
        total *= b ** e
    return total


def support_target_sizes(problem, grid: np.ndarray, labels: np.ndarray) -> tuple:
    """(distinct support vectors, {|E(g)|: how many vectors have it}). One task: per set of supervised concepts,
    the grid and the vectors coded by (labels, those concepts' values) as one integer each and matched with a
    sort, no key per vector (a supervised exhaustive support has a key per vector); several tasks: by keys."""
    if problem.parts:
        vectors, which, keys = target_keys(problem)
        counts = np.bincount(which, minlength=len(keys)).tolist()
        return len(vectors), Multiset(dict(_sum_by(zip(target_sizes(keys, grid, labels), counts))))
    task = problem.task
    at, first, row_of = _distinct_vectors(problem)
    vectors = grid[at]
    fixed = _fixed(problem, vectors, row_of)
    own = problem.labels[first]
    low = np.minimum(labels.min(axis=0), own.min(axis=0)) if len(own) else labels.min(axis=0)
    radix = np.maximum(labels.max(axis=0), own.max(axis=0) if len(own) else labels.max(axis=0)) - low + 1
    label_code = _codes(labels - low, radix)
    own_code = _codes(own - low, radix)
    span = int(np.prod(radix.astype(object)))
    patterns, pattern_of = np.unique(fixed @ (1 << np.arange(task.k, dtype=object)) if task.k > 62 else
                                     fixed.astype(np.int64) @ (1 << np.arange(task.k, dtype=np.int64)),
                                     return_inverse=True)
    pattern_of = np.asarray(pattern_of).ravel()
    out: Multiset = Multiset()
    for p in range(len(patterns)):
        mine = pattern_of == p
        cs = np.flatnonzero(fixed[np.argmax(mine)])
        sub = tuple(task.sizes[c] for c in cs)
        if span * math.prod(sub) >= 1 << 62:
            raise BackendError("the joint closed form codes labels and supervised values as one integer; this "
                               "design has too many of them")
        inner = np.cumprod((1,) + sub[:0:-1], dtype=np.int64)[::-1] if len(sub) else np.zeros(0, dtype=np.int64)
        table = label_code * math.prod(sub) + (grid[:, cs] @ inner if len(cs) else 0)
        asked = own_code[mine] * math.prod(sub) + (vectors[mine][:, cs] @ inner if len(cs) else 0)
        codes, counts = np.unique(table, return_counts=True)
        where = np.clip(np.searchsorted(codes, asked), 0, len(codes) - 1)
        found = np.where(codes[where] == asked, counts[where], 0)
        sizes, times = np.unique(found, return_counts=True)
        out.update(dict(zip(sizes.tolist(), times.tolist())))
    return len(vectors), out


def _codes(rows: np.ndarray, radix: np.ndarray) -> np.ndarray:
    """Rows of small non-negative integers as one int64 each (mixed radix)."""
    out = np.zeros(len(rows), dtype=np.int64)
    for j, r in enumerate(radix.tolist()):
        out = out * int(r) + rows[:, j]
    return out


def _sum_by(pairs) -> dict:
    out: dict = {}
    for size, times in pairs:
        out[size] = out.get(size, 0) + times
    return out.items()


def _distinct_vectors(problem) -> tuple:
    """(the distinct support vectors' grid codes, sorted; the first row showing each; each row's vector)."""
    task = problem.task
    strides = np.cumprod((1,) + task.sizes[:0:-1], dtype=np.int64)[::-1]
    at, first, row_of = np.unique(np.asarray(problem.support.vectors) @ strides, return_index=True,
                                  return_inverse=True)
    return at, first, np.asarray(row_of).ravel()


def _fixed(problem, vectors: np.ndarray, row_of: np.ndarray) -> np.ndarray:
    """Per distinct support vector, which concepts its supervision fixes (one task)."""
    fixed = np.zeros(vectors.shape, dtype=bool)
    for i, u in problem.supervision.concepts:
        fixed[:, i] |= True if u is None else vectors[:, i] == u
    if problem.supervision.vectors:  # fully observed rows (and every copy of their vector)
        fixed[row_of[sorted(problem.supervision.vectors)]] = True
    return fixed


def target_sizes(keys: list, grid: np.ndarray, labels: np.ndarray) -> list:
    """|E(g)| of every key: the grid grouped once per kind of key (which labels shown, which concepts fixed),
    not one pass over the grid per key (a supervised exhaustive support has a key per vector)."""
    out = [0] * len(keys)
    kinds: dict = {}
    for n, (shown, fixed) in enumerate(keys):
        kinds.setdefault((tuple(sorted(t for t, _ in shown)), tuple(sorted(i for i, _ in fixed))), []).append(n)
    for (ts, cs), members in kinds.items():
        table = np.hstack([labels[:, list(ts)], grid[:, list(cs)]])
        rows, counts = np.unique(table, axis=0, return_counts=True)
        found = {tuple(r): int(c) for r, c in zip(rows.tolist(), counts.tolist())}
        for n in members:
            shown, fixed = dict(keys[n][0]), dict(keys[n][1])
            out[n] = found.get(tuple([shown[t] for t in ts] + [fixed[i] for i in cs]), 0)
    return out


def target_mask(key: tuple, grid: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """The concept vectors a key's support vectors may go to: every shown label and every fixed value kept."""
    shown, fixed = key
    mask = np.ones(len(grid), dtype=bool)
    for t, code in shown:
        mask &= labels[:, t] == code
    for i, value in fixed:
        mask &= grid[:, i] == value
    return mask


MAX_BITS = 1 << 27  # a joint count past this many bits (16 MB) is refused: N^(N - |S|) alone can be that large
MAX_LEARNED_CLASS = 5000  # support vectors of one label the learned-head closed form takes (S(n, k) for k <= n)


MAX_LINEAR_VECTORS = 64  # predicted vectors the linear-head joint count assigns labels to, one by one
MAX_LINEAR_NODES = 200_000  # labelled image sets it visits


def linear_joint(problem, deadline=None, limits: tuple | None = None) -> tuple:
    """(count, whether the intended map counts) of joint maps under a linear head: support vectors of label class
    c (n_c of them) go onto an image set I_c, the I_c disjoint and, labelled, separable by one linear head per
    label; vectors off the support go anywhere. So the count is N^(N - |S|) times the sum over separable
    labelled families of prod_c |I_c|! S(n_c, |I_c|) (the maps onto each I_c), the families listed depth first
    over the N predicted vectors (separability is closed under removing vectors: a refused branch is cut).
    ``limits`` (one per concept) restricts every image to the vectors whose values lie below them (the counts
    up to renaming)."""
    from ..generic.separable import HeadProgram
    if problem.supervision:
        raise BackendError("the linear-head joint count does not take concept supervision yet; choose another map "
                           "class")
    task = problem.task
    n = task.space_size
    if n > MAX_LINEAR_VECTORS:
        raise BackendError(f"{n:,} predicted vectors (limit {MAX_LINEAR_VECTORS}): the linear-head joint count "
                           f"labels them one by one; choose another map class or inference='learned'")
    vectors = np.unique(problem.support.vectors, axis=0)
    labels = task.evaluate(vectors)
    keys, sizes = np.unique(labels, axis=0, return_counts=True)
    keys, sizes = [tuple(k) for k in keys.tolist()], [int(s) for s in sizes]
    programs = [HeadProgram(task.sizes, sorted(set(col.tolist())), np.zeros((0, task.k), dtype=int), col[:0])
                for col in task.evaluate_space().T]
    space = [tuple(v) for v in itertools.product(*map(range, limits or task.sizes))]
    surjections = [[math.factorial(k) * s for k, s in enumerate(_stirling_row(size))] for size in sizes]
    total, nodes = 0, 0
    used = [0] * len(keys)

    def extend(depth: int, chosen: list, heads: list) -> None:
        nonlocal total, nodes
        nodes += 1
        if nodes > MAX_LINEAR_NODES:
            raise BackendError(f"more than {MAX_LINEAR_NODES:,} labelled image sets: the linear-head joint count "
                               f"is for small tasks; choose another map class or inference='learned'")
        if deadline is not None and nodes % 64 == 0:
            deadline.check()
        if depth == len(space):
            if all(used):
                total += math.prod(surjections[c][used[c]] for c in range(len(keys)))
            return
        if sum(1 for u in used if not u) > len(space) - depth:
            return  # classes still without an image outnumber the vectors left
        extend(depth + 1, chosen, heads)
        v = space[depth]
        for c, key in enumerate(keys):
            if used[c] == sizes[c]:
                continue
            trial = chosen + [(v, key)]
            found = []
            for j, (program, head) in enumerate(zip(programs, heads)):
                if program.gives(head, v, key[j]):
                    found.append(head)
                    continue
                head = program.solve([(p, y[j]) for p, y in trial])
                if head is None:
                    break
                found.append(head)
            if len(found) == len(programs):
                used[c] += 1
                extend(depth + 1, trial, found)
                used[c] -= 1

    extend(0, [], [program.solve() for program in programs])
    identity = [(tuple(g), tuple(y)) for g, y in zip(vectors.tolist(), labels.tolist())]
    intended = all(p.feasible([(g, y[j]) for g, y in identity]) for j, p in enumerate(programs))
    return total * len(space) ** (n - len(vectors)), intended


def learned_joint(problem, images: int | None = None, deadline=None) -> int:
    """Joint maps under a learned head: support vectors with different labels get disjoint sets of images.

    With label classes of n_1..n_m support vectors, choosing k_c images for class c and sending its vectors
    onto them gives ``sum_k N(N-1)..(N-K+1) prod_c S(n_c, k_c)`` (K = sum k_c, S Stirling numbers of the
    second kind); vectors outside the support go anywhere (N^(N - |S|)). ``images`` restricts every image to a
    set of that many vectors (N by default).
    """
    n = problem.task.space_size
    if problem.supervision:
        return _learned_joint_blocks(problem, deadline)
    m = n if images is None else images
    classes = _class_sizes(problem)
    return _learned_joint_sum(problem, classes, m, deadline) * m ** (n - problem.support.length)


def _learned_joint_blocks(problem, deadline=None) -> int:
    """Under supervision of whole concepts I, a support vector g may only go to the vectors that share its
    values on I: the rows fall into blocks by those values, each counted by the sum over its own M = N / prod
    |D_i| images, and the blocks multiply."""
    sup = problem.supervision
    from ..generic.bruteforce import LIMIT as BRUTEFORCE_LIMIT
    if sup.vectors or any(u is not None for _, u in sup.concepts) or problem.parts:
        raise BackendError("the learned-head joint count has a closed form under supervision of whole concepts "
                           "only (supervise=NAME), not of single values or supervised rows (concept_sup=); "
                           f"the default checks every map only up to {BRUTEFORCE_LIMIT:,} of them (N vectors: N^N); "
                           "supervise whole concepts or choose another map class")
    fixed = sorted({i for i, _ in sup.concepts})
    n = problem.task.space_size
    m = n // math.prod(problem.task.sizes[i] for i in fixed)
    blocks: dict = {}
    for g, y in zip(problem.support.vectors[:, fixed].tolist(), map(tuple, problem.labels.tolist())):
        blocks.setdefault(tuple(g), []).append(y)
    total = 1
    for labels in blocks.values():
        total *= _learned_joint_sum(problem, list(Multiset(labels).values()), m, deadline)
    return total * n ** (n - problem.support.length)


def _learned_joint_sum(problem, classes: list, m: int, deadline=None) -> int:
    """sum_K c_K m (m - 1) .. (m - K + 1) for label classes of the given sizes sent into m images."""
    if max(classes, default=0) > MAX_LEARNED_CLASS:
        raise BackendError(f"the learned-head joint count sums Stirling numbers S(n, k) over label classes of up "
                           f"to {max(classes):,} support vectors (limit {MAX_LEARNED_CLASS:,}); "
                           f"{_bracket(problem, classes)}; count a smaller support (subsample=N, support=by-label:N)")
    per_class = _images_per_class(Multiset(classes), deadline)
    total = 0  # sum_K c_K m (m - 1) .. (m - K + 1), by Horner from the top (the factor m - m ends K > m)
    for used in range(len(per_class) - 1, -1, -1):
        if deadline is not None and used % 4096 == 0:
            deadline.check()
        total = per_class[used] + (m - used) * total
    return total


def _class_sizes(problem) -> list:
    """How many support vectors carry each label."""
    return list(Multiset(map(tuple, problem.labels.tolist())).values())


def learned_joint_log10(problem, classes: list | None = None) -> tuple:
    """Bounds (low, high) on log10 of the learned-head joint count without supervision, where the count itself
    is out of reach. With N vectors, label classes of n_c support vectors (S of them, L classes): sending class c
    into its own block of floor(N n_c / S) images gives at least prod floor(N n_c / S)^n_c maps; at most, each
    image is given to one class or none ((L + 1)^N ways) and class c maps into its images, prod a_c^n_c <=
    prod (N n_c / S)^n_c (weighted AM-GM), and never more than N^S. Vectors off the support add N^(N - S)."""
    n, size = problem.task.space_size, problem.support.length
    classes = _class_sizes(problem) if classes is None else classes
    low = sum(c * math.log10(max(n * c // size, 1)) for c in classes)
    high = min(size * math.log10(n), n * math.log10(len(classes) + 1) + sum(c * math.log10(n * c / size)
                                                                            for c in classes))
    rest = (n - size) * math.log10(n)
    return low + rest, high + rest


def _bracket(problem, classes: list | None = None) -> str:
    low, high = learned_joint_log10(problem, classes)
    return f"it lies between 10^{math.floor(low):,} and 10^{math.ceil(high):,}"


def _images_per_class(sizes: Multiset, deadline=None) -> list:
    """c_K = sum over (k_c) with sum k_c = K of prod_c S(n_c, k_c): the coefficients of the product of the
    classes' polynomials sum_k S(n, k) t^k, one power per distinct class size. With python-flint the product is
    FLINT's fast polynomial arithmetic (MNMath's 532 classes: 10,000 coefficients of up to 24,700 bits); without
    it, a convolution in Python integers."""
    try:
        from flint import fmpz_poly
    except ImportError:
        fmpz_poly = None
    if fmpz_poly is not None:
        product = fmpz_poly([1])
        for size, times in sorted(sizes.items()):
            product *= fmpz_poly(_stirling_row(size, deadline)) ** times
            if deadline is not None:
                deadline.check()
        return [int(c) for c in product.coeffs()]
    ways = [1]
    for size, times in sorted(sizes.items()):
        row = _stirling_row(size, deadline)
        for _ in range(times):
            step = [0] * (len(ways) + size)
            for used, w in enumerate(ways):
                if deadline is not None and used % 256 == 0:
                    deadline.check()
                if w:
                    for k in range(1, size + 1):
                        step[used + k] += w * row[k]
            ways = step
    return ways


def _stirling_row(n: int, deadline=None) -> list:
    """S(n, k) for k = 0..n: ways to split n things into k unlabelled non-empty blocks."""
    row = [1]
    for m in range(1, n + 1):
        if deadline is not None and m % 64 == 0:
            deadline.check()
        row = [0] + [row[k - 1] + k * (row[k] if k < len(row) else 0) for k in range(1, m + 1)]
    return row


def joint_log10(problem, listable: int = 1 << 22) -> tuple:
    """(log10 of the joint count under K, exact) where the count is too large to write: each support vector
    may go to any vector of its label, each other vector anywhere. Without supervision and with at most
    ``listable`` concept vectors the label classes are read off the space (exact up to float rounding);
    otherwise the N^(N - |S|) of the vectors off the support alone (a lower bound)."""
    from ...model.support import space_label_ids
    n, task = problem.task.space_size, problem.task
    off = (n - problem.support.length) * math.log10(n)
    if problem.supervision or problem.parts or problem.inference != "knowledge":
        return off, False
    if n > listable:
        by_parts = _joint_log10_by_parts(problem, listable)
        return (off + by_parts, True) if by_parts is not None else (off, False)
    codes, _ = space_label_ids(task)
    sizes = np.bincount(codes.astype(np.int64))
    strides = np.cumprod((1,) + task.sizes[:0:-1], dtype=np.int64)[::-1]
    rows = codes[np.asarray(problem.support.vectors, dtype=np.int64) @ strides].astype(np.int64)
    return off + float(np.log10(sizes[rows].astype(float)).sum()), True


def _joint_log10_by_parts(problem, listable: int) -> float | None:
    """sum over support vectors of log10 |its label class|, where the space is too large to list but the labels
    fall into parts over disjoint concepts, each listable (MNMath-B.1: 10^8 vectors, two parts of 10^4): a class
    is a tuple of the parts' classes, its size their product times the values of concepts no label reads."""
    from ...problems.split import components, grid_labels
    task = problem.task
    parts = components(task)
    if any(math.prod(task.sizes[c] for c in cs) > listable for _, cs in parts):
        return None
    read = {c for _, cs in parts for c in cs}
    free = math.log10(math.prod(task.sizes[c] for c in range(task.k) if c not in read))
    exhaustive, total = problem.support.exhaustive, 0.0
    rows = None if exhaustive else np.asarray(problem.support.vectors, dtype=np.int64)
    for labels, cs in parts:
        table = grid_labels(task, cs)[:, list(labels)]
        _, ids, sizes = np.unique(table, axis=0, return_inverse=True, return_counts=True)
        logs = np.log10(sizes.astype(float))[ids.ravel()]  # per tuple of the part's values
        if exhaustive:
            total += float(logs.sum()) * (task.space_size // len(logs))
        else:
            strides = np.cumprod((1,) + tuple(task.sizes[c] for c in cs)[:0:-1], dtype=np.int64)[::-1]
            total += float(logs[rows[:, list(cs)] @ strides].sum())
    return total + problem.support.length * free


class ClosedForm(Counter):
    name = "closed-form"
    inferences = ("knowledge", "learned", "learned:linear")
    several = True

    def count(self, problem, encoding, options: Options) -> Tally:
        if problem.map_class != "joint":
            raise BackendError(f"closed-form counts the joint class only, not {problem.map_class!r}; "
                               f"use map_class=joint, or exact=True for {problem.map_class}")
        n = problem.task.space_size
        bits = n * math.log2(max(n, 2))  # the count is at most N^N
        if bits > MAX_BITS and (n - problem.support.length) * math.log2(n) > MAX_BITS:
            bracket = f" ({_bracket(problem)})" if problem.inference == "learned" and not problem.supervision else ""
            raise BackendError(f"the joint count over {n:,} concept vectors is a number of about "
                               f"{int((n - problem.support.length) * math.log10(n)):,} decimal digits (vectors off "
                               f"the support go anywhere: N^(N - |S|) alone){bracket}; choose another map class")
        if problem.inference == "knowledge" and problem.support.exhaustive and n > MAX_EXHAUSTIVE:
            digits, exact = joint_log10(problem)
            if exact:
                raise BackendError(f"the joint count over {n:,} concept vectors is a number of about "
                                   f"{int(digits) + 1:,} decimal digits (each vector may go to any vector of its "
                                   f"labels: prod_c n_c^n_c over the label classes); choose another map class")
        if problem.inference == "learned":
            return Tally(learned_joint(problem, deadline=options.deadline(self.name, "raise timeout= or count a "
                                                                                      "smaller support")))
        if problem.inference == "learned:linear":
            count, intended = linear_joint(problem, options.deadline(self.name, "raise timeout= or count a smaller "
                                                                                "task"))
            return Tally(count, intended=intended, notes=(
                "learned:linear joint: a sum over the labelled image sets one linear head separates, listed depth "
                "first with a linear program where the last head found does not already separate them",))
        grid, labels = _classes(problem)
        n = len(grid)
        if problem.support.exhaustive and not problem.supervision and not problem.parts:
            shifted = labels - labels.min(axis=0)  # label codes may be negative (integer labels)
            radix = shifted.max(axis=0) + 1
            codes = _codes(shifted, radix)
            sizes = np.bincount(codes) if math.prod(int(r) for r in radix) <= 1 << 24 else \
                np.unique(codes, return_counts=True)[1]
            return Tally(power_product((int(s), int(s)) for s in sizes if s))
        distinct, sizes = support_target_sizes(problem, grid, labels)
        return Tally(power_product([*sizes.items(), (n, n - distinct)]))

    def enumerate(self, problem, encoding, limit):
        if problem.inference == "learned":
            from ..generic.bruteforce import BACKEND as BRUTEFORCE
            yield from BRUTEFORCE.enumerate(problem, None, limit)
            return
        grid, labels = _classes(problem)
        vectors = [tuple(map(int, g)) for g in grid]
        in_support: dict = {}  # several tasks: one vector may be a row of each
        for row, g in enumerate(problem.support.rows()):
            in_support.setdefault(g, []).append(row)
        choices = []
        for g in vectors:
            rows = in_support.get(g)
            if rows is None:
                choices.append([g] + [v for v in vectors if v != g])
            else:
                mask = np.logical_and.reduce([_targets(problem, grid, labels, row, g) for row in rows])
                choices.append([g] + [vectors[t] for t in np.flatnonzero(mask) if vectors[t] != g])
        for n, images in enumerate(itertools.product(*choices)):
            if limit is not None and n >= limit:
                return
            yield JointMap(tuple(zip(vectors, images)), problem.task.format_vector)


BACKEND = ClosedForm()
