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
CONCON = dict(lr=0.003, entropy=1.0, epochs=30, extractor="shared", threads=1, n_train=1500)


def designs() -> dict:
    mnadd = [rscount.make_problem("mnadd", support=s, map_class="shared") for s in (EVEN, ODD)]
    out = {"mnadd-evenodd: even pairs, then odd pairs": (mnadd, MNADD)}
    for mode in ("strict", "disjoint"):
        tasks = [rscount.get_task(f"concon-t{t}", mode=mode, objects=2, colors=2) for t in (1, 2, 3)]
        out[f"concon {mode}, 2 objects, 2 colours"] = ([rscount.make_problem(t, map_class="shared")
                                                          for t in tasks], CONCON)
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.sequence_runs")
    p.add_argument("--seeds", type=int, default=len(RSBENCH_SEEDS))
    p.add_argument("--out", default="docs/harness/sequence.json")
    p.add_argument("--only", help="a substring of the design names to run")
    args = p.parse_args(argv)
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
    Path(args.out).write_text(json.dumps({"rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
