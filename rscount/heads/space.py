"""The heads of a map: what a fitting label head is once the concept map is chosen.

A head that completes a map alpha must give each predicted vector in alpha(S) the label of the support vectors it
comes from: it is *determined on the image*. Off the image, an unrestricted head (``learned``) is free on every
predicted vector. A linear head over the one-hot concepts (``learned:linear``) is not: some predicted vectors
off the image get the same label from every linear head that fits the image (they are *forced*), the others
can go either way, and the heads, told apart by the labels they give all N predicted vectors, are the
labellings of the free vectors that some linear head realises together with the image (counted label by label,
one softmax head per label, each check a linear program).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..counters.base import Deadline
from ..counters.generic.separable import HeadProgram
from ..errors import BackendError, CountTimeout
from ..model.support import grid
from ..problems.problem import Problem

__all__ = ["HeadSpace", "head_space", "MAX_VECTORS", "MAX_HEADS"]

MAX_VECTORS = 4_096  # predicted vectors a linear head is checked on, one linear program per vector and label
MAX_HEADS = 10_000  # labellings of the free vectors listed per label before the count gives up


@dataclass(frozen=True)
class HeadSpace:
    """The heads that complete one concept map, on all ``vectors`` predicted concept vectors."""

    inference: str
    vectors: int  # N: every predicted concept vector
    image: int  # predicted vectors the support reaches: the head is determined there
    forced: int  # off the image, vectors every fitting head labels alike (0 for an unrestricted head)
    free: int  # off the image, vectors fitting heads label differently
    heads: int | None  # fitting heads told apart by their labels on all N vectors (None: not listed, see why)
    at_most: int | None = None  # the product of each free vector's possible labels: heads never exceed it
    why: str = ""  # why ``heads`` is None
    examples: tuple = field(default=(), repr=False)  # a few (forced vector, its labels), as index tuples

    @property
    def determined(self) -> bool:
        """Whether exactly one head fits: the labels of every predicted vector follow from the support."""
        return self.heads == 1

    def describe(self, task=None) -> str:
        """One line for the CLI and the notebook."""
        text = f"determined on the image ({self.image:,} of {self.vectors:,} predicted vectors)"
        if self.vectors == self.image:
            return text + ": one head"
        if self.inference == "learned":
            return text + f"; free on the other {self.free:,}: {_count(self.heads)} heads"
        heads = (f"{_count(self.heads)} heads" if self.heads is not None
                 else f"at most {_count(self.at_most)} heads ({self.why})")
        text += f"; off it {self.forced:,} forced by the image, {self.free:,} free: {heads}"
        if task is not None and self.examples:
            shown = ", ".join(f"{task.format_vector(v)} -> {'/'.join(map(str, map(task.decode, y)))}"
                              for v, y in self.examples[:2])
            text += f" (forced: {shown}{', ...' if self.forced > 2 else ''})"
        return text


def _count(n: int) -> str:
    return f"{n:,}" if n < 10 ** 15 else f"about 10^{len(str(n)) - 1}"


def head_space(problem: Problem, concept_map=None, timeout: float | None = None,
               list_seconds: float | None = 10.0) -> HeadSpace:
    """The heads completing ``concept_map`` (a ConceptMap, or any callable on concept index tuples; the identity
    by default) under ``problem``'s learned inference. BackendError where the map merges two differently
    labelled support vectors (no head fits), or, for a linear head, where none fits the image or the predicted
    vectors are more than MAX_VECTORS; CountTimeout past ``timeout``. A linear head's labellings are listed for
    at most ``list_seconds`` (and MAX_HEADS per label); past that ``heads`` is None and ``at_most`` bounds it."""
    if problem.inference not in ("learned", "learned:linear"):
        raise BackendError("head counts are for a learned head (inference='learned' or 'learned:linear'); under "
                           "knowledge the head is K")
    task = problem.task
    n = task.space_size
    if problem.inference == "learned:linear" and n > MAX_VECTORS:
        raise BackendError(f"{n:,} predicted vectors (limit {MAX_VECTORS:,}): a linear head is checked vector by "
                           f"vector; ask about a task with fewer concept values")
    if problem.inference == "learned" and n > 1 << 22:
        raise BackendError(f"{n:,} predicted vectors: the labels K gives are not listed past 2^22")
    if problem.inference == "learned" and concept_map is None and problem.support.exhaustive:
        return HeadSpace("learned", n, n, 0, 0, 1, 1)  # the identity reaches every vector: one head
    image = _image(problem, concept_map)
    if problem.inference == "learned":
        labels = len(np.unique(task.evaluate_space(), axis=0))
        heads = labels ** (n - len(image))
        return HeadSpace("learned", n, len(image), 0, n - len(image), heads, heads)
    deadline = Deadline(timeout, "head_space")
    space = grid(task.sizes)
    classes = [sorted(set(col.tolist())) for col in task.evaluate_space().T]
    points = np.array(sorted(image), dtype=np.int64)
    given = np.array([image[tuple(p)] for p in points.tolist()], dtype=np.int64).reshape(len(points), -1)
    off = [v for v in map(tuple, space.tolist()) if v not in image]
    options: dict = {v: [] for v in off}
    programs = []
    for j, names in enumerate(classes):
        program = HeadProgram(task.sizes, names, points, given[:, j])
        if not program.feasible():
            raise BackendError(f"no linear head gives label {task.labels[j].name!r} on the map's image")
        for v in off:
            deadline.check()
            options[v].append([c for c in names if program.feasible([(v, c)])])
        programs.append(program)
    at_most = math.prod(len(o) for v in off for o in options[v])
    heads, why = 1, ""
    listing = Deadline(list_seconds if timeout is None else min(list_seconds or timeout, timeout), "head_space")
    try:
        for j, program in enumerate(programs):
            open_ = [v for v in off if len(options[v][j]) > 1]
            column = _labellings(program, open_, [options[v][j] for v in open_], listing)
            if column is None:
                heads, why = None, f"more than {MAX_HEADS:,} labellings of label {task.labels[j].name!r}"
                break
            heads *= column
    except CountTimeout:
        heads, why = None, f"not listed within {listing.seconds:g} s"
    forced = [v for v in off if all(len(o) == 1 for o in options[v])]
    examples = tuple((v, tuple(o[0] for o in options[v])) for v in forced[:4])
    return HeadSpace("learned:linear", n, len(image), len(forced), len(off) - len(forced), heads, at_most, why,
                     examples)


def _image(problem: Problem, concept_map) -> dict:
    """{predicted vector: its label} over the support; BackendError where two labels meet on one vector."""
    vectors, labels = problem.support.vectors, problem.labels
    if concept_map is None:  # the identity: the support's distinct rows
        vectors, first = np.unique(vectors, axis=0, return_index=True)
        labels = labels[first]
    image: dict = {}
    for g, y in zip(map(tuple, vectors.tolist()), map(tuple, labels.tolist())):
        p = g if concept_map is None else tuple(int(v) for v in concept_map(g))
        if image.setdefault(p, y) != y:
            raise BackendError(f"the map sends support vectors with labels {image[p]} and {y} to "
                               f"{problem.task.format_vector(p)}: no head fits it")
    return image


def _labellings(program: HeadProgram, vectors: list, options: list, deadline: Deadline) -> int | None:
    """Labellings of ``vectors`` (each from its options) that one linear head realises with the image; None past
    MAX_HEADS. Depth first: realisable labellings are closed under dropping vectors, so a branch a linear program
    refuses is cut whole."""
    found = 0

    def extend(depth: int, chosen: list) -> bool:
        nonlocal found
        if depth == len(vectors):
            found += 1
            return found <= MAX_HEADS
        for c in options[depth]:
            deadline.check()
            trial = chosen + [(vectors[depth], c)]
            if program.feasible(trial) and not extend(depth + 1, trial):
                return False
        return True

    return found if extend(0, []) else None
