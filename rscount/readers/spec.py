"""Build tasks from specs: plain data (YAML/JSON files, dicts, CLI text).

A spec names concepts and domains, the labels as knowledge text (or a
relation between concepts and label variables, checked for determinism),
optional definitions, concept groups and a default support::

    name: my-task
    concepts: {a: bool, b: bool, d: 0..2, col: [red, blue]}
    definitions: {both: a & b}
    labels: {y: "both | (d == 2)", z: "col == red"}
    groups: {bits: [a, b]}
    support: exhaustive            # or a list of vectors

A spec of several tasks over shared concepts lists them under ``tasks:`` (each a spec as above, or the name of
a library task); concepts of one name are one concept, with one domain.
"""
from __future__ import annotations

import itertools
import math
import re
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from ..errors import KnowledgeError, TaskError, brief
from ..files.reading import load_data, read_text
from ..language.logic import Const, Op, Var, free_names, parse
from ..model.support import vectors_from_values
from ..model.task import Concept, Label, Task

__all__ = ["task_from_spec", "spec_tasks", "load_spec", "parse_domain", "parse_concepts", "task_from_text",
           "SPEC_FIELDS"]

SPEC_FIELDS = {"name", "description", "concepts", "definitions", "labels", "relation",
               "groups", "support", "warnings", "params"}
MAX_RELATION_SPACE = 1 << 22


MAX_DOMAIN = 1 << 16  # values of one concept: each gets alpha variables and a place in every table
MAX_LABEL_COMBOS = 1 << 12  # label value combinations a relation's determinism check holds one label for
_INT = re.compile(r"-?[0-9]+")  # ASCII digits: str.isdigit() also takes '²', which int() refuses


def parse_domain(spec: Any, where: str = "concept") -> tuple:
    """Turn ``bool``, ``"0..9"``, ``{"range": [0, 9]}`` or a list into a domain tuple."""
    if spec in ("bool", "boolean", bool, None):
        return (0, 1)
    if isinstance(spec, str) and ".." in spec:
        lo, _, hi = spec.partition("..")
        if not (_INT.fullmatch(lo.strip()) and _INT.fullmatch(hi.strip())):
            raise TaskError(f"{where}: domain {brief(spec)} is not of the form LO..HI with integers")
        lo_i, hi_i = int(lo), int(hi)
        if hi_i < lo_i:
            raise TaskError(f"{where}: domain {spec!r} is empty (LO > HI)")
        if hi_i - lo_i + 1 > MAX_DOMAIN:
            raise TaskError(f"{where}: domain {spec!r} has {hi_i - lo_i + 1:,} values (limit {MAX_DOMAIN:,} per "
                            f"concept); a concept's values are encoded one by one, so use a smaller range")
        return tuple(range(lo_i, hi_i + 1))
    if isinstance(spec, Mapping) and "range" in spec:
        bounds = spec["range"]
        if (len(spec) != 1 or not isinstance(bounds, (list, tuple)) or len(bounds) != 2
                or not all(isinstance(b, int) and not isinstance(b, bool) for b in bounds)):
            raise TaskError(f"{where}: domain {brief(spec)} must look like {{range: [LO, HI]}} with two integers")
        return parse_domain(f"{bounds[0]}..{bounds[1]}", where)
    if isinstance(spec, (list, tuple)):
        values = []
        for v in spec:
            if isinstance(v, bool):
                v = int(v)
            if isinstance(v, str):
                v = v.strip()
                if _INT.fullmatch(v):
                    v = int(v)
                elif not v.isidentifier():
                    raise TaskError(f"{where}: domain value {brief(v)} is neither an integer nor a name")
            elif not isinstance(v, int):
                raise TaskError(f"{where}: domain value {brief(v)} is neither an integer nor a name")
            values.append(v)
        if not values:
            raise TaskError(f"{where}: the domain is empty; give at least one value")
        if len(set(values)) != len(values):
            raise TaskError(f"{where}: domain {list(spec)} repeats a value")
        return tuple(values)
    raise TaskError(f"{where}: cannot read domain {brief(spec)}; use bool, LO..HI or a list of values")


def parse_concepts(spec: Any) -> tuple:
    """Read concepts from a mapping, a list, or text like ``"a,b,d=0..9,col={red,blue}"``."""
    if isinstance(spec, str):
        items, depth, cur = [], 0, ""
        for ch in spec:
            depth += ch == "{"
            depth -= ch == "}"
            if ch == "," and depth == 0:
                items.append(cur)
                cur = ""
            else:
                cur += ch
        items.append(cur)
        pairs = []
        for item in filter(None, (i.strip() for i in items)):
            name, _, dom = item.partition("=")
            dom = dom.strip()
            if dom.startswith("{") and dom.endswith("}"):
                dom = [v for v in dom[1:-1].split(",") if v.strip()]
                if not dom:
                    raise TaskError(f"concept {name.strip()!r}: the domain {{}} is empty; list its values, e.g. "
                                    f"{{red,blue}}")
            pairs.append((name.strip(), dom or "bool"))
    elif isinstance(spec, Mapping):
        pairs = list(spec.items())
    elif isinstance(spec, (list, tuple)):
        pairs = []
        for item in spec:
            if isinstance(item, str):
                pairs.append((item, "bool"))
            elif isinstance(item, Mapping) and "name" in item:
                pairs.append((item["name"], item.get("domain", "bool")))
            else:
                raise TaskError(f"cannot read concept {brief(item)}; use NAME or {{name: NAME, domain: ...}}")
    else:
        raise TaskError(f"cannot read concepts from {brief(spec)}; use 'a,b,d=0..9' or a mapping name -> domain")
    return tuple(Concept(str(n), parse_domain(d, f"concept {n!r}")) for n, d in pairs)


def load_spec(path: str | Path, what: str = "spec file") -> dict:
    """Read a spec file (YAML or JSON) as data; nothing in it is executed."""
    if not isinstance(path, (str, Path)):
        raise TypeError(f"load_spec() takes the path of a YAML or JSON file, not {type(path).__name__}")
    path = Path(path)
    text = read_text(path, what, TaskError)
    data = load_data(text, f"{what} {str(path)!r}", TaskError, "json" if path.suffix == ".json" else "yaml")
    if not isinstance(data, Mapping):
        raise TaskError(f"{what} {str(path)!r} must hold a mapping"
                        f"{' with concepts and labels' if what == 'spec file' else ' of generator fields'}")
    data = dict(data)
    data.setdefault("name", path.stem)
    return data


def shape_error(where: str, field: str, value, expected: str) -> TaskError:
    """The error for a field of the wrong shape, naming what it should be."""
    return TaskError(f"{where}: field {field!r} must be {expected}, not {type(value).__name__} {brief(value, 60)}")


def _check_spec_shapes(spec: Mapping) -> None:
    scalars = (str, int, float)
    shapes = {"name": (scalars, "a name"), "description": (scalars, "text"),
              "definitions": ((Mapping, type(None)), "a mapping of names to expressions"),
              "params": ((Mapping, type(None)), "a mapping"),
              "warnings": ((list, tuple, type(None)), "a list of texts"),
              "groups": ((list, tuple, Mapping, type(None)), "a list of lists of concept names")}
    for field, (types, expected) in shapes.items():
        if field in spec and not isinstance(spec[field], types):
            raise shape_error("spec", field, spec[field], expected)
    groups = spec.get("groups") or ()
    for g in (groups.values() if isinstance(groups, Mapping) else groups):
        if not isinstance(g, (list, tuple)) or not all(isinstance(n, str) for n in g):
            raise shape_error("spec", "groups", g, "a list of lists of concept names")
    for key, text in (spec.get("definitions") or {}).items():
        if not isinstance(key, str) or not isinstance(text, (str, int)) or isinstance(text, bool):
            raise shape_error("spec", "definitions", {key: text}, "a mapping of names to expressions")


def spec_tasks(spec: Mapping) -> list | None:
    """The items of a spec of several tasks over shared concepts (``tasks:``, a list of task specs or library
    task names), or None for a spec of one task."""
    if not isinstance(spec, Mapping) or "tasks" not in spec:
        return None
    extra = sorted(set(spec) - {"tasks", "name", "description"})
    if extra:
        raise TaskError(f"a spec of several tasks holds 'tasks' (and a name and description), not {extra[0]!r}; "
                        f"put each task's fields in its item of 'tasks'")
    items = spec["tasks"]
    if not isinstance(items, (list, tuple)) or not items:
        raise shape_error("spec", "tasks", items, "a non-empty list of task specs or library task names")
    for item in items:
        if not isinstance(item, (Mapping, str)):
            raise shape_error("spec", "tasks", item, "a task spec (a mapping) or a library task name")
    return list(items)


def task_from_spec(spec: Mapping) -> Task:
    """Build a :class:`Task` from spec data (see the module docstring)."""
    if isinstance(spec, Mapping) and "tasks" in spec:
        raise TaskError("this spec holds several tasks ('tasks:'); count them together with "
                        "rscount.count(rscount.tasks_from_spec(spec)) or countrss --spec FILE")
    if not isinstance(spec, Mapping):
        raise TaskError(f"a task spec must be a mapping of fields, not {type(spec).__name__}")
    _check_spec_shapes(spec)
    unknown = sorted(set(spec) - SPEC_FIELDS)
    if unknown:
        raise TaskError(f"unknown spec field {unknown[0]!r}; known fields: {', '.join(sorted(SPEC_FIELDS))}")
    name = str(spec.get("name", "custom"))
    if "concepts" not in spec:
        raise TaskError(f"spec {name!r} has no 'concepts'")
    concepts = parse_concepts(spec["concepts"])
    cnames = [c.name for c in concepts]
    values = {v for c in concepts for v in c.domain if isinstance(v, str)}
    clash = values & set(cnames)
    if clash:
        raise TaskError(f"{sorted(clash)[0]!r} is both a concept and a named value; rename one")
    definitions: dict = {}
    for dname, text in dict(spec.get("definitions") or {}).items():
        if dname in cnames or dname in values:
            raise TaskError(f"definition {dname!r} has the name of a {'concept' if dname in cnames else 'value'}, "
                            f"which it would hide; rename the definition")
        definitions[dname] = parse(str(text), cnames, values, definitions)
    if ("labels" in spec) == ("relation" in spec):
        raise TaskError(f"spec {name!r} needs exactly one of 'labels' and 'relation'")
    if "labels" in spec:
        labels = _labels(spec["labels"], cnames, values, definitions)
    else:
        labels = _relation_labels(spec["relation"], concepts, values, definitions)
    groups = parse_groups(spec.get("groups"))
    support = spec.get("support", "exhaustive")
    default_support = None
    if support not in (None, "exhaustive"):
        if not isinstance(support, (list, tuple)):
            raise TaskError(f"spec {name!r}: support must be 'exhaustive' or a list of vectors")
        default_support = vectors_from_values(concepts, support)
    params = tuple(sorted(dict(spec.get("params") or {}).items()))
    return Task(name=name, concepts=concepts, labels=labels, groups=groups,
                default_support=default_support, description=str(spec.get("description", "")),
                warnings=tuple(spec.get("warnings") or ()), params=params)


def task_from_text(knowledge: str | list, concepts: str | None = None, name: str = "custom",
                   groups=None) -> Task:
    """Build a task from knowledge text; concepts default to booleans named in it.

    ``groups`` (``"d1,d2;s1,s2"`` or a list of lists of names) are the concepts that share one classifier.
    """
    if not isinstance(knowledge, (str, list, tuple)):
        raise TypeError(f"knowledge is text ('a ^ b') or a list of texts, one per label, not "
                        f"{type(knowledge).__name__}")
    texts = [knowledge] if isinstance(knowledge, str) else list(knowledge)
    if not texts or any(not str(t).strip() for t in texts):
        raise KnowledgeError("knowledge text is empty; write an expression such as 'a ^ b'")
    if concepts is None:
        found: list = []
        for t in texts:
            found += [n for n in free_names(t) if n not in found]
        concepts = ",".join(found)
    return task_from_spec({"name": name, "concepts": concepts, "labels": texts, "groups": parse_groups(groups)})


def task_from_sympy(exprs, concepts=None, name: str = "sympy", groups=None) -> Task:
    """Build a task from sympy expressions: one, a list (labels y1, y2, ...) or a mapping label -> expression.

    ``concepts`` is a declaration as text (``"d1=0..9,d2=0..9,col={red,blue}"``) or a mapping name -> domain
    (a range, a list, or ``"bool"``); without it every symbol is a boolean concept. Symbols that name a value of
    some concept's domain (``red``) are that value. Expressions are walked as trees, never turned into text.
    """
    from ..language.sympy_bridge import from_sympy, is_sympy, sympy_names
    items = list(exprs.values()) if isinstance(exprs, Mapping) else exprs if isinstance(exprs, (list, tuple)) \
        else [exprs]
    if not all(is_sympy(e) or isinstance(e, str) for e in items):
        raise TypeError(f"task_from_sympy() takes sympy expressions (one, a list or a mapping label -> expression), "
                        f"not {brief(exprs, 40)}")
    if isinstance(exprs, Mapping):
        named = {str(k): v for k, v in exprs.items()}
    else:
        items = list(exprs) if isinstance(exprs, (list, tuple)) else [exprs]
        named = {("y" if len(items) == 1 else f"y{i}"): e for i, e in enumerate(items, 1)}
    if not named:
        raise KnowledgeError("no expressions given; pass a sympy expression or a list of them")
    if concepts is None:
        concepts = ",".join(sympy_names(named.values()))
    elif isinstance(concepts, Mapping):
        concepts = {str(k): (list(v) if isinstance(v, range) else v) for k, v in concepts.items()}
    declared = parse_concepts(concepts)
    values = frozenset(v for c in declared for v in c.domain if isinstance(v, str))
    labels = tuple(Label(label, from_sympy(e, values), str(e)) for label, e in named.items())
    return Task(name=name, concepts=declared, labels=labels, groups=parse_groups(groups),
                description=f"sympy knowledge: {len(labels)} label(s) over {len(declared)} concepts")


def parse_groups(groups) -> tuple:
    """Concept groups from ``"d1,d2;s1,s2"``, a list of lists or a mapping of lists (None: no groups)."""
    if groups is None:
        return ()
    if isinstance(groups, str):
        groups = [g.split(",") for g in groups.split(";") if g.strip()]
    elif isinstance(groups, Mapping):
        groups = list(groups.values())
    if not isinstance(groups, (list, tuple)) or not all(isinstance(g, (list, tuple)) for g in groups):
        raise TaskError(f"groups must look like 'd1,d2;s1,s2' or a list of lists of concept names, got "
                        f"{brief(groups, 60)}")
    out = tuple(tuple(str(n).strip() for n in g if str(n).strip()) for g in groups)
    if any(not g for g in out):
        raise TaskError("a concept group is empty; name the concepts of each group, e.g. 'd1,d2;s1,s2'")
    return out


def _labels(spec, cnames, values, definitions) -> tuple:
    if isinstance(spec, str):
        spec = {"y": spec}
    elif isinstance(spec, (list, tuple)):
        spec = {("y" if len(spec) == 1 else f"y{i + 1}"): t for i, t in enumerate(spec)}
    elif not isinstance(spec, Mapping):
        raise KnowledgeError(f"labels must be text, a list or a mapping, got {brief(spec)}")
    return tuple(Label(str(n), parse(str(t), cnames, values, definitions), str(t)) for n, t in spec.items())


def _relation_labels(spec, concepts, values, definitions) -> tuple:
    """Turn a relation K(c, y) into functions y = beta_K(c), checking determinism (A2)."""
    if not isinstance(spec, Mapping) or "labels" not in spec or "constraints" not in spec:
        raise KnowledgeError("relation needs 'labels' (label variables and domains) and 'constraints'")
    lab_vars = parse_concepts(spec["labels"])
    clash = {c.name for c in lab_vars} & {c.name for c in concepts}
    if clash:
        raise KnowledgeError(f"relation label {sorted(clash)[0]!r} has the name of a concept, so the constraints "
                             f"could not tell them apart; rename the label")
    combos = math.prod(len(c.domain) for c in lab_vars)
    if combos > MAX_LABEL_COMBOS:
        raise KnowledgeError(f"the relation's labels have {combos:,} value combinations (limit "
                             f"{MAX_LABEL_COMBOS:,}); write the labels as functions instead")
    constraints = spec["constraints"]
    if not isinstance(constraints, (str, list, tuple)):
        raise KnowledgeError(f"relation constraints must be text or a list of texts, got {brief(constraints, 60)}")
    constraints = [constraints] if isinstance(constraints, str) else list(constraints)
    allnames = [c.name for c in concepts] + [c.name for c in lab_vars]
    values = set(values) | {v for c in lab_vars for v in c.domain if isinstance(v, str)}
    rel = Op("and", tuple(parse(str(t), allnames, values, definitions) for t in constraints))
    combos = list(itertools.product(*(c.domain for c in lab_vars)))
    probe = Task("relation", tuple(concepts), tuple(
        Label(f"r{i}", _substitute(rel, dict(zip([c.name for c in lab_vars], combo))))
        for i, combo in enumerate(combos)))
    if probe.space_size > MAX_RELATION_SPACE:
        raise KnowledgeError(f"the relation's determinism check enumerates {probe.space_size} concept "
                             f"vectors (limit {MAX_RELATION_SPACE}); write the labels as functions instead")
    grid = np.array(list(itertools.product(*(range(len(c.domain)) for c in concepts))), dtype=np.int64)
    holds = probe.evaluate(grid) != 0
    per_vector = holds.sum(axis=1)
    if (per_vector == 0).any():
        bad = grid[np.argmax(per_vector == 0)]
        raise KnowledgeError(f"contradictory knowledge: no label satisfies the constraints for "
                             f"concepts {probe.format_vector(bad)}; K must give every concept vector a label")
    if (per_vector > 1).any():
        row = int(np.argmax(per_vector > 1))
        two = [combos[j] for j in np.flatnonzero(holds[row])[:2]]
        raise KnowledgeError(f"knowledge is not deterministic (assumption A2): concepts "
                             f"{probe.format_vector(grid[row])} admit labels {two[0]} and {two[1]}")
    labels = []
    for li, lab in enumerate(lab_vars):
        # beta_l(c) = v  iff  some combo with y_l = v satisfies K: an ITE chain over v.
        expr = Const(lab.domain[-1])
        for v in reversed(lab.domain[:-1]):
            cond = Op("or", tuple(probe.labels[j].expr for j, combo in enumerate(combos) if combo[li] == v))
            expr = Op("ite", (cond, Const(v), expr))
        labels.append(Label(lab.name, expr, f"relation for {lab.name}"))
    return tuple(labels)


def _substitute(expr, values: dict):
    if isinstance(expr, Var) and expr.name in values:
        return Const(values[expr.name])
    if isinstance(expr, Op):
        return Op(expr.op, tuple(_substitute(a, values) for a in expr.args))
    return expr
