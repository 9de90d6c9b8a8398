"""Run a grid's points on Dask: a LocalCluster on this machine by default, an existing cluster by address.

Points are submitted in small chunks with explicit keys (never deduplicated by content),
results are written as they finish (``as_completed``), a point whose worker
dies is retried on another (``allowed-failures``) and recorded as lost if it
keeps dying, and leaving early (Ctrl-C, SIGTERM, an error) cancels what is
left and closes the cluster; every row already written stays readable.
"""
from __future__ import annotations

import contextlib
import dataclasses
import time
from typing import Callable, Optional

from ..runtime.cluster import ALLOWED_FAILURES, require_dask, client
from .grid import Grid
from .jobs import run_point

__all__ = ["run_grid", "ALLOWED_FAILURES", "BATCH_SECONDS"]

BATCH_SECONDS = 1.0  # rows are written at least this often while points finish
BATCH_ROWS = 200


def run_grid(grid: Grid, points: list, write: Callable[[list], None], *, workers: int | None = None,
             scheduler: str | None = None, progress: Optional[Callable[[dict], None]] = None, on=None,
             dashboard: bool = False) -> dict:
    """Run ``points`` of ``grid``, handing rows to ``write`` in batches; return the tally of statuses. ``on`` is
    a Dask client to use as it is (else one is made from ``workers`` or ``scheduler`` and closed after)."""
    _, distributed = require_dask("a sweep")
    tally = {"ok": 0, "timeout": 0, "error": 0, "lost": 0}
    if not points:
        return tally
    own = client(workers, scheduler, dashboard=dashboard, what="a sweep")
    with (contextlib.nullcontext(on) if on is not None else own) as c:
        if progress is not None and (scheduler is not None or dashboard) and c.dashboard_link:
            progress({"dashboard": c.dashboard_link})
        threads = sum(c.nthreads().values()) or 1
        chunks = _chunks(points, threads)
        shared = dataclasses.replace(grid, points=())  # the options every point reads, not every point again
        futures = {c.submit(run_points, chunk, shared, key=f"rscount-points-{chunk[0].key}-{len(chunk)}", pure=False,
                            retries=0): chunk for chunk in chunks}
        batch, flushed = [], time.monotonic()
        try:
            for future in distributed.as_completed(futures):
                chunk = futures.pop(future)
                try:
                    rows = future.result()
                except distributed.KilledWorker:
                    rows = [_failed(p, "lost", f"its worker died {ALLOWED_FAILURES + 1} times") for p in chunk]
                except Exception as exc:  # a failure the job could not turn into a row (a bug: please report it)
                    rows = [_failed(p, "error", f"{type(exc).__name__}: {exc}") for p in chunk]
                for row in rows:
                    tally[row["status"]] += 1
                batch += rows
                if len(batch) >= BATCH_ROWS or time.monotonic() - flushed >= BATCH_SECONDS or not futures:
                    pending, batch, flushed = batch, [], time.monotonic()
                    write(pending)
                if progress is not None:  # Dask runs the oldest waiting tasks first, one a worker thread
                    running = sum(len(chunk) for chunk in list(futures.values())[:threads])
                    progress({"done": sum(tally.values()), "failed": tally["error"] + tally["timeout"] + tally["lost"],
                              "running": running, "total": len(points)})
        finally:
            write(batch)  # what finished before an interruption is kept
            if futures:
                c.cancel(list(futures), force=True)
    return tally


def run_points(points: list, grid: Grid) -> list:
    """The rows of a few points, run one after another on one worker (one Dask task: the scheduler's cost per
    task is paid once for the chunk)."""
    return [run_point(p, grid) for p in points]


MAX_CHUNK = 16  # points per Dask task at most: small enough that rows still stream and a lost worker loses little


def _chunks(points: list, threads: int) -> list:
    """Count points in chunks of up to MAX_CHUNK, at least four chunks per worker thread so that all stay busy;
    audits and training runs (seconds to minutes each) one a chunk, so that rows stream and no worker idles."""
    counts = [p for p in points if p.job == "count"]
    size = max(1, min(MAX_CHUNK, len(counts) // (4 * threads)))
    return [counts[i:i + size] for i in range(0, len(counts), size)] + [[p] for p in points if p.job != "count"]


def _failed(point, status: str, why: str) -> dict:
    return {"key": point.key, **point.params, "status": status, "count": None, "log10_count": None, "exact": None,
            "counted_by": None, "seconds": None, "message": why}
