"""Train the harness grid and write docs/harness.md with figures under docs/harness/.

    python benchmarks/harness_runs.py --seeds 0,1,2,3,4 --epochs 30

Each row trains one model on labels only, for several seeds, and checks each
learned concept map against the optimal maps counted for the same task,
support, supervision and map class.
"""
from __future__ import annotations

import argparse
import json
import platform
import shutil
import time
from pathlib import Path

import rscount
from rscount.harness import TrainConfig, run, save

# (label, task, problem options, model, extractor, extra config)
GRID = [
    ("xor3", "xor3", {}, "dpl", "separate", {}),
    ("xor3", "xor3", {}, "ltn", "separate", {}),
    ("xor3", "xor3", {}, "cbm", "separate", {}),
    ("xor3", "xor3", {}, "nn", "separate", {}),
    ("xor3, all concepts supervised", "xor3", {"concept_sup": 1.0}, "dpl", "separate", {}),
    ("xor3, joint extractor", "xor3", {}, "dpl", "joint", {}),
    ("mnadd-evenodd", "mnadd-evenodd", {}, "dpl", "shared", {}),
    ("mnadd-evenodd", "mnadd-evenodd", {}, "ltn", "shared", {}),
    ("mnadd-evenodd, 3/4/8/9 supervised", "mnadd-evenodd",
     {"supervise": ["d1=3", "d1=4", "d1=8", "d1=9", "d2=3", "d2=4", "d2=8", "d2=9"]}, "cbm", "shared", {}),
    ("mnadd-evenodd", "mnadd-evenodd", {}, "nn", "shared", {}),
    ("mnadd-half", "mnadd-half", {}, "dpl", "shared", {}),
    ("mnadd (exhaustive)", "mnadd", {}, "dpl", "shared", {}),
    ("mnmath (exhaustive)", "mnmath", {}, "dpl", "shared", {}),
    ("kand-logic, 300 vectors by label", "kand-logic", {"support": "by-label:300"}, "dpl", "separate", {}),
    ("sdd-oia, 1000 vectors by label", "sdd-oia", {"support": "by-label:1000"}, "dpl", "separate", {}),
    ("sdd-oia, 1000 vectors by label", "sdd-oia", {"support": "by-label:1000"}, "ltn", "separate", {}),
]

CLASS_OF = {"separate": "disentangled", "shared": "shared", "joint": "joint"}


def table(rows: list, seeds: list, epochs: int) -> str:
    """The markdown table docs/harness.md shows."""
    head = ("| run | model | extractor / class | support | supervision | optimal maps | label acc | "
            "concept acc | collapse | intended | counted shortcut | no optimal map | figures |")
    lines = [head, "|" + "---|" * 13]
    for r in rows:
        acc = f"{r['concept_acc']:.3f}" if r["concept_acc"] is not None else "-"
        cls = f"{r['collapse']:.3f}" if r["collapse"] is not None else "-"
        counts = (f"{r['intended']} | {r['shortcut']} | {r['none']}" if r["concept_acc"] is not None
                  else "- | - | -")
        lines.append(f"| {r['label']} | {r['model']} | {r['extractor']} / {r['map_class']} | {r['support']} | "
                     f"{r['supervision']} | {r['count']} | {r['label_acc']:.3f} | {acc} | {cls} | {counts} | "
                     f"[{r['folder']}](harness/{r['folder']}) |")
    return (f"{len(seeds)} seeds ({', '.join(map(str, seeds))}), {epochs} epochs each; accuracies and collapse "
            f"are means over seeds on the test split.\n\n" + "\n".join(lines) + "\n")


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--seeds", default="0,1,2,3,4")
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--out", default="docs/harness")
    p.add_argument("--only", help="run the rows whose label contains this text")
    args = p.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    out = Path(args.out)
    rows = []
    for n, (label, task, opts, model, extractor, extra) in enumerate(GRID):
        if args.only and args.only not in label:
            continue
        start = time.perf_counter()
        problem = rscount.make_problem(task, map_class=CLASS_OF[extractor], **opts)
        config = TrainConfig(model=model, extractor=extractor, epochs=args.epochs, **extra)
        report = run(problem, seeds=seeds, config=config, count_timeout=300)
        folder = out / f"{n:02d}-{task}-{model}-{extractor}"
        if folder.exists():
            shutil.rmtree(folder)
        save(report, folder)
        (folder / "report.json").unlink()  # the figures and confusion data stay; the summary goes below
        sm = report.summary
        count = report.count
        rows.append({
            "label": label, "model": model, "extractor": extractor, "map_class": problem.map_class,
            "support": f"{problem.support.kind} ({len(problem.support)})",
            "supervision": problem.supervision.describe(problem.task),
            "count": (f"{count.count}" + ("" if count.exact else " (estimate)")) if count else "not counted",
            "label_acc": sm["label_accuracy"], "concept_acc": sm["concept_accuracy"],
            "collapse": (sum(s.concepts["collapse"] for s in report.seeds) / len(seeds)
                         if all(s.concepts for s in report.seeds) else None),
            "intended": sm["intended"], "shortcut": sm["shortcut"], "none": sm["no_optimal_map"],
            "maps": [s.learned.description if s.learned else "" for s in report.seeds],
            "verdicts": [s.learned.verdict if s.learned else "no concepts" for s in report.seeds],
            "folder": folder.name, "seconds": time.perf_counter() - start,
        })
        print(json.dumps(rows[-1]), flush=True)
    (out / "table.md").write_text(table(rows, seeds, args.epochs))
    (out / "grid.json").write_text(json.dumps({"seeds": seeds, "epochs": args.epochs,
                                                  "machine": f"{platform.machine()} / Python "
                                                             f"{platform.python_version()}", "rows": rows},
                                                 indent=1))


if __name__ == "__main__":
    main()
