"""Import rsbench data-generator YAML configs as tasks (count a design before data exists).

Handles the MNLogic (``n_digits``, ``xor_rule``), MNMath (``num_digits``,
``digit_values``, a list of equations) and Kand-Logic (``shapes``, ``colors``,
``n_shapes``, ``n_figures``, ``aggregator_symbols``, ``aggregator_logic``)
generators; ``combinations_in_distribution`` becomes the default support.
"""
from __future__ import annotations

from pathlib import Path
from typing import Mapping

from .errors import TaskError
from .spec import load_spec, shape_error, task_from_spec
from .task import Task

__all__ = ["task_from_config", "load_config", "CONFIG_FIELDS"]

CONFIG_FIELDS = {"symbols", "logic", "combinations_in_distribution", "digit_values", "n_digits", "num_digits",
                 "xor_rule", "colors", "shapes", "n_shapes", "n_figures", "aggregator_symbols",
                 "aggregator_logic"}
# Fields about images and splits: they do not change the count.
IGNORED = {"prop_in_distribution", "val_prop", "test_prop", "use_mnist", "n_samples", "name", "seed",
           "output_path", "dataset_dimension", "sample_size"}
KAND_SHAPES = ("square", "circle", "triangle")
KAND_COLORS = ("red", "yellow", "blue")


def load_config(path: str | Path) -> Task:
    """Read an rsbench generator YAML file and return its task."""
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
    for field in ("aggregator_logic", "name", "task"):
        if field in cfg and not isinstance(cfg[field], text):
            raise shape_error("config", field, cfg[field], "text")
    if "xor_rule" in cfg and not isinstance(cfg["xor_rule"], bool):
        raise shape_error("config", "xor_rule", cfg["xor_rule"], "true or false")
    combos = cfg.get("combinations_in_distribution")
    if combos not in (None, "all") and not (isinstance(combos, list) and all(
            isinstance(c, (str, int, list)) and not isinstance(c, bool) for c in combos)):
        raise shape_error("config", "combinations_in_distribution", combos, "a list of combinations")


def task_from_config(cfg: Mapping) -> Task:
    """Build the task a generator config describes; unknown or contradictory fields are errors."""
    if not isinstance(cfg, Mapping):
        raise TaskError(f"a generator config must be a mapping of fields, not {type(cfg).__name__}")
    _check_config_shapes(cfg)
    unknown = sorted(set(cfg) - CONFIG_FIELDS - IGNORED)
    if unknown:
        raise TaskError(f"unknown config field {unknown[0]!r}; known fields: {', '.join(sorted(CONFIG_FIELDS))}")
    name = str(cfg.get("name", "config"))
    kand = {"shapes", "colors", "n_shapes", "n_figures", "aggregator_symbols", "aggregator_logic"} & set(cfg)
    math = {"num_digits", "digit_values"} & set(cfg)
    logic_ = {"n_digits", "xor_rule"} & set(cfg)
    kinds = [k for k, fields in (("kand-logic", kand), ("mnmath", math), ("mnlogic", logic_)) if fields]
    if len(kinds) > 1:
        raise TaskError(f"config mixes fields of {kinds[0]} and {kinds[1]} generators; a config describes one")
    kind = kinds[0] if kinds else ("mnmath" if isinstance(cfg.get("logic"), list) else "mnlogic")
    return {"kand-logic": _kand, "mnmath": _mnmath, "mnlogic": _mnlogic}[kind](cfg, name)


def _symbols(cfg, count: int | None, field: str, default: list) -> list:
    symbols = cfg.get("symbols")
    if symbols is None:
        return default
    if not isinstance(symbols, list) or not all(isinstance(s, str) for s in symbols):
        raise TaskError("config field 'symbols' must be a list of names")
    if count is not None and len(symbols) != count:
        raise TaskError(f"config field 'symbols' has {len(symbols)} names but {field} says {count}")
    return symbols


def _support(cfg, rows):
    combos = cfg.get("combinations_in_distribution")
    return "exhaustive" if combos in (None, [], "all") else rows(combos)


def _mnlogic(cfg, name: str) -> Task:
    k = cfg.get("n_digits")
    symbols = _symbols(cfg, k, "'n_digits'", [f"c{i}" for i in range(1, int(k or 3) + 1)])
    xor_rule = cfg.get("xor_rule", "logic" not in cfg)
    if xor_rule and "logic" in cfg:
        raise TaskError("config sets both 'xor_rule: true' and 'logic'; set xor_rule: false to use logic")
    if not xor_rule and "logic" not in cfg:
        raise TaskError("config sets 'xor_rule: false' but gives no 'logic'")
    logic = " ^ ".join(symbols) if xor_rule else cfg["logic"]
    if not isinstance(logic, str):
        raise TaskError("config field 'logic' must be one formula for MNLogic")
    return task_from_spec({"name": name, "concepts": {s: "bool" for s in symbols}, "labels": {"y": logic},
                           "groups": {"bits": symbols}, "support": _support(cfg, lambda c: [str(x) for x in c]),
                           "description": f"MNLogic config: y = {logic}"})


def _mnmath(cfg, name: str) -> Task:
    n = cfg.get("num_digits")
    logic = cfg.get("logic")
    if logic is None:
        raise TaskError("MNMath config needs 'logic': one equation per label")
    logic = [logic] if isinstance(logic, str) else list(logic)
    symbols = _symbols(cfg, n, "'num_digits'", [])
    if not symbols:
        raise TaskError("MNMath config needs 'symbols': the digit names of one equation")
    values = cfg.get("digit_values", list(range(10)))
    if not isinstance(values, list) or not values or not all(isinstance(v, int) for v in values):
        raise TaskError("config field 'digit_values' must be a non-empty list of integers")
    concepts, labels = {}, {}
    for e, eq in enumerate(logic, start=1):
        names = {s: f"{s}{e}" for s in symbols}
        concepts.update({v: values for v in names.values()})
        labels[f"y{e}"] = _rename(str(eq), names)
    return task_from_spec({"name": name, "concepts": concepts, "labels": labels,
                           "groups": {"digits": list(concepts)},
                           "support": _support(cfg, lambda c: [list(str(x)) for x in c]),
                           "description": f"MNMath config: {len(logic)} equations over {len(symbols)} digits each"})


def _kand(cfg, name: str) -> Task:
    shapes = tuple(cfg.get("shapes", KAND_SHAPES))
    colors = tuple(cfg.get("colors", KAND_COLORS))
    for field, vals, allowed in (("shapes", shapes, KAND_SHAPES), ("colors", colors, KAND_COLORS)):
        bad = [v for v in vals if v not in allowed]
        if bad or not vals:
            raise TaskError(f"config field {field!r} must be a non-empty subset of {list(allowed)}, got {list(vals)}")
    p, f = int(cfg.get("n_shapes", 3)), int(cfg.get("n_figures", 2))
    symbols = _symbols(cfg, 2 * p, "2 x 'n_shapes'",
                       [x for i in range(1, p + 1) for x in (f"shape_{i}", f"color_{i}")])
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
            prims = [c for c in combo] if isinstance(combo, list) else [combo]
            if len(prims) != p * f:
                raise TaskError(f"combination {combo!r} lists {len(prims)} primitives; an input has {p * f} "
                                f"('color, shape' strings)")
            row = []
            for prim in prims:
                color, _, shape = str(prim).partition(",")
                row += [shape.strip(), color.strip()]
            out.append(row)
        return out

    return task_from_spec({"name": name, "concepts": concepts, "definitions": defs, "labels": {"y": agg},
                           "groups": {"shapes": [c for i, c in enumerate(concepts) if i % 2 == 0],
                                      "colors": [c for i, c in enumerate(concepts) if i % 2 == 1]},
                           "support": _support(cfg, rows),
                           "description": f"Kand-Logic config: {f} figures x {p} primitives"})


def _rename(text: str, names: dict) -> str:
    """Rename symbols in formula text, token by token (never evaluated)."""
    import io
    import tokenize
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        out.append((tok.type, names.get(tok.string, tok.string) if tok.type == tokenize.NAME else tok.string))
    return tokenize.untokenize(out).strip()
