"""Read the concept map a trained model learned, and check it against the counted optimal maps.

The learned map sends each ground-truth concept vector seen in the test set
to the concept vector the model predicts most often for it. It is one of the
counted maps of a class exactly when (1) it keeps every label (and every
supervised concept) on the support vectors and (2) some map of the class
agrees with it on every vector seen. Values never seen are free, as in the
count. The test split covers the support whenever it is large enough.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass

import numpy as np

from ..problems.problem import Problem

__all__ = ["LearnedMap", "learned_map", "fit_class", "head_on_images"]


@dataclass(frozen=True)
class LearnedMap:
    """What a model learned on the test set, and where it lands among the optimal maps."""

    pairs: tuple  # (ground-truth vector, most frequent prediction), sorted
    agreement: float  # share of test examples whose prediction equals the learned map's image
    covered: int  # support vectors the learned map was read on
    support_size: int
    optimal: bool  # keeps every label and supervised concept on the vectors seen
    in_class: bool | None  # some map of the class agrees on every vector seen (None: not checked)
    intended: bool  # the identity on every vector seen
    description: str  # the map in words
    broken: int = 0  # vectors seen whose labels (or supervised concepts) the map changes
    head_read: int | None = None  # support vectors whose image the model's head was read on (a pair reading)
    map_broken: int | None = None  # a pair reading: vectors the map alone breaks (an image shared across labels)

    @property
    def map_counted(self) -> bool | None:
        """A pair reading: whether the map alone is one of the counted maps (some head fits), whatever its own
        head does (None outside a pair reading)."""
        return None if self.map_broken is None else bool(self.map_broken == 0 and self.in_class is not False)

    @property
    def counted(self) -> bool:
        """Whether the learned map is one of the optimal maps counted for the class."""
        return bool(self.optimal and self.in_class)

    @property
    def verdict(self) -> str:
        if not self.optimal:
            return "not optimal"
        if not self.in_class:
            return "outside class" if self.in_class is False else "optimal (class not checked)"
        return "intended" if self.intended else "shortcut"

    def to_dict(self) -> dict:
        return {"verdict": self.verdict, "counted": self.counted, "optimal": self.optimal,
                "in_class": self.in_class, "intended": self.intended, "agreement": round(self.agreement, 4),
                "covered": self.covered, "support_size": self.support_size, "broken": self.broken,
                "head_read": self.head_read, "map_broken": self.map_broken, "map": self.description}


def learned_map(problem: Problem, true: np.ndarray, pred: np.ndarray, per_concept: bool | None = None,
                head=None) -> LearnedMap:
    """Extract the learned map from test concepts ``true`` and predictions ``pred`` (index arrays (n, k)).

    Under a learned head (``problem.inference == "learned"``) the map keeps the labels when no prediction is
    shared by support vectors with different labels (some head fits), and, given ``head`` (the model's own
    head read on each support vector's examples perceived as its image: :func:`head_on_images`), when that
    head gives each support vector's image its label: the pair (map, head) is then one of the counted pairs.
    Images the head was never seen on are not held against it (``head_read`` says how many were read).

    ``per_concept`` (default for the disentangled and shared classes, whose
    extractors read one concept's input each) reads one value map per concept
    by majority vote and applies it to every support vector, so a few
    misread test images do not count as a different map; otherwise each
    ground-truth vector seen goes to its most frequent prediction.
    """
    task = problem.task
    head_read = None
    if per_concept is None:
        per_concept = problem.map_class in ("disentangled", "shared")
    if per_concept:
        maps = _majority(problem, tuple(zip(map(tuple, true.tolist()), map(tuple, pred.tolist()))))
        support = problem.support.vectors.tolist()
        pairs = tuple(sorted((tuple(g), tuple(maps[j][1][u] for j, u in enumerate(g))) for g in support
                             if all(u in maps[j][1] for j, u in enumerate(g))))
        image = {g: p for g, p in pairs}
        hits = sum(1 for g, p in zip(map(tuple, true.tolist()), map(tuple, pred.tolist())) if image.get(g) == p)
        agreement = hits / max(len(true), 1)
    else:
        votes: dict = defaultdict(Counter)
        for g, p in zip(map(tuple, true.tolist()), map(tuple, pred.tolist())):
            votes[g][p] += 1
        pairs = tuple(sorted((g, c.most_common(1)[0][0]) for g, c in votes.items()))
        agreement = sum(c.most_common(1)[0][1] for c in votes.values()) / max(len(true), 1)
    rows = {tuple(map(int, v)): r for r, v in enumerate(problem.support.vectors)}
    src = np.asarray([g for g, _ in pairs], dtype=np.int64)
    img = np.asarray([p for _, p in pairs], dtype=np.int64)
    truth = task.evaluate(src)
    if problem.inference == "learned":
        asked: dict = {}
        for p, y in zip(map(tuple, img.tolist()), map(tuple, truth.tolist())):
            asked.setdefault(p, set()).add(y)
        bad = np.array([len(asked[p]) > 1 for p in map(tuple, img.tolist())], dtype=bool)
        merged = bad.copy()
        if head is not None and len(src):
            given, read = head(src, img)
            bad |= read & ~np.all(given == truth, axis=1)
            head_read = int(read.sum())
    else:
        bad = ~np.all(truth == task.evaluate(img), axis=1)
    moved = np.array([g in rows and any(p[i] != g[i] for i in problem.supervised(rows[g], g)) for g, p in pairs],
                     dtype=bool)
    bad |= moved
    map_broken = int((merged | moved).sum()) if problem.inference == "learned" and head is not None else None
    optimal = not bad.any()
    assign = fit_class(problem, pairs)
    in_class = None if problem.map_class == "free" else assign is not None
    intended = all(g == p for g, p in pairs)
    covered = sum(1 for g, _ in pairs if g in rows)
    return LearnedMap(pairs, agreement, covered, problem.support.length, optimal, in_class, intended,
                      _describe(problem, pairs, assign), int(bad.sum()), head_read, map_broken)


def head_on_images(true: np.ndarray, pred: np.ndarray, label_pred: np.ndarray):
    """A model's own head read on the map's images: for a support vector g and its image p, the label the model
    gives most often on g's examples whose argmax concepts are p. Its head reads soft concepts, so it is read on
    its own inputs rather than probed with one-hot vectors, and only on examples perceived as the map says: an
    example misread as another vector (where the head sees that vector, and a soft bottleneck may still leak
    g's label) votes for neither. Returns ``given(sources, images) -> (labels, read)``; ``read`` is False
    where no example of g was perceived as p."""
    votes: dict = defaultdict(Counter)
    for g, p, y in zip(map(tuple, true.tolist()), map(tuple, pred.tolist()), map(tuple, label_pred.tolist())):
        votes[(g, p)][y] += 1
    width = label_pred.shape[1] if label_pred.ndim > 1 else 1

    def given(sources: np.ndarray, images: np.ndarray) -> tuple:
        rows = [votes.get(key) for key in zip(map(tuple, sources.tolist()), map(tuple, images.tolist()))]
        labels = np.array([c.most_common(1)[0][0] if c else (-1,) * width for c in rows], dtype=np.int64)
        return labels.reshape(len(rows), width), np.array([c is not None for c in rows], dtype=bool)
    return given


def fit_class(problem: Problem, pairs) -> dict | None:
    """A map of the problem's class agreeing with ``pairs``: {gt concept j: (predicted i, {u: v})}, or None.

    ``joint`` takes any map; ``free`` is not checked (None).
    """
    task, cls = problem.task, problem.map_class
    k = task.k
    if cls == "joint" or not pairs:
        return {}
    if cls == "free":
        return None

    def value_map(i: int, j: int) -> dict | None:
        f: dict = {}
        for g, p in pairs:
            if f.setdefault(g[j], p[i]) != p[i]:
                return None
        return f

    if cls in ("disentangled", "shared"):
        maps = {j: value_map(j, j) for j in range(k)}
        if any(f is None for f in maps.values()):
            return None
        if cls == "shared":
            for j in range(k):
                for j2 in problem.task.group_of(j):
                    common = maps[j].keys() & maps[j2].keys()
                    if any(maps[j][u] != maps[j2][u] for u in common):
                        return None
        return {j: (j, maps[j]) for j in range(k)}
    # complete / permutation: a bijection from gt concepts to predicted concepts (one-hot forces it).
    fits = {(i, j): value_map(i, j) for i in range(k) for j in range(k)}
    match: dict = {}  # predicted i -> gt j

    def augment(j: int, seen: set) -> bool:
        for i in range(k):
            if fits[(i, j)] is not None and i not in seen:
                seen.add(i)
                if i not in match or augment(match[i], seen):
                    match[i] = j
                    return True
        return False

    if not all(augment(j, set()) for j in range(k)):
        return None
    return {j: (i, fits[(i, j)]) for i, j in match.items()}


def _majority(problem: Problem, pairs) -> dict:
    """Per concept, the most frequent predicted value of each ground-truth value (a disentangled reading)."""
    out = {}
    for j in range(problem.task.k):
        votes: dict = defaultdict(Counter)
        for g, p in pairs:
            votes[g[j]][p[j]] += 1
        out[j] = (j, {u: c.most_common(1)[0][0] for u, c in votes.items()})
    return out


def _describe(problem: Problem, pairs, assign) -> str:
    task = problem.task
    if assign is None and problem.map_class not in ("joint", "free"):
        return "not a map of the class; per concept, the majority reads " + _describe(problem, pairs,
                                                                                    _majority(problem, pairs))
    if assign is None or problem.map_class == "joint":
        moved = [f"{task.format_vector(g)}->{task.format_vector(p)}" for g, p in pairs if g != p]
        text = ", ".join(moved[:12]) + (f", ... ({len(moved)} vectors moved)" if len(moved) > 12 else "")
        return text or "identity"
    parts = []
    for j, (i, f) in sorted(assign.items(), key=lambda item: item[1][0]):
        src, dst = task.concepts[j], task.concepts[i]
        if i == j and all(u == v for u, v in f.items()):
            continue
        head = dst.name if i == j else f"{dst.name} <- {src.name}"
        values = ", ".join(f"{src.domain[u]}->{dst.domain[v]}" for u, v in sorted(f.items()))
        parts.append(f"{head}: {values}")
    return " | ".join(parts) or "identity"
