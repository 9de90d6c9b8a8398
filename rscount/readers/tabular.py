"""Knowledge as a table: a Python function evaluated over the concept space, or a table of concept vectors and
labels (CSV, Parquet, a pandas DataFrame). Either becomes one label column per label over the whole space, and
each column becomes an expression by a decision diagram over the concepts in order: identical sub-tables are
one node and a concept that changes nothing is skipped, so structured knowledge (a sum) stays small.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from ..errors import KnowledgeError, TaskError, brief
from ..language.logic import Const, Op, Var
from ..model.support import grid
from ..model.task import Concept, Label, Task
from .spec import parse_concepts

__all__ = ["task_from_function", "task_from_table", "MAX_VECTORS"]

MAX_VECTORS = 1 << 22  # concept vectors a function is evaluated on, or a table may list


def _space(concepts, what: str) -> tuple:
    cs = parse_concepts(concepts) if not isinstance(concepts, tuple) or not all(
        isinstance(c, Concept) for c in concepts) else concepts
    size = math.prod(len(c.domain) for c in cs)
    if size > MAX_VECTORS:
        raise KnowledgeError(f"{what} would be evaluated on all {size:,} concept vectors (limit {MAX_VECTORS:,}); "
                             f"write the knowledge as text or a ProbLog program, which compile without listing "
                             f"the space, or use fewer concept values")
    return cs, size


def task_from_function(f: Callable, concepts, *, vectorized: bool = False, labels: Sequence[str] | None = None,
                       name: str | None = None) -> Task:
    """The task whose labels are ``f(**concept values)``: an int, bool or name, or a tuple of them (one label
    each); ``vectorized=True`` calls ``f`` once with numpy arrays. Evaluated once over the concept space (at most
    MAX_VECTORS vectors), with Python's own semantics."""
    if not callable(f):
        raise KnowledgeError(f"task_from_function takes a function, not {type(f).__name__}")
    cs, size = _space(concepts, "the function")
    codes = grid(tuple(len(c.domain) for c in cs))
    columns = [np.array(c.domain, dtype=object)[codes[:, i]] for i, c in enumerate(cs)]
    fname = getattr(f, "__name__", "the function")
    if vectorized:
        try:
            out = f(**{c.name: np.array(col.tolist()) for c, col in zip(cs, columns)})
        except Exception as exc:
            raise KnowledgeError(f"{fname} raised {type(exc).__name__}: {brief(str(exc), 80)}") from None
        outs = list(out) if isinstance(out, tuple) else [out]
        rows = [np.asarray(o).reshape(-1) for o in outs]
        if any(len(r) != size for r in rows):
            raise KnowledgeError(f"{fname} (vectorized) must return an array of {size} labels, one per vector")
        table = [[_label_value(v, fname, cs, codes[n]) for n, v in enumerate(r.tolist())] for r in rows]
    else:
        table = None
        for n in range(size):
            values = {c.name: col[n] for c, col in zip(cs, columns)}
            try:
                out = f(**values)
            except Exception as exc:
                raise KnowledgeError(f"{fname}({_shown(values)}) raised {type(exc).__name__}: "
                                     f"{brief(str(exc), 80)}") from None
            outs = out if isinstance(out, tuple) else (out,)
            if table is None:
                table = [[] for _ in outs]
            if len(outs) != len(table):
                raise KnowledgeError(f"{fname}({_shown(values)}) returned {len(outs)} labels, other vectors "
                                     f"{len(table)}; return the same number of labels everywhere")
            for col, v in zip(table, outs):
                col.append(_label_value(v, fname, cs, codes[n]))
    return _tabulated(cs, table, labels, name or fname, f"function {fname}")


def _shown(values: dict) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in values.items())


def _label_value(v, fname: str, cs, code):
    if isinstance(v, (bool, np.bool_)):
        return int(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (str, np.str_)):
        return str(v)
    where = ", ".join(f"{c.name}={c.domain[u]!r}" for c, u in zip(cs, code))
    raise KnowledgeError(f"{fname}({where}) returned {brief(v, 30)} ({type(v).__name__}); a label is an integer, a "
                         f"bool or a name (round a float yourself if it stands for a class)")


def task_from_table(table, concepts: Sequence[str] | str | None = None, labels: Sequence[str] | None = None, *,
                    name: str | None = None) -> Task:
    """The task a table of concept vectors and labels defines (a pandas DataFrame, or a CSV or Parquet file):
    ``concepts`` are columns (a list of names, or declarations 'd1=0..9,d2=0..9' fixing the domains; default:
    every column but the labels), ``labels`` the label columns (default: the last column). Every concept vector
    of the domains must have exactly one row; the first missing or doubled vector is named."""
    frame, where = _frame(table)
    columns = [str(c) for c in frame.columns]
    labels = list(labels) if labels is not None else columns[-1:]
    declared = None
    if isinstance(concepts, str):
        declared = parse_concepts(concepts)
        names = [c.name for c in declared]
    else:
        names = list(concepts) if concepts is not None else [c for c in columns if c not in labels]
    missing = [c for c in names + labels if c not in columns]
    if missing:
        raise TaskError(f"{where} has no column {missing[0]!r}; its columns: {', '.join(columns)}")
    if not names or not labels:
        raise TaskError(f"{where}: name at least one concept column and one label column")
    if not len(frame):
        raise TaskError(f"{where} has no rows; give one row per concept vector, with its label")
    values = {c: [_cell(v) for v in frame[c].tolist()] for c in names + labels}
    if declared is None:
        declared = tuple(Concept(c, tuple(sorted(set(values[c]), key=lambda x: (isinstance(x, str), x))))
                         for c in names)
    cs, size = _space(declared, where)
    index = {}
    for c in cs:
        pos = {v: i for i, v in enumerate(c.domain)}
        bad = next((v for v in values[c.name] if v not in pos), None)
        if bad is not None:
            raise TaskError(f"{where}: column {c.name} holds {bad!r}, outside its domain "
                            f"{brief(list(c.domain), 40)}")
        index[c.name] = np.array([pos[v] for v in values[c.name]], dtype=np.int64)
    sizes = [len(c.domain) for c in cs]
    code = np.zeros(len(frame), dtype=np.int64)
    for c, d in zip(cs, sizes):
        code = code * d + index[c.name]
    seen = np.full(size, -1, dtype=np.int64)
    first = 2 if where != "the table" else 0  # a file's line numbers (after its header), or a frame's positions
    for row, k in enumerate(code.tolist()):
        if seen[k] >= 0:
            raise TaskError(f"{where}: the concept vector {_vector(cs, k)} has two rows ({seen[k] + first} and "
                            f"{row + first}); give every concept vector exactly one label row")
        seen[k] = row
    if (seen < 0).any():
        k = int(np.argmax(seen < 0))
        raise TaskError(f"{where}: the concept vector {_vector(cs, k)} has no row ({int((seen < 0).sum()):,} of "
                        f"{size:,} are missing); give every concept vector exactly one label row")
    table_cols = [[_cell(values[lab][r]) for r in seen.tolist()] for lab in labels]
    for lab, col in zip(labels, table_cols):
        bad = next((v for v in col if not isinstance(v, (int, str))), None)
        if bad is not None:
            raise TaskError(f"{where}: label column {lab} holds {bad!r}; a label is an integer or a name")
    return _tabulated(cs, table_cols, labels, name or (Path(where).stem if where != "the table" else "table"),
                      where)


def _cell(v):
    if isinstance(v, (bool, np.bool_)):
        return int(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return int(v)
    return v if not isinstance(v, np.str_) else str(v)


def _vector(cs, k: int) -> str:
    out = []
    for c in reversed(cs):
        k, u = divmod(k, len(c.domain))
        out.append(f"{c.name}={c.domain[u]!r}")
    return "(" + ", ".join(reversed(out)) + ")"


def _frame(table) -> tuple:
    if hasattr(table, "columns") and hasattr(table, "iloc"):
        return table, "the table"
    try:
        import pandas as pd
    except ImportError:
        raise TaskError("reading a table needs pandas: pip install 'rscount[sweep]'") from None
    path = Path(table)
    if not path.exists():
        raise TaskError(f"cannot read table {str(path)!r}: no such file")
    try:
        if path.suffix.lower() in (".parquet", ".pq"):
            return pd.read_parquet(path), str(path)
        return pd.read_csv(path), str(path)
    except Exception as exc:
        raise TaskError(f"cannot read table {str(path)!r}: {brief(str(exc), 80)}") from None


def _tabulated(cs: tuple, table: list, labels, name: str, where: str) -> Task:
    names = list(labels) if labels is not None else (["y"] if len(table) == 1 else [f"y{i + 1}" for i in
                                                                                   range(len(table))])
    if len(names) != len(table):
        raise KnowledgeError(f"{where} gives {len(table)} labels but labels= names {len(names)}")
    sizes = tuple(len(c.domain) for c in cs)
    out = tuple(Label(n, _diagram(cs, sizes, col), f"{where}: {n}") for n, col in zip(names, table))
    return Task(name=name, concepts=cs, labels=out, description=f"knowledge tabulated from {where} over "
                f"{math.prod(sizes):,} concept vectors")


def _diagram(cs: tuple, sizes: tuple, column: list):
    """An expression for one label column (grid order, first concept slowest): a reduced decision diagram, built
    from the last concept up, one node per distinct sub-table."""
    values = sorted(set(column), key=lambda x: (isinstance(x, str), x))
    code = {v: i for i, v in enumerate(values)}
    nodes = [Const(v) for v in values]  # node id -> expression
    ids = np.array([code[v] for v in column], dtype=np.int64)
    for i in range(len(cs) - 1, -1, -1):
        rows = ids.reshape(-1, sizes[i])
        unique, inverse = np.unique(rows, axis=0, return_inverse=True)
        made = []
        for row in unique.tolist():
            if len(set(row)) == 1:
                made.append(nodes[row[0]])
                continue
            groups: dict = {}  # child -> the values of concept i that lead to it
            for u, child in enumerate(row):
                groups.setdefault(child, []).append(cs[i].domain[u])
            default = max(groups, key=lambda child: len(groups[child]))
            expr = nodes[default]
            for child, vals in groups.items():
                if child != default:
                    tests = tuple(Op("eq", (Var(cs[i].name), Const(v))) for v in vals)
                    expr = Op("ite", (tests[0] if len(tests) == 1 else Op("or", tests), nodes[child], expr))
            made.append(expr)
        nodes = made
        ids = np.asarray(inverse).reshape(-1)
    return nodes[int(ids[0])]
