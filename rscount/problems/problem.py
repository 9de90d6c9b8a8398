"""A counting problem: task, support, map class and concept supervision.

This is the one value every counter receives. See docs/guide.md for what
each map class admits.
"""
from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass, field

import numpy as np

from ..errors import EncodingError, SupportError, brief
from ..model.support import Support, distinct, parse_amount, shown_values_stay_together
from ..model.task import Task
from ..runtime.lazy import cached_property, digest

__all__ = ["MAP_CLASSES", "NARROWER", "INFERENCES", "Supervision", "Part", "Problem", "make_supervision", "for_class", "domain_groups",
           "free_is_complete", "free_keeps_concepts", "shown_values"]

MAP_CLASSES = {
    "free": "any value map A (one predicted value per ground-truth value); predicted concepts one-hot",
    "complete": "free + all values of a ground-truth concept go to one predicted concept (rsbench Eq. 14)",
    "permutation": "complete + each predicted concept reads exactly one ground-truth concept (Eq. 15)",
    "disentangled": "predicted concept i reads only ground-truth concept i: (f_1(c_1), .., f_k(c_k))",
    "shared": "disentangled + one value map per concept group (weight sharing)",
    "joint": "any function of whole concept vectors (closed form, rsbench Eq. 8-9)",
}

# the classes whose maps are all maps of a class (same knowledge and supervision), widest first, leaving out those
# counted like it (permutation's count is complete's): their counts bound it below, their maps witness it
NARROWER = {"free": ("complete", "disentangled", "shared"), "complete": ("disentangled", "shared"),
            "permutation": ("disentangled", "shared"), "disentangled": ("shared",)}


INFERENCES = {
    "knowledge": "the model reasons with K itself (DeepProbLog, LTN): a map is optimal when K gives every "
                 "support vector's label on its predicted concepts",
    "learned": "the model learns its own label head (CBM, Semantic Loss): a map is optimal when some head gives "
               "every label, that is when it sends no two support vectors with different labels to one "
               "prediction (the head is then fixed on the support's image and free elsewhere)",
    "learned:linear": "the model learns a linear (softmax) head over its one-hot predicted concepts, as a concept "
                      "bottleneck model's: a map is optimal when some such head gives every support label (the "
                      "labelled images are linearly separable, label by label)",
}


def domain_groups(task: Task) -> tuple:
    """One group per domain: every concept of equal domain reads one classifier, as rsbench's shared extractor."""
    by_domain: dict = {}
    for c in task.concepts:
        by_domain.setdefault(c.domain, []).append(c.name)
    return tuple(tuple(g) for g in by_domain.values())


def for_class(task: Task, map_class: str) -> Task:
    """``task`` as class ``map_class`` reads it: class shared on a task without groups gives the concepts of each
    domain one classifier (and says so in the warnings). Every path to a shared count goes through here."""
    if map_class != "shared" or task.groups:
        return task
    return dataclasses.replace(task, groups=domain_groups(task), warnings=task.warnings + (IMPLICIT_GROUPS,))


IMPLICIT_GROUPS = ("no concept groups declared: class shared gives the concepts of each domain one classifier, as "
                   "rsbench's shared extractor does (declare groups to choose)")


@dataclass(frozen=True)
class Supervision:
    """Concept supervision: fully observed support rows, and supervised concepts or values."""

    vectors: frozenset = frozenset()
    concepts: tuple = ()  # (concept index, value index or None)

    def __bool__(self) -> bool:
        return bool(self.vectors or self.concepts)

    def describe(self, task: Task) -> str:
        parts = []
        if self.vectors:
            parts.append(f"{len(self.vectors)} vectors fully observed")
        for i, u in self.concepts:
            c = task.concepts[i]
            parts.append(c.name if u is None else f"{c.name}={c.domain[u]}")
        return ", ".join(parts) or "none"


def make_supervision(task: Task, support: Support, concept_sup=None, supervise=(), seed: int = 0) -> Supervision:
    """Build supervision from ``--concept-sup F|N`` and ``--supervise NAME[=VALUE]`` options."""
    rows: frozenset = frozenset()
    if concept_sup not in (None, "", 0):
        amount = parse_amount(concept_sup, "concept_sup=")
        n = int(round(amount * support.length)) if isinstance(amount, float) else int(amount)
        if n > support.length:
            raise SupportError(f"concept_sup={concept_sup} asks for {n} vectors; the support has {support.length}")
        rows = frozenset(random.Random(seed + 7919).sample(range(support.length), n))
    concepts = []
    for item in supervise or ():
        name, eq, value = str(item).partition("=")
        i = task.index(name.strip())
        if eq:
            try:
                concepts.append((i, task.concepts[i].index(value.strip())))
            except KeyError:
                raise SupportError(f"supervise={item}: {value.strip()!r} is not in the domain of "
                                   f"{name.strip()} {list(task.concepts[i].domain)}") from None
        else:
            concepts.append((i, None))
    return Supervision(rows, tuple(sorted(set(concepts), key=lambda p: (p[0], -1 if p[1] is None else p[1]))))


@dataclass(frozen=True)
class Part:
    """One task of several in a problem (:mod:`rscount.problems.union`): its labels and concepts as indices into the
    union task, its rows of the union support, and its supervision in the union's indices."""

    name: str
    labels: tuple
    concepts: tuple
    rows: range
    supervision: Supervision = field(default_factory=Supervision)


@dataclass(frozen=True, eq=False)
class Problem:
    """Count the optimal maps of ``map_class`` for ``task`` on ``support``."""

    task: Task
    support: Support
    map_class: str = "complete"
    supervision: Supervision = field(default_factory=Supervision)
    inference: str = "knowledge"  # who gives the labels: K itself, or a head the model learns (INFERENCES)
    parts: tuple = ()  # several tasks over shared concepts: each row reads only its own task's labels (Part)

    def __post_init__(self) -> None:
        if self.map_class not in MAP_CLASSES:
            raise EncodingError(f"unknown map class {self.map_class!r}; choose one of {', '.join(MAP_CLASSES)}")
        if not isinstance(self.inference, str) or self.inference not in INFERENCES:
            raise EncodingError(f"unknown inference {brief(self.inference, 30)}; choose one of "
                                f"{', '.join(INFERENCES)}")
        if self.support.given is not None and self.support.given.shape[1] != self.task.k:
            raise SupportError(f"support vectors have {self.support.vectors.shape[1]} values; "
                               f"task {self.task.name} has {self.task.k} concepts")
        bad = [i for i in self.supervision.vectors if not 0 <= i < self.support.length]
        if bad:
            raise SupportError(f"supervised row {bad[0]} is outside the support of {self.support.length} vectors")

    @cached_property
    def labels(self) -> np.ndarray:
        """Label codes of the support rows, shape (n, labels)."""
        return self.task.evaluate(self.support.vectors)

    @cached_property
    def key(self) -> tuple | None:
        """What the problem's count depends on (its rows as a digest), to keep what was found from it within one
        process: the audit asks again for the same problem. None for several tasks (not kept)."""
        if self.parts:
            return None
        return (self.task, self.map_class, self.supervision, self.inference,
                digest(self.support.vectors) if self.support.listed else self.support.kind)

    def part_of(self, row: int) -> Part | None:
        """The task a support row belongs to (None for a problem of one task)."""
        for part in self.parts:
            if row in part.rows:
                return part
        return None

    def added_items(self) -> tuple:
        """Several tasks: supervised concepts (or values) given for the problem as a whole, not by one task (an
        audit's fix): supervised in every task that has the concept."""
        mine = {item for part in self.parts for item in part.supervision.concepts}
        return tuple(item for item in self.supervision.concepts if item not in mine)

    def observed(self, row: int) -> tuple:
        """Indices of the labels a support row shows (its own task's; all of them for one task)."""
        part = self.part_of(row) if self.parts else None
        return tuple(range(len(self.task.labels))) if part is None else part.labels

    def supervised(self, row: int, vector) -> tuple:
        """Concept indices whose prediction must equal the ground truth at this row."""
        if self.parts:
            part = self.part_of(row)
            if row in part.supervision.vectors:
                return part.concepts
            items = set(part.supervision.concepts) | set(self.added_items())
            return tuple(sorted({i for i, u in items if i in part.concepts and (u is None or vector[i] == u)}))
        if row in self.supervision.vectors:
            return tuple(range(self.task.k))
        return tuple(sorted({i for i, u in self.supervision.concepts if u is None or vector[i] == u}))

    def representative(self, i: int) -> int:
        """The concept whose value map concept ``i`` uses (itself unless ``shared``)."""
        return self.task.group_of(i)[0] if self.map_class == "shared" else i

    def __repr__(self) -> str:
        return f"<Problem {self.describe()}>"

    def describe(self) -> str:
        learned = "" if self.inference == "knowledge" else f", inference {self.inference}"
        if self.parts:
            return (f"{self.task.name} ({len(self.parts)} tasks), support {self.support.length} vectors, class "
                    f"{self.map_class}, supervision {self.supervision.describe(self.task)}{learned}")
        return (f"{self.task.name}, support {self.support.kind} ({self.support.length} vectors), "
                f"class {self.map_class}, supervision {self.supervision.describe(self.task)}{learned}")


def free_is_complete(problem: Problem) -> bool:
    """Whether the free maps of ``problem`` are its complete maps: on the exhaustive support, or on a listed one
    that shows every value of every concept and sends each concept's values to one predicted concept (see
    :func:`free_keeps_concepts`), supervision or not."""
    if problem.support.exhaustive:
        return bool(problem.task.space_size)
    return free_keeps_concepts(problem) and shown_values(problem) == tuple(problem.task.sizes)


def free_keeps_concepts(problem: Problem) -> bool:
    """Whether every free map of ``problem`` sends the values each concept shows on its (listed) support to one
    predicted concept, one per concept: then the free maps are complete maps on the shown values, and values no
    vector shows go anywhere (:func:`~rscount.model.support.shown_values_stay_together`: ConCon's sampled
    scenes, where every two values meet, and its listed scenes of one task, where values are linked by scenes
    differing in one concept)."""
    if problem.support.exhaustive:
        return bool(problem.task.space_size)
    if not problem.support.listed or not problem.support.length:
        return False
    return _shown(problem)[0]


def shown_values(problem: Problem) -> tuple:
    """How many values of each concept the (listed) support shows."""
    return _shown(problem)[1]


def _shown(problem: Problem) -> tuple:
    """(whether the support's shown values stay together, how many each concept shows), for one support at a
    time by identity: the plan asks again for the problem it plans (0.25 s on ConCon's 517,536 scenes)."""
    support = problem.support
    if _SHOWN.get("support") is not support:
        rows = support.vectors
        _SHOWN.update(support=support, facts=(shown_values_stay_together(rows),
                                              tuple(len(distinct(rows[:, j])) for j in range(problem.task.k))))
    return _SHOWN["facts"]


_SHOWN: dict = {}
