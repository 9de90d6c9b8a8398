"""ConCon (Busch et al., ICML 2025): scenes of objects, one ground-truth rule g and one confounder per task.

The setting (attributes, g, confounders) is data in ``knowledge/families/concon.yaml``. A task t's support is
the set of scenes ConCon's generator (ml-research/concon, ``create_true_objects`` / ``create_false_objects``)
can draw for it, labelled by g:

- ``strict``: positives satisfy g and c_t; negatives satisfy neither g nor c_t (other tasks' confounders may
  appear anywhere);
- ``disjoint``: positives satisfy g and c_t and draw no attribute value that is another task's confounder;
  negatives satisfy neither g nor any task's confounder.

Every such scene is listed where the scenes number at most :data:`LIST_SCENES`; past that (ConCon's own 4
objects with 96 attribute combinations each: 85 million scenes) a seeded sample of ``samples`` positives and
as many negatives, drawn uniformly among the scenes the generator allows.
"""
from __future__ import annotations

import itertools
from typing import Mapping

import numpy as np

from ..errors import TaskError, brief
from ..model.task import Task
from ..readers.spec import load_spec, task_from_spec
from .params import whole

__all__ = ["setting", "concon", "scene_predicates", "MODES", "LIST_SCENES"]

MODES = ("strict", "disjoint")
LIST_SCENES = 1 << 20  # scenes enumerated to list a support exactly; past this the support is sampled
ATTRIBUTES = ("shape", "color", "size", "material")


def setting() -> dict:
    """ConCon's setting as data: objects, attribute values, rule and confounders."""
    from . import knowledge_dir
    return load_spec(knowledge_dir() / "families" / "concon.yaml", "ConCon setting")


def _entries(value, name: str) -> list:
    """``rule`` / ``confounders`` as a list of {attribute: value} mappings; the command line's text form is
    ``shape=cube,color=red;size=large`` (entries split by ';', pairs by ',')."""
    if isinstance(value, str):
        out = []
        for part in (p.strip() for p in value.split(";")):
            pairs = [kv.partition("=") for kv in part.split(",") if kv.strip()]
            if not part or not pairs or any(not eq or not k.strip() or not v.strip() for k, eq, v in pairs):
                raise TaskError(f"parameter {name}={value!r:.60} must look like 'shape=cube,color=red;size=large' "
                                f"(entries split by ';', attribute=value pairs by ',')")
            out.append({k.strip(): v.strip() for k, _, v in pairs})
        return out
    if not isinstance(value, (list, tuple)) or not all(isinstance(e, Mapping) and e for e in value):
        raise TaskError(f"parameter {name}= is a list of {{attribute: value}} mappings (or the text "
                        f"'shape=cube,color=red;size=large'), not {brief(value, 40)}")
    return [{str(k): v for k, v in e.items()} for e in value]


def _entry_text(entry: dict) -> str:
    return " ".join(str(v) for v in entry.values())


def concon(t: int, mode: str = "strict", objects=None, shapes=None, colors=None, sizes=None, materials=None,
           samples=1000, seed=0, rule=None, confounders=None, **params) -> Task:
    """Task t (1-based) of ConCon under ``mode``, on its confounded support; fewer ``objects`` and attribute
    values (the first n of each) make every class countable exactly. ``rule`` / ``confounders`` replace
    ConCon's (lists of {attribute: value} entries) for other designs."""
    if params:
        raise TaskError(f"task concon-t{t} has no parameter {sorted(params)[0]!r}; it takes mode, objects, shapes, "
                        f"colors, sizes, materials, samples, seed, rule, confounders")
    base = setting()
    if mode not in MODES:
        raise TaskError(f"parameter mode={mode!r} must be one of {', '.join(MODES)}")
    n_obj = whole(objects if objects is not None else base["objects"], "objects", 1, 8)
    attrs = {}
    for name, given in zip(ATTRIBUTES, (shapes, colors, sizes, materials)):
        values = list(base["attributes"][name])
        attrs[name] = values[:whole(given, name + "s", 1, len(values))] if given is not None else values
    rule = _entries(rule if rule is not None else base["rule"], "rule")
    confs = _entries(confounders if confounders is not None else base["confounders"], "confounders")
    if not rule or not confs:
        raise TaskError(f"parameter {'rule' if not rule else 'confounders'}= is empty; ConCon needs a rule and one "
                        f"confounder per task")
    t = whole(t, "t", 1, len(confs))
    for entry in rule + confs:
        for name, value in entry.items():
            if name not in attrs:
                raise TaskError(f"ConCon entry {entry} names attribute {name!r}; attributes: {', '.join(attrs)}")
            if value not in attrs[name]:
                raise TaskError(f"ConCon entry {entry} needs {name} {value!r}, which {name}s={len(attrs[name])} "
                                f"leaves out ({', '.join(map(str, attrs[name]))}); keep more values")
    for c in confs:
        if len(c) != 1:
            raise TaskError(f"ConCon confounder {c} must fix one attribute (its generator places a confounder on "
                            f"one object and supports one-attribute confounders only)")
    fixed = {(k, v) for e in rule for k, v in e.items()}
    clash = [c for i, c in enumerate(confs) if i != t - 1 and set(c.items()) & fixed]
    if mode == "disjoint" and clash:
        raise TaskError(f"confounder {clash[0]} names a value the rule fixes; disjoint positives are defined here "
                        f"for rules that fix no other task's confounder value")
    if len(rule) > n_obj:
        raise TaskError(f"the rule needs {len(rule)} distinct objects; objects={n_obj} has too few")
    concepts = {f"{a}{o}": list(attrs[a]) for o in range(1, n_obj + 1) for a in ATTRIBUTES}
    placements = list(itertools.permutations(range(1, n_obj + 1), len(rule)))
    g = " | ".join("(" + " & ".join(f"({a}{o} == {v})" for o, entry in zip(p, rule) for a, v in entry.items())
                   + ")" for p in placements)
    support, how = _support(attrs, n_obj, rule, confs, t - 1, mode, whole(samples, "samples", 1, 1 << 20),
                            whole(seed, "seed", 0, 1 << 62))
    defaults = (n_obj, *(len(v) for v in attrs.values())) == (base["objects"], *(
        len(base["attributes"][a]) for a in ATTRIBUTES))
    name = f"concon-{mode}-t{t}" + ("" if defaults else f"-{n_obj}x" + "x".join(str(len(v)) for v in attrs.values()))
    task = task_from_spec({
        "name": name, "concepts": concepts, "labels": {"y": g},
        "groups": {a: [f"{a}{o}" for o in range(1, n_obj + 1)] for a in ATTRIBUTES},
        "description": f"ConCon task {t} ({mode}): y = g = {' and '.join(map(_entry_text, rule))}; confounder "
                       f"{_entry_text(confs[t - 1])}; {n_obj} objects; support: {how}",
        "params": {"mode": mode, "objects": n_obj, **{a + "s": len(v) for a, v in attrs.items()}},
    })
    import dataclasses
    return dataclasses.replace(task, default_support=tuple(map(tuple, support.tolist())),
                               notes=(f"ConCon {mode} task {t}: support {how}",))


def scene_predicates(scenes: np.ndarray, attrs: dict, n_obj: int, rule: list, confs: list) -> tuple:
    """(g, [c_1..c_T]) as boolean arrays over index scenes (columns: attribute per object, in ATTRIBUTES order)."""
    names = list(attrs)

    def matches(entry: dict, o: int) -> np.ndarray:
        out = np.ones(len(scenes), dtype=bool)
        for a, v in entry.items():
            out &= scenes[:, o * len(names) + names.index(a)] == attrs[a].index(v)
        return out
    g = np.zeros(len(scenes), dtype=bool)
    for p in itertools.permutations(range(n_obj), len(rule)):
        hit = np.ones(len(scenes), dtype=bool)
        for o, entry in zip(p, rule):
            hit &= matches(entry, o)
        g |= hit
    cs = [np.logical_or.reduce([matches(c, o) for o in range(n_obj)]) for c in confs]
    return g, cs


def _allowed(g, cs, t: int, mode: str) -> tuple:
    """(positive, negative) masks of the scenes task t's generator draws."""
    others = np.ones(len(g), dtype=bool)
    for i, c in enumerate(cs):
        if i != t:
            others &= ~c
    if mode == "strict":
        return g & cs[t], ~g & ~cs[t]
    return g & cs[t] & others, ~g & ~cs[t] & others


def _support(attrs: dict, n_obj: int, rule: list, confs: list, t: int, mode: str, samples: int, seed: int):
    sizes = [len(attrs[a]) for a in attrs] * n_obj
    total = int(np.prod(sizes, dtype=object))
    if total <= LIST_SCENES:
        from ..model.support import grid
        scenes = grid(tuple(sizes))
        g, cs = scene_predicates(scenes, attrs, n_obj, rule, confs)
        pos, neg = _allowed(g, cs, t, mode)
        if not pos.any() or not neg.any():
            raise TaskError(f"ConCon task {t + 1} ({mode}) has no {'positive' if not pos.any() else 'negative'} "
                            f"scene with these objects and values; keep more of them")
        return scenes[pos | neg], f"every scene the generator allows ({int(pos.sum())} positive, {int(neg.sum())} negative)"
    rng = np.random.default_rng(seed)
    found = {True: [], False: []}
    for _ in range(200):  # rejection sampling, uniform among the allowed scenes of each class
        draw = rng.integers(0, sizes, size=(1 << 16, len(sizes)))
        g, cs = scene_predicates(draw, attrs, n_obj, rule, confs)
        pos, neg = _allowed(g, cs, t, mode)
        for label, mask in ((True, pos), (False, neg)):
            need = samples - sum(len(x) for x in found[label])
            if need > 0:
                found[label].append(draw[mask][:need])
        if all(sum(len(x) for x in found[k]) >= samples for k in found):
            break
    got = {k: np.concatenate(v) if v else np.zeros((0, len(sizes)), int) for k, v in found.items()}
    if not len(got[True]) or not len(got[False]):
        raise TaskError(f"ConCon task {t + 1} ({mode}): no scene of one class found by sampling; keep more values")
    rows = np.unique(np.concatenate([got[True], got[False]]), axis=0)
    return rows, (f"a seeded sample of {len(got[True])} positive and {len(got[False])} negative scenes "
                  f"({len(rows)} distinct) of the {total:,} scenes")
