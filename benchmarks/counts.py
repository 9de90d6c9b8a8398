"""``python -m benchmarks.counts [--quick] [--timeout S]``: rscount's count, backend and time for every suite
instance, one JSON object per line (to compare two versions: every count must be identical)."""
from __future__ import annotations

import argparse
import json
import sys
import time

import rscount

from .suite import load


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.counts")
    p.add_argument("--quick", action="store_true", help="the quick instances only")
    p.add_argument("--timeout", type=float, default=60.0)
    args = p.parse_args(argv)
    for inst in load():
        if args.quick and not inst.quick:
            continue
        start = time.perf_counter()
        try:
            problem = rscount.make_problem(inst.task, **inst.problem_args())
            r = rscount.count_problem(problem, timeout=args.timeout)
            row = {"count": r.count, "exact": r.exact, "backend": r.backend}
        except rscount.RscountError as exc:
            row = {"error": type(exc).__name__}
        row.update(id=inst.id, map_class=inst.map_class, seconds=round(time.perf_counter() - start, 4))
        print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
