"""rsbench's Table 2, on our offline data: does training land where the count says? Then a supervision sweep.

    python -m benchmarks.rsbench_table [--seeds 10] [--epochs 30] [--workers 2] [--quick]

Each row trains one model on MNAdd-EvenOdd, Kand-Logic or SDD-OIA for rsbench's seeds (Appendix B.3), selects
each seed's epoch by validation mF1(Y), and reports rsbench's metrics (mean and standard deviation) next to the
count: of the seeds that fit the training labels, how many land on a counted optimal map (the intended one
included), with 95% Wilson intervals. CBM gets rsbench's concept supervision (EvenOdd digits 3, 4, 8, 9;
Kand-Logic red, square, circle; SDD-OIA's high-stakes concepts). The sweep supervises a growing fraction of
the support's concept vectors and gives the count at each point. Writes docs/harness/results.json (one object
per row under "rows"), docs/harness/rsbench-table.md and docs/harness/supervision-sweep.png.
"""
from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import rscount
from rscount.harness import TrainConfig, run
from rscount.harness.train import RSBENCH_SEEDS

OUT = Path(__file__).resolve().parent.parent / "docs" / "harness"
MODELS = ("dpl", "sl", "ltn", "cbm", "nn")
KAND_SUP = [f"{c}={v}" for c in [f"col{f}_{o}" for f in (1, 2) for o in (1, 2, 3)] for v in ("red",)] + \
           [f"{c}={v}" for c in [f"sha{f}_{o}" for f in (1, 2) for o in (1, 2, 3)] for v in ("square", "circle")]
SDD_SUP = ["red_light", "green_light", "car", "person", "rider", "other_obstacle", "stop_sign",
           "right_green_light", "left_green_light"]
TASKS = [  # (task, problem options, extractor, CBM's supervision, rsbench's entropy weight w_h for DPL/LTN)
    ("mnadd-evenodd", {"map_class": "shared"}, "shared",
     [f"d{i}={v}" for i in (1, 2) for v in (3, 4, 8, 9)], 1.0),
    ("kand-logic", {"map_class": "disentangled", "support": "by-label:300"}, "separate", KAND_SUP, 0.8),
    ("sdd-oia", {"map_class": "disentangled", "support": "by-label:1000"}, "separate", SDD_SUP, 0.0),
]
SWEEP = ("mnadd-evenodd", {"map_class": "shared"}, "shared", (0.0, 0.0625, 0.125, 0.25, 0.5, 1.0))


_SEEN: dict = {}  # (task, supervision) -> (count, predicted relation): the same problem is counted once


def row(task: str, opts: dict, model: str, extractor: str, config: TrainConfig, seeds, workers: int,
        supervise=(), concept_sup=None) -> dict:
    """Train one row and summarise it in the results schema."""
    start = time.perf_counter()
    problem = rscount.make_problem(task, supervise=list(supervise), concept_sup=concept_sup, **opts)
    key = (task, tuple(supervise), concept_sup)
    counted, predicted = _SEEN.get(key, (None, None))
    report = run(problem, seeds=seeds, config=config, workers=workers, count_timeout=300, counted=counted,
                 predicted=predicted)
    _SEEN[key] = (report.count, report.predicted)
    sm, count = report.summary, report.count
    out = {"task": task, "model": model, "map_class": problem.map_class, "extractor": extractor,
           "support": f"{problem.support.kind} ({problem.support.length})",
           "count": count.count if count is not None and count.exact else None,
           "count_exact": bool(count is not None and count.exact), "seeds": list(seeds),
           "fitted": sm["fitted"], "on_counted": sm["on_counted"], "intended": sm["fitted_intended"],
           "outside": sm["outside"], "on_counted_ci": sm["on_counted_ci"], "intended_ci": sm["intended_ci"],
           "train_accuracy": [round(s.train_accuracy, 4) for s in report.seeds],
           "verdicts": [s.learned.verdict if s.learned else "no concepts" for s in report.seeds],
           "epochs": config.epochs, "entropy": config.entropy, "seconds": round(time.perf_counter() - start, 1)}
    for key in ("mF1_Y", "mF1_C", "Cls_C", "mCls_C", "ood_mF1_Y", "head_is_K"):
        if key in sm:
            out[key], out[key + "_std"] = round(sm[key], 4), round(sm[key + "_std"], 4)
    if supervise or concept_sup is not None:
        out["supervision"] = list(supervise) if supervise else concept_sup
    outside = [report.outside_predicted(s) for s in report.seeds]
    if any(outside):
        out["outside_predicted_relation"] = [max(o.values()) if o else None for o in outside]
    return out


def _pm(r: dict, key: str) -> str:
    return f"{r[key]:.2f} ± {r[key + '_std']:.2f}" if key in r else "-"


def table(rows: list) -> str:
    lines = ["| task | model | class | count | mF1(Y) | mF1(C) | Cls(C) | mCls(C) | fitted | on a counted map "
             "(95% CI) | intended | head is K |", "|" + "---|" * 12]
    for r in rows:
        if "supervision" in r and r["model"] != "cbm":
            continue
        lo, hi = r["on_counted_ci"]
        fitted = len(r["fitted"])
        on = f"{r['on_counted']}/{fitted} [{lo:.2f}, {hi:.2f}]" if fitted else "no seed fit"
        if all(v == "no concepts" for v in r["verdicts"]):
            on = "- (no concepts)"
        lines.append(f"| {r['task']} | {r['model']} | {r['map_class']} | {r['count'] if r['count'] else '-'} | "
                     f"{_pm(r, 'mF1_Y')} | {_pm(r, 'mF1_C')} | {_pm(r, 'Cls_C')} | {_pm(r, 'mCls_C')} | "
                     f"{fitted}/{len(r['seeds'])} | {on} | {r['intended']} | {_pm(r, 'head_is_K')} |")
    return "\n".join(lines) + "\n"


def sweep_table(rows: list) -> str:
    lines = ["| supervised fraction | count | fitted | intended (95% CI) | on a counted map | mF1(C) |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        lo, hi = r["intended_ci"]
        lines.append(f"| {r['supervision']} | {r['count']} | {len(r['fitted'])}/{len(r['seeds'])} | "
                     f"{r['intended']} [{lo:.2f}, {hi:.2f}] | {r['on_counted']} | {_pm(r, 'mF1_C')} |")
    return "\n".join(lines) + "\n"


def plot(rows: list, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from rscount.output import write_figure
    xs = [r["supervision"] for r in rows]
    rate = [r["intended"] / len(r["fitted"]) if r["fitted"] else float("nan") for r in rows]  # no fitted seed: no point
    low = [r["intended_ci"][0] for r in rows]
    high = [r["intended_ci"][1] for r in rows]
    fig, ax = plt.subplots(figsize=(5.5, 3.4))
    ax.plot(xs, rate, "o-", label="fitted seeds on the intended map")
    ax.fill_between(xs, low, high, alpha=0.2, label="95% Wilson interval")
    ax2 = ax.twinx()
    ax2.plot(xs, [r["count"] for r in rows], "s--", color="#c33", label="optimal maps (count)")
    ax2.set_yscale("log")
    ax.set_xlabel("fraction of support vectors with observed concepts")
    ax.set_ylabel("recovery")
    ax2.set_ylabel("count")
    ax.set_title(f"{rows[0]['task']}, {rows[0]['model']}: recovery against the count", fontsize=9)
    fig.legend(loc="center right", fontsize=7, bbox_to_anchor=(0.85, 0.55))
    fig.tight_layout()
    write_figure(fig, path)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.rsbench_table")
    p.add_argument("--seeds", type=int, default=10, help="how many of rsbench's seeds (default 10)")
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--quick", action="store_true", help="2 seeds, 2 epochs, small data: a smoke run")
    p.add_argument("--out", default=str(OUT))
    p.add_argument("--render", action="store_true", help="rewrite the table and plot from results.json only")
    args = p.parse_args(argv)
    out = Path(args.out)
    if args.render:
        saved = json.loads((out / "results.json").read_text())["rows"]
        rows = [r for r in saved if "supervision" not in r or r["model"] == "cbm"]
        sweep = [r for r in saved if "supervision" in r and r["model"] != "cbm"]
        (out / "rsbench-table.md").write_text(table(rows) + "\n" + sweep_table(sweep))
        plot(sweep, out / "supervision-sweep.png")
        return
    seeds = RSBENCH_SEEDS[:2 if args.quick else args.seeds]
    epochs = 2 if args.quick else args.epochs
    sizes = {"n_train": 200, "n_val": 60, "n_test": 60} if args.quick else {}
    rows = []
    for task, opts, extractor, sup, w_h in TASKS:
        for model in MODELS:
            config = TrainConfig(model=model, extractor=extractor, epochs=epochs,
                                 entropy=w_h if model in ("dpl", "ltn") else 0.0, **sizes)
            rows.append(row(task, opts, model, extractor, config, seeds, args.workers,
                            supervise=sup if model == "cbm" else ()))
            print(json.dumps(rows[-1]), flush=True)
    task, opts, extractor, fractions = SWEEP
    sweep = []
    for frac in fractions:
        config = TrainConfig(model="dpl", extractor=extractor, epochs=epochs, **sizes)
        sweep.append(row(task, opts, "dpl", extractor, config, seeds, args.workers, concept_sup=frac))
        print(json.dumps(sweep[-1]), flush=True)
    meta = {"seeds": list(seeds), "epochs": epochs, "machine": f"{platform.machine()} / Python "
            f"{platform.python_version()}", "command": "python -m benchmarks.rsbench_table "
            + " ".join(argv if argv is not None else __import__("sys").argv[1:])}
    (out / "results.json").write_text(json.dumps({**meta, "rows": rows + sweep}, indent=1))
    (out / "rsbench-table.md").write_text(table(rows) + "\n" + sweep_table(sweep))
    plot(sweep, out / "supervision-sweep.png")


if __name__ == "__main__":
    main()
