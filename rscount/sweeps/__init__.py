"""Sweeps: grids of counts, audits and training runs on Dask, written as tidy tables that resume.

``rscount.sweep(grid, out=...)`` and ``countrss sweep GRID.yaml --out FILE``
cross a grid (:mod:`.grid`) into points, run each point (:mod:`.jobs`) on a
Dask cluster (:mod:`.engine`) and write one row per point (:mod:`.table`);
points already in the output are not run again. Dask, pandas and pyarrow
are the ``sweep`` extra; a single count imports none of them.
"""
from __future__ import annotations

import functools
from pathlib import Path
from typing import Callable, Mapping, Optional

from .grid import Grid, Point, SweepError, grid_from_mapping, load_grid
from .jobs import ROW_FIELDS, run_point
from .table import columns, open_table, read_rows

__all__ = ["sweep", "Grid", "Point", "SweepError", "load_grid", "grid_from_mapping", "run_point", "read_rows",
           "SweepTable", "ROW_FIELDS", "summary"]


def sweep(grid: Grid | Mapping | str | Path, out: str | Path | None = None, *, workers: int | None = None,
          scheduler: str | None = None, progress: Optional[Callable[[dict], None]] = None, dashboard: bool = False,
          warn: bool = True):
    """Run every point of ``grid`` (a Grid, a mapping or a grid file) not yet in ``out``; return all rows as a
    :class:`SweepTable` (a pandas DataFrame with ``.plot(x=, y=, hue=)``).

    ``workers`` single-threaded processes on a LocalCluster (default: one per core), or the Dask cluster at
    ``scheduler`` (``tcp://HOST:8786``). With ``out`` (``.jsonl``, ``.csv`` or a ``.parquet`` folder) rows are
    written as points finish, and a second call with the same output resumes where the first stopped.
    ``dashboard`` serves Dask's dashboard for the local cluster (bokeh); ``progress`` receives its address.
    Points that did not count (error, timeout, lost) raise a warning with the tally (``warn=False``: none).
    """
    if isinstance(grid, (str, Path)):
        grid = load_grid(grid)
    elif isinstance(grid, Mapping):
        grid = grid_from_mapping(grid)
    elif not isinstance(grid, Grid):
        raise TypeError(f"sweep() takes a grid file, a mapping or a Grid, not {type(grid).__name__}")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise SweepError(f"workers= must be a whole number of at least 1, not {workers!r:.30}")
    table = _run(grid, out, workers, scheduler, progress, dashboard)
    if warn and len(table) and (table["status"] != "ok").any():
        import warnings
        warnings.warn(f"{summary(table, grid.name, out or '')}; see the status and message columns", stacklevel=2)
    return table


def _run(grid: Grid, out, workers, scheduler, progress, dashboard):
    """sweep() without its warning."""
    from .engine import run_grid
    if out is None:
        rows: list = []
        run_grid(grid, list(grid.points), rows.extend, workers=workers, scheduler=scheduler, progress=progress,
                 dashboard=dashboard)
        return _table_class().of(rows)
    with open_table(out, ROW_FIELDS) as table:
        todo = [p for p in grid.points if p.key not in table.done]
        if progress is not None:
            progress({"done": 0, "failed": 0, "running": 0, "total": len(todo),
                      "resumed": len(grid.points) - len(todo)})
        run_grid(grid, todo, table.add, workers=workers, scheduler=scheduler, progress=progress,
                 dashboard=dashboard)
        keys = {p.key for p in grid.points}
        return _table_class().of([r for r in table.rows if str(r.get("key")) in keys])


def _pandas():
    try:
        import pandas
    except ImportError:
        raise SweepError("sweep tables are pandas DataFrames: pip install 'rscount[sweep]'") from None
    return pandas


@functools.lru_cache(maxsize=None)
def _table_class():
    pd = _pandas()

    class SweepTable(pd.DataFrame):
        """A sweep's rows (one per point), with ``plot(x=, y=, hue=)`` for the usual curves."""

        @property
        def _constructor(self):
            return SweepTable

        @classmethod
        def of(cls, rows: list) -> "SweepTable":
            return cls(rows, columns=columns(rows, ROW_FIELDS))

        def plot(self, x: str = "subsample", y: str = "count", hue: str | None = "map_class", by: str | None = "task",
                 path=None):
            """Median ``y`` against ``x`` per ``hue`` group, one panel per ``by`` value (default: per task;
            ``by=None`` pools every row in one panel); ``y`` may be ``count`` (log scale), ``log10_count`` or
            ``share_one`` (the share of points with count 1). Points that did not count are named in the legend.
            Saved to ``path`` (PNG or SVG), or returned."""
            return _plot(self, x, y, hue, by, path)

    return SweepTable


STATUSES = ("ok", "timeout", "error", "lost")


def summary(table, name: str = "", where: str = "") -> str:
    """One line: how many points, and how many of each status (the CLI prints it; sweep() warns with it)."""
    tally = table["status"].value_counts().to_dict() if len(table) else {}
    return (f"sweep {name}: {len(table)} points{' in ' + str(where) if where else ''} ("
            + ", ".join(f"{tally.get(s, 0)} {s}" for s in STATUSES) + ")")


def _plot(table, x: str, y: str, hue: str | None, by: str | None, path):
    """One panel per value of ``by`` (default: per task; None pools them, as the caller asked); points that did
    not count (error, timeout, lost) are not drawn but counted in each curve's legend and each panel's title."""
    from ..auditing.curve import CURVES, draw_curve
    from ..files.writing import pyplot, show_or_save
    for name, column in (("x", x), ("hue", hue), ("by", by)):
        if column is not None and column not in table.columns:
            raise SweepError(f"plot: columns are {', '.join(table.columns)}; {name}={column!r} is not one")
    if y not in CURVES:
        raise SweepError(f"plot: y is {', '.join(CURVES)}, not {y!r}")
    plt = pyplot(to_file=path is not None)
    panels = list(table.groupby(by, dropna=False, sort=True)) if by else [("all tasks pooled", table)]
    fig, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 3.8), squeeze=False, layout="constrained")
    for ax, (title, rows) in zip(axes[0], panels):
        groups = list(rows.groupby(hue, dropna=False, sort=True)) if hue else [("all", rows)]
        for name, part in groups:
            ok = part[part["status"] == "ok"]
            missing = _missing(part)
            label = f"{name}" + (f" ({missing} not drawn)" if missing else "")
            if len(ok):
                draw_curve(ax, zip(ok[x], ok["count"]), y, label=label)
            else:
                ax.plot([], [], "x", label=label + " (no point counted)")
        ax.set_xlabel(x)
        missing = _missing(rows)
        ax.set_title(f"{by + ' ' if by else ''}{title}: {len(rows)} points"
                     + (f", {missing} not drawn" if missing else ""), fontsize=9)
        ax.legend(title=hue, fontsize=8)
    return show_or_save(fig, path)


def _missing(rows) -> str:
    """'2 error, 1 timeout' for the rows that did not count ('' where all did)."""
    tally = rows["status"].value_counts().to_dict()
    return ", ".join(f"{tally[s]} {s}" for s in STATUSES[1:] if tally.get(s))


def __getattr__(name: str):
    if name == "SweepTable":  # built on first use: pandas is imported only by those who sweep
        return _table_class()
    raise AttributeError(name)
