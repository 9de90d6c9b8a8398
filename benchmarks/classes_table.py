"""``python -m benchmarks.classes_table > docs/classes.md``: every library task (default support), ConCon's
three tasks together at 2, 3 and 4 objects, MNMath-B.1 by-label:100 and rsbench's Kandinsky example, in
every map class, each in a fresh process with ``--timeout 60``: the exact count, else ``--approx``'s
estimate, else the reason in one line.

``--only TEXT --merge``: rerun the designs whose name contains TEXT (repeatable) and print docs/classes.md
with those rows replaced, the rest of the page (its other rows, the text below the table) kept.
"""
from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time

CLASSES = ("free", "complete", "permutation", "disentangled", "shared", "joint")
TASKS = ["xor3", "and3", "or3", "mnlogic-random", "mnadd", "mnadd-evenodd", "mnadd-half", "mnmath", "mnmath-b1",
         "kand-logic", "cle4evr", "sdd-oia", "sdd-oia-ambulance", "bdd-oia", "concon-t1", "concon-t2", "concon-t3",
         "raven"]
DESIGNS = [(t, ["--task", t]) for t in TASKS] + [
    (f"concon-t1+t2+t3 strict, {n} objects", ["--task", "concon-t1", "--task", "concon-t2", "--task", "concon-t3",
                                              "--param", "mode=strict", "--param", f"objects={n}"])
    for n in (2, 3, 4)] + [
    ("mnmath-b1 by-label:100", ["--task", "mnmath-b1", "--support", "by-label:100"]),
    ("rsbench Kandinsky example", ["--config", "knowledge/examples/kandinsky-two-colors.yml"])]
SECONDS = 60


def run(args: list, cls: str, approx: bool = False) -> tuple:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "rscount.cli", *args, "--map-class", cls, "--timeout",
                           str(SECONDS), "--json", "--quiet", *(["--approx"] if approx else [])],
                          capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode:
        return None, wall, proc.stderr.strip().split("countrss: error: ")[-1].split(";")[0][:220]
    return json.loads(proc.stdout), wall, ""


def _n(data: dict) -> str:
    from rscount.results.count import short_count
    read, free = data.get("read_count", data["count"]), data.get("free_maps", 1)
    return short_count(read) + (f" (x {short_count(free)} free maps of {len(data['unread_concepts'])} unread "
                                f"concepts)" if data.get("unread_concepts") else "")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--only", action="append", default=[], metavar="TEXT", help="designs whose name contains it")
    ap.add_argument("--merge", action="store_true", help="replace those rows in docs/classes.md, keep the rest")
    opts = ap.parse_args()
    rows = []
    for name, args in DESIGNS:
        if opts.only and not any(text == name or (text in name and text not in TASKS) for text in opts.only):
            continue
        for cls in CLASSES:
            data, wall, why = run(args, cls)
            if data is not None:
                rows.append((name, cls, _n(data), f"{wall:.1f}", data["backend"]))
                continue
            est, wall2, why2 = run(args, cls, approx=True)
            if est is not None and not est["exact"]:
                from rscount.results.count import compact_count, count_range
                low, high = int(est["lower"]), int(est["upper"])
                text = (f"{count_range(low, high)} (guaranteed)" if est["delta"] == 0 else  # an estimate: 4 digits
                        f"~{compact_count(int(est['count']))} in [{compact_count(low)}, {compact_count(high)}] "
                        f"(p >= {1 - est['delta']:g})")
                rows.append((name, cls, text, f"{wall2:.1f}", f"{est['backend']}; exact: {why}"))
            else:
                rows.append((name, cls, "not counted", f"{wall:.1f}", why))
            print(rows[-1], file=sys.stderr, flush=True)
    tail: list = []
    if opts.merge:
        rows, tail = _merged(rows)
    exact = sum(1 for r in rows if not r[2].startswith(("not counted", "~", "between")))
    lines = ["# Every library task in every class", "",
             f"Written by `python -m benchmarks.classes_table > docs/classes.md` on {platform.machine()} with 2 "
             f"cores, {time.strftime('%Y-%m-%d')}: each design in a fresh process with `--timeout {SECONDS}` "
             f"(wall time, start-up included); where no exact count came, `--approx` in another {SECONDS} s, "
             f"else the reason. Counts are on the concepts the labels read, with the free maps of unread "
             f"concepts apart. {exact} of {len(rows)} rows exact.", "",
             "| design | class | optimal maps | wall (s) | how, or why not |", "|---|---|---|---|---|"]
    lines += [f"| {' | '.join(r)} |" for r in rows]
    print("\n".join(lines + tail))
    return 0


def _merged(fresh: list) -> tuple:
    """docs/classes.md's rows with ``fresh`` in place of the rows they redo, and the page's text below the table."""
    from pathlib import Path
    page = (Path(__file__).resolve().parent.parent / "docs" / "classes.md").read_text().splitlines()
    at = [i for i, line in enumerate(page) if line.startswith("| ") and not line.startswith("| design")]
    new = {(r[0], r[1]): r for r in fresh}
    rows = []
    for line in page[at[0]:at[-1] + 1]:
        cells = tuple(c.strip() for c in line.strip().strip("|").split(" | "))
        rows.append(new.pop(cells[:2], cells))
    return rows + list(new.values()), page[at[-1] + 1:]


if __name__ == "__main__":
    raise SystemExit(main())
