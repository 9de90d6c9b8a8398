"""``python -m benchmarks.sweep_throughput``: a 500-point count sweep on 1 and 2 local workers against a plain loop.

Prints points per second for each, the ratio of 2 workers to 1, and the per-point overhead of the sweep (its
wall time on one worker minus the loop's, per point): once with cluster start-up included, as a user meets it
(each sweep writes JSON lines into a fresh folder), and once on a cluster already running (steady state).
"""
from __future__ import annotations

import tempfile
import time
from pathlib import Path

import rscount
from rscount.sweeps import engine, grid_from_mapping, run_point

GRID = {"tasks": [{"task": "mnadd-half"}, {"task": "xor4"}, {"task": "mnlogic-random"}, {"task": "mnadd-evenodd"},
                  {"knowledge": "(a ^ b) | (c & d)", "concepts": "a,b,c,d"}],
        "map_class": ["complete", "disentangled"], "subsample": [2, 3, 4, 5, 6], "seeds": list(range(10)),
        "timeout": 30}


def main() -> None:
    grid = grid_from_mapping(GRID)
    assert len(grid.points) == 500
    start = time.perf_counter()
    loop = [run_point(p, grid) for p in grid.points]
    plain = time.perf_counter() - start
    print(f"plain loop: {len(loop)} points in {plain:.2f} s ({len(loop) / plain:.1f} points/s)")
    walls = {}
    for workers in (1, 2):
        with tempfile.TemporaryDirectory() as folder:
            start = time.perf_counter()
            table = rscount.sweep(grid, Path(folder) / "rows.jsonl", workers=workers)
            walls[workers] = time.perf_counter() - start
            assert [int(c) for c in table.sort_values("key")["count"]] == \
                [r["count"] for r in sorted(loop, key=lambda r: r["key"])]
        print(f"sweep, {workers} worker(s): {walls[workers]:.2f} s ({500 / walls[workers]:.1f} points/s)")
    print(f"2 workers / 1 worker throughput: {walls[1] / walls[2]:.2f}x")
    print(f"overhead per point (1 worker against the plain loop): {(walls[1] - plain) / 500 * 1000:.1f} ms")
    steady = {}
    for workers in (1, 2):
        with engine.client(workers=workers) as c:
            engine.run_grid(grid, list(grid.points[:8]), lambda rows: None, on=c)  # workers import rscount
            start = time.perf_counter()
            engine.run_grid(grid, list(grid.points), lambda rows: None, on=c)
            steady[workers] = time.perf_counter() - start
        print(f"steady state, {workers} worker(s): {steady[workers]:.2f} s ({500 / steady[workers]:.1f} points/s)")
    print(f"steady state: 2 workers / 1 worker {steady[1] / steady[2]:.2f}x, overhead per point "
          f"{(steady[1] - plain) / 500 * 1000:.1f} ms")


if __name__ == "__main__":
    main()
