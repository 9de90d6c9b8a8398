"""``python -m benchmarks run [--quick]``: count the suite with rscount and the baselines, write the table.

Baselines: plain Ganak on the direct encoding, ApproxMC, and the literal
rsbench construction (pyeda-reference). Within one family a baseline that
timed out is not run again on the later (larger) instances of that family
and map class: the table says "skipped".
"""
from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

from .report import write_markdown
from .runner import FALLBACK, METHODS, measure, measure_here
from .suite import Instance, load


def _run(args) -> int:
    methods = args.methods.split(",")
    for m in methods:
        if m not in METHODS:
            print(f"benchmarks: unknown method {m!r}; choose from {', '.join(METHODS)}", file=sys.stderr)
            return 2
    instances = [i for i in load() if (i.quick or not args.quick)]
    timeout = args.timeout if args.timeout else (10.0 if args.quick else 60.0)
    gave_up: set = set()
    reused = {}
    if args.reuse:
        old = json.loads(Path(args.reuse).read_text())
        reused = {(r["id"], r["map_class"]): r for r in old["rows"]}
        extra = [m for m in old["meta"]["methods"] if m not in methods]
        methods = methods + extra
    methods = sorted(methods, key=lambda m: m != "rscount")  # the table's first time column is rscount's
    rows = []
    ids = {i.id for i in instances}
    started = time.time()
    for n, inst in enumerate(instances, 1):
        if args.only and not any(part == inst.id or (part in inst.id and part not in ids)
                                 for part in args.only.split(",")):  # an instance's whole id: that one alone
            if (inst.id, inst.map_class) in reused:
                rows.append(reused[(inst.id, inst.map_class)])  # kept from the earlier run (--reuse)
            continue
        row = {"id": inst.id, "family": inst.family, "map_class": inst.map_class}
        for m in methods:
            key = (inst.family, inst.map_class, m)
            before = reused.get((inst.id, inst.map_class))
            if m not in args.methods.split(",") and before is not None and m in before:
                row[m] = before[m]  # a baseline cell from the earlier run (--reuse)
                continue
            if m != "rscount" and key in gave_up:
                row[m] = {"status": "skipped"}
                continue
            row[m] = measure(inst, m, timeout if m == "rscount" else (args.baseline_timeout or timeout))
            if row[m]["status"] == "timeout":
                gave_up.add(key)
        if row["rscount"]["status"] != "ok" and "rscount" in args.methods.split(","):
            row["fallback"] = measure(inst, FALLBACK, timeout)  # what a user gets with --approx instead
        rows.append(row)
        r = row["rscount"]
        print(f"[{n}/{len(instances)}] {inst.id} {inst.map_class}: "
              + ", ".join(f"{m} {row[m]['status']} {row[m].get('seconds', 0):.2f}s" for m in methods)
              + (f" count {r.get('count')}" if r["status"] == "ok" else ""), file=sys.stderr, flush=True)
    meta = {"machine": f"{platform.machine()}, {platform.system()}, Python {platform.python_version()}",
            "cores": __import__("os").cpu_count(), "timeout": timeout, "quick": args.quick,
            "baseline_timeout": args.baseline_timeout or (old["meta"]["baseline_timeout"] if args.reuse else timeout),
            "methods": methods, "date": time.strftime("%Y-%m-%d"), "wall_seconds": round(time.time() - started)}
    if args.reuse and args.only:  # a partial rerun: the whole run's time stays, the rerun says what it redid
        meta["rerun"] = f"rows of {args.only} rerun in {meta['wall_seconds']} s"
        meta["wall_seconds"] = old["meta"]["wall_seconds"]
    data = {"meta": meta, "rows": rows}
    if args.json:
        Path(args.json).write_text(json.dumps(data, indent=1))
    text = write_markdown(data)
    if args.markdown:
        Path(args.markdown).write_text(text)
    else:
        print(text)
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks")
    sub = p.add_subparsers(dest="cmd", required=True)
    run = sub.add_parser("run", help="run the suite")
    run.add_argument("--quick", action="store_true", help="a few minutes: the instances marked quick, 10 s limit")
    run.add_argument("--timeout", type=float, help="seconds per instance and method (default 60, quick 10)")
    run.add_argument("--baseline-timeout", type=float, help="seconds for the baselines (default: --timeout)")
    run.add_argument("--methods", default=",".join(m for m in METHODS if m != FALLBACK),
                     help=f"comma list of {', '.join(METHODS)}")
    run.add_argument("--only", help="instances whose id contains one of these comma-separated texts, or is one "
                                     "(with --reuse the others keep their earlier rows)")
    run.add_argument("--json", metavar="PATH", help="also write the raw results")
    run.add_argument("--reuse", metavar="PATH", help="take the other methods' cells from an earlier --json run")
    run.add_argument("--markdown", metavar="PATH", help="write the table here (default: stdout)")
    one = sub.add_parser("one", help="measure one instance (used by run)")
    one.add_argument("--instance", required=True)
    one.add_argument("--method", required=True, choices=list(METHODS))
    one.add_argument("--timeout", type=float, required=True)
    args = p.parse_args(argv)
    if args.cmd == "one":
        print(json.dumps(measure_here(Instance(**json.loads(args.instance)), args.method, args.timeout)))
        return 0
    return _run(args)


if __name__ == "__main__":
    sys.exit(main())
