"""Audit every library task on its default support and record how long each took, in docs/audit-times.md.

    python benchmarks/audit_runs.py [--classes complete,shared] [--tasks cle4evr] [--merge] [--timeout 60]

``--merge`` reruns only the rows named by ``--tasks`` and ``--classes`` and keeps the others from the page's
JSON, in the page's order.

Each audit runs in a fresh process (``countrss audit --json``) so the times
include start-up, as a user sees them; the table also says how each relation
was decided (listed maps, split, SAT/Ganak per pair, or existence only).
"""
from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from pathlib import Path

from rscount.results.count import short_count

TASKS = ["xor3", "and3", "or3", "mnlogic-random", "mnadd", "mnadd-evenodd", "mnadd-half", "mnmath", "mnmath-b1",
         "kand-logic", "cle4evr", "sdd-oia", "sdd-oia-ambulance", "bdd-oia", "concon-t1", "raven"]
ROOT = Path(__file__).resolve().parent.parent


def run(task: str, map_class: str, timeout: float) -> dict:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "rscount.cli", "audit", "--task", task, "--map-class", map_class,
                           "--timeout", str(timeout), "--json", "--quiet"], capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode:
        return {"task": task, "map_class": map_class, "wall": wall, "error": _error(proc.stderr)}
    data = json.loads(proc.stdout)
    fix = data["fix"]
    return {"task": task, "map_class": map_class, "wall": wall, "count": data["count"],
            "read_count": data.get("read_count", data["count"]), "unread": data.get("unread_concepts", []),
            "free_maps": data.get("free_maps", 1),
            "relation": data["relation"]["method"], "weighted": data["relation"]["weighted"],
            "rounded": data["relation"].get("rounded", False),
            "complete": data["relation"]["complete"], "identifiable": len(data["identifiable"]),
            "concepts": len(data["concepts"]), "values_fix": fix.get("supervise_values"),
            "values_count": fix.get("supervise_values_count"), "values_minimal": fix.get("supervise_values_minimal")}


CELL = 300  # characters of an error line a table cell shows (the .json keeps it whole)


def _error(stderr: str) -> str:
    """The error line of a failed run, without the program's prefix."""
    return stderr.strip().split("countrss: error: ")[-1].strip()


def _cell(error: str) -> str:
    """An error line for a table cell: whole up to CELL characters, else cut at a word and marked."""
    return error if len(error) <= CELL else error[:CELL].rsplit(" ", 1)[0] + " ..."


def _extras() -> str:
    """Which optional speed-ups the runs had: python-flint (the heads extra) writes and multiplies the joint
    counts of millions of digits (SDD-OIA's joint audit: 14.5 s with it, 23.5 s without, session 34)."""
    import importlib.util
    if importlib.util.find_spec("flint") is None:
        return ", without python-flint"
    return (", with python-flint (`pip install 'rscount[heads]'`; joint audits of millions of digits take "
            "longer without it)")


def table(rows: list) -> str:
    lines = ["| task | class | optimal maps (read concepts) | relation | identifiable | cheapest value supervision | "
             "wall (s) |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['task']} | {r['map_class']} | error: {_cell(r['error'])} | | | | {r['wall']:.1f} |")
            continue
        how = ("map counts" if r["weighted"] else "map counts to 4 digits" if r.get("rounded") else
               "existence only") + ("" if r["complete"] else ", some undecided")
        fix = ("-" if r["values_count"] is None else
               f"{len(r['values_fix'])} items -> {short_count(r['values_count'])}"
               + (" (smallest)" if r["values_minimal"] else ""))
        unread = f" (x {short_count(r['free_maps'])} maps of {len(r['unread'])} unread concepts)"
        count = f"{short_count(r['read_count'])}{unread}" if r.get("unread") else short_count(r["count"])
        lines.append(f"| {r['task']} | {r['map_class']} | {count} | {how} | {r['identifiable']}/{r['concepts']} "
                     f"| {fix} | {r['wall']:.1f} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--classes", default="free,complete,permutation,disentangled,shared,joint")
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--out", default=str(ROOT / "docs" / "audit-times.md"))
    ap.add_argument("--tasks", default=",".join(TASKS), help="library tasks to audit (default: all)")
    ap.add_argument("--merge", action="store_true", help="keep the page's other rows (from its .json)")
    ap.add_argument("--render", metavar="JSON", help="write the page from rows saved before (its .json), no runs")
    args = ap.parse_args()
    rows = []
    if args.render:
        rows = json.loads(Path(args.render).read_text())
    for cls in [] if args.render else args.classes.split(","):
        for task in args.tasks.split(","):
            rows.append(run(task, cls, args.timeout))
            print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    if args.merge:
        fresh = {(r["task"], r["map_class"]): r for r in rows}
        kept = json.loads(Path(args.out).with_suffix(".json").read_text())
        rows = [fresh.pop((r["task"], r["map_class"]), r) for r in kept] + list(fresh.values())
    head = (f"# Audit times\n\nEvery library task on its default support, `countrss audit --task T --map-class C "
            f"--timeout {args.timeout:g}` in a fresh process (wall time, start-up included), on "
            f"{platform.machine()} with {__import__('os').cpu_count()} cores, "
            f"{time.strftime('%Y-%m-%d')}{_extras()}. Regenerate with `python benchmarks/audit_runs.py`.\n\n")
    Path(args.out).write_text(head + table(rows))
    Path(args.out).with_suffix(".json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
