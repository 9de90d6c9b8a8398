"""The task library: spec files under knowledge/ and parametric families.

>>> get_task("xor3").summary()
'xor3: 3 concepts (c1:bool, c2:bool, c3:bool); labels: y'
"""
from __future__ import annotations

import re
from pathlib import Path

from ..errors import TaskError
from ..spec import load_spec, task_from_spec
from ..task import Task
from . import families

__all__ = ["get_task", "task_names", "knowledge_dir", "FAMILIES"]

FAMILIES = families.FAMILIES
_SIZED = re.compile(r"^(xor|and|or)(\d+)$")


def knowledge_dir() -> Path:
    """The folder holding the task spec files."""
    here = Path(__file__).resolve().parents[2] / "knowledge"
    if here.is_dir():
        return here
    from importlib.resources import files
    return Path(str(files("rscount") / "knowledge"))


def _spec_files() -> dict:
    folder = knowledge_dir()
    return {p.stem: p for p in sorted(folder.glob("*.yaml"))} if folder.is_dir() else {}


def task_names() -> list:
    """Names a user can pass to :func:`get_task` (families shown with their default size)."""
    return sorted(set(FAMILIES) | set(_spec_files()))


def get_task(name: str, **params) -> Task:
    """Return the library task ``name`` (``xor3``, ``and4``, ``mnadd``, ...) built with ``params``."""
    m = _SIZED.match(name)
    if m:
        if "k" in params:
            if str(params["k"]).strip() != str(int(m.group(2))):
                raise TaskError(f"task {name} already fixes k={m.group(2)}; drop the parameter k or use task {m.group(1)}")
            params = {key: v for key, v in params.items() if key != "k"}
        return FAMILIES[m.group(1)](k=int(m.group(2)), **params)
    if name in FAMILIES:
        return FAMILIES[name](**params)
    specs = _spec_files()
    if name in specs:
        if params:
            raise TaskError(f"task {name} is a fixed spec and takes no parameters (got {', '.join(params)})")
        return task_from_spec(load_spec(specs[name]))
    raise TaskError(f"unknown task {name!r}; known tasks: {', '.join(task_names())} "
                    f"(xorK/andK/orK take any K >= 2); see task_names()")
