"""``python -m benchmarks.learned_counts [--timeout S] [--tasks A,B] [--classes C,D]``: the count under a learned
head (inference learned) for library tasks on their default supports, in every map class, with the knowledge
count beside it; one JSON object per line (count, backend, seconds, or why it is missing).
``--approx-for FILE.jsonl`` adds, to each row of an earlier run without a learned-head count, the (epsilon, delta)
estimate of ``approx=True`` (printing every row again); ``--render FILE.jsonl`` prints those lines as the
markdown table of docs/benchmarks.md."""
from __future__ import annotations

import argparse
import json
import math
import sys
import time

import rscount
from rscount.problems.problem import MAP_CLASSES
from rscount.tasks import task_names


def _shown(count: int):
    """The count, or its order of magnitude where it has more digits than JSON should carry."""
    if count.bit_length() <= 200:
        return count
    return f"~10^{int(count.bit_length() * math.log10(2))}"


def one(task: str, cls: str, inference: str, timeout: float) -> dict:
    start = time.perf_counter()
    try:
        r = rscount.count(task, map_class=cls, inference=inference, timeout=timeout)
        out = {"count": _shown(r.count), "exact": r.exact, "backend": r.backend}
    except rscount.RscountError as exc:
        out = {"error": type(exc).__name__, "why": str(exc).split(";")[0][:160]}
    return dict(out, seconds=round(time.perf_counter() - start, 3))


def estimated(task: str, cls: str, timeout: float) -> dict:
    """The (epsilon, delta) estimate of the learned-head count (defaults 0.8, 0.2), or why it is missing."""
    start = time.perf_counter()
    try:
        r = rscount.count(task, map_class=cls, inference="learned", approx=True, timeout=timeout)
        out = {"count": _shown(r.count), "exact": r.exact, "backend": r.backend, "lower": _shown(r.lower or 0),
               "upper": _shown(r.upper or 0), "epsilon": r.epsilon, "delta": r.delta}
    except rscount.RscountError as exc:
        out = {"error": type(exc).__name__, "why": str(exc).split(";")[0][:160], **_bracket(task, cls)}
    return dict(out, seconds=round(time.perf_counter() - start, 3))


def _bracket(task: str, cls: str) -> dict:
    """Where the learned-head joint count is out of reach: the bounds on its log10 that the refusal gives."""
    if cls != "joint":
        return {}
    from rscount.counters.symmetry.closedform import learned_joint_log10
    try:
        low, high = learned_joint_log10(rscount.make_problem(task, map_class=cls, inference="learned"))
    except rscount.RscountError:  # a support too large to list (MNMath-B.1's 10^8 vectors)
        return {}
    return {"log10_between": [math.floor(low), math.ceil(high)]}


def _magnitude(count) -> str:
    if isinstance(count, str):
        return count
    return f"{count:,}" if count.bit_length() <= 40 else f"{count:.3e}".replace("e+", "e")


def _cell(out: dict, approx: dict | None = None) -> str:
    if "count" not in out and approx and "count" in approx:
        return (f"~{_magnitude(approx['count'])} (in [{_magnitude(approx['lower'])}, {_magnitude(approx['upper'])}] "
                f"with probability >= {1 - approx['delta']:g}) | {approx['backend']} (approx) | "
                f"{approx['seconds']:.2f} s")
    if "count" not in out and approx and "log10_between" in approx:
        low, high = approx["log10_between"]
        return (f"between 10^{low:,} and 10^{high:,} (bounds: no count) | closed-form refuses: "
                f"{approx['why'].split(' (')[0][:50]} | {approx['seconds']:.0f} s")
    if "count" in out:
        count = out["count"]
        shown = f"{count:,}" if isinstance(count, int) else count
        return f"{shown} | {out['backend']} | {out['seconds']:.2f} s"
    return f"- | {out['why'].split(' (')[0][:70]} | {out['seconds']:.0f} s"


def render(rows: list) -> str:
    """The rows as a markdown table: the learned-head count, its counter and time; the knowledge count."""
    lines = ["| task | class | count under a learned head | counter | time | count under K |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        k = r["knowledge"]
        known = (f"{k['count']:,}" if isinstance(k["count"], int) else k["count"]) if "count" in k else "-"
        lines.append(f"| {r['task']} | {r['map_class']} | {_cell(r['learned'], r.get('approx'))} | {known} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.learned_counts")
    p.add_argument("--timeout", type=float, default=60.0)
    p.add_argument("--tasks", help="comma-separated library tasks (default: every one but cnf)")
    p.add_argument("--classes", help="comma-separated map classes (default: all)")
    p.add_argument("--render", metavar="FILE.jsonl", help="print the rows of an earlier run as a markdown table")
    p.add_argument("--approx-for", metavar="FILE.jsonl", help="add approx=True estimates to the rows of an earlier "
                                                             "run that have no learned-head count")
    args = p.parse_args(argv)
    if args.approx_for:
        for line in open(args.approx_for, encoding="utf-8"):
            if line.strip():
                row = json.loads(line)
                if "count" not in row["learned"]:
                    row["approx"] = estimated(row["task"], row["map_class"], args.timeout)
                print(json.dumps(row), flush=True)
        return 0
    if args.render:
        print(render([json.loads(line) for line in open(args.render, encoding="utf-8") if line.strip()]))
        return 0
    tasks = args.tasks.split(",") if args.tasks else [t for t in task_names() if t != "cnf"]
    classes = args.classes.split(",") if args.classes else list(MAP_CLASSES)
    for task in tasks:
        for cls in classes:
            row = {"task": task, "map_class": cls, "learned": one(task, cls, "learned", args.timeout),
                   "knowledge": one(task, cls, "knowledge", args.timeout)}
            print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
