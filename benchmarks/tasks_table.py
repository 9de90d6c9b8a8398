"""Count every library task (default support) under complete, disentangled and shared; print docs/tasks.md.

    python benchmarks/tasks_table.py --timeout 60 > docs/tasks.md
"""
from __future__ import annotations

import argparse
import platform
import time

import rscount
from rscount.export import LIBRARY_DEFAULTS
from rscount.result import format_count

CLASSES = ("complete", "disentangled", "shared")


def cell(task, map_class: str, timeout: float) -> str:
    start = time.perf_counter()
    try:
        r = rscount.count(task, map_class=map_class, timeout=timeout)
    except rscount.CountTimeout:
        return f"no exact count in {timeout:g} s"
    except rscount.RscountError as exc:
        return f"not counted: {str(exc).split(';')[0]}"
    kind = "exact" if r.exact else f"approx [{format_count(r.lower)}, {format_count(r.upper)}]"
    return f"{format_count(r.count)} ({kind}, {r.backend}, {time.perf_counter() - start:.2f} s)"


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--timeout", type=float, default=60)
    args = p.parse_args()
    print("# Library tasks: counts on the default support\n")
    print(f"Measured with `python benchmarks/tasks_table.py --timeout {args.timeout:g}` on "
          f"{platform.machine()} / Python {platform.python_version()} (2 cores); each cell is one "
          f"`rscount.count(task, map_class=...)` with `--exact` backend selection and that time limit.\n")
    print("| task | concepts | labels | support | " + " | ".join(CLASSES) + " |")
    print("|---|---|---|---|" + "---|" * len(CLASSES))
    for name in LIBRARY_DEFAULTS:
        task = rscount.get_task(name)
        concepts = task.summary().split("(", 1)[0].split(": ", 1)[1].strip()
        labels = ", ".join(lab.name for lab in task.labels)
        support = "exhaustive" if task.default_support is None else "task default"
        size = task.space_size if task.default_support is None else len(task.default_support)
        cells = [cell(task, c, args.timeout) for c in CLASSES]
        print(f"| {name} | {concepts} | {labels} | {support}, {size} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
