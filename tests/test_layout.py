"""The house: the front door alone at the top of rscount/, stage folders that import one way, every public
name and every module path the docs name importable (old paths too, as the same modules)."""
from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import rscount

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "rscount"
FRONT_DOOR = {"__init__.py", "__main__.py", "api.py", "cli.py", "errors.py", "version.py"}
# The stage folders from the ground up (docs/design.md): a folder imports only from folders before it.
FLOORS = ["runtime", "files", "language", "results", "model", "readers", "tasks", "problems", "counters", "heads",
          "planning", "api", "auditing", "rules", "harness", "sweeps", "cli"]


def test_top_level_is_the_front_door():
    assert {p.name for p in PKG.glob("*.py")} <= FRONT_DOOR
    folders = {p.name for p in PKG.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert folders == set(FLOORS) - {"api", "cli"}


def test_every_public_name_imports():
    for name in rscount.__all__:
        assert getattr(rscount, name) is not None, name


def _targets(path: Path) -> set:
    """The stage folders (or front-door modules) one file of rscount imports from, read from its syntax tree."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    package = parts[:-1] if parts[-1] != "__init__" else parts[:-1]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = list(package[:len(package) - node.level + 1]) + (node.module.split(".") if node.module else [])
            names = [base + [a.name] for a in node.names] if len(base) == 1 else [base]
            out |= {n[1] for n in names if len(n) > 1}
    return out


def _stage(path: Path) -> str:
    rel = path.relative_to(PKG).parts
    return rel[0] if len(rel) > 1 else rel[0][:-3]


def test_stages_import_one_way():
    """No folder imports a folder above it (so no circle between folders); errors and version are for all."""
    order = {name: n for n, name in enumerate(FLOORS)}
    wrong = []
    for path in PKG.rglob("*.py"):
        here = _stage(path)
        if here not in order:
            continue
        for there in _targets(path) - {"errors", "version", here}:
            if there in order and order[there] > order[here]:
                wrong.append(f"{path.relative_to(ROOT)} -> {there}")
    assert not wrong, wrong


def _documented_paths() -> set:
    text = "\n".join(p.read_text() for p in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")])
    return set(re.findall(r"\brscount\.[a-z_]+(?:\.[A-Za-z_]+)*", text))


def test_every_path_the_docs_name_imports():
    missing = []
    for dotted in sorted(_documented_paths()):
        parts = dotted.split(".")
        for cut in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:cut]))
            except ImportError:
                continue
            try:
                for name in parts[cut:]:
                    obj = getattr(obj, name)
            except AttributeError:
                missing.append(dotted)
            break
        else:
            missing.append(dotted)
    assert not missing, missing


def test_paths_from_before_the_stage_folders_are_the_same_modules():
    for old, new in rscount._MOVED.items():
        assert importlib.import_module(f"rscount.{old}") is importlib.import_module(f"rscount.{new}"), old
