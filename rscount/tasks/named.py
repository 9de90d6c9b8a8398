"""One way to name a task from a file, wherever a task name goes: a library name, or the path of a spec
(YAML/JSON, ``tasks:`` included), an rsbench generator config or a DIMACS file; a shipped example by its name."""
from __future__ import annotations

from pathlib import Path

from typing import Mapping

from ..errors import TaskError
from ..readers.entries import ENTRY_KINDS, task_from_entry
from ..readers.spec import load_spec, spec_tasks, task_from_spec

__all__ = ["tasks_named", "tasks_from_spec", "read_task_file", "looks_like_file", "resolve_path"]

TASK_SUFFIXES = (".yaml", ".yml", ".json", ".cnf", ".dimacs")
SPEC_KEYS = {"concepts", "labels", "relation", "tasks", "problog", "table"}


def looks_like_file(name: str) -> bool:
    return name.lower().endswith(TASK_SUFFIXES + (".pl", ".csv", ".parquet")) or "/" in name or "\\\\" in name


def resolve_path(name: str | Path, folder: str | Path = ".") -> Path:
    """``name`` under ``folder``, else the shipped example of that name; the path as given where neither exists
    (its reader names the problem)."""
    from ..files.shipped import example_path
    path = Path(folder) / str(name)
    if path.exists():
        return path
    return example_path(str(name)) or path


def read_task_file(path: str | Path) -> list:
    """The tasks of one file, by its kind: a spec's task(s), an rsbench config's task, a DIMACS file's task."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in (".cnf", ".dimacs"):
        from ..readers.dimacs import read_dimacs, task_from_cnf
        return [task_from_cnf(read_dimacs(path), name=f"cnf:{path.name}")]
    if suffix == ".pl":
        raise TaskError(f"{path.name} is a ProbLog program: it needs its query (--problog {path.name} --query ATOM, "
                        f"rscount.task_from_problog(path, query), or a 'problog: {{file, query}}' entry)")
    if suffix in (".csv", ".parquet"):
        raise TaskError(f"{path.name} is a table: it needs its label columns (--table {path.name} --labels COLS, "
                        f"rscount.task_from_table(path, labels=...), or a 'table: {{file, labels}}' entry)")
    if suffix not in (".yaml", ".yml", ".json"):
        raise TaskError(f"{path.name}: a task file is a spec or rsbench config (.yaml, .yml, .json) or DIMACS "
                        f"(.cnf); this suffix is none of them")
    data = load_spec(path)
    if isinstance(data, dict) and not SPEC_KEYS & set(map(str, data)):
        from ..readers.rsbench import task_from_config
        return [task_from_config(data)]
    return tasks_from_spec(path)


def tasks_named(name: str, params: dict | None = None, folder: str | Path = ".") -> list:
    """The task(s) ``name`` names: a library task built with ``params``, else a task file (relative to
    ``folder``, or a shipped example by its name)."""
    from . import get_task
    if not isinstance(name, str):
        raise TypeError(f"a task name is text such as 'xor3' or a file's path, not {type(name).__name__}")
    try:
        return [get_task(name, **(params or {}))]
    except TaskError as exc:
        if not str(exc).startswith("unknown task") or not looks_like_file(name):
            raise
        path = resolve_path(name, folder)
        if not path.is_file():
            raise TaskError(f"no library task and no file {name!r:.80}; name a library task (countrss --list-tasks) "
                            f"or the path of a spec, rsbench config or DIMACS file") from None
    if params:
        raise TaskError(f"parameters ({', '.join(params)}) go with library tasks, not with the file {name}")
    return read_task_file(path)


def tasks_from_spec(spec: Mapping | str | Path) -> list:
    """The tasks of a spec (data or a file): its ``tasks:`` (task specs, library names or task files relative to
    the spec), else the one task."""
    data = spec if isinstance(spec, Mapping) else load_spec(spec)
    folder = Path(spec).parent if isinstance(spec, (str, Path)) else Path(".")
    entry = next((k for k in ENTRY_KINDS if isinstance(data, Mapping) and k in data), None)
    if entry is not None and "tasks" not in data:
        return [task_from_entry(entry, data[entry], folder)]
    items = spec_tasks(data)
    if items is None:
        return [task_from_spec(data)]
    out = []
    for item in items:
        kind = next((k for k in ENTRY_KINDS if isinstance(item, Mapping) and k in item), None)
        if isinstance(item, str):
            out += tasks_named(item, folder=folder)
        elif kind is not None:
            out.append(task_from_entry(kind, item[kind], folder))
        elif "task" in item:  # a library task with its parameters
            extra = sorted(set(item) - {"task", "params"})
            if extra or not isinstance(item.get("params", {}), Mapping):
                raise TaskError(f"a library task item holds 'task' and a mapping 'params', not "
                                f"{extra[0] if extra else 'params ' + repr(item.get('params'))!r}")
            out += tasks_named(str(item["task"]), dict(item.get("params") or {}), folder)
        elif "tasks" in item:
            raise TaskError("a 'tasks:' item holds 'tasks:' of its own; list every task at the top level (tasks "
                            "do not nest)")
        else:
            out.append(task_from_spec(item))
    return out
