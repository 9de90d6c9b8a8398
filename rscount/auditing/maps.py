"""Optimal maps as arrays: list them up to a bound and apply them to many concept vectors at once.

The audit reads everything it says (the confusion relation, which supervision
kills which map, which new vector kills which map) off these two operations.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from ..counters import COUNTERS
from ..counters.base import Deadline
from ..counters.modules import agreement
from ..counters.search.listing import rectangle_maps
from ..counters.search.sources import rectangle_key
from ..counters.search.state import build_state
from ..counters.symmetry import valuemaps
from ..errors import BackendError, RscountError
from ..problems.problem import Problem
from ..problems.sources import whole_rectangle
from ..results.count import ConceptMap, CountResult, JointMap
from ..runtime.lazy import Recent

__all__ = ["MapTable", "list_maps", "apply_map", "pair_codes", "PairIndex", "identity", "kills", "kill_counts"]


@dataclass(frozen=True)
class MapTable:
    """One map as two int arrays per ground-truth concept: ``target[j][u]``, ``value[j][u]``."""

    target: tuple
    value: tuple

    @classmethod
    def of(cls, m: ConceptMap) -> "MapTable":
        return cls(tuple(np.array([t for t, _ in row], dtype=np.int64) for row in m.assign),
                   tuple(np.array([v for _, v in row], dtype=np.int64) for row in m.assign))


def identity(problem: Problem) -> ConceptMap:
    """The intended map: every value to itself."""
    task = problem.task
    return ConceptMap(tuple(tuple((j, u) for u in range(len(c.domain))) for j, c in enumerate(task.concepts)),
                      tuple(c.name for c in task.concepts), tuple(c.domain for c in task.concepts))


def apply_map(m: ConceptMap | JointMap | MapTable, vectors: np.ndarray) -> np.ndarray:
    """Predicted index vectors of ``m`` on ``vectors`` (n, k); -1 marks a predicted concept that gets no value
    or two different ones (the map is not optimal on such a vector)."""
    if isinstance(m, JointMap):  # a map on whole vectors: each row's image, looked up
        images = dict(m.pairs)
        out = np.full(vectors.shape, -1, dtype=np.int64)
        for n, row in enumerate(map(tuple, vectors.tolist())):
            image = images.get(row)
            if image is not None:
                out[n] = image
        return out
    t = m if isinstance(m, MapTable) else MapTable.of(m)
    n, k = vectors.shape
    cols: list = [None] * k  # the predicted concepts' columns, built apart (writing columns of a row-major array
    clash = np.zeros(n, dtype=bool)  # strides through all of it)
    for j in range(k):
        col = vectors[:, j]
        if t.target[j].size and (t.target[j] == t.target[j][0]).all():  # one target (narrower than free)
            i, val = int(t.target[j][0]), t.value[j][col]
            if cols[i] is not None:
                clash |= (cols[i] != -1) & (cols[i] != val)
            cols[i] = val
            continue
        tgt, val = t.target[j][col], t.value[j][col]
        for i in np.unique(tgt):
            rows = tgt == i
            if cols[i] is None:
                cols[i] = np.full(n, -1, dtype=np.int64)
            prev = cols[i][rows]
            clash[rows] |= (prev != -1) & (prev != val[rows])
            cols[i][rows] = val[rows]
    out = np.column_stack([np.full(n, -1, dtype=np.int64) if c is None else c for c in cols]) if k else \
        np.zeros((n, 0), dtype=np.int64)
    out[clash] = -1
    return out


def pair_codes(m: ConceptMap | MapTable, vectors: np.ndarray, sizes: tuple) -> list:
    """Per concept j, the sorted codes ``v * sizes[j] + u`` of the pairs (true v, predicted u) ``m`` realises on
    ``vectors``; rows where the map gives concept j no value are left out."""
    out = apply_map(m, vectors)
    codes = []
    for j, s in enumerate(sizes):
        keep = out[:, j] >= 0
        pairs = vectors[:, j] * s + out[:, j] if keep.all() else vectors[keep, j] * s + out[keep, j]
        codes.append(np.flatnonzero(np.bincount(pairs, minlength=s * s)))
    return codes


class PairIndex:
    """A vector set's distinct (value of concept i, value of concept j) pairs, found once per pair of concepts
    asked: the pairs a map realises, where each concept's values go to one target and each target gets one
    source, are read off them instead of a pass over every vector (the audit marks dozens of maps on 10^5 rows)."""

    def __init__(self, vectors: np.ndarray, sizes: tuple):
        self.vectors, self.sizes, self._pairs = vectors, tuple(sizes), {}

    def pairs(self, i: int, j: int) -> np.ndarray:
        """The distinct (value of i, value of j) pairs of the vectors, sorted, as an (n, 2) array."""
        if (i, j) not in self._pairs:
            w = self.sizes[j]
            seen = np.flatnonzero(np.bincount(self.vectors[:, i] * w + self.vectors[:, j],
                                              minlength=self.sizes[i] * w))
            self._pairs[i, j] = np.stack([seen // w, seen % w], axis=1)
        return self._pairs[i, j]

    def codes(self, m) -> list:
        """:func:`pair_codes` of ``m`` on the vectors."""
        t = m if isinstance(m, MapTable) else MapTable.of(m) if isinstance(m, ConceptMap) else None
        source: dict = {}
        for j, tg in enumerate(t.target if t is not None else ()):
            if not tg.size or (tg != tg[0]).any() or int(tg[0]) in source:
                break
            source[int(tg[0])] = j
        if t is None or len(source) != len(self.sizes) or len(t.target) != len(self.sizes):
            return pair_codes(m, self.vectors, self.sizes)
        out = []
        for i, s in enumerate(self.sizes):
            pairs = self.pairs(i, source[i])
            out.append(np.unique(pairs[:, 0] * s + t.value[source[i]][pairs[:, 1]]))
        return out


def list_maps(problem: Problem, result: CountResult, limit: int, seconds: float | None) -> list | None:
    """Every optimal map of ``problem`` when there are at most ``limit`` and they can be listed in time, else None.

    The automorphism counter lists the maps of an exhaustive support from the
    knowledge's symmetries, the value-map counter those of few value-map tuples (RAVEN shared), the agreement
    counter RAVEN's disentangled ones, SAT with rows added lazily those whose labels read every concept
    (:func:`~rscount.problems.sources.whole_rectangle`); other problems are listed by SAT enumeration.
    """
    if not result.exact or result.count > limit or problem.map_class == "joint":
        return None
    try:
        deadline = Deadline(seconds, "listing maps", "raise timeout=")
        if problem.support.exhaustive and problem.inference == "knowledge" and \
                COUNTERS["automorphism"].applies(problem):
            maps = list(COUNTERS["automorphism"].enumerate(problem, None, None, deadline))
        elif problem.inference == "knowledge" and not problem.parts and valuemaps.applies(problem):
            maps = valuemaps.list_valuemaps(problem, deadline)
        elif agreement.applies(problem):
            maps = agreement.list_agreement(problem, deadline, limit)
        elif COUNTERS["vector-join"].applies(problem) and (joined := _joined(problem, deadline)) is not None:
            maps = joined
        elif (whole := whole_rectangle(problem)) is not None and \
                (listed := _whole_maps(problem, whole, deadline, limit)) is not None:
            maps = listed
        else:
            maps = list(result.maps(None, seconds))
    except (RscountError, MemoryError):
        return None
    if len(maps) != result.count:
        raise BackendError(f"listing the optimal maps of {problem.task.name} gave {len(maps)}, the count says "
                           f"{result.count}; please report this with the task and options")
    return maps


def _whole_maps(problem: Problem, whole, deadline: Deadline, limit: int) -> list | None:
    """The maps of a problem whose labels read every concept, listed by SAT on its one rectangle (rows join the
    CNF as listed maps break them: far fewer than the support's), kept for the next fix that asks. None past
    ``limit``."""
    key = (rectangle_key(whole), limit)
    if key not in _LISTED:
        tuples = build_state(whole).tuples
        _LISTED.update({key: _expanded(problem.task, rectangle_maps(whole, deadline, limit, tuples), limit)})
    return _LISTED.get(key)


def _expanded(task, listed: list | None, limit: int) -> list | None:
    """:class:`ConceptMap` s of listed (the source each concept reads, its value map, the maps it stands for): a
    value no row shows (-1) goes to every value of its predicted concept. None where past ``limit``."""
    if listed is None or sum(ways for *_, ways in listed) > limit:
        return None
    names, domains = tuple(c.name for c in task.concepts), tuple(c.domain for c in task.concepts)
    out = []
    for reads, values, _ in listed:
        rows = []
        for j, i in sorted((j, i) for i, j in enumerate(reads)):
            cells = [[(i, int(v))] if v >= 0 else [(i, t) for t in range(task.sizes[i])] for v in values[i]]
            rows.append(list(itertools.product(*cells)))
        out.extend(ConceptMap(assign, names, domains) for assign in itertools.product(*rows))
    return out


_LISTED = Recent(4)  # a whole problem's maps: the value and the concept fix list the same read part


def _joined(problem: Problem, deadline: Deadline) -> list | None:
    """Free maps on few vectors listed by joining the vectors' own maps (None where the join grows too large:
    SAT enumeration then)."""
    from ..counters.free.vectors import list_free
    try:
        return list_free(problem, deadline)
    except BackendError:
        return None


def kills(m: ConceptMap, problem: Problem, vectors: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Which of ``vectors`` (with their label codes) ``m`` gets wrong: a label, or a supervised concept. Under a
    learned head a label is wrong when the vector's prediction is a support vector's with another label."""
    out = apply_map(m, vectors)
    if problem.inference == "knowledge":
        return _wrong(problem, vectors, out, labels)
    bad = (out < 0).any(axis=1)
    ok = ~bad
    wrong = np.zeros(len(vectors), dtype=bool)
    if ok.any():  # a linear head also needs this (and separability)
        seen: dict = {}
        for p, y in zip(map(tuple, apply_map(m, problem.support.vectors).tolist()),
                        map(tuple, problem.labels.tolist())):
            seen.setdefault(p, set()).add(y)
        wrong[ok] = [len(seen.get(p, set()) | {y}) > 1 for p, y in zip(map(tuple, out[ok].tolist()),
                                                                         map(tuple, labels[ok].tolist()))]
    return bad | wrong | _unsupervised(problem, vectors, out, ok)


def _wrong(problem: Problem, vectors: np.ndarray, out: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Under K: the rows whose predictions ``out`` (of ``vectors``) are no vector, or get a label or a supervised
    concept wrong."""
    bad = (out < 0).any(axis=1)
    ok = ~bad
    if ok.all():
        wrong = (problem.task.evaluate(out) != labels).any(axis=1)
    else:
        wrong = bad.copy()
        if ok.any():
            wrong[ok] = (problem.task.evaluate(out[ok]) != labels[ok]).any(axis=1)
    return wrong | _unsupervised(problem, vectors, out, ok)


def _unsupervised(problem: Problem, vectors: np.ndarray, out: np.ndarray, ok: np.ndarray) -> np.ndarray:
    """The rows where a prediction differs from a supervised concept's true value."""
    wrong = np.zeros(len(vectors), dtype=bool)
    for i, u in problem.supervision.concepts:
        watched = np.ones(len(vectors), dtype=bool) if u is None else vectors[:, i] == u
        wrong |= watched & ok & (out[:, i] != vectors[:, i])
    return wrong


def kill_counts(maps: list, problem: Problem, vectors: np.ndarray, labels: np.ndarray, chunk: int = 1 << 18
                ) -> np.ndarray:
    """For each of ``vectors``, how many of ``maps`` it kills (:func:`kills`, summed): under K the maps' outputs
    are stacked and the knowledge evaluated once per ``chunk`` rows, not once per map."""
    killed = np.zeros(len(vectors), dtype=np.int64)
    if problem.inference != "knowledge" or not len(vectors):
        for m in maps:
            killed += kills(m, problem, vectors, labels)
        return killed
    per = max(chunk // len(vectors), 1)
    for start in range(0, len(maps), per):
        group = maps[start:start + per]
        outs = np.concatenate([apply_map(m, vectors) for m in group])
        wrong = _wrong(problem, np.tile(vectors, (len(group), 1)), outs, np.tile(labels, (len(group), 1)))
        killed += wrong.reshape(len(group), len(vectors)).sum(axis=0)
    return killed
