"""Does the audit's advice hold in training? Train DPL with the supervision each audit advises, over seeds.

    python benchmarks/audit_advice.py --seeds 0,1,2,3,4 --epochs 30

For each task: audit it, then train with no supervision, with the advised
value items and with the advised whole concepts, and record how many seeds
land on the intended map, on a counted shortcut or on no optimal map.
Writes docs/audit-advice.json and the table in docs/audit-advice.md.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import rscount
from rscount.harness import TrainConfig, run

ROOT = Path(__file__).resolve().parent.parent
# (task, problem options, extractor): library tasks with shortcuts under the extractor's class
TASKS = [("mnadd-half", {}, "shared"), ("mnadd-evenodd", {}, "shared"), ("xor3", {}, "separate"),
         ("sdd-oia", {"support": "by-label:1000"}, "separate")]
CLASS_OF = {"separate": "disentangled", "shared": "shared"}


def rows(seeds: list, epochs: int) -> list:
    out = []
    for task, options, extractor in TASKS:
        problem = rscount.make_problem(task, map_class=CLASS_OF[extractor], **options)
        a = rscount.audit(problem)
        for what, items in (("none", ()), ("advised values", a.supervise_values.items),
                            ("advised concepts", a.supervise_concepts.items)):
            p = rscount.make_problem(task, map_class=CLASS_OF[extractor], supervise=list(items), **options)
            report = run(p, "dpl", seeds=seeds, config=TrainConfig(model="dpl", extractor=extractor, epochs=epochs))
            s = report.summary
            out.append({"task": task, "class": CLASS_OF[extractor], "supervision": what, "items": list(items),
                        "count": report.count.count if report.count else None, "seeds": len(seeds),
                        "intended": s["intended"], "shortcut": s["shortcut"], "no_optimal_map": s["no_optimal_map"],
                        "label_accuracy": round(s["label_accuracy"], 3),
                        "concept_accuracy": round(s["concept_accuracy"], 3)})
            print(json.dumps(out[-1]), flush=True)
    return out


def table(data: list) -> str:
    lines = ["| task | class | supervision | items | count | intended | counted shortcut | no optimal map | "
             "label acc | concept acc |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in data:
        lines.append(f"| {r['task']} | {r['class']} | {r['supervision']} | {' '.join(r['items']) or '-'} | "
                     f"{r['count']} | {r['intended']}/{r['seeds']} | {r['shortcut']}/{r['seeds']} | "
                     f"{r['no_optimal_map']}/{r['seeds']} | {r['label_accuracy']:.3f} | {r['concept_accuracy']:.3f} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seeds", default="0,1,2,3,4")
    ap.add_argument("--epochs", type=int, default=30)
    args = ap.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    data = rows(seeds, args.epochs)
    (ROOT / "docs" / "audit-advice.json").write_text(json.dumps(data, indent=1))
    (ROOT / "docs" / "audit-advice.md").write_text(
        f"# Does the audit's advice hold in training?\n\nDPL, {len(seeds)} seeds, {args.epochs} epochs, "
        f"2000 training examples; regenerate with `python benchmarks/audit_advice.py`. What it shows is "
        f"discussed in docs/harness.md.\n\n" + table(data))


if __name__ == "__main__":
    main()
