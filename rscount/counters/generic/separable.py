"""Learned linear heads (``inference="learned:linear"``): the maps some linear head over the one-hot predicted
concepts completes, as a concept bottleneck model's softmax layer.

A map counts when its images of the support vectors, labelled as K labels the vectors, are linearly separable
label by label: weights W and biases b with ``argmax_y W_y . onehot(alpha(g)) + b_y = K(g)`` on every support
vector g (margin 1, a linear program; classes absent from the image need no constraint, a bias sends them
below). The maps some head completes at all (``inference="learned"``, no two support vectors with different
labels on one prediction) are listed from their CNF and each labelled image checked once.
"""
from __future__ import annotations

import numpy as np

from ...errors import BackendError
from ...results.count import Tally
from ..base import Counter, Options, missing
from .enumerate import models

__all__ = ["separable", "labelled_image", "HeadProgram", "Separable", "MAX_MAPS"]

MAX_MAPS = 50_000  # maps under an unrestricted head listed and checked (a linear program per labelled image)


def separable(points: np.ndarray, labels: np.ndarray, sizes: tuple) -> bool:
    """Whether the index vectors ``points`` (n, k) with label codes ``labels`` (n, L) are linearly separable over
    the one-hot encoding of ``sizes``, each label apart (a softmax head per label)."""
    return all(HeadProgram(sizes, sorted(set(column.tolist())), points, column).feasible()
               for column in labels.T)


class HeadProgram:
    """The margin constraints of a softmax head over one-hot concepts, one label: (W_a - W_b) . x >= 1 for every
    class b != a wherever x must get class a. Feasible exactly when some head gives every such label (scaling
    turns any strict argmax into margin 1); a class no point asks for needs no constraint (a bias sends it
    below)."""

    def __init__(self, sizes: tuple, classes: list, points: np.ndarray, labels: np.ndarray) -> None:
        self.offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(int)
        self.d = int(sum(sizes)) + 1
        self.classes = classes
        self.rows = [r for p, y in zip(points.tolist(), labels.tolist()) for r in self._rows(p, y)]

    def _input(self, vector) -> np.ndarray:
        """The head's input for a concept index vector: its one-hot values and a 1 for the bias."""
        x = np.zeros(self.d)
        x[np.asarray(vector, dtype=int) + self.offsets] = 1.0
        x[-1] = 1.0
        return x

    def _rows(self, point, label) -> list:
        if len(self.classes) < 2:
            return []
        x = self._input(point)
        c, a = len(self.classes), self.classes.index(label)
        out = []
        for b in range(c):
            if b != a:  # -(W_a - W_b) . x <= -1
                row = np.zeros(c * self.d)
                row[a * self.d:(a + 1) * self.d] = -x
                row[b * self.d:(b + 1) * self.d] = x
                out.append(row)
        return out

    def feasible(self, extra: tuple | list = ()) -> bool:
        """Whether one head gives every label asked for, and the (vector, class) pairs of ``extra`` too."""
        return self.solve(extra) is not None

    def solve(self, extra: tuple | list = ()) -> np.ndarray | None:
        """A head (weights, one row a class) giving every label asked for and ``extra``'s; None if none does."""
        from scipy.optimize import linprog
        rows = self.rows + [r for v, y in extra for r in self._rows(v, y)]
        if not rows:
            return np.zeros((len(self.classes), self.d))
        out = linprog(np.zeros(len(self.classes) * self.d), A_ub=np.array(rows), b_ub=-np.ones(len(rows)),
                      bounds=(None, None), method="highs")
        if out.status not in (0, 2):
            raise BackendError(f"the separability program ended with status {out.status} ({out.message})")
        return out.x.reshape(len(self.classes), self.d) if out.status == 0 else None

    def gives(self, head: np.ndarray, vector, label) -> bool:
        """Whether ``head`` gives ``vector`` the class ``label`` with margin 1 (no program needed to add it)."""
        if len(self.classes) < 2:
            return True
        scores = head @ self._input(vector)
        a = self.classes.index(label)
        return bool(all(scores[a] - scores[b] >= 1 - 1e-9 for b in range(len(self.classes)) if b != a))


def labelled_image(problem, concept_map) -> tuple:
    """(distinct predicted vectors, their label codes) of the support under ``concept_map``."""
    seen: dict = {}
    for g, y in zip(problem.support.rows(), map(tuple, problem.labels.tolist())):
        seen[concept_map(g)] = y
    keys = sorted(seen)
    return np.array(keys, dtype=np.int64), np.array([seen[k] for k in keys], dtype=np.int64)


class Separable(Counter):
    name = "separable"
    needs_cnf = True
    inferences = ("learned:linear",)
    scope = "separable counts learned linear heads (inference='learned:linear')"

    def unavailable(self) -> str | None:
        return missing("scipy.optimize", "'rscount[heads]'") or missing("pysat.solvers", "python-sat")

    def maps(self, problem, encoding, deadline=None):
        """The maps of the class some linear head completes, as ConceptMaps."""
        checked: dict = {}
        for n, true in enumerate(models(encoding, None, deadline, interruptible=deadline is not None)):
            if n >= MAX_MAPS:
                raise BackendError(f"more than {MAX_MAPS:,} maps some head completes; a linear head is checked "
                                   f"map by map (count a smaller support, or inference='learned')")
            m = encoding.decode(true)
            points, labels = labelled_image(problem, m)
            key = (points.tobytes(), labels.tobytes())
            if key not in checked:
                checked[key] = separable(points, labels, problem.task.sizes)
            if checked[key]:
                yield m

    def count(self, problem, encoding, options: Options) -> Tally:
        from ..base import run_isolated
        from .ganak import count_cnf
        some = run_isolated(lambda: count_cnf(encoding.nvars, encoding.clauses, encoding.alpha, options.seed),
                            "ganak", options.timeout, options.memory_mb, options.progress, options.cancel)
        if some > MAX_MAPS:
            raise BackendError(f"{some:,} maps some head completes (limit {MAX_MAPS:,}); a linear head is checked "
                               f"map by map: count a smaller support, or inference='learned'")
        n = sum(1 for _ in self.maps(problem, encoding, options.deadline(self.name)))
        rows = np.unique(problem.support.vectors, axis=0)
        fits = separable(rows, problem.task.evaluate(rows), problem.task.sizes)
        return Tally(n, intended=fits, notes=("learned:linear: the maps some head completes, listed from their CNF, each "
                               "labelled image checked for a linear head by a linear program",))

    def enumerate(self, problem, encoding, limit):
        for n, m in enumerate(self.maps(problem, encoding)):
            if limit is not None and n >= limit:
                return
            yield m


BACKEND = Separable()
