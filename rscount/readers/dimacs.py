"""Read and write DIMACS CNF, with ``c p show`` projection lines and variable names."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from ..errors import DimacsError
from ..files.reading import read_text
from ..files.writing import write_atomic

__all__ = ["Cnf", "read_dimacs", "parse_dimacs", "format_dimacs", "write_atomic", "task_from_cnf"]

MAX_VARS = 1 << 24  # declared variables (gates included)
MAX_CLAUSES = 1 << 24
MAX_CONCEPTS = 100_000  # variables read as concepts (each gets alpha variables): past this no counter can help


@dataclass(frozen=True)
class Cnf:
    """A parsed DIMACS file: clauses, declared variables, projection and names."""

    nvars: int
    clauses: tuple = field(repr=False)
    show: tuple | None = None
    names: dict = field(default_factory=dict, repr=False)


def parse_dimacs(text: str, source: str = "<text>") -> Cnf:
    """Parse DIMACS text; raise :class:`DimacsError` naming the line on any defect."""
    nvars = nclauses = None
    clauses, current, show, names = [], [], None, {}
    named_at: dict = {}
    for lineno, raw in enumerate(text.removeprefix("\ufeff").splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        if line == "%":  # SATLIB's trailer ('%' then '0'): the clauses end here
            break
        if line.startswith("c"):
            parts = line.split()
            shows = parts[1:3] == ["p", "show"]
            if shows or parts[1:2] == ["ind"]:  # several lines add up (MCC); 'c ind' is the older projection line
                shown = [v for v in _ints(parts[3 if shows else 2:], source, lineno) if v != 0]
                show = tuple(dict.fromkeys((show or ()) + tuple(shown)))
            elif len(parts) >= 4 and parts[1] == "var" and _INT.fullmatch(parts[2]):
                var = int(parts[2])
                if var in names:
                    raise DimacsError(f"{source}:{lineno}: 'c var {var}' names variable {var} again (first on line "
                                      f"{named_at[var]}); name each variable once")
                names[var], named_at[var] = " ".join(parts[3:]), lineno
            continue
        if line.startswith("p"):
            parts = line.split()
            if nvars is not None:
                raise DimacsError(f"{source}:{lineno}: second 'p cnf' header")
            if len(parts) != 4 or parts[1] != "cnf":
                raise DimacsError(f"{source}:{lineno}: header must be 'p cnf VARS CLAUSES', got {line!r}")
            nvars, nclauses = _ints(parts[2:], source, lineno)
            if nvars < 0 or nclauses < 0:
                raise DimacsError(f"{source}:{lineno}: negative count in header {line!r}")
            if nvars > MAX_VARS or nclauses > MAX_CLAUSES:
                raise DimacsError(f"{source}:{lineno}: header {line!r} declares more than {MAX_VARS:,} variables "
                                  f"or {MAX_CLAUSES:,} clauses, over what rscount reads; split the problem")
            continue
        if nvars is None:
            raise DimacsError(f"{source}:{lineno}: clause before the 'p cnf' header")
        for lit in _ints(line.split(), source, lineno):
            if lit == 0:
                clauses.append(tuple(current))
                current = []
            elif abs(lit) > nvars:
                raise DimacsError(f"{source}:{lineno}: literal {lit} exceeds the {nvars} declared variables")
            else:
                current.append(lit)
    if nvars is None:
        raise DimacsError(f"{source}: no 'p cnf VARS CLAUSES' header; is this a DIMACS CNF file?")
    if current:
        clauses.append(tuple(current))
    if len(clauses) != nclauses:
        raise DimacsError(f"{source}: header declares {nclauses} clauses but the file has {len(clauses)}")
    if show is not None and any(abs(v) > nvars or v <= 0 for v in show):
        raise DimacsError(f"{source}: 'c p show' names a variable outside 1..{nvars}")
    beyond = next((v for v in sorted(names) if not 1 <= v <= nvars), None)
    if beyond is not None:
        raise DimacsError(f"{source}:{named_at[beyond]}: 'c var {beyond}' names a variable outside the header's "
                          f"1..{nvars}")
    return Cnf(nvars, tuple(clauses), show, names)


_INT = re.compile(r"-?[0-9]+")  # ASCII digits only: str.isdigit() also takes '²', which int() refuses


def _ints(tokens, source, lineno) -> list:
    for t in tokens:
        if not _INT.fullmatch(t):
            raise DimacsError(f"{source}:{lineno}: {t[:40]!r} is not an integer")
        if len(t) > 20:
            raise DimacsError(f"{source}:{lineno}: {t[:40]!r} is too large for a DIMACS number")
    return [int(t) for t in tokens]


def read_dimacs(path: str | Path) -> Cnf:
    path = Path(path)
    return parse_dimacs(read_text(path, "DIMACS file", DimacsError), str(path))


def format_dimacs(nvars: int, clauses: Iterable, show: Iterable[int] | None = None,
                  names: dict | None = None, header: Iterable[str] = ()) -> str:
    """Return DIMACS text with comment lines, a ``c p show`` line and ``c var`` names."""
    clauses = list(clauses)
    lines = [f"c {h}" for h in header]
    for var, name in sorted((names or {}).items()):
        lines.append(f"c var {var} {name}")
    if show is not None:
        lines.append("c p show " + " ".join(map(str, show)) + " 0")
    lines.append(f"p cnf {nvars} {len(clauses)}")
    lines += [" ".join(map(str, c)) + " 0" for c in clauses]
    return "\n".join(lines) + "\n"


def task_from_cnf(cnf: Cnf, name: str = "cnf"):
    """The knowledge of a DIMACS file as a task.

    A file that names its variables (``c var N concept c1=0`` / ``label y=1``, as our export writes) gives those
    concepts and labels; one with only a ``c p show`` line gives a boolean concept per shown variable and the
    label "the formula holds". Variables neither named nor shown are existentially quantified: they must be
    Tseitin gates (see :mod:`rscount.readers.tseitin`). A file with neither line is rsbench's ``cnf`` task: every
    variable a boolean concept, the label "the formula holds".
    """
    from ..language.logic import Const, Op, Var
    from ..model.task import Concept, Label, Task

    if cnf.nvars == 0:
        raise DimacsError(f"{name}: the CNF declares no variables; there are no concepts to count over")
    if any(text.split(" ", 1)[0] in ("concept", "label") for text in cnf.names.values()):
        return _named_task(cnf, name)
    if cnf.show is not None:
        return _shown_task(cnf, name)
    if cnf.nvars > MAX_CONCEPTS:
        raise DimacsError(f"{name}: every one of the {cnf.nvars:,} variables would be a concept (no 'c p show' or "
                          f"'c var' lines), over the limit of {MAX_CONCEPTS:,}; show the concept variables")
    concepts = tuple(Concept(f"x{i}", (0, 1)) for i in range(1, cnf.nvars + 1))
    clauses = []
    for clause in cnf.clauses:
        lits = tuple(Var(f"x{lit}") if lit > 0 else Op("not", (Var(f"x{-lit}"),)) for lit in clause)
        clauses.append(Op("or", lits) if lits else Const(0))
    expr = Op("and", tuple(clauses))
    return Task(name=name, concepts=concepts, labels=(Label("y", expr, "the CNF holds"),),
                description=f"DIMACS CNF over {cnf.nvars} variables, {len(cnf.clauses)} clauses")


def _or(literal, clause):
    from ..language.logic import Const, Op
    return Op("or", tuple(literal(lit) for lit in clause)) if clause else Const(0)


def _named_task(cnf: Cnf, name: str):
    """Concepts and labels from the 'c var' lines; every other variable a Tseitin gate."""
    from ..language.logic import Const
    from ..model.task import Label, Task
    from . import tseitin

    bits = tseitin.read_bits(cnf.names, name)
    concepts, leaves = tseitin.concept_leaves(bits, name)
    labels = bits.of("label")
    if not labels:
        raise DimacsError(f"{name}: the 'c var' lines name no label; name the label bits 'label NAME=VALUE'")
    label_bits = {var for values in labels.values() for _, var in values}
    defs, rest = tseitin.gate_definitions(cnf.clauses, set(leaves), label_bits)
    for clause in [c for c in rest if len(c) == 1 and abs(c[0]) in label_bits and abs(c[0]) not in defs]:
        leaves[abs(clause[0])] = Const(1 if clause[0] > 0 else 0)  # a label bit fixed by a unit clause
    literal = tseitin.knowledge_from_gates(leaves, defs, name)
    tseitin.check_constraints([_or(literal, c) for c in rest], concepts, name)
    tseitin.one_hot_labels(cnf.clauses, cnf.nvars, bits, name)
    out = tuple(Label(label, tseitin.label_expression(values, literal), f"label bits of {label}")
                for label, values in labels.items())
    return Task(name=name, concepts=concepts, labels=out,
                description=f"DIMACS knowledge over {len(concepts)} named concepts, {len(defs)} gates")


def _shown_task(cnf: Cnf, name: str):
    """A boolean concept per shown variable; the hidden ones Tseitin gates; the label: the formula holds."""
    from ..language.logic import Op, Var
    from ..model.task import Concept, Label, Task
    from . import tseitin

    leaves = {v: Var(f"x{v}") for v in cnf.show}
    defs, rest = tseitin.gate_definitions(cnf.clauses, set(leaves))
    literal = tseitin.knowledge_from_gates(leaves, defs, name)
    expr = Op("and", tuple(_or(literal, c) for c in rest))
    concepts = tuple(Concept(f"x{v}", (0, 1)) for v in cnf.show)
    return Task(name=name, concepts=concepts, labels=(Label("y", expr, "the CNF holds"),),
                description=f"DIMACS CNF over {len(concepts)} shown variables, {len(defs)} gates quantified out")
