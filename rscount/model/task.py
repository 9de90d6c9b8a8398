"""Tasks: concepts with finite domains and the knowledge beta_K that labels them.

Concept vectors are handled internally as tuples (or numpy rows) of value
*indices* into each concept's domain; values (ints or names) appear only at
the edges (parsing, printing, evaluation).
"""
from __future__ import annotations

from collections import Counter

import keyword
import math
import re
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from ..errors import KnowledgeError, TaskError, brief
from ..results.names import show_names
from ..language.circuit import Circuit
from ..language.compiler import compile_bounded
from ..language.logic import Expr, variables
from ..language.semantics import evaluate
from ..runtime.lazy import cached_property

__all__ = ["Concept", "Label", "Task", "CompiledKnowledge"]

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
NAME_CODE_BASE = 1 << 40  # named values are coded from here; every integer of a task below it is "narrow"
INT64 = (1 << 63) - 1


@dataclass(frozen=True)
class Concept:
    """A ground-truth concept and its finite domain (booleans are ``(0, 1)``)."""

    name: str
    domain: tuple

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _NAME.fullmatch(self.name):
            raise TaskError(f"concept name {brief(self.name, 60)} is not an identifier; use letters, digits and _")
        if keyword.iskeyword(self.name):
            raise TaskError(f"concept name {self.name!r} is a Python keyword, which knowledge text cannot "
                            f"name; rename it (e.g. {self.name + '_'!r})")

    @property
    def is_bool(self) -> bool:
        return self.domain == (0, 1)

    def index(self, value) -> int:
        """Return the index of ``value`` (an int, a name, or their text)."""
        for i, v in enumerate(self.domain):
            if v == value or str(v) == str(value).strip():
                return i
        raise KeyError(value)


@dataclass(frozen=True)
class Label:
    """One output of the knowledge: a name and the expression computing it."""

    name: str
    expr: Expr = field(repr=False)
    text: str = ""


@dataclass(frozen=True)
class CompiledKnowledge:
    """Knowledge as a circuit: input variable per concept value, a value table per label."""

    circuit: Circuit
    inputs: dict  # (concept index, value index) -> input variable
    tables: tuple  # one ValueTable per label
    bound: int = 0  # the largest magnitude of an integer any subexpression can take


@dataclass(frozen=True)
class Task:
    """A learning-and-reasoning task: concepts, labels (beta_K), groups, default support.

    ``groups`` lists concept names that share one classifier (weight sharing);
    ``default_support`` holds index vectors, ``None`` meaning exhaustive.
    """

    name: str
    concepts: tuple
    labels: tuple
    groups: tuple = ()
    default_support: tuple | None = None
    description: str = ""
    warnings: tuple = ()
    params: tuple = ()
    notes: tuple = ()  # what the result should repeat about where the task came from
    shown: tuple = ()  # (identifier, how the user wrote it) for concepts read from a program: digit_a = digit(a)

    def __post_init__(self) -> None:
        names = [c.name for c in self.concepts]
        if not names:
            raise TaskError(f"task {self.name!r} has no concepts; declare at least one")
        for c in self.concepts:
            if not c.domain:
                raise TaskError(f"concept {c.name!r} has an empty domain; give it at least one value")
            if len(set(c.domain)) != len(c.domain):
                raise TaskError(f"concept {c.name!r} repeats a value in its domain {c.domain!r}")
        dup = sorted(n for n, times in Counter(names).items() if times > 1)
        if dup:
            raise TaskError(f"concept {dup[0]!r} is declared twice in task {self.name!r}")
        if not self.labels:
            raise KnowledgeError(f"task {self.name!r} has no labels; give the knowledge at least one expression")
        known = set(names)
        for label in self.labels:
            unknown = variables(label.expr) - known
            if unknown:
                raise KnowledgeError(f"label {label.name!r} reads unknown concept {sorted(unknown)[0]!r}")
        seen: set = set()
        for group in self.groups:
            for n in group:
                if n not in known:
                    raise TaskError(f"group {list(group)} names unknown concept {n!r}")
                if n in seen:
                    raise TaskError(f"concept {n!r} is in two groups; a concept belongs to at most one")
                seen.add(n)
            doms = {self.concept(n).domain for n in group}
            if len(doms) > 1:
                raise TaskError(f"group {list(group)} mixes domains; shared classifiers need one domain")
        self.compiled  # type-check the knowledge now, not at count time
        if self.wide:
            self._check_wide_labels()

    def _repr_html_(self) -> str:
        from ..results.notebook import grid, table
        support = "exhaustive" if self.default_support is None else f"{len(self.default_support)} vectors"
        head = table([("task", self.name), ("about", self.description), ("default support", support),
                      ("groups", "; ".join(", ".join(g) for g in self.groups) or "none")])
        concepts = grid(["concept", "domain"], [(c.name, domain_text(c.domain)) for c in self.concepts])
        labels = grid(["label", "knowledge"], [(label.name, label.text or "(expression)") for label in self.labels])
        return head + concepts + labels

    def to_sympy(self) -> list:
        """The knowledge as sympy expressions, one per label (named values become symbols of that name)."""
        from ..language.sympy_bridge import to_sympy
        booleans = frozenset(c.name for c in self.concepts if c.is_bool)
        return [to_sympy(label.expr, booleans) for label in self.labels]

    # --- lookups -------------------------------------------------------------
    @cached_property
    def _index(self) -> dict:
        return {c.name: i for i, c in enumerate(self.concepts)}

    def index(self, name: str) -> int:
        try:
            return self._index[name]
        except KeyError:
            raise TaskError(f"unknown concept {name!r}; task {self.name!r} has "
                            f"{', '.join(c.name for c in self.concepts)}") from None

    def concept(self, name: str) -> Concept:
        return self.concepts[self.index(name)]

    @property
    def k(self) -> int:
        return len(self.concepts)

    @property
    def sizes(self) -> tuple:
        return tuple(len(c.domain) for c in self.concepts)

    @property
    def space_size(self) -> int:
        """The number of concept vectors."""
        return math.prod(d ** times for d, times in Counter(self.sizes).items())  # a power per size: quick at 10^5

    @cached_property
    def read(self) -> tuple:
        """The indices of the concepts some label reads, in order (the others change no label)."""
        return tuple(sorted({self.index(n) for lab in self.labels for n in variables(lab.expr)}))

    def group_of(self, i: int) -> tuple:
        """Concept indices sharing a classifier with concept ``i`` (itself alone if ungrouped)."""
        name = self.concepts[i].name
        for group in self.groups:
            if name in group:
                return tuple(self.index(n) for n in group)
        return (i,)

    # --- semantics -----------------------------------------------------------
    @property
    def wide(self) -> bool:
        """Whether some subexpression of the knowledge reaches 2^40 in magnitude: evaluators then compute with
        Python integers (numpy object arrays) instead of int64, and counters that do their own integer
        arithmetic decline the task."""
        return self.compiled.bound >= NAME_CODE_BASE

    @cached_property
    def codes(self) -> dict:
        """Integer codes for named values, used by vectorised evaluation: above every integer the knowledge can
        compute, so that no code equals a value."""
        names = sorted({v for c in self.concepts for v in c.domain if isinstance(v, str)}
                       | _named_constants(self.labels))
        base = max(NAME_CODE_BASE, self.compiled.bound + 1)
        return {n: base + i for i, n in enumerate(names)}

    def _check_wide_labels(self) -> None:
        """Label codes are int64 (tables, hashing, the harness): refuse a label that can leave that range."""
        for label, table in zip(self.labels, self.compiled.tables):
            for v in table:
                code = self.codes[v] if isinstance(v, str) else v
                if abs(code) > INT64:
                    raise KnowledgeError(
                        f"label {label.name!r} can take the value {brief(v, 40)}, beyond the 64-bit integers label "
                        f"tables hold; make the label a comparison or otherwise keep it within +-2^63")

    @property
    def _dtype(self):
        return object if self.wide else np.int64

    @cached_property
    def _decode(self) -> dict:
        return {code: name for name, code in self.codes.items()}

    def _values(self, i: int) -> np.ndarray:
        """The codes of concept i's values, by value index."""
        return np.array([self.codes[v] if isinstance(v, str) else v for v in self.concepts[i].domain], dtype=self._dtype)

    def evaluate(self, vectors: np.ndarray) -> np.ndarray:
        """Return label codes, shape (n, labels), for index vectors of shape (n, k)."""
        vectors = np.asarray(vectors)
        env = {}
        for i, c in enumerate(self.concepts):
            table = self._values(i)
            identity = not self.wide and vectors.dtype == np.int64 and np.array_equal(table, np.arange(len(table)))
            env[c.name] = vectors[:, i] if identity else table[vectors[:, i]]  # values 0..d-1: no gather
        return self._evaluate_env(env, vectors.shape[0])

    def evaluate_space(self) -> np.ndarray:
        """Label codes of every concept vector in grid order, like ``evaluate(grid(sizes))`` without the grid.

        Concept i is an array of its values along axis i (length 1 elsewhere),
        so each subexpression broadcasts to the concepts it reads: only the
        operators that combine all of them touch every vector.
        """
        out = np.empty((self.space_size, len(self.labels)), dtype=np.int64)
        cube = out.reshape(self.sizes + (len(self.labels),))
        for j, values in enumerate(self.space_labels()):
            cube[..., j] = values
        return out

    def space_labels(self) -> list:
        """Each label's codes over the whole space, one axis per concept, of length 1 where the label does not
        read the concept (broadcast, not expanded: cheap to combine)."""
        k, env = self.k, {}
        for i, c in enumerate(self.concepts):
            values = self._values(i)
            env[c.name] = (values.astype(bool) if c.is_bool else values).reshape((1,) * i + (-1,) + (1,) * (k - i - 1))
        out = [np.asarray(evaluate(label.expr, env, self.codes, (1,) * k, self._dtype)) for label in self.labels]
        return [a.astype(np.int64) if a.dtype == object else a for a in out]

    def _evaluate_env(self, env: dict, n: int) -> np.ndarray:
        out = np.empty((n, len(self.labels)), dtype=np.int64)
        for j, label in enumerate(self.labels):
            out[:, j] = evaluate(label.expr, env, self.codes, n, self._dtype)
        return out

    def decode(self, code: int):
        """Turn a label code back into its value (int or name)."""
        return self._decode.get(int(code), int(code))

    def label_of(self, vector: Sequence[int]) -> tuple:
        """Return beta_K of one index vector, as values."""
        codes = self.evaluate(np.asarray([vector]))[0]
        return tuple(self.decode(x) for x in codes)

    @cached_property
    def compiled(self) -> CompiledKnowledge:
        circuit = Circuit()
        inputs, tables = {}, {}
        for i, c in enumerate(self.concepts):
            tables[c.name] = {}
            for u, value in enumerate(c.domain):
                var = circuit.var(("x", i, u))
                inputs[(i, u)] = var
                tables[c.name][value] = var
        bounded = [compile_bounded(lab.expr, circuit, tables, lab.text) for lab in self.labels]
        values = [abs(v) for c in self.concepts for v in c.domain if isinstance(v, int)]
        bound = max([b for _, b in bounded] + values + [0])
        return CompiledKnowledge(circuit, inputs, tuple(t for t, _ in bounded), bound)

    # --- display -------------------------------------------------------------
    def format_vector(self, vector: Sequence[int]) -> str:
        return "(" + ",".join(str(c.domain[u]) for c, u in zip(self.concepts, vector)) + ")"

    def __repr__(self) -> str:
        return f"<Task {self.summary()}>"

    def show(self, text: str) -> str:
        """``text`` with each concept identifier written as the user wrote it (``digit_a`` -> ``digit(a)``)."""
        return show_names(text, self.shown)

    def summary(self) -> str:
        doms = ", ".join(f"{c.name}:{domain_text(c.domain)}" for c in self.concepts)
        labels = ", ".join(lab.name for lab in self.labels)
        return f"{self.name}: {self.k} concepts ({doms}); labels: {labels}"


def domain_text(domain: tuple, sep: str = ",") -> str:
    """A domain as the concept declarations write it: ``bool``, ``0..9`` or ``{red,blue}``."""
    if domain == (0, 1):
        return "bool"
    if all(isinstance(v, int) for v in domain) and list(domain) == list(range(domain[0], domain[-1] + 1)):
        return f"{domain[0]}..{domain[-1]}"
    return "{" + sep.join(map(str, domain)) + "}"


def _named_constants(labels) -> set:
    from ..language.logic import Const, Op
    out, stack = set(), [lab.expr for lab in labels]
    while stack:
        node = stack.pop()
        if isinstance(node, Const) and isinstance(node.value, str):
            out.add(node.value)
        elif isinstance(node, Op):
            stack.extend(node.args)
    return out

