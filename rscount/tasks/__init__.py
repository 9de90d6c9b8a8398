"""The task library: spec files under knowledge/ and parametric families.

>>> get_task("xor3").summary()
'xor3: 3 concepts (c1:bool, c2:bool, c3:bool); labels: y'
"""
from __future__ import annotations

import re

from ..errors import TaskError
from ..files.shipped import example_path, examples, knowledge_dir
from ..model.task import Task
from ..readers.spec import load_spec, task_from_spec
from . import families

__all__ = ["get_task", "task_names", "knowledge_dir", "examples", "example_path", "FAMILIES"]

FAMILIES = families.FAMILIES
_SIZED = re.compile(r"(xor|and|or)([0-9]{1,9})")


def _spec_files() -> dict:
    folder = knowledge_dir()
    return {p.stem: p for p in sorted(folder.glob("*.yaml"))} if folder.is_dir() else {}


def task_names() -> list:
    """Names a user can pass to :func:`get_task`: the sized families (xorK, andK, orK) with their default size,
    as ``xor3``."""
    sized = {name: f"{name}{_DEFAULT_K}" for name in ("xor", "and", "or")}
    return sorted({sized.get(n, n) for n in FAMILIES} | set(_spec_files()))


_DEFAULT_K = 3


def get_task(name: str, **params) -> Task:
    """Return the library task ``name`` (``xor3``, ``and4``, ``mnadd``, ...) built with ``params``."""
    if not isinstance(name, str):
        raise TypeError(f"a task name is text such as 'xor3', not {type(name).__name__}")
    m = _SIZED.fullmatch(name)
    if m:
        if "k" in params:
            if str(params["k"]).strip() != str(int(m.group(2))):
                raise TaskError(f"task {name} already fixes k={int(m.group(2))}; for k={str(params['k']).strip()} name "
                                f"task {m.group(1)}{str(params['k']).strip()} (or task {m.group(1)} with param k)")
            params = {key: v for key, v in params.items() if key != "k"}
        return FAMILIES[m.group(1)](k=int(m.group(2)), **params)
    if name in FAMILIES:
        return FAMILIES[name](**params)
    specs = _spec_files()
    if name in specs:
        if params:
            raise TaskError(f"task {name} is a fixed spec and takes no parameters (got {', '.join(params)})")
        return task_from_spec(load_spec(specs[name]))
    hint = ("; knowledge text goes to rscount.task_from_text(text, concepts), or --knowledge on the command line"
            if re.search(r"[^A-Za-z0-9_-]", name) else f"; known tasks: {', '.join(task_names())} "
            f"(xorK/andK/orK take any K >= 2)")
    raise TaskError(f"unknown task {name!r:.80}{hint}")
