"""The wheel holds every subpackage: pyproject's package list matches the tree."""
from __future__ import annotations

import pytest

tomllib = pytest.importorskip("tomllib")
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_subpackage_is_listed():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "rscount").rglob("__init__.py")}
    found |= {"rscount.knowledge", "rscount.knowledge.examples", "rscount.knowledge.families"}  # knowledge/ ships
    assert listed == found
