"""Import rsbench data-generator YAML configs as tasks (count a design before data exists).

Read as rsbench's own generators and parsers read them (``rssgen``): the
MNLogic / XOR generator (``n_digits``, ``xor_rule``), the MNIST generator
(``num_digits``, ``digit_values``; one formula is MNAdd, a list of them
MNMath), the Kandinsky generator (``shapes``, ``colors``, ``n_shapes``,
``n_figures``, ``aggregator_symbols``, ``aggregator_logic``) and the CLEVR
renderer (``symbols`` read by position as color, shape, material and size of
each object, values from the renderer's own properties file).
``combinations_in_distribution`` becomes the default support, in every form a
generator reads. Fields for data generation only (proportions, sample sizes,
paths) are accepted and listed in the result as not used for counting.
"""
from __future__ import annotations

import dataclasses
import keyword
import re
from pathlib import Path
from typing import Mapping

from ..errors import KnowledgeError, TaskError, brief
from ..model.task import Task
from .spec import load_spec, shape_error, task_from_spec

__all__ = ["task_from_config", "load_config", "CONFIG_FIELDS", "DATA_FIELDS", "CLEVR_PROPERTIES"]

CONFIG_FIELDS = {"symbols", "logic", "combinations_in_distribution", "digit_values", "n_digits", "num_digits",
                 "xor_rule", "colors", "shapes", "n_shapes", "n_figures", "aggregator_symbols",
                 "aggregator_logic", "generator", "properties"}
# Fields that choose images, splits and sizes: rsbench's generators read them, a count does not.
DATA_FIELDS = {"prop_in_distribution", "val_prop", "test_prop", "ood_prop", "use_mnist", "mnist_path", "n_samples",
               "sample_size", "seed", "output_path", "dataset_dimension"}
KAND_SHAPES = ("square", "circle", "triangle")  # rsbench's Kandinsky generator: ALL_SHAPES, ALL_COLORS
KAND_COLORS = ("red", "yellow", "blue")
# rsbench's CLEVR renderer reads rssgen/clevr_config/properties.json by default (--properties_json); a config
# may name other values under `properties` (an rscount field), e.g. CLEVR's original 8 colours.
CLEVR_PROPERTIES = {"color": ("red", "blue"), "shape": ("cube", "star", "toroid"), "material": ("rubber", "metal"),
                    "size": ("large", "medium", "small")}
CLEVR_ATTRIBUTES = ("color", "shape", "material", "size")  # the renderer's order within an object
GENERATORS = {"mnlogic": "mnlogic", "xor": "mnlogic", "mnist": "mnist", "mnadd": "mnist", "mnmath": "mnist",
              "kandinsky": "kandinsky", "kand-logic": "kandinsky", "clevr": "clevr"}


def load_config(path: str | Path) -> Task:
    """Read an rsbench generator YAML file and return its task."""
    if not isinstance(path, (str, Path)):
        raise TypeError(f"load_config() takes the path of a YAML file, not {type(path).__name__}")
    if not Path(path).exists():  # a shipped example by its name, from any folder
        from ..files.shipped import example_path
        path = example_path(str(path)) or path
    data = load_spec(path, "config file")
    return task_from_config(data)


def _check_config_shapes(cfg: Mapping) -> None:
    """Refuse fields of the wrong type before any generator reads them."""
    text, names = (str,), "a list of names"
    counts = ("n_digits", "num_digits", "n_shapes", "n_figures")
    for field in counts:
        value = cfg.get(field)
        if field in cfg and (not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 64):
            raise shape_error("config", field, value, "a whole number from 1 to 64")
    for field in ("symbols", "colors", "shapes", "aggregator_symbols"):
        value = cfg.get(field)
        if field in cfg and (not isinstance(value, list) or not all(isinstance(v, str) for v in value)):
            raise shape_error("config", field, value, names)
    logic = cfg.get("logic")
    if "logic" in cfg and not (isinstance(logic, text) or isinstance(logic, list)
                               and all(isinstance(x, (str, int)) and not isinstance(x, bool) for x in logic)):
        raise shape_error("config", "logic", logic, "a formula or a list of formulas")
    for field in ("aggregator_logic", "name", "task", "generator"):
        if field in cfg and not isinstance(cfg[field], text):
            raise shape_error("config", field, cfg[field], "text")
    if "xor_rule" in cfg and not isinstance(cfg["xor_rule"], bool):
        raise shape_error("config", "xor_rule", cfg["xor_rule"], "true or false")
    props = cfg.get("properties")
    if "properties" in cfg and not (isinstance(props, Mapping) and all(
            isinstance(v, (list, Mapping)) and v and all(isinstance(x, str) for x in v) for v in props.values())):
        raise shape_error("config", "properties", props, "a mapping of attribute names to lists of values")
    combos = cfg.get("combinations_in_distribution")
    if combos not in (None, "all") and not (isinstance(combos, list) and all(
            isinstance(c, (str, int, list)) and not isinstance(c, bool) for c in combos)):
        raise shape_error("config", "combinations_in_distribution", combos, "a list of combinations")


def task_from_config(cfg: Mapping) -> Task:
    """Build the task a generator config describes; unknown or contradictory fields are errors."""
    if not isinstance(cfg, Mapping):
        raise TaskError(f"a generator config must be a mapping of fields, not {type(cfg).__name__}")
    _check_config_shapes(cfg)
    unknown = sorted(set(cfg) - CONFIG_FIELDS - DATA_FIELDS - {"name"})
    if unknown:
        raise TaskError(f"unknown config field {unknown[0]!r}; known fields: {', '.join(sorted(CONFIG_FIELDS))} "
                        f"and, for data generation only, {', '.join(sorted(DATA_FIELDS))}")
    name = str(cfg.get("name", "config"))
    kind, notes = _generator(cfg), []
    task = {"kandinsky": _kand, "mnist": _mnist, "mnlogic": _mnlogic, "clevr": _clevr}[kind](cfg, name, notes)
    unused = sorted(set(cfg) & DATA_FIELDS)
    if unused:
        notes.append(f"config fields for data generation only, not used for counting: {', '.join(unused)}")
    return dataclasses.replace(task, notes=tuple(notes))


def _generator(cfg: Mapping) -> str:
    """Which rsbench generator the config is for: named by ``generator``, else by the fields only it reads."""
    if "generator" in cfg:
        kind = GENERATORS.get(str(cfg["generator"]).lower())
        if kind is None:
            raise TaskError(f"config field 'generator' is {cfg['generator']!r}; choose one of "
                            f"{', '.join(sorted(GENERATORS))}")
        return kind
    kand = {"shapes", "colors", "n_shapes", "n_figures", "aggregator_symbols", "aggregator_logic"} & set(cfg)
    mnist = {"num_digits", "digit_values"} & set(cfg)
    logic_ = {"n_digits", "xor_rule"} & set(cfg)
    kinds = [k for k, fields in (("kand-logic", kand), ("mnmath", mnist), ("mnlogic", logic_)) if fields]
    if len(kinds) > 1:
        raise TaskError(f"config mixes fields of {kinds[0]} and {kinds[1]} generators; a config describes one")
    if kinds:
        return {"kand-logic": "kandinsky", "mnmath": "mnist", "mnlogic": "mnlogic"}[kinds[0]]
    symbols = cfg.get("symbols") or []
    if symbols and all(_clevr_attribute(s) for s in symbols):
        return "clevr"
    if isinstance(cfg.get("logic"), list):
        return "mnist"
    raise TaskError("cannot tell which rsbench generator this config is for: give 'n_digits' (MNLogic), "
                    "'num_digits' (MNIST), 'n_figures' (Kandinsky), CLEVR symbols such as color_1, shape_1, "
                    "material_1, size_1, or 'generator: mnlogic|mnist|kandinsky|clevr'")


def _clevr_attribute(symbol: str) -> str | None:
    head = symbol.split("_")[0].lower()
    return head if head in CLEVR_ATTRIBUTES and re.fullmatch(r"[A-Za-z]+_\d+", symbol) else None


def _support(cfg, rows):
    combos = cfg.get("combinations_in_distribution")
    return "exhaustive" if combos in (None, [], "all") else rows(combos)


def _letters(n: int) -> list:
    """rsbench's XOR generator names its digits a, b, ..., z, aa, ab, ... ; a name that is a Python keyword
    ('as', 'if', 'in', 'is', 'or') gets a trailing _ so knowledge text can name it."""
    out = []
    for i in range(n):
        q, r = divmod(i, 26)
        name = "abcdefghijklmnopqrstuvwxyz"[r]
        while q > 0:
            q, r = divmod(q - 1, 26)
            name = "abcdefghijklmnopqrstuvwxyz"[r] + name
        out.append(name + "_" if keyword.iskeyword(name) else name)
    return out


def _mnlogic(cfg, name: str, notes: list) -> Task:
    k = cfg.get("n_digits")
    symbols = cfg.get("symbols")
    xor_rule = cfg.get("xor_rule", "logic" not in cfg)
    if xor_rule:
        if k is None:
            k = len(symbols) if symbols else 3
        symbols, logic = _letters(k), " ^ ".join(_letters(k))
        renamed = [s for s in symbols if s.endswith("_")]
        if renamed:
            notes.append(f"digits {', '.join(renamed)} are rsbench's {', '.join(s[:-1] for s in renamed)} (Python "
                         f"keywords, renamed so the knowledge can name them)")
        if "logic" in cfg or cfg.get("symbols") not in (None, symbols):
            notes.append("xor_rule: true, so the label is the XOR of every digit (a, b, c, ...) and the config's "
                         "logic and symbols are not read, as rsbench's generator does")
    else:
        if "logic" not in cfg:
            raise TaskError("config sets 'xor_rule: false' but gives no 'logic'")
        logic = cfg["logic"]
        if isinstance(logic, list) and len(logic) == 1:
            logic = logic[0]
        if not isinstance(logic, str):
            raise TaskError("config field 'logic' must be one formula for MNLogic")
        symbols = list(symbols or [f"c{i}" for i in range(1, int(k or 3) + 1)])
        k = len(symbols) if k is None else k
        if len(symbols) > k:
            raise TaskError(f"config field 'symbols' has {len(symbols)} names but 'n_digits' says {k}")
        symbols += [f"digit{i}" for i in range(len(symbols) + 1, k + 1)]  # digits no symbol names: never read

    def rows(combos):
        out = []
        for c in combos:
            bits = str(c).strip()
            if len(bits) != k or set(bits) - {"0", "1"}:
                raise TaskError(f"combination {c!r} must be {k} binary digits such as '{'0' * k}'")
            out.append(bits)
        return out
    return task_from_spec({"name": name, "concepts": {s: "bool" for s in symbols}, "labels": {"y": logic},
                           "groups": {"bits": symbols}, "support": _support(cfg, rows),
                           "description": f"MNLogic config: y = {logic}"})


def _mnist(cfg, name: str, notes: list) -> Task:
    logic = cfg.get("logic")
    if logic is None:
        raise TaskError("MNIST config needs 'logic': one formula (MNAdd) or one equation per label (MNMath)")
    logic = [logic] if isinstance(logic, (str, int)) else list(logic)
    symbols = list(cfg.get("symbols") or [])
    if not symbols:
        raise TaskError("MNIST config needs 'symbols': the digit names of one equation")
    n = cfg.get("num_digits", len(symbols))
    if len(symbols) > n:
        raise TaskError(f"config field 'symbols' has {len(symbols)} names but 'num_digits' says {n}")
    values = cfg.get("digit_values", list(range(10)))
    if not isinstance(values, list) or not values or not all(
            isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 9 for v in values):
        raise TaskError("config field 'digit_values' must be a non-empty list of digits 0..9")
    symbols += [f"digit{i}" for i in range(len(symbols) + 1, n + 1)]  # digits no symbol names: never read
    concepts, labels = {}, {}
    for e, eq in enumerate(logic, start=1):
        names = {s: f"{s}{e}" if len(logic) > 1 else s for s in symbols}
        concepts.update({v: values for v in names.values()})
        labels[f"y{e}" if len(logic) > 1 else "y"] = _rename(str(eq), names)
    width = len(concepts)

    def rows(combos):
        out = []
        for c in combos:
            digits = re.findall(r"\d", str(c))  # as the generator reads them: every digit, in order
            if len(digits) != width:
                raise TaskError(f"combination {c!r} lists {len(digits)} digits; an input has {width} "
                                f"({len(logic)} equation(s) of {n} digits)")
            out.append([int(d) for d in digits])
        return out
    kind = "MNMath" if len(logic) > 1 else "MNAdd"
    return task_from_spec({"name": name, "concepts": concepts, "labels": labels,
                           "groups": {"digits": list(concepts)}, "support": _support(cfg, rows),
                           "description": f"{kind} config: {len(logic)} equation(s) over {n} digits each"})


def _objects(combo, figures: int, per_figure: int, words: int, what: str) -> list:
    """The objects of one combination, nested as rsbench's generators read it ([figure][object] strings) or flat."""
    if isinstance(combo, list) and combo and all(isinstance(f, list) for f in combo):
        if len(combo) != figures or any(len(f) != per_figure for f in combo):
            raise TaskError(f"combination {brief(combo, 80)} must hold {figures} figure(s) of {per_figure} {what} each")
        flat = [o for f in combo for o in f]
    else:
        flat = combo if isinstance(combo, list) else [combo]
        if len(flat) != figures * per_figure:
            raise TaskError(f"combination {brief(combo, 80)} lists {len(flat)} {what}; an input has "
                            f"{figures * per_figure} ({figures} figure(s) of {per_figure})")
    out = []
    for obj in flat:
        parts = re.findall(r"\b\w+\b", str(obj))
        if len(parts) != words:
            raise TaskError(f"{what[:-1]} {obj!r} must name {words} values")
        out.append(parts)
    return out


def _kand(cfg, name: str, notes: list) -> Task:
    shapes = tuple(cfg.get("shapes", KAND_SHAPES))
    colors = tuple(cfg.get("colors", KAND_COLORS))
    for field, vals, allowed in (("shapes", shapes, KAND_SHAPES), ("colors", colors, KAND_COLORS)):
        bad = [v for v in vals if v not in allowed]
        if bad or not vals:
            raise TaskError(f"config field {field!r} must be a non-empty subset of {list(allowed)}, got {list(vals)}")
    p, f = int(cfg.get("n_shapes", 3)), int(cfg.get("n_figures", 2))
    default = [x for i in range(1, p + 1) for x in (f"shape_{i}", f"color_{i}")]
    symbols = list(cfg.get("symbols") or default)
    if len(symbols) > 2 * p:
        raise TaskError(f"config field 'symbols' has {len(symbols)} names but 2 x 'n_shapes' is {2 * p}")
    symbols += default[len(symbols):]  # the generator reads shape, color of each object in order
    if "logic" not in cfg:
        raise TaskError("Kand-Logic config needs 'logic': the formula each figure must satisfy")
    agg_syms = cfg.get("aggregator_symbols", [f"pattern_{i}" for i in range(1, f + 1)])
    if len(agg_syms) != f:
        raise TaskError(f"config field 'aggregator_symbols' has {len(agg_syms)} names but n_figures is {f}")
    agg = str(cfg.get("aggregator_logic", " & ".join(agg_syms)))
    concepts, defs = {}, {}
    for fig in range(1, f + 1):
        names = {s: f"{s}_f{fig}" for s in symbols}
        for s in symbols:
            concepts[names[s]] = list(shapes if symbols.index(s) % 2 == 0 else colors)
        defs[agg_syms[fig - 1]] = _rename(str(cfg["logic"]), names)

    def rows(combos):
        out = []
        for combo in combos:
            row = []
            for color, shape in _objects(combo, f, p, 2, "primitives ('color, shape' strings)"):
                row += [shape, color]
            out.append(row)
        return out

    return task_from_spec({"name": name, "concepts": concepts, "definitions": defs, "labels": {"y": agg},
                           "groups": {"shapes": [c for i, c in enumerate(concepts) if i % 2 == 0],
                                      "colors": [c for i, c in enumerate(concepts) if i % 2 == 1]},
                           "support": _support(cfg, rows),
                           "description": f"Kand-Logic config: {f} figures x {p} primitives"})


def _clevr(cfg, name: str, notes: list) -> Task:
    symbols = list(cfg.get("symbols") or [])
    if not symbols or "logic" not in cfg or not isinstance(cfg["logic"], str):
        raise TaskError("CLEVR config needs 'symbols' (color_1, shape_1, material_1, size_1, ...) and one 'logic'")
    props = {**CLEVR_PROPERTIES, **{str(k).rstrip("s"): tuple(v) for k, v in (cfg.get("properties") or {}).items()}}
    unknown = sorted(set(props) - set(CLEVR_ATTRIBUTES))
    if unknown:
        raise TaskError(f"config field 'properties' names {unknown[0]!r}; CLEVR objects have "
                        f"{', '.join(a + 's' for a in CLEVR_ATTRIBUTES)}")
    concepts = {}
    for i, s in enumerate(symbols):
        attribute = CLEVR_ATTRIBUTES[i % 4]  # the renderer substitutes object values by position
        named = _clevr_attribute(s)
        if named is not None and named != attribute:
            raise TaskError(f"CLEVR symbol {s!r} stands at position {i + 1}, where the renderer puts object "
                            f"{i // 4 + 1}'s {attribute}; list symbols as color, shape, material, size per object")
        concepts[s] = list(props[attribute])
    objects = (len(symbols) + 3) // 4
    source = "the config's 'properties'" if cfg.get("properties") else \
        "rsbench's CLEVR properties file (rssgen/clevr_config/properties.json)"
    notes.append(f"CLEVR attribute values from {source}: " +
                 "; ".join(f"{a}s {', '.join(props[a])}" for a in CLEVR_ATTRIBUTES))

    def rows(combos):
        out = []
        for combo in combos:
            row = [v for obj in _objects(combo, 1, objects, 4, "objects ('color shape material size' strings)")
                   for v in obj][:len(symbols)]
            out.append(row)
        return out
    return task_from_spec({"name": name, "concepts": concepts, "labels": {"y": str(cfg["logic"])},
                           "support": _support(cfg, rows),
                           "description": f"CLEVR config: {objects} objects, {len(symbols)} attributes"})


def _rename(text: str, names: dict) -> str:
    """Rename symbols in formula text, token by token (never evaluated)."""
    import io
    import tokenize
    out = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            out.append((tok.type, names.get(tok.string, tok.string) if tok.type == tokenize.NAME else tok.string))
    except (tokenize.TokenError, SyntaxError) as exc:
        raise KnowledgeError(f"syntax error in config logic {brief(text)}: {exc.args[0]}; check its brackets "
                             f"and quotes") from None
    return tokenize.untokenize(out).strip()
