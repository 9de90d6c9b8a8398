"""``python -m benchmarks.several_timing [--repeat N]``: is the joint count of T tasks no slower than T times
the slowest single task's count? Times (median of ``--repeat`` runs, in this process) each task alone and the
joint problem, for the designs below; one JSON object per line, the rows of docs/benchmarks.md's "Several
tasks" table."""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

import rscount
from rscount.problems.union import join

EVEN = "0,6;6,0;2,8;8,2;4,6;6,4;4,8;8,4"
ODD = "1,5;5,1;3,7;7,3;1,9;9,1;3,9;9,3"


def designs() -> dict:
    out = {}
    for cls in ("complete", "shared"):
        out[f"mnadd even + odd pairs, {cls}"] = [rscount.make_problem("mnadd", support=s, map_class=cls)
                                                 for s in (EVEN, ODD)]
    out["xor3 + and3 + or3 (same support), complete"] = [rscount.make_problem(t) for t in ("xor3", "and3", "or3")]
    out["xor3 half + or3 half (other knowledge, other support), disentangled"] = [
        rscount.make_problem("xor3", support="0,0,0;1,1,0;0,1,1", map_class="disentangled"),
        rscount.make_problem("or3", support="0,0,1;1,0,0;1,1,1", map_class="disentangled")]
    out["mnadd on two by-label:40 samples (seeds 0, 1), disentangled"] = [
        rscount.make_problem("mnadd", support="by-label:40", map_class="disentangled"),
        rscount.make_problem("mnadd", support="by-label:40", seed=1, map_class="disentangled")]
    digits = {"d1": "0..9", "d2": "0..9"}
    add = rscount.task_from_spec({"name": "sum", "concepts": digits, "labels": ["d1 + d2"]})
    mul = rscount.task_from_spec({"name": "product", "concepts": digits, "labels": ["d1 * d2"]})
    for cls in ("disentangled", "complete"):
        out[f"d1 + d2 and d1 * d2 on two by-label:60 samples (other knowledge, other support), {cls}"] = [
            rscount.make_problem(add, support="by-label:60", map_class=cls),
            rscount.make_problem(mul, support="by-label:60", seed=1, map_class=cls)]
    for mode in ("strict", "disjoint"):
        for objects, colors in ((2, 8), (3, 2), (4, 2)):
            tasks = [rscount.get_task(f"concon-t{t}", mode=mode, objects=objects, colors=colors) for t in (1, 2, 3)]
            out[f"concon {mode} {objects} objects {colors} colours, disentangled"] = [
                rscount.make_problem(t, map_class="disentangled") for t in tasks]
    return out


def timed(problem, repeat: int, timeout: float) -> tuple:
    times, count = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        count = rscount.count_problem(problem, timeout=timeout).count
        times.append(time.perf_counter() - start)
    return statistics.median(times), count


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.several_timing")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--timeout", type=float, default=120.0)
    args = p.parse_args(argv)
    for name, problems in designs().items():
        try:
            single = [timed(q, args.repeat, args.timeout) for q in problems]
            joint_s, joint = timed(join(problems), args.repeat, args.timeout)
        except rscount.RscountError as exc:
            print(json.dumps({"design": name, "error": str(exc)[:160]}), flush=True)
            continue
        slowest = max(s for s, _ in single)
        print(json.dumps({"design": name, "tasks": len(problems), "single_s": [round(s, 4) for s, _ in single],
                          "joint_s": round(joint_s, 4), "bound_s": round(len(problems) * slowest, 4),
                          "ratio": round(joint_s / (len(problems) * slowest), 3), "joint": joint,
                          "single": [c for _, c in single]}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
