"""One point of a sweep, run where a worker runs it: a row of plain values, whatever happens.

A point that raises the library's error or times out is a row with its
status and message; only a worker that dies loses a point (the engine
retries it elsewhere and records it as lost if it keeps dying).
"""
from __future__ import annotations

import time

from ..errors import CountTimeout, RscountError
from ..results.count import json_int, log10_count
from .grid import Grid, Point

__all__ = ["run_point", "STATUSES", "ROW_FIELDS"]

STATUSES = ("ok", "timeout", "error", "lost")
ROW_FIELDS = ("key", "task", "source", "job", "map_class", "support", "subsample", "seed", "supervise", "concept_sup",
              "backend", "train", "train_seed", "status", "count", "log10_count", "exact", "counted_by", "seconds",
              "message")


def run_point(point: Point, grid: Grid) -> dict:
    """Run ``point`` (count, audit or train) under the grid's per-point limits; return its row."""
    from ..runtime.children import allow_children
    allow_children()  # a Dask worker is daemonic; our solver children end with it anyway
    row = {"key": point.key, **point.params, "status": "ok", "count": None, "log10_count": None, "exact": None,
           "counted_by": None, "seconds": None, "message": ""}
    start = time.perf_counter()
    try:
        row.update(_JOBS[point.job](point, grid))
    except CountTimeout as exc:
        row.update(status="timeout", message=str(exc))
    except RscountError as exc:
        row.update(status="error", message=str(exc))
    row["seconds"] = round(time.perf_counter() - start, 6)
    return row


def _problem(point: Point):
    from ..api import make_problem
    return make_problem(point.task, map_class=point.map_class, support=point.support, subsample=point.subsample,
                        seed=point.seed, supervise=point.supervise, concept_sup=point.concept_sup)


def _counted(result) -> dict:
    count = int(result.count)
    return {"count": json_int(count), "log10_count": log10_count(count), "exact": bool(result.exact),
            "counted_by": result.backend}


def _count(point: Point, grid: Grid) -> dict:
    from ..planning.execute import count_problem
    return _counted(count_problem(_problem(point), point.backend, timeout=grid.timeout, memory_mb=grid.memory_mb))


def _audit(point: Point, grid: Grid) -> dict:
    from ..auditing import audit_problem
    a = audit_problem(_problem(point), timeout=grid.timeout)
    return {**_counted(a.result), "identifiable": ",".join(a.identifiable),
            "fix_values": " ".join(a.supervise_values.items) if a.supervise_values else "",
            "fix_concepts": " ".join(a.supervise_concepts.items) if a.supervise_concepts else ""}


def _train(point: Point, grid: Grid) -> dict:
    try:
        from ..harness import TrainConfig, run
        from ..harness.train import seed_record
    except ImportError as exc:
        raise RscountError(f"job train needs the train extra ({exc.name} is missing): pip install 'rscount[train]'") \
            from None
    import torch
    torch.set_num_threads(1)  # one thread per worker: workers are the parallelism
    config = TrainConfig(**{**dict(point.train), "threads": 1})
    seed = point.seed if point.train_seed is None else point.train_seed
    report = run(_problem(point), seeds=[seed], config=config, count_timeout=grid.timeout)
    s = report.seeds[0]
    out = seed_record(s, report.outside_predicted(s))
    out.pop("seed")
    if report.count is not None:
        out.update(_counted(report.count))
    elif report.count_error:
        out["message"] = f"trained, but not counted: {report.count_error}"
    return out


_JOBS = {"count": _count, "audit": _audit, "train": _train}
