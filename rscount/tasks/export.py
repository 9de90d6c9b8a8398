"""Write the knowledge of tasks as DIMACS over concept and label value bits.

Each concept and each label gets one variable per value (one-hot); gates are
Tseitin-defined, so projected on the concept bits the CNF has exactly one
model per concept vector, and adding the label bits keeps that count when the
knowledge is deterministic (assumption A2).
"""
from __future__ import annotations

from pathlib import Path

from ..errors import OutputError
from ..files.writing import staged
from ..language.circuit import Circuit
from ..model.task import Task
from ..readers.dimacs import format_dimacs, write_atomic

__all__ = ["knowledge_cnf", "knowledge_dimacs", "export_library", "LIBRARY_DEFAULTS"]


def knowledge_cnf(task: Task):
    """Return (nvars, clauses, show, names) for K over one-hot concept and label bits."""
    kc = task.compiled
    c = Circuit()
    names, show = {}, []
    inputs = {}
    for (i, u), var in sorted(kc.inputs.items()):
        x = c.var(("x", i, u))
        inputs[var] = x
        names[x] = f"concept {task.concepts[i].name}={task.concepts[i].domain[u]}"
        show.append(x)
    label_bits = []
    for l, tab in enumerate(kc.tables):
        for value in sorted(tab, key=str):
            y = c.var(("y", l, value))
            names[y] = f"label {task.labels[l].name}={value}"
            show.append(y)
            label_bits.append((y, tab[value]))
    for i in range(task.k):
        c.exactly_one([c.pool.id(("x", i, u)) for u in range(task.sizes[i])])
    roots = [lit for _, lit in label_bits]
    mapping = kc.circuit.copy_into(c, inputs, roots)
    for y, lit in label_bits:
        target = Circuit.lookup(mapping, lit)
        c.add((-y, target))
        c.add((y, -target))
    return c.pool.top, c.clauses, show, names


def knowledge_dimacs(task: Task) -> str:
    nvars, clauses, show, names = knowledge_cnf(task)
    header = [f"rscount: knowledge of task {task.name}: {task.description}",
              "variables are one-hot value bits of concepts and labels (see 'c var' lines)",
              "projected on the concept bits there is one model per concept vector"]
    return format_dimacs(nvars, clauses, show, names, header)


LIBRARY_DEFAULTS = ("xor3", "and3", "or3", "mnlogic-random", "mnadd", "mnadd-evenodd", "mnadd-half",
                    "mnmath", "mnmath-b1", "kand-logic", "cle4evr", "sdd-oia", "sdd-oia-ambulance", "bdd-oia", "concon-t1",
                    "raven")


def export_library(folder: str | Path, names=LIBRARY_DEFAULTS) -> list:
    """(Re)write ``folder/NAME.cnf`` for every library task, all or none; return the paths written."""
    from . import get_task
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise OutputError(f"{str(folder)!r} is a file, not a folder; name a folder to write the DIMACS files into")
    if not folder.is_dir():
        raise OutputError(f"folder {str(folder)!r} does not exist; create it first")
    with staged(folder) as stage:
        for name in names:
            write_atomic(stage / f"{name}.cnf", knowledge_dimacs(get_task(name)))
    return [folder / f"{name}.cnf" for name in names]
