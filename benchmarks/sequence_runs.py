"""``python -m benchmarks.sequence_runs [--seeds N] [--out FILE]``: sequential training on several tasks that
share concepts and knowledge (MNAdd-EvenOdd split by its pairs; a small ConCon), DPL and NN, naive /
cumulative / joint, each step read against the counts. Writes docs/harness/sequence.json (one record per design,
model and regime), the numbers of docs/harness.md's "Several tasks in sequence".
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import rscount
from rscount.harness.sequence import REGIMES, run_sequence
from rscount.harness.train import RSBENCH_SEEDS

EVEN = "0,6;6,0;2,8;8,2;4,6;6,4;4,8;8,4"
ODD = "1,5;5,1;3,7;7,3;1,9;9,1;3,9;9,3"
# rsbench_table's tuned MNAdd-EvenOdd settings for DPL (lr, entropy, epochs); NN as it comes
MNADD = dict(lr=0.003, entropy=1.0, epochs=30, extractor="shared", threads=1)
# ConCon: one network per concept (class disentangled): g reads no colour or material, so a shared classifier
# predicts them as it likes, object by object, and its map is no map of the shared class
CONCON = dict(lr=0.003, entropy=1.0, epochs=30, extractor="separate", threads=1, n_train=1500)


def designs() -> dict:
    mnadd = [rscount.make_problem("mnadd", support=s, map_class="shared") for s in (EVEN, ODD)]
    out = {"mnadd-evenodd: even pairs, then odd pairs": (mnadd, MNADD)}
    for mode in ("strict", "disjoint"):
        tasks = [rscount.get_task(f"concon-t{t}", mode=mode, objects=2, colors=2) for t in (1, 2, 3)]
        out[f"concon {mode}, 2 objects, 2 colours"] = ([rscount.make_problem(t, map_class="disentangled")
                                                          for t in tasks], CONCON)
    return out


def table(rows: list) -> str:
    """docs/harness.md's table: per design, model and regime, each step's count and where the seeds landed."""
    out = ["| design | model | regime | step | count | fitted | on a map optimal for all so far | newest only | "
           "intended | label accuracy per task |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        for e in r["summary"]:
            verdicts = (f"{e['on_all_so_far']}/{e['fitted']} | {e['newest_only']} | {e['intended']}"
                        if "on_all_so_far" in e else "n/a (no concepts) | | ")
            step = "all" if r["regime"] == "joint" else f"1..{e['step']}" if e["step"] > 1 else "1"
            out.append(f"| {r['design']} | {r['model']} | {r['regime']} | {step} | "
                       f"{r['cumulative'][e['step'] - 1]:,} | {e['fitted']}/{e['seeds']} | {verdicts} | "
                       f"{', '.join(f'{a:.3f}' for a in e['mean_accuracy'])} |")
    return "\n".join(out)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.sequence_runs")
    p.add_argument("--seeds", type=int, default=len(RSBENCH_SEEDS))
    p.add_argument("--out", default="docs/harness/sequence.json")
    p.add_argument("--only", help="a substring of the design names to run")
    p.add_argument("--render", action="store_true", help="print the table of --out for docs/harness.md")
    args = p.parse_args(argv)
    if args.render:
        print(table(json.loads(Path(args.out).read_text())["rows"]))
        return 0
    seeds = RSBENCH_SEEDS[:args.seeds]
    rows = []
    for name, (problems, settings) in designs().items():
        if args.only and args.only not in name:
            continue
        for model in ("dpl", "nn"):
            for regime in REGIMES:
                kw = dict(settings, extractor="joint") if model == "nn" else settings
                report = run_sequence(problems, regime, model, seeds, **kw)
                row = {"design": name, **report.to_dict()}
                rows.append(row)
                print(json.dumps({k: v for k, v in row.items() if k != "seeds"}), flush=True)
    path = Path(args.out)  # rows of designs not run this time stay as they were
    kept = [r for r in (json.loads(path.read_text())["rows"] if path.exists() else [])
            if (r["design"], r["model"], r["regime"]) not in {(x["design"], x["model"], x["regime"]) for x in rows}]
    path.write_text(json.dumps({"rows": kept + rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
