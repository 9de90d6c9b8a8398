"""Synthetic inputs that satisfy assumption A1: each concept can be read from its own input.

Every example is a concept vector drawn from the problem's support, rendered
as one input per concept position: a handwritten digit from scikit-learn's
``load_digits`` (8x8, no download), a shape drawn with numpy, or a noisy
embedding of the value. Image pools are split so test images are unseen.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from ..errors import HarnessError
from ..model.support import grid
from ..problems.problem import Problem

__all__ = ["Split", "Dataset", "make_dataset", "check_inputs", "default_inputs", "INPUTS", "SHAPES", "COLORS"]

INPUTS = ("digits", "shapes", "embeddings")
SHAPES = ("square", "circle", "triangle")
COLORS = {"red": (1.0, 0.1, 0.1), "yellow": (1.0, 0.9, 0.1), "blue": (0.1, 0.2, 1.0),
          "green": (0.1, 0.8, 0.2), "purple": (0.6, 0.1, 0.8), "gray": (0.5, 0.5, 0.5)}
EMBED_DIM = 16


@dataclass(frozen=True, eq=False)
class Split:
    """Inputs ``x`` (n, k, D), ground-truth concept indices (n, k), label codes (n, L), support rows (n,)."""

    x: np.ndarray = field(repr=False)
    concepts: np.ndarray = field(repr=False)
    labels: np.ndarray = field(repr=False)
    rows: np.ndarray = field(repr=False)  # index into the support, -1 outside it (OOD)

    def __len__(self) -> int:
        return int(self.x.shape[0])


@dataclass(frozen=True, eq=False)
class Dataset:
    """Seeded train / validation / test splits (and an optional OOD split) for one problem."""

    problem: Problem
    inputs: str
    train: Split
    val: Split
    test: Split
    ood: Split | None = None

    @property
    def dim(self) -> int:
        return int(self.train.x.shape[2])


def default_inputs(task) -> str:
    """Digits where every domain is a set of digits, shapes for shape/color names, embeddings otherwise."""
    if task.name.startswith(("sdd-oia", "bdd-oia", "cle4evr")):
        return "embeddings"
    doms = [c.domain for c in task.concepts]
    if all(all(isinstance(v, int) and 0 <= v <= 9 for v in d) for d in doms):
        return "digits"
    if all(all(v in SHAPES for v in d) or all(v in COLORS for v in d) for d in doms):
        return "shapes"
    return "embeddings"


@lru_cache(maxsize=1)
def _digit_pools() -> tuple:
    """Per digit, its 8x8 images split 60/20/20 into train/val/test pools (fixed shuffle)."""
    from sklearn.datasets import load_digits

    data = load_digits()
    images = (data.images / 16.0).reshape(len(data.images), -1).astype(np.float32)
    rng = np.random.default_rng(1234)
    pools = []
    for d in range(10):
        idx = rng.permutation(np.flatnonzero(data.target == d))
        a, b = int(0.6 * len(idx)), int(0.8 * len(idx))
        pools.append((images[idx[:a]], images[idx[a:b]], images[idx[b:]]))
    return tuple(pools)


def _shape_mask(shape: str, rng) -> np.ndarray:
    size = 8
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    r = rng.uniform(2.2, 3.6)
    cy, cx = rng.uniform(3.0, 4.5, size=2)
    if shape == "square":
        return ((abs(yy - cy) <= r * 0.8) & (abs(xx - cx) <= r * 0.8)).astype(np.float32)
    if shape == "circle":
        return (((yy - cy) ** 2 + (xx - cx) ** 2) <= r * r).astype(np.float32)
    top, bottom = cy - r, cy + r
    half = (yy - top) / max(bottom - top, 1e-6) * r
    return ((yy >= top) & (yy <= bottom) & (abs(xx - cx) <= half)).astype(np.float32)


def _render_shape(value: str, rng) -> np.ndarray:
    """3x8x8: a shape concept is drawn in a random colour, a colour concept as a random shape."""
    if value in SHAPES:
        mask, rgb = _shape_mask(value, rng), COLORS[rng.choice(list(COLORS))]
    else:
        mask, rgb = _shape_mask(SHAPES[rng.integers(len(SHAPES))], rng), COLORS[value]
    img = np.stack([mask * c for c in rgb]) + rng.normal(0, 0.1, size=(3, 8, 8))
    return img.reshape(-1).astype(np.float32)


class _Renderer:
    """Draws one input per (concept position, value index) for a split."""

    def __init__(self, problem: Problem, inputs: str, seed: int, appearance: int | None = None):
        if inputs not in INPUTS:
            raise HarnessError(f"unknown inputs {inputs!r}; choose one of {', '.join(INPUTS)}")
        self.task, self.inputs = problem.task, inputs
        self.dim = {"digits": 64, "shapes": 192, "embeddings": EMBED_DIM}[inputs]
        if inputs == "digits":
            bad = [c.name for c in self.task.concepts
                   if not all(isinstance(v, int) and 0 <= v <= 9 for v in c.domain)]
            if bad:
                raise HarnessError(f"concept {bad[0]} has values that are not digits 0..9; use inputs=embeddings")
        if inputs == "shapes":
            bad = [c.name for c in self.task.concepts
                   if not (all(v in SHAPES for v in c.domain) or all(v in COLORS for v in c.domain))]
            if bad:
                raise HarnessError(f"concept {bad[0]} is neither a shape {SHAPES} nor a colour; "
                                f"use inputs=embeddings")
        # Concepts of one group share prototypes, so a shared classifier can read them all.
        proto_rng = np.random.default_rng((seed if appearance is None else appearance) + 99991)
        self.prototypes = {}
        for i in range(self.task.k):
            key = self.task.group_of(i)[0]
            if key not in self.prototypes:
                self.prototypes[key] = proto_rng.normal(0, 1, size=(self.task.sizes[i], EMBED_DIM))
        self.proto_of = {i: self.prototypes[self.task.group_of(i)[0]] for i in range(self.task.k)}

    def render(self, vectors: np.ndarray, split: int, rng) -> np.ndarray:
        n, k = vectors.shape
        out = np.empty((n, k, self.dim), dtype=np.float32)
        for i, c in enumerate(self.task.concepts):
            for u, value in enumerate(c.domain):
                where = np.flatnonzero(vectors[:, i] == u)
                if not len(where):
                    continue
                if self.inputs == "digits":
                    pool = _digit_pools()[int(value)][split]
                    out[where, i] = pool[rng.integers(len(pool), size=len(where))]
                elif self.inputs == "shapes":
                    out[where, i] = np.stack([_render_shape(value, rng) for _ in where])
                else:
                    noise = rng.normal(0, 0.6, size=(len(where), EMBED_DIM))
                    out[where, i] = (self.proto_of[i][u] + noise).astype(np.float32)
        return out


def _draw_rows(n_support: int, n: int, rng, cover: bool) -> np.ndarray:
    """Support rows for a split; with ``cover`` every row appears at least once when n allows."""
    if cover and n >= n_support:
        rows = np.concatenate([np.arange(n_support), rng.integers(n_support, size=n - n_support)])
        return rng.permutation(rows)
    return rng.integers(n_support, size=n)


def _ood_vectors(problem: Problem, n: int, rng) -> np.ndarray | None:
    """Concept vectors outside the support, drawn uniformly; None when the support is exhaustive."""
    task = problem.task
    inside = {tuple(map(int, r)) for r in problem.support.vectors}
    if len(inside) >= task.space_size:
        return None
    out = []
    for _ in range(200 * n):
        v = tuple(int(rng.integers(s)) for s in task.sizes)
        if v not in inside:
            out.append(v)
            if len(out) == n:
                break
    if not out and task.space_size <= 1 << 20:  # nearly full support: list what is left
        flat = grid(task.sizes)
        out = [tuple(map(int, r)) for r in flat if tuple(map(int, r)) not in inside][:n]
    return np.asarray(out, dtype=np.int64) if out else None


def check_inputs(problem: Problem, inputs: str | None = None) -> str:
    """Return the inputs to render (``inputs`` or the task's default); raise HarnessError if they cannot be."""
    inputs = inputs or default_inputs(problem.task)
    _Renderer(problem, inputs, 0)
    return inputs


def make_dataset(problem: Problem, n_train: int = 2000, n_val: int = 500, n_test: int = 1000, seed: int = 0,
                 inputs: str | None = None, n_ood: int = 0, appearance: int | None = None,
                 cover_train: bool = False) -> Dataset:
    """Draw concept vectors from the support (label first is up to the support) and render them.

    ``appearance`` seeds how each concept value looks (embedding prototypes; default ``seed``): several tasks
    over shared concepts draw their data with their own seeds but one appearance, so a value looks alike in all.

    Validation and test splits cover every support vector when they are large
    enough, so the learned map can be read on the whole support; ``cover_train`` asks the same of the
    training split, so a learned head meets every support vector.
    """
    inputs = inputs or default_inputs(problem.task)
    support = problem.support.vectors
    if cover_train and n_train < len(support):
        raise HarnessError(f"cover_train puts every support vector in the training split, but n_train={n_train} is "
                           f"below the {len(support)} support vectors; raise n_train to {len(support)} or more")
    rng = np.random.default_rng(seed)
    renderer = _Renderer(problem, inputs, seed, appearance)
    labels_of = problem.labels

    def split(n: int, which: int, cover: bool) -> Split:
        rows = _draw_rows(len(support), n, rng, cover)
        vectors = support[rows]
        return Split(renderer.render(vectors, which, rng), vectors, labels_of[rows], rows)

    train, val, test = split(n_train, 0, cover_train), split(n_val, 1, True), split(n_test, 2, True)
    ood = None
    if n_ood:
        vectors = _ood_vectors(problem, n_ood, rng)
        if vectors is not None:
            ood = Split(renderer.render(vectors, 2, rng), vectors, problem.task.evaluate(vectors),
                        np.full(len(vectors), -1))
    return Dataset(problem, inputs, train, val, test, ood)
