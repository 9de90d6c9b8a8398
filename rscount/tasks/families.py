"""Parametric task families, built as spec data and loaded like any spec."""
from __future__ import annotations

import itertools
import random

import numpy as np

from ..errors import TaskError
from ..model.task import Task
from ..readers.dimacs import read_dimacs, task_from_cnf
from ..readers.spec import task_from_spec
from .params import whole

__all__ = ["FAMILIES"]


def _no_extra(params: dict, family: str) -> None:
    if params:
        raise TaskError(f"task {family} has no parameter {sorted(params)[0]!r}")


def _bits(k: int) -> dict:
    return {f"c{i}": "bool" for i in range(1, k + 1)}


def mnlogic(op: str):
    symbol = {"xor": " ^ ", "and": " & ", "or": " | "}[op]

    def build(k=3, **params) -> Task:
        _no_extra(params, op)
        k = whole(k, "k", 2, 64)
        return task_from_spec({
            "name": f"{op}{k}", "concepts": _bits(k),
            "labels": {"y": symbol.join(f"c{i}" for i in range(1, k + 1))},
            "groups": {"bits": [f"c{i}" for i in range(1, k + 1)]},
            "description": f"MNLogic: y = {op} of {k} bits", "params": {"k": k},
        })
    return build


def mnlogic_random(k=4, m=3, l=3, seed=0, **params) -> Task:
    """A random l-CNF phi over k bits: clauses non-trivial, phi neither valid nor unsatisfiable."""
    _no_extra(params, "mnlogic-random")
    k, m, l, seed = whole(k, "k", 2, 20), whole(m, "m", 1, 1000), whole(l, "l", 1), whole(seed, "seed", 0)
    if l > k:
        raise TaskError(f"mnlogic-random: clause length l={l} exceeds the number of bits k={k}")
    rng = random.Random(seed)
    grid = np.array(list(itertools.product((0, 1), repeat=k)), dtype=bool)
    sat = np.ones(len(grid), dtype=bool)
    clauses = []
    for attempt in range(10000 * m):
        if len(clauses) == m:
            break
        variables = rng.sample(range(k), l)
        signs = [rng.random() < 0.5 for _ in variables]
        holds = np.zeros(len(grid), dtype=bool)
        for v, positive in zip(variables, signs):
            holds |= grid[:, v] if positive else ~grid[:, v]
        if not (sat & holds).any():
            continue  # unsatisfiable together with the previous clauses
        if len(clauses) == m - 1 and (sat & holds).all():
            continue  # phi would be valid
        sat &= holds
        clauses.append(" | ".join(f"c{v + 1}" if s else f"~c{v + 1}" for v, s in zip(variables, signs)))
    if len(clauses) < m:
        raise TaskError(f"mnlogic-random: could not draw {m} non-trivial clauses of length {l} over {k} bits")
    return task_from_spec({
        "name": f"mnlogic-random-k{k}-m{m}-l{l}-s{seed}", "concepts": _bits(k),
        "labels": {"y": " & ".join(f"({c})" for c in clauses)},
        "groups": {"bits": [f"c{i}" for i in range(1, k + 1)]},
        "description": f"MNLogic: random {l}-CNF with {m} clauses over {k} bits (seed {seed})",
        "params": {"k": k, "m": m, "l": l, "seed": seed},
    })


def mnadd(digits=2, values=10, **params) -> Task:
    """Sum of ``digits`` digits with values 0..values-1."""
    _no_extra(params, "mnadd")
    digits, values = whole(digits, "digits", 1, 64), whole(values, "values", 2, 1000)
    names = [f"d{i}" for i in range(1, digits + 1)]
    return task_from_spec({
        "name": "mnadd" if (digits, values) == (2, 10) else f"mnadd-{digits}x{values}",
        "concepts": {n: f"0..{values - 1}" for n in names},
        "labels": {"sum": " + ".join(names)}, "groups": {"digits": names},
        "description": f"MNAdd: y = sum of {digits} digits in 0..{values - 1}",
        "params": {"digits": digits, "values": values},
    })


def kand_logic(figures=2, primitives=3, **params) -> Task:
    """Kand-Logic: y = OR over pred in {diff,two,same}{col,sha} of AND over figures pred(figure)."""
    _no_extra(params, "kand-logic")
    figures, primitives = whole(figures, "figures", 1, 8), whole(primitives, "primitives", 2, 6)
    concepts, defs = {}, {}
    for f in range(1, figures + 1):
        for p in range(1, primitives + 1):
            concepts[f"sha{f}_{p}"] = ["square", "circle", "triangle"]
            concepts[f"col{f}_{p}"] = ["red", "yellow", "blue"]
        for attr, word in (("col", "col"), ("sha", "sha")):
            names = [f"{attr}{f}_{p}" for p in range(1, primitives + 1)]
            pairs = [(a, b) for n, a in enumerate(names) for b in names[n + 1:]]
            defs[f"same{word}{f}"] = " & ".join(f"({a} == {b})" for a, b in pairs)
            defs[f"diff{word}{f}"] = " & ".join(f"({a} != {b})" for a, b in pairs)
            defs[f"two{word}{f}"] = f"~same{word}{f} & ~diff{word}{f}"
    preds = [f"{kind}{word}" for word in ("col", "sha") for kind in ("diff", "two", "same")]
    label = " | ".join("(" + " & ".join(f"{pred}{f}" for f in range(1, figures + 1)) + ")" for pred in preds)
    return task_from_spec({
        "name": "kand-logic" if (figures, primitives) == (2, 3) else f"kand-logic-{figures}x{primitives}",
        "concepts": concepts, "definitions": defs, "labels": {"y": label},
        "groups": {"shapes": [n for n in concepts if n.startswith("sha")],
                   "colors": [n for n in concepts if n.startswith("col")]},
        "description": f"Kand-Logic: {figures} figures x {primitives} primitives (shape, color); "
                       f"y = some pattern holds in every figure",
        "params": {"figures": figures, "primitives": primitives},
    })


def cle4evr(objects=2, colors=3, shapes=3, materials=2, sizes=2, **params) -> Task:
    """CLE4EVR: positive iff two distinct objects share color and shape."""
    _no_extra(params, "cle4evr")
    objects = whole(objects, "objects", 2, 8)
    doms = {"color": whole(colors, "colors", 1, 10), "shape": whole(shapes, "shapes", 1, 10),
            "material": whole(materials, "materials", 1, 10), "size": whole(sizes, "sizes", 1, 10)}
    concepts = {f"{attr}{o}": f"0..{n - 1}" for o in range(1, objects + 1) for attr, n in doms.items()}
    pairs = [(a, b) for a in range(1, objects + 1) for b in range(a + 1, objects + 1)]
    label = " | ".join(f"((color{a} == color{b}) & (shape{a} == shape{b}))" for a, b in pairs)
    return task_from_spec({
        "name": "cle4evr" if (objects, *doms.values()) == (2, 3, 3, 2, 2) else f"cle4evr-{objects}",
        "concepts": concepts, "labels": {"y": label},
        "groups": {attr: [f"{attr}{o}" for o in range(1, objects + 1)] for attr in doms},
        "description": f"CLE4EVR: {objects} objects (color {doms['color']}, shape {doms['shape']}, "
                       f"material {doms['material']}, size {doms['size']}); y = two objects share color and shape",
        "params": {"objects": objects, **{k + "s": v for k, v in doms.items()}},
    })


def cnf(file=None, **params) -> Task:
    """rsbench's cnf task: boolean concepts, label 'the formula holds'."""
    _no_extra(params, "cnf")
    if file is None:
        raise TaskError("task cnf needs a DIMACS file: give it the parameter file=PATH")
    return task_from_cnf(read_dimacs(file), name=f"cnf:{file}")


def _concon(t: int):
    def build(**params) -> Task:
        from .concon import concon
        return concon(t, **params)
    build.__doc__ = f"ConCon task {t}: ground-truth rule g, confounder c_{t} (strict or disjoint supports)."
    return build


def raven(**params) -> Task:
    """RAVEN center_single (rsbench): 16 panels of Type, Size and Color; answer the candidate the rows' rules pick."""
    from .raven import raven as build
    return build(**params)


FAMILIES = {
    "xor": mnlogic("xor"), "and": mnlogic("and"), "or": mnlogic("or"),
    "mnlogic-random": mnlogic_random, "mnadd": mnadd, "kand-logic": kand_logic, "cle4evr": cle4evr,
    "cnf": cnf, "concon-t1": _concon(1), "concon-t2": _concon(2), "concon-t3": _concon(3), "raven": raven,
}
