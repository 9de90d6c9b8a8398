"""RAVEN progressive matrices (rsbench's ``center_single``), as its DeepProbLog model reads them.

Sixteen panels: eight of context (a 3x3 matrix missing its last panel) and eight candidates; each panel one
object with Type, Size and Color of three values each (48 concepts). Per attribute a row follows a rule:
Constant (all equal), Progression (+1 or -1 along the row), Arithmetic (third = first + second or first -
second; not for Type), Distribute_Three (three different values). For each candidate and attribute the
model scores the rules that rows 1, 2 and the candidate-completed row 3 all follow (rsbench's
``and_rule`` over rule triples, counted), multiplies the scores over attributes, and answers the first
candidate of the highest score (argmax): the label. Where no candidate fits every attribute all scores are
0 and the answer is candidate 0, as the model's argmax gives; docs/tasks.md says so.

The support is drawn as rsbench's RAVEN data is filtered (its Phase 1): one attribute varies along the
rows by a non-Constant rule, the others are Constant in each row; the answer sits at a random candidate and
the other candidates change one attribute of it. Smaller instances (fewer candidates, attributes or
values) count exactly in every class.
"""
from __future__ import annotations

import random

from ..errors import TaskError
from ..readers.spec import load_spec, task_from_spec
from ..model.task import Task
from .params import whole

__all__ = ["raven", "RULES", "ATTRIBUTES", "CONTEXT", "rule_holds", "rules_of", "panel_concept"]

CONTEXT = 8  # panels of the matrix shown: rows 1 and 2, and the first two of row 3 (knowledge/families/raven.yaml)


def setting() -> dict:
    """RAVEN's setting as data: attributes, the rules each may follow, each rule's text."""
    from . import knowledge_dir
    return load_spec(knowledge_dir() / "families" / "raven.yaml", "RAVEN setting")


ATTRIBUTES = ("type", "size", "color")
RULES = ("constant", "progression", "arithmetic", "distribute_three")


def rules_of(attribute: str) -> tuple:
    """The rules an attribute may follow (Arithmetic is not for Type, as in rsbench's model)."""
    return tuple(setting()["attributes"][attribute])


def rule_holds(rule: str, x: int, y: int, z: int) -> bool:
    """Whether the row (x, y, z) of value indices follows ``rule`` (the support generator's reading)."""
    if rule == "constant":
        return x == y == z
    if rule == "progression":
        return (y - x == 1 and z - y == 1) or (x - y == 1 and y - z == 1)
    if rule == "arithmetic":
        return z == x + y or z == x - y
    if rule == "distribute_three":
        return len({x, y, z}) == 3
    raise TaskError(f"unknown RAVEN rule {rule!r}")


def panel_concept(attribute: str, p: int) -> str:
    """The concept of an attribute of panel p (0-based): context panels p1..p8, candidates c1..c8."""
    return f"{attribute}_p{p + 1}" if p < CONTEXT else f"{attribute}_c{p - CONTEXT + 1}"


def raven(candidates=8, attributes="type,size,color", values=3, samples=1000, seed=0, **params) -> Task:
    """RAVEN center_single with ``candidates`` answers (1..8), the named ``attributes`` and ``values`` per
    attribute (2..3), on ``samples`` puzzles drawn as rsbench's Phase 1 (seeded)."""
    if params:
        raise TaskError(f"task raven has no parameter {sorted(params)[0]!r}; it takes candidates, attributes, "
                        f"values, samples, seed")
    k = whole(candidates, "candidates", 1, 8)
    d = whole(values, "values", 2, 3)
    names = [a.strip() for a in str(attributes).split(",") if a.strip()] if isinstance(attributes, str) \
        else list(attributes)
    bad = [a for a in names if a not in ATTRIBUTES]
    if bad or not names or len(set(names)) != len(names):
        raise TaskError(f"parameter attributes={attributes!r} names each of {', '.join(ATTRIBUTES)} at most once "
                        f"(at least one)")
    attrs = [a for a in ATTRIBUTES if a in names]
    text = setting()["rules"]
    panels = CONTEXT + k
    concepts = {panel_concept(a, p): f"0..{d - 1}" for p in range(panels) for a in attrs}
    definitions, scores = {}, []
    for a in attrs:
        for r in rules_of(a):
            for row, ps in (("r1", (0, 1, 2)), ("r2", (3, 4, 5))):
                definitions[f"{a}_{row}_{r}"] = "(" + text[r] + ")"
                definitions[f"{a}_{row}_{r}"] = definitions[f"{a}_{row}_{r}"].format(**dict(zip("xyz", (panel_concept(a, p) for p in ps))))
    for c in range(k):
        factors = []
        for a in attrs:
            terms = []
            for r in rules_of(a):
                third = "(" + text[r].format(x=panel_concept(a, 6), y=panel_concept(a, 7), z=panel_concept(a, CONTEXT + c)) + ")"
                terms.append(f"ITE({a}_r1_{r} & {a}_r2_{r} & {third}, 1, 0)")
            definitions[f"agree_{a}_c{c + 1}"] = "Sum(" + ", ".join(terms) + ")"
            factors.append(f"agree_{a}_c{c + 1}")
        definitions[f"score_c{c + 1}"] = " * ".join(factors)
        scores.append(f"score_c{c + 1}")
    label = str(k - 1)
    for c in range(k - 2, -1, -1):
        rest = scores[c + 1:]
        best = rest[0] if len(rest) == 1 else f"Max({', '.join(rest)})"
        label = f"ITE({scores[c]} >= {best}, {c}, {label})"
    support = _puzzles(attrs, d, k, whole(samples, "samples", 1, 1 << 20), whole(seed, "seed", 0, 1 << 62))
    defaults = (k, tuple(attrs), d) == (8, ATTRIBUTES, 3)
    name = "raven" if defaults else f"raven-{k}c-{'-'.join(attrs)}-{d}v"
    task = task_from_spec({
        "name": name, "concepts": concepts, "definitions": definitions, "labels": {"answer": label},
        "groups": {a: [panel_concept(a, p) for p in range(panels)] for a in attrs},
        "description": f"RAVEN center_single as rsbench's DPL model reads it: {panels} panels ({k} candidates), "
                       f"{', '.join(attrs)} of {d} values; answer = the first candidate of the highest rule "
                       f"agreement (the model's argmax: where several candidates fit, the first; where none "
                       f"fits, candidate 0; rsbench's data keeps its generator's target there, the model and "
                       f"this task do not); support: {len(support)} puzzles drawn as rsbench's Phase 1",
        "params": {"candidates": k, "attributes": ",".join(attrs), "values": d},
    })
    import dataclasses
    return dataclasses.replace(task, default_support=tuple(map(tuple, support)),
                               notes=(f"RAVEN support: {len(support)} distinct puzzles of {samples} drawn "
                                      f"(seed {seed}), one attribute varying by a non-Constant rule",))


def _row(rule: str, d: int, rng: random.Random) -> tuple:
    """A row of three value indices that follows ``rule`` (drawn uniformly among those that do)."""
    rows = [(x, y, z) for x in range(d) for y in range(d) for z in range(d) if rule_holds(rule, x, y, z)]
    return rng.choice(rows)


def _puzzles(attrs: list, d: int, k: int, samples: int, seed: int) -> list:
    """Support vectors (index vectors in the task's concept order: panel by panel, attribute by attribute)."""
    rng = random.Random(seed)
    varying = [(a, r) for a in attrs for r in rules_of(a) if r != "constant" and any(
        rule_holds(r, x, y, z) for x in range(d) for y in range(d) for z in range(d))]
    if not varying:
        raise TaskError(f"with {d} values no non-Constant rule has a row: RAVEN's Phase 1 needs one; use values=3")
    seen, out = set(), []
    for _ in range(samples):
        attr, rule = rng.choice(varying)
        grid = {a: [] for a in attrs}  # per attribute: the 9 values of the matrix, row by row
        for a in attrs:
            for _row_index in range(3):
                grid[a] += list(_row(rule if a == attr else "constant", d, rng))
        answer = {a: grid[a][8] for a in attrs}
        cands = [dict(answer)]
        while len(cands) < k:  # distractors: the answer with one attribute changed
            a = rng.choice(attrs)
            wrong = dict(answer)
            wrong[a] = rng.choice([v for v in range(d) if v != answer[a]])
            cands.append(wrong)
        rng.shuffle(cands)
        panels = [{a: grid[a][p] for a in attrs} for p in range(CONTEXT)] + cands
        vector = tuple(panel[a] for panel in panels for a in attrs)
        if vector not in seen:
            seen.add(vector)
            out.append(vector)
    return out
