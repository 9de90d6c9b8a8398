"""Supports: the concept vectors that occur in training.

A :class:`Support` holds index vectors as an ``(n, k)`` numpy array. It is
built exhaustively, by a seeded subsample of the exhaustive support, from an
explicit list (``"1,1,1;0,1,0"``), from a CSV/JSON file, or from the task's
default.
"""
from __future__ import annotations

import csv
import io
import itertools
import math
import random
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import SupportError, brief
from ..files.reading import load_data, read_text
from ..results.count import format_count
from ..runtime.lazy import cached_property
from .task import Task

__all__ = ["Support", "exhaustive", "subsample", "by_label", "explicit", "from_file", "from_rows", "default",
           "parse_amount", "grid", "vectors_from_values", "MAX_EXHAUSTIVE", "every_value_meets_every_other",
           "neighbours_link_every_value", "shown_values_stay_together", "interchangeable_values"]

MAX_EXHAUSTIVE = 1 << 24


@dataclass(frozen=True, eq=False)
class Support:
    """Index vectors of shape (n, k), with a word on where they came from.

    The exhaustive support lists its vectors only when a counter reads them
    (``sizes`` kept instead): the counters that work from the knowledge
    alone never pay for the grid (168 MB for 20 boolean concepts). One too
    large to list (over MAX_EXHAUSTIVE vectors) keeps only its size: counters
    that split the problem never need its rows, and any that do get a
    SupportError saying what to do instead.
    """

    given: np.ndarray | None = field(repr=False)
    kind: str
    exhaustive: bool = False
    size: int | None = None
    sizes: tuple | None = None  # an exhaustive support listed on demand: the domain size of each concept

    def __post_init__(self) -> None:
        if self.given is None and not (self.exhaustive and self.size):
            raise SupportError("only an exhaustive support may leave its vectors unlisted")
        if self.given is not None and len(self.given) == 0:
            raise SupportError("the support is empty; give at least one concept vector")

    @property
    def listed(self) -> bool:
        """Whether the vectors can be read (those of an exhaustive support are built on first use)."""
        return self.given is not None or self.sizes is not None

    @cached_property
    def data(self) -> np.ndarray | None:
        """The vectors, or None where the support is too large to list."""
        return self.given if self.given is not None or self.sizes is None else grid(self.sizes)

    @property
    def vectors(self) -> np.ndarray:
        if not self.listed:
            raise SupportError(f"the exhaustive support has {format_count(self.size).split(' (')[0]} vectors "
                               f"(limit {MAX_EXHAUSTIVE:,} "
                               f"to list); use subsample=, support=by-label:N or an explicit support")
        return self.data

    def __len__(self) -> int:
        return self.length

    @property
    def length(self) -> int:
        """The number of vectors, as a Python int (``len`` fails past 2^63: 64 boolean concepts)."""
        return int(self.given.shape[0]) if self.given is not None else int(self.size)

    def rows(self):
        """Yield index vectors as tuples."""
        for row in self.vectors:
            yield tuple(int(x) for x in row)


def row_codes(digits: np.ndarray, radix: list) -> np.ndarray:
    """One int64 per row of ``digits`` (column j below ``radix[j]``): equal rows, equal codes.

    A mixed-radix number where it fits in 62 bits, else the row's rank among
    the distinct rows.
    """
    if math.prod(radix) < 1 << 62:
        weights = np.cumprod([1, *radix[:0:-1]], dtype=np.int64)[::-1][:len(radix)]  # no column: all 0
        return digits @ weights
    return np.unique(digits, axis=0, return_inverse=True)[1].ravel()


_WEIGHTS: dict = {}


def _hash_weights(width: int) -> np.ndarray:
    """Fixed pseudo-random odd weights below 2^62, one per column (splitmix64; importing numpy.random costs
    about 30 ms, more than many whole counts)."""
    hit = _WEIGHTS.get(width)
    if hit is None:
        with np.errstate(over="ignore"):
            x = np.arange(1, width + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
            x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
            x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
            x ^= x >> np.uint64(31)
        hit = _WEIGHTS[width] = ((x >> np.uint64(2)) | np.uint64(1)).astype(np.int64)
    return hit


def row_ids(table: np.ndarray) -> tuple:
    """(id of each row, a row index for each id) of an integer table: equal rows, equal ids (0, 1, ...).

    Rows are hashed with random weights, then checked (sorted instead on a
    collision): much faster than ``np.unique(axis=0)`` on wide tables.
    """
    table = np.asarray(table)
    if table.dtype.kind not in "ib" and not (table.dtype.kind == "u" and table.itemsize < 8):
        table = table.astype(np.int64)
    weights = _hash_weights(table.shape[1])
    with np.errstate(over="ignore"):
        hashes = table @ weights
    _, first, ids = np.unique(hashes, return_index=True, return_inverse=True)
    ids = ids.ravel()
    if not np.array_equal(table[first[ids]], table):  # a hash collision
        _, first, ids = np.unique(table, axis=0, return_index=True, return_inverse=True)
        ids = ids.ravel()
    return ids, first


def clashes(keys: np.ndarray, wants: np.ndarray) -> bool:
    """Whether two rows with the same key want different things (a map that cannot tell them apart fails)."""
    if len(keys) < 2:
        return False
    top, low = int(wants.max()) + 1, int(min(keys.min(), wants.min()))
    if low >= 0 and int(keys.max()) < (1 << 62) // top:  # key and want as one number: a sort, no gather
        both = np.sort(keys * top + wants)
        return bool(((both[1:] // top == both[:-1] // top) & (both[1:] != both[:-1])).any())
    order = np.argsort(keys)
    same = keys[order][1:] == keys[order][:-1]
    wants = wants[order]
    return bool((same & (wants[1:] != wants[:-1])).any())


def distinct(values: np.ndarray) -> np.ndarray:
    """The sorted distinct values of an array (``np.unique`` without its lazy import of numpy.ma, ~10 ms)."""
    s = np.sort(values, axis=None)
    return s[np.concatenate(([True], s[1:] != s[:-1]))] if len(s) else s


def representatives(codes: np.ndarray, bound: int) -> np.ndarray:
    """One row index per distinct code (codes below ``bound``), in increasing order of code: a table of the
    codes where ``bound`` is small (no sort of the rows), else ``np.unique``'s first occurrences."""
    if bound > 1 << 22:
        return np.unique(codes, return_index=True)[1]
    where = np.full(bound, -1, dtype=np.int64)
    where[codes] = np.arange(len(codes))
    return where[where >= 0]


def distinct_rows(rows: np.ndarray) -> int:
    """How many different rows a 2-d array has."""
    if len(rows) < 2:
        return len(rows)
    s = rows[np.lexsort(rows.T[::-1])]
    return 1 + int((s[1:] != s[:-1]).any(axis=1).sum())


def grid(sizes: tuple, indices: np.ndarray | None = None) -> np.ndarray:
    """Index vectors of the exhaustive support (all, or those at ``indices``) in lexicographic order."""
    total = math.prod(sizes)
    idx = np.arange(total, dtype=np.int64) if indices is None else np.asarray(indices, dtype=np.int64)
    out = np.empty((len(idx), len(sizes)), dtype=np.int64)
    for pos in range(len(sizes) - 1, -1, -1):
        out[:, pos] = idx % sizes[pos]
        idx = idx // sizes[pos]
    return out


def exhaustive(task: Task) -> Support:
    """Return every concept vector of ``task``."""
    listed = task.sizes if task.space_size <= MAX_EXHAUSTIVE else None
    return Support(None, "exhaustive", exhaustive=True, size=task.space_size, sizes=listed)


def parse_amount(text, what: str) -> float | int:
    """Read a fraction (``0.5``) or a count (``10``), as text from the command line or a number."""
    if isinstance(text, bool) or not isinstance(text, (str, int, float)):
        raise SupportError(f"{what} {brief(text)} is neither a fraction nor a count")
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise SupportError(f"{what} {brief(text)} is neither a fraction nor a count") from None
    if not math.isfinite(value):
        raise SupportError(f"{what} {brief(text)} is not a finite number; give a fraction (0.5) or a count (10)")
    if value < 0:
        raise SupportError(f"{what} {brief(text)} is negative")
    if isinstance(text, str) and "." not in text and "e" not in text.lower():
        return int(value)
    if isinstance(text, int) or (value > 1 and value == int(value)):
        return int(value)
    if value > 1:
        raise SupportError(f"{what} {brief(text)}: a fraction must lie in [0, 1], a count must be an integer")
    return value


def _how_many(amount, total: int, what: str) -> int:
    if isinstance(amount, float):
        return int(round(amount * total))
    if amount > total:
        raise SupportError(f"{what} asks for {brief(amount, 24)} vectors but only {total} exist")
    return int(amount)


def subsample(task: Task, amount, seed: int = 0, base: Support | None = None) -> Support:
    """Return a seeded sample (fraction or count) of ``base`` (default: exhaustive)."""
    amount = parse_amount(amount, "subsample=")
    total = base.length if base is not None else task.space_size
    n = _how_many(amount, total, "subsample=")
    if n == 0:
        raise SupportError(f"subsample={amount} keeps no vector of {total}; ask for at least one")
    if total >= 1 << 62:  # past int64 (and random.sample): distinct draws, as rows of digits
        rng, drawn = random.Random(seed), set()
        while len(drawn) < n:
            drawn.add(rng.randrange(total))
        return Support(np.array([_digits(p, task.sizes) for p in sorted(drawn)], dtype=np.int64),
                       f"subsample {n}/{format_count(total).split(' (')[0]} (seed {seed})")
    picks = np.array(sorted(random.Random(seed).sample(range(total), n)), dtype=np.int64)
    vectors = base.vectors[picks] if base is not None else grid(task.sizes, picks)
    return Support(vectors, f"subsample {n}/{total} (seed {seed})")


def _digits(code: int, sizes: tuple) -> list:
    """The vector at position ``code`` of the grid (first concept slowest), for codes past int64."""
    out = []
    for n in reversed(sizes):
        code, d = divmod(code, n)
        out.append(d)
    return out[::-1]


def by_label(task: Task, n: int, seed: int = 0) -> Support:
    """Sample as rsbench's generators do: a label vector uniformly, then a concept vector with that label.

    Draws until ``n`` distinct vectors are found (or every vector is taken).
    """
    if n < 1:
        raise SupportError(f"a label-first sample needs at least one vector, got {n}")
    if task.space_size > MAX_EXHAUSTIVE:
        return _by_label_drawn(task, n, seed)
    picks, _ = _label_first(space_label_ids(task), n, seed)
    return Support(grid(task.sizes, picks), f"label-first sample {len(picks)} (seed {seed})")


def space_label_ids(task: Task) -> tuple:
    """``label_ids(task.evaluate_space())``, in grid order, without the (vectors, labels) table of int64: the
    labels' codes are combined one label at a time in the smallest unsigned type that holds them."""
    arrays = task.space_labels()
    lows = [int(a.min()) for a in arrays]
    radix = [int(a.max()) - lo + 1 for a, lo in zip(arrays, lows)]
    total = math.prod(radix)
    if total > 1 << 22:
        return label_ids(task.evaluate_space())
    kind = np.uint8 if total <= 1 << 8 else np.uint16 if total <= 1 << 16 else np.uint32
    code = np.zeros((1,) * task.k, dtype=kind)
    for a, lo, r in zip(arrays, lows, radix):
        code = code * kind(r) + (a.astype(kind) - kind(lo) if a.dtype == bool else (a - lo).astype(kind))
    code = np.broadcast_to(code, task.sizes).ravel()  # a copy only where some concept is read by no label
    return _rank_by_count(code, total, kind)


def _rank_by_count(codes: np.ndarray, total: int, dtype=np.int64) -> tuple:
    """(rank of each code among the codes present, how many are present), for codes below ``total``: counted,
    not sorted."""
    present = np.bincount(codes, minlength=total) > 0
    return (np.cumsum(present) - 1).astype(dtype, copy=False)[codes], int(present.sum())


def label_ids(labels: np.ndarray) -> tuple:
    """(rank of each row's label vector among the distinct ones, how many there are), in lexicographic order."""
    labels = np.asarray(labels, dtype=np.int64).reshape(len(labels), -1)
    # column by column: a reduction along axis 0 of a tall table is several times slower
    low = np.array([c.min(initial=0) for c in labels.T], dtype=np.int64)
    radix = [int(c.max(initial=0)) - int(lo) + 1 for c, lo in zip(labels.T, low)]
    codes = row_codes(labels - low, radix)
    if math.prod(radix) <= 1 << 22:  # few label vectors: rank them by counting instead of sorting every row
        return _rank_by_count(codes, math.prod(radix))
    kinds = distinct(codes)
    return np.searchsorted(kinds, codes), len(kinds)


FEW_KINDS = 32


def _label_first(ids: tuple, n: int, seed: int) -> tuple:
    """Pick min(n, rows) distinct rows: a label vector uniformly, then a row with it (``ids``: what
    :func:`label_ids` gives for the rows' labels).

    Return the sorted row indices and how many label vectors there are.
    """
    group, kinds = ids
    if kinds <= FEW_KINDS:  # a pass per label vector beats even a radix sort
        members = [np.flatnonzero(group == g) for g in range(kinds)]
    else:
        small = np.uint8 if kinds <= 1 << 8 else np.uint16 if kinds <= 1 << 16 else np.int64
        order = np.argsort(group.astype(small), kind="stable")  # a radix sort on small integer types
        members = np.split(order, np.cumsum(np.bincount(group, minlength=kinds))[:-1])
    rng = random.Random(seed)
    chosen: set = set()
    target = min(n, len(group))
    while len(chosen) < target:
        pool = members[rng.randrange(len(members))]
        chosen.add(int(pool[rng.randrange(len(pool))]))
    return np.array(sorted(chosen), dtype=np.int64), kinds


LABEL_DRAWS = 1 << 18


def _by_label_drawn(task: Task, n: int, seed: int) -> Support:
    """Label-first sampling where the space is too large to list: labels met among uniform draws."""
    rng = np.random.default_rng(seed)
    drawn = np.stack([rng.integers(s, size=LABEL_DRAWS) for s in task.sizes], axis=1)
    if task.space_size < 1 << 62:  # distinct rows in lexicographic order, as np.unique(axis=0) gives, but 1-d
        drawn = grid(task.sizes, distinct(row_codes(drawn, list(task.sizes))))
    else:
        drawn = np.unique(drawn, axis=0)
    picks, kinds = _label_first(label_ids(task.evaluate(drawn)), n, seed)
    return Support(drawn[picks], f"label-first sample {len(picks)} (seed {seed}; the {kinds} "
                                 f"label vectors met in {LABEL_DRAWS} uniform draws)")


def explicit(task: Task, text: str) -> Support:
    """Parse ``"1,1,1;0,1,0"``: ``;`` between vectors, ``,`` between values."""
    rows = [r.strip() for r in str(text).split(";") if r.strip()]
    if not rows:
        raise SupportError(f"support {text!r} lists no vector; write e.g. '1,1,1;0,1,0'")
    return from_rows(task, [[v.strip() for v in r.split(",")] for r in rows], "explicit")


def from_file(task: Task, path: str | Path) -> Support:
    """Read vectors from a CSV file (one per line, optional header of concept names) or a JSON list."""
    path = Path(path)
    text = read_text(path, "support file", SupportError)
    if path.suffix == ".json" or text.lstrip().startswith("["):
        rows = load_data(text, f"support file {str(path)!r}", SupportError, "json")
        if not isinstance(rows, list):
            raise SupportError(f"support file {str(path)!r} must hold a JSON list of vectors")
    else:
        rows = [r for r in csv.reader(io.StringIO(text)) if any(v.strip() for v in r)]
        names = [c.name for c in task.concepts]
        if rows and [v.strip() for v in rows[0]] == names:
            rows = rows[1:]
    return from_rows(task, rows, f"file {path.name}")


def from_frame(task: Task, frame, kind: str = "data frame") -> Support:
    """A support from a table with a column per concept (a pandas DataFrame, or anything with ``columns`` and
    ``to_numpy``), values as the concepts' domains write them; other columns (labels) are left aside."""
    columns = [str(c) for c in frame.columns]
    missing = [c.name for c in task.concepts if c.name not in columns]
    if missing:
        raise SupportError(f"the {kind} support has no column {missing[0]!r}; its columns: "
                           f"{', '.join(columns[:8]) or 'none'} (one column per concept, named as the concepts)")
    data = frame.to_numpy(dtype=object)
    at = [columns.index(c.name) for c in task.concepts]
    rows = [[_plain(row[i]) for i in at] for row in data]
    return from_rows(task, rows, kind)


def _plain(value):
    """A numpy scalar as the Python value it holds (so that 1 and np.int64(1) read alike)."""
    return value.item() if hasattr(value, "item") and not isinstance(value, str) else value


def default(task: Task) -> Support:
    """Return the task's own default support (exhaustive unless the task says otherwise)."""
    if task.default_support is None:
        return exhaustive(task)
    return Support(np.array(task.default_support, dtype=np.int64).reshape(-1, task.k), "task default")


def from_rows(task: Task, rows, kind: str = "explicit") -> Support:
    """Build a support from rows of values (lists or compact strings), merging duplicates."""
    vectors = vectors_from_values(task.concepts, rows)
    if not vectors:
        raise SupportError(f"the {kind} support is empty; give at least one concept vector")
    unique = sorted(set(vectors))
    return Support(np.array(unique, dtype=np.int64).reshape(-1, task.k), kind)


def vectors_from_values(concepts: tuple, rows) -> tuple:
    """Turn rows of values (lists, or compact strings like ``"0101"``) into index vectors."""
    out = []
    k = len(concepts)
    for row in rows:
        if isinstance(row, str):
            row = row.strip()
            if "," in row:
                row = [v.strip() for v in row.split(",")]
            elif len(row) == k:
                row = list(row)
            else:
                row = row.split()
        if isinstance(row, (int, str)):
            row = [row]
        if not isinstance(row, (list, tuple)):
            raise SupportError(f"support vector {brief(row)} is not a list of values")
        row = list(row)
        if len(row) != k:
            raise SupportError(f"support vector {brief(row)} has {len(row)} values; the task has {k} concepts")
        vec = []
        for c, v in zip(concepts, row):
            v = int(v) if isinstance(v, bool) else v
            try:
                vec.append(c.index(v))
            except KeyError:
                raise SupportError(f"support vector {brief(row)}: {brief(v)} is not in the domain of "
                                   f"{c.name} {brief(list(c.domain))}") from None
        out.append(tuple(vec))
    return tuple(out)


def every_value_meets_every_other(rows: np.ndarray, sizes) -> bool:
    """Whether the support shows every value of every concept, and every two values of different concepts in
    one vector. Then a free map is a complete one (see :func:`shown_values_stay_together`; ConCon's 2,000
    scenes)."""
    return _every_value_shown(rows, sizes) and _shown_values_meet(rows)


def neighbours_link_every_value(rows: np.ndarray, sizes) -> bool:
    """Whether the support shows every value of every concept, and the values of each concept are linked by
    vectors that differ in that concept alone (two such vectors, one chain of them between any two values).
    Then a free map is a complete one (see :func:`shown_values_stay_together`; ConCon's listed scenes of one
    task, where a blue object never meets a cylinder in the other object)."""
    return _every_value_shown(rows, sizes) and _shown_values_linked(rows)


def shown_values_stay_together(rows: np.ndarray) -> bool:
    """Whether every free map sends the values each concept shows on the support to one predicted concept, a
    different one per concept (a bijection of concepts, with value maps on the shown values). So it does where
    every two shown values of different concepts share a vector: they go to different predicted concepts, so
    the predicted concepts each concept's values reach are disjoint, and k nonempty disjoint sets among k
    predicted concepts are single ones; and where each concept's shown values are linked by vectors differing
    in it alone (or only in values already linked, in every other concept: ConCon task 3 at 2 objects, whose
    small and large sizes never differ alone): the other concepts' values of two such vectors hit the same
    k - 1 predicted concepts, so both vectors' values of the concept go to the one left. Values the support
    never shows go anywhere."""
    return len(rows) > 0 and (_shown_values_meet(rows) or _shown_values_linked(rows))


def _every_value_shown(rows: np.ndarray, sizes) -> bool:
    return len(rows) > 0 and all(len(distinct(rows[:, j])) == d for j, d in enumerate(sizes))


def _shown_values_meet(rows: np.ndarray) -> bool:
    shown = [len(distinct(rows[:, j])) for j in range(rows.shape[1])]
    top = [int(rows[:, j].max(initial=0)) + 1 for j in range(rows.shape[1])]
    for a, b in itertools.combinations(range(rows.shape[1]), 2):
        if len(distinct(rows[:, a].astype(np.int64) * top[b] + rows[:, b])) != shown[a] * shown[b]:
            return False
    return True


def _shown_values_linked(rows: np.ndarray) -> bool:
    """Whether each column's shown values end in one class, where two classes of a column merge when two rows
    hold them and the same classes in every other column (values first, each its own class; repeated until
    nothing merges): the other columns' classes then go to the same k - 1 predicted concepts in both rows, so
    both classes go to the one left."""
    n, k = rows.shape
    rows = rows.astype(np.int64)
    parent = [np.arange(int(rows[:, j].max(initial=0)) + 1) for j in range(k)]

    def root(p: np.ndarray, u: int) -> int:
        while p[u] != u:
            p[u] = p[p[u]]
            u = int(p[u])
        return u

    def flat(p: np.ndarray) -> np.ndarray:  # every value pointing at its root
        while not np.array_equal(p[p], p):
            p = p[p]
        return p
    classes = rows.copy()  # a row's class in each column: its value's root
    while True:
        merged = False
        for j in range(k):
            if len(distinct(classes[:, j])) < 2:
                continue
            rest = np.delete(classes, j, axis=1)
            ids = row_ids(rest)[0].astype(np.int64) if k > 1 else np.zeros(n, dtype=np.int64)
            order = np.lexsort((classes[:, j], ids))
            a, b = ids[order], classes[order, j]
            same = (a[1:] == a[:-1]) & (b[1:] != b[:-1])
            d = len(parent[j])
            for code in distinct(b[:-1][same] * d + b[1:][same]).tolist():
                x, y = root(parent[j], code // d), root(parent[j], code % d)
                if x != y:
                    parent[j][x] = y
                    merged = True
            parent[j] = flat(parent[j])
            classes[:, j] = parent[j][rows[:, j]]
        if not merged:
            return all(len(distinct(classes[:, j])) == 1 for j in range(k))


MAX_CLASS_ROWS = 1 << 21  # rows checked for interchangeable values


def interchangeable_values(G: np.ndarray, codes: np.ndarray, sizes: tuple) -> dict:
    """Per column: classes (tuples, two or more values) of values whose swap in that column alone keeps the rows
    with their labels (``codes``) (ConCon task 1: the seven colours other than blue, in every object's colour).
    Values u and v swap iff the rows showing u and those showing v have the same rest (the other columns and
    the label)."""
    out: dict = {}
    if not len(G) or len(G) > MAX_CLASS_ROWS or G.shape[1] < 1:
        return out
    top = int(codes.max(initial=0)) + 1
    for s, size in enumerate(sizes):
        if size < 2:
            continue
        rest = np.delete(G, s, axis=1)
        ids = row_ids(rest)[0] if rest.shape[1] else np.zeros(len(G), dtype=np.int64)
        keys = ids.astype(np.int64) * top + codes
        by_rest: dict = {}
        for u in range(size):
            shown = np.sort(keys[G[:, s] == u])
            if len(shown):
                by_rest.setdefault(shown.tobytes(), []).append(u)
        classes = [tuple(us) for us in by_rest.values() if len(us) > 1]
        if classes:
            out[s] = classes
    return out
