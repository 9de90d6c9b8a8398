"""How much data: the count against the number of support vectors drawn at random, over seeds.

One small count per (size, seed), run on the project's Dask engine
(:mod:`rscount.runtime.cluster`) when it is installed and more than one worker is asked for.
"""
from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass

import numpy as np

from ..errors import RscountError, SupportError
from ..model.support import Support, by_label, grid
from ..problems.problem import Problem
from ..results.count import log10_count

__all__ = ["Curve", "data_curve", "draw_count", "default_sizes"]

DRAWS = ("space", "by-label")


@dataclass(frozen=True)
class Curve:
    """Counts of random supports: ``rows`` holds (size, [count or None per seed])."""

    draw: str
    seeds: tuple
    rows: tuple

    def table(self) -> list:
        """(size, median count, share of draws with count 1, draws that failed) per size."""
        out = []
        for size, counts in self.rows:
            ok = [c for c in counts if c is not None]
            out.append((size, median_count(ok), share_one(ok), len(counts) - len(ok)))
        return out

    def records(self) -> list:
        """One row a draw (size, seed, count): the shape of a sweep's rows, for :class:`rscount.SweepTable`."""
        return [{"support_size": size, "seed": seed, "count": c, "status": "ok" if c is not None else "error"}
                for size, counts in self.rows for seed, c in zip(self.seeds, counts)]

    def to_dict(self) -> dict:
        return {"draw": self.draw, "seeds": list(self.seeds),
                "rows": [{"size": size, "counts": list(counts), "median": median, "share_one": share}
                         for (size, counts), (_, median, share, _) in zip(self.rows, self.table())]}

    def __str__(self) -> str:
        lines = [f"{'vectors':>8}  {'median count':>14}  {'count 1':>8}"]
        for size, median, share, failed in self.table():
            shown = "-" if share is None else f"{share:.0%}"
            lines.append(f"{size:>8}  {'-' if median is None else median:>14}  {shown:>8}"
                         + (f"  ({failed} draws could not be counted)" if failed else ""))
        return "\n".join(lines)


def default_sizes(problem: Problem, most: int = 12) -> list:
    """Doubling sizes from 1 up to the space (or 4x the design's support), at most ``most`` of them."""
    top = problem.task.space_size
    if not problem.support.exhaustive:
        top = min(top, max(4 * problem.support.length, 8))
    sizes, n = [], 1
    while n < top and len(sizes) < most - 1:
        sizes.append(n)
        n *= 2
    return sizes + [top]


def draw_support(problem: Problem, size: int, seed: int, draw: str) -> Support:
    """``size`` distinct vectors drawn uniformly from the space, or label first as rsbench's generators do."""
    task = problem.task
    if draw == "by-label":
        return by_label(task, size, seed)
    n = task.space_size
    size = min(size, n)
    rng = np.random.default_rng(seed)
    rows = rng.choice(n, size, replace=False) if n <= 1 << 24 else np.unique(rng.integers(0, n, size))
    return Support(grid(task.sizes, np.sort(rows)), f"{size} random vectors (seed {seed})")


def draw_count(problem: Problem, size: int, seed: int, draw: str = "space", timeout: float | None = 30.0):
    """The exact count on one random support (None where it cannot be had in time)."""
    from ..planning.execute import count_problem
    try:
        support = draw_support(problem, size, seed, draw)
        bare = dataclasses.replace(problem, support=support,
                                   supervision=dataclasses.replace(problem.supervision, vectors=frozenset()))
        r = count_problem(bare, timeout=timeout)
        return r.count if r.exact else None
    except RscountError:
        return None


def _job(problem: Problem, args: tuple):
    size, seed, draw, timeout = args
    return draw_count(problem, size, seed, draw, timeout)


def data_curve(problem: Problem, sizes=None, seeds=range(5), *, draw: str = "space", workers: int | None = None,
               timeout: float | None = 30.0, progress=None, scheduler: str | None = None) -> Curve:
    """Count ``problem`` on random supports of each size, for each seed: on ``workers`` Dask worker processes
    (default: the cores where Dask is installed, else this process) or the Dask cluster at ``scheduler``."""
    from ..runtime.cluster import have_dask, map_tasks
    if draw not in DRAWS:
        raise SupportError(f"draw {draw!r}: choose one of {', '.join(DRAWS)}")
    sizes = sorted({int(s) for s in (sizes or default_sizes(problem))})
    if not sizes or sizes[0] < 1:
        raise SupportError("curve sizes must be positive numbers of vectors")
    seeds = tuple(int(s) for s in seeds)
    jobs = [(size, seed, draw, timeout) for size in sizes for seed in seeds]

    def done(n: int, total: int) -> None:
        if progress:
            progress(f"curve: {n}/{total} draws counted")
    if workers is None:
        workers = min(len(jobs), os.cpu_count() or 1) if have_dask() else 1
    if scheduler is None and (workers == 1 or len(jobs) == 1):
        counts = []
        for job in jobs:
            counts.append(_job(problem, job))
            done(len(counts), len(jobs))
    else:
        counts = map_tasks(_job, jobs, shared=problem, workers=workers, scheduler=scheduler, name="curve", done=done)
    results = {(size, seed): c for (size, seed, _, _), c in zip(jobs, counts)}
    rows = tuple((size, tuple(results[(size, seed)] for seed in seeds)) for size in sizes)
    return Curve(draw, seeds, rows)


def median_count(counts: list) -> int | None:
    """The median of exact counts, as a whole number (the lower middle of an even number of draws)."""
    ordered = sorted(counts)
    return ordered[(len(ordered) - 1) // 2] if ordered else None


def share_one(counts: list) -> float | None:
    """The share of counts equal to 1: draws on which the task has no shortcut."""
    return sum(c == 1 for c in counts) / len(counts) if counts else None


CURVES = {"count": ("optimal maps (median)", median_count),
          "log10_count": ("log10 optimal maps (median)", lambda cs: log10_count(median_count(cs)) if cs else None),
          "share_one": ("share of points with count 1", share_one)}


def curve_points(pairs, y: str = "count") -> list:
    """(x, value) per distinct x of ``(x, count)`` pairs, in order of x: the median count (``count``, or its
    ``log10_count``) or the share of count 1 (``share_one``); counts that are None are left out."""
    by_x: dict = {}
    for x, c in pairs:
        if c is not None:
            by_x.setdefault(x, []).append(int(c))
    summary = CURVES[y][1]
    return [(x, summary(cs)) for x, cs in sorted(by_x.items())]


def draw_curve(ax, pairs, y: str = "count", **style) -> None:
    """Plot :func:`curve_points` on ``ax`` (a log axis for ``count``), labelled with what y means."""
    points = curve_points(pairs, y)
    ax.plot([float(x) for x, _ in points], [v for _, v in points], style.pop("fmt", "o-"), **style)
    if y == "count":
        ax.set_yscale("log")
    ax.set_ylabel(CURVES[y][0])


def plot_curve(curve: Curve, ax, title: str = "") -> None:
    """Draw the median count (log scale) and the share of draws with count 1 against the support size."""
    pairs = [(r["support_size"], r["count"]) for r in curve.records()]
    draw_curve(ax, pairs, "count", color="tab:blue", label="median count")
    ax.set_xscale("log", base=2)
    ax.set_xlabel(f"support vectors ({'drawn label first' if curve.draw == 'by-label' else 'uniform draws'})")
    ax.set_ylabel("optimal maps (median over seeds)", color="tab:blue")
    twin = ax.twinx()
    draw_curve(twin, pairs, "share_one", fmt="s--", color="tab:green")
    twin.set_ylim(-0.05, 1.05)
    twin.set_ylabel("share of draws with count 1", color="tab:green")
    ax.set_title(title or f"{len(curve.seeds)} seeds per size")
