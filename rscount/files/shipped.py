"""Where the files shipped with rscount lie: the task library's specs and the examples (specs, rsbench configs,
ProbLog programs), in the checkout or in the installed package."""
from __future__ import annotations

from pathlib import Path

__all__ = ["knowledge_dir", "examples", "example_path"]


def knowledge_dir() -> Path:
    """The folder holding the task spec files."""
    here = Path(__file__).resolve().parents[2] / "knowledge"
    if here.is_dir():
        return here
    from importlib.resources import files
    return Path(str(files("rscount") / "knowledge"))


def examples() -> dict:
    """The example files shipped with rscount, by name (file stem)."""
    folder = knowledge_dir() / "examples"
    return {p.stem: p for p in sorted(folder.iterdir()) if p.suffix in (".yml", ".yaml", ".pl")} \
        if folder.is_dir() else {}


def example_path(name: str) -> Path | None:
    """The shipped example called ``name`` (with or without its suffix, or as knowledge/examples/NAME), if any:
    so that ``load_config("mnmath-table24")`` works from any folder."""
    stem = Path(str(name)).name
    found = examples()
    return found.get(stem) or found.get(Path(stem).stem if Path(stem).suffix in (".yml", ".yaml", ".pl") else "")
