"""Knowledge named by an entry of a spec, a sweep grid or a ``tasks:`` list: ``problog: {file, query,
as_concepts}`` or ``table: {file, concepts, labels}``, files read relative to the folder of the file naming them."""
from __future__ import annotations

from pathlib import Path
from typing import Mapping

from ..errors import TaskError, brief
from ..model.task import Task

__all__ = ["ENTRY_KINDS", "task_from_entry"]

ENTRY_KINDS = {"problog": ("file", "query", "as_concepts", "name"), "table": ("file", "concepts", "labels", "name")}


def task_from_entry(kind: str, entry, folder: str | Path = ".") -> Task:
    """The task of one ``problog:`` or ``table:`` entry (a mapping of the keys ENTRY_KINDS names)."""
    if not isinstance(entry, Mapping) or "file" not in entry:
        raise TaskError(f"'{kind}:' is a mapping with a 'file' (and for problog a 'query'), not {brief(entry, 50)}")
    unknown = sorted(set(map(str, entry)) - set(ENTRY_KINDS[kind]))
    if unknown:
        raise TaskError(f"'{kind}:' has no key {unknown[0]!r}; its keys: {', '.join(ENTRY_KINDS[kind])}")
    path = Path(folder) / str(entry["file"])
    if kind == "problog":
        from .problog import task_from_problog
        if "query" not in entry:
            raise TaskError("'problog:' needs a 'query' (one atom, or a list of them), e.g. addition(a, b, Z)")
        return task_from_problog(path, entry["query"], as_concepts=list(entry.get("as_concepts") or ()),
                                 name=entry.get("name"))
    from .tabular import task_from_table
    return task_from_table(path, entry.get("concepts"), entry.get("labels"), name=entry.get("name"))
