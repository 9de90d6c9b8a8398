"""Count the rules a learner could find when the rule itself is learned (ConCon's setting), not concept maps.

Scenes are objects with attributes (concepts named ``<attribute><object>``: ``shape1``, ``color2``). An object
predicate says "some object has these attribute values" (at most ``values`` of them: "a small cube"); a rule of
the hypothesis class is a DNF of at most ``terms`` terms, each a conjunction of at most ``literals`` object
predicates. A rule fits data when it gives every scene its label. Counts are of the rules as written (sets of
terms) and of their distinct behaviours on every scene (rules equal on all scenes are one).
"""
from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from ..errors import BackendError, TaskError, brief
from ..model.task import Task

__all__ = ["RuleCount", "Hypotheses", "hypotheses", "count_rules", "rule_sequence", "scene_space", "parse_rule"]

MAX_TERMS = 200_000  # terms (conjunctions) of the class a count enumerates
MAX_RULES = 5_000_000  # rules a count checks
MAX_CELLS = 200_000_000  # term x scene truth values held to tell behaviours apart
_NAME = re.compile(r"([A-Za-z_]+?)([0-9]+)")


@dataclass(frozen=True)
class RuleCount:
    """Rules of the class that fit some data: as written, and as distinct behaviours on every scene."""

    data: str
    rules: int
    behaviours: int
    has: dict = field(default_factory=dict)  # named rule -> whether it fits

    def to_dict(self) -> dict:
        return {"data": self.data, "rules": self.rules, "behaviours": self.behaviours, "fits": dict(self.has)}


@dataclass(frozen=True, eq=False)
class Hypotheses:
    """The object predicates and terms of a hypothesis class over a task's scenes."""

    task: Task
    predicates: tuple  # each a tuple of (attribute, value) pairs
    terms: tuple  # each a tuple of predicate indices
    terms_max: int

    def describe(self, term: int) -> str:
        return " & ".join("some " + " ".join(str(v) for _, v in self.predicates[p]) for p in self.terms[term])

    def truth(self, scenes: np.ndarray, which=None) -> np.ndarray:
        """Each term's value (or those ``which`` lists) on each scene: bool array (terms, scenes)."""
        objects, attrs = _layout(self.task)
        preds = np.zeros((len(self.predicates), len(scenes)), dtype=bool)
        for n, pred in enumerate(self.predicates):
            hit = np.zeros(len(scenes), dtype=bool)
            for o in objects:
                on = np.ones(len(scenes), dtype=bool)
                for a, v in pred:
                    j = self.task.index(f"{a}{o}")
                    on &= scenes[:, j] == self.task.concepts[j].index(v)
                hit |= on
            preds[n] = hit
        terms = self.terms if which is None else [self.terms[n] for n in which]
        if not len(terms):
            return np.zeros((0, len(scenes)), dtype=bool)
        return np.stack([np.logical_and.reduce(preds[list(t)], axis=0) for t in terms])


SPACE = 1 << 18  # scenes listed to tell rules apart on every scene; past this, on the data's scenes


def scene_space(task: Task) -> np.ndarray | None:
    """Every scene of ``task`` where there are at most :data:`SPACE` (rules are told apart there), else None."""
    from ..model.support import grid
    return grid(task.sizes) if task.space_size <= SPACE else None


def _layout(task: Task) -> tuple:
    """(object numbers, attribute -> values) of a scene task; TaskError where its concepts are not so named."""
    attrs: dict = {}
    objects: set = set()
    for c in task.concepts:
        m = _NAME.fullmatch(c.name)
        if not m:
            raise TaskError(f"rule counting reads scenes whose concepts are named <attribute><object> (shape1); "
                            f"{task.name} has {c.name!r}")
        a, o = m.group(1), m.group(2)
        if attrs.setdefault(a, c.domain) != c.domain:
            raise TaskError(f"attribute {a!r} has different values on different objects of {task.name}")
        objects.add(o)
    numbers: dict = {}
    for o in objects:
        if numbers.setdefault(int(o), o) != o:
            raise TaskError(f"objects {numbers[int(o)]!r} and {o!r} of {task.name} are one number written two "
                            f"ways; name each object once (shape1 or shape01, not both)")
    for a in attrs:
        for o in objects:
            task.index(f"{a}{o}")  # every object has every attribute
    return sorted(objects, key=int), attrs


def hypotheses(task: Task, terms: int = 2, literals: int = 2, values: int = 2) -> Hypotheses:
    """The class of DNFs of at most ``terms`` terms of at most ``literals`` object predicates, each fixing at most
    ``values`` attributes of one object."""
    for name, n in (("terms", terms), ("literals", literals), ("values", values)):
        if not isinstance(n, int) or n < 1:
            raise TaskError(f"{name}={n!r} must be a positive integer")
    _, attrs = _layout(task)
    preds = []
    for size in range(1, min(values, len(attrs)) + 1):
        for names in itertools.combinations(attrs, size):
            for vals in itertools.product(*(attrs[a] for a in names)):
                preds.append(tuple(zip(names, vals)))
    n_terms = sum(math.comb(len(preds), r) for r in range(1, literals + 1))
    if n_terms > MAX_TERMS:
        raise BackendError(f"the class has {n_terms:,} terms (limit {MAX_TERMS:,}); lower literals= or values=")
    conj = tuple(t for r in range(1, literals + 1) for t in itertools.combinations(range(len(preds)), r))
    return Hypotheses(task, tuple(preds), conj, terms)


def count_rules(h: Hypotheses, scenes: np.ndarray, labels: np.ndarray, space: np.ndarray | None = None,
                named: dict | None = None, data: str = "") -> RuleCount:
    """The rules of ``h`` that give every scene its label (bool ``labels``); behaviours are told apart on
    ``space`` (default: the data's scenes). ``named``: rule name -> list of terms (tuples of predicates), each
    checked for fitting."""
    labels = np.asarray(labels, dtype=bool)
    truth = h.truth(scenes)
    safe = ~(truth[:, ~labels].any(axis=1))  # a term true on a negative breaks every rule holding it
    idx = np.flatnonzero(safe)
    cover = truth[idx][:, labels]
    if space is not None and len(space) * len(idx) > MAX_CELLS:
        raise BackendError(f"telling {len(idx):,} terms apart on {len(space):,} scenes is too large "
                           f"(limit {MAX_CELLS:,} cells); pass space=None to tell them apart on the data")
    whole = h.truth(space, idx) if space is not None else truth[idx]
    need = int(labels.sum())
    rules, seen = 0, set()
    checked = 0
    for r in range(1, h.terms_max + 1):
        for combo in itertools.combinations(range(len(idx)), r):
            checked += 1
            if checked > MAX_RULES:
                raise BackendError(f"more than {MAX_RULES:,} rules to check; lower terms= or literals=")
            if need and not np.logical_or.reduce(cover[list(combo)], axis=0).all():
                continue
            rules += 1
            seen.add(np.packbits(np.logical_or.reduce(whole[list(combo)], axis=0)).tobytes())
    has = {}
    for name, rule in (named or {}).items():
        value = np.zeros(len(scenes), dtype=bool)
        for term in rule:
            value |= _term_truth(h, term, scenes)
        has[name] = bool((value == labels).all())
    return RuleCount(data, rules, len(seen), has)


def parse_rule(text: str, task: Task) -> tuple:
    """(name, rule) from ``NAME=DNF``: terms joined by ``|``, each term object predicates joined by ``&``, each
    predicate ``{attr=value, ...}`` (some object with those attribute values). ConCon's g:
    ``g={shape=sphere} & {shape=cube, size=small}``; its confounders: ``c={color=blue} | {material=metal}``."""
    name, sep, body = str(text).partition("=")
    if not sep or not name.strip().isidentifier() or not body.strip():
        raise TaskError(f"rule {brief(text, 60)}: write NAME=DNF, e.g. g={{shape=sphere}} & {{shape=cube, "
                        f"size=small}}")
    _, attrs = _layout(task)
    rule = []
    for term in body.split("|"):
        preds = []
        for pred in term.split("&"):
            inner = pred.strip()
            if not (inner.startswith("{") and inner.endswith("}")):
                raise TaskError(f"rule {name.strip()}: {brief(pred.strip(), 40)} is not an object predicate; write "
                                f"{{attr=value, ...}}")
            pairs = []
            for item in inner[1:-1].split(","):
                a, eq, v = (x.strip() for x in item.partition("="))
                if not eq or a not in attrs:
                    raise TaskError(f"rule {name.strip()}: {brief(item.strip(), 40)} names no attribute of "
                                    f"{task.name} ({', '.join(attrs)})")
                value = next((x for x in attrs[a] if str(x) == v), None)
                if value is None:
                    raise TaskError(f"rule {name.strip()}: {a} has no value {v!r} ({', '.join(map(str, attrs[a]))})")
                pairs.append((a, value))
            preds.append(tuple(pairs))
        rule.append(tuple(preds))
    return name.strip(), rule


def _term_truth(h: Hypotheses, term: Sequence, scenes: np.ndarray) -> np.ndarray:
    """A term given as object predicates (each a tuple of (attribute, value) pairs) on scenes."""
    one = Hypotheses(h.task, tuple(tuple(p) for p in term), (tuple(range(len(term))),), 1)
    return one.truth(scenes)[0]


def rule_sequence(problems: Sequence, h: Hypotheses, space: np.ndarray | None = None,
                  named: dict | None = None) -> dict:
    """Per task, on the joint data, and cumulatively in the order given: the rules of ``h`` that fit (problems
    over one scene task, labels a single boolean)."""
    data = []
    for p in problems:
        if [c.name for c in p.task.concepts] != [c.name for c in h.task.concepts]:
            raise TaskError(f"task {p.task.name} reads other concepts than {h.task.name}; rules are counted over "
                            f"one set of scenes")
        if p.labels.shape[1] != 1 or not set(np.unique(p.labels).tolist()) <= {0, 1}:
            raise TaskError(f"task {p.task.name}: rules are counted for one yes/no label")
        data.append((p.task.name, p.support.vectors, p.labels[:, 0].astype(bool)))
    per_task = [count_rules(h, x, y, space, named, name) for name, x, y in data]
    cumulative = []
    for t in range(1, len(data) + 1):
        x = np.concatenate([d[1] for d in data[:t]])
        y = np.concatenate([d[2] for d in data[:t]])
        cumulative.append(count_rules(h, x, y, space, named, f"tasks 1..{t}"))
    return {"per_task": per_task, "cumulative": cumulative, "joint": cumulative[-1]}
