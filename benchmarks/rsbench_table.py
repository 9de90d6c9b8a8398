"""rsbench's Table 2, on our offline data: does training land where the count says? Then a supervision sweep.

    python -m benchmarks.rsbench_table [--seeds 10] [--epochs 30] [--workers 2] [--restarts 3] [--quick]

Each row first tunes its model as rsbench's Appendix B.3 does (a small grid: learning rate, entropy weight
w_h, LTN's t-norm and p, CBM's concept weight w_c) on two tuning seeds that are not reported, keeping the
setting that fits the training labels on the most of them, then the best mean validation mF1(Y). It then
trains the model for rsbench's seeds (Appendix B.3), selects each seed's epoch by validation mF1(Y),
restarts a seed that does not fit the training labels from a fresh initialisation (labels only,
``--restarts`` in all), and reports rsbench's metrics (mean and standard deviation) next to the count: of
the seeds that fit the training labels, how many land on a counted optimal map (the intended one included),
with 95% Wilson intervals. CBM gets rsbench's concept supervision (EvenOdd digits 3, 4, 8, 9; Kand-Logic
red, square, circle; SDD-OIA's high-stakes concepts). The sweep supervises a growing fraction of the
support's concept vectors, then the audit's advised supervision, and gives the count at each point. Writes
docs/harness/results.json (one object per row under "rows"), docs/harness/rsbench-table.md,
docs/harness/predictive-power.png and docs/harness/supervision-sweep.png; ``--only`` re-runs some rows.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import platform
import sys
import time
from pathlib import Path

import numpy as np

import rscount
from rscount.harness import TrainConfig, run
from rscount.harness.train import FIT, RSBENCH_SEEDS, count_and_relation
from rscount.output import write_figure

OUT = Path(__file__).resolve().parent.parent / "docs" / "harness"
MODELS = ("dpl", "sl", "ltn", "cbm", "nn")
KAND_SUP = [f"{c}={v}" for c in [f"col{f}_{o}" for f in (1, 2) for o in (1, 2, 3)] for v in ("red",)] + \
           [f"{c}={v}" for c in [f"sha{f}_{o}" for f in (1, 2) for o in (1, 2, 3)] for v in ("square", "circle")]
SDD_SUP = ["red_light", "green_light", "car", "person", "rider", "other_obstacle", "stop_sign",
           "right_green_light", "left_green_light"]
TASKS = [  # (task, problem options, extractor, CBM's supervision, rsbench's entropy weight w_h for DPL/LTN)
    ("mnadd-evenodd", {"map_class": "shared"}, "shared",
     [f"d{i}={v}" for i in (1, 2) for v in (3, 4, 8, 9)], 1.0),
    # rsbench's Kand-Logic models read one object at a time with one network: the shared class (a colour
    # network, a shape network); one network per object position (disentangled) memorises rather than fits.
    ("kand-logic", {"map_class": "shared", "support": "by-label:300"}, "shared", KAND_SUP, 0.8),
    ("sdd-oia", {"map_class": "disentangled", "support": "by-label:1000"}, "separate", SDD_SUP, 0.0),
]
SWEEP = ("mnadd-evenodd", {"map_class": "shared"}, "shared", (0.0, 0.0625, 0.125, 0.25, 0.5, 1.0))
ADVISED = (["d1=1", "d1=4"], ["d2"])  # `countrss audit --task mnadd-evenodd --map-class shared`: values, concepts
TUNE_SEEDS = (0, 1)  # tuning seeds, kept apart from the reported ones


def grid(model: str, w_h: float) -> list:
    """The hyperparameters tried per model (rsbench's ranges, cut to what two cores can afford)."""
    entropy = w_h or 0.5
    slow = {"lr": 3e-4, "batch_size": 32, "entropy": entropy}
    return {"dpl": [{}, {"entropy": entropy}, {"entropy": 2.0}, {"lr": 3e-3, "entropy": entropy}, slow],
            "sl": [{}, {"entropy": entropy}, {"lr": 3e-3}, slow],
            "ltn": [{"tnorm": "product"}, {"tnorm": "goedel"}, {"tnorm": "goedel", "entropy": entropy},
                    {"tnorm": "goedel", "p": 6.0, "entropy": 2.0}, {"tnorm": "goedel", **slow}],
            "cbm": [{"concept_weight": 1.0}, {"concept_weight": 2.0}],
            "nn": [{}, {"lr": 3e-3}]}[model]


def tune(problem, base: TrainConfig, model: str, w_h: float, workers: int, counted, predicted) -> tuple:
    """(best overrides, what each tried setting scored over TUNE_SEEDS): fit first (the most tuning seeds that
    fit the training labels), then the best mean validation mF1(Y), then the earlier (simpler) setting."""
    tried = []
    for over in grid(model, w_h):
        config = dataclasses.replace(base, restarts=1, **over)
        report = run(problem, seeds=TUNE_SEEDS, config=config, workers=workers, counted=counted,
                     predicted=predicted)
        score = float(np.mean([max(c[1] for c in s.curve) for s in report.seeds]))
        tried.append({"config": over, "val_mF1_Y": round(score, 4),
                      "train_accuracy": [round(s.train_accuracy, 4) for s in report.seeds]})
    fits = [sum(a >= FIT for a in t["train_accuracy"]) for t in tried]
    best = max(range(len(tried)), key=lambda n: (fits[n], tried[n]["val_mF1_Y"], -n))
    return tried[best]["config"], tried


_SEEN: dict = {}  # (task, supervision) -> (count, predicted relation): the same problem is counted once


def row(task: str, opts: dict, model: str, extractor: str, config: TrainConfig, seeds, workers: int,
        supervise=(), concept_sup=None, w_h: float | None = None) -> dict:
    """Tune (unless ``w_h`` is None: ``config`` as given), train one row and summarise it in the results schema."""
    start = time.perf_counter()
    problem = rscount.make_problem(task, supervise=list(supervise), concept_sup=concept_sup, **opts)
    key = (task, tuple(supervise), concept_sup)
    if key not in _SEEN:
        _SEEN[key] = count_and_relation(problem, 300)[:2]
    counted, predicted = _SEEN[key]
    chosen, tried = {}, []
    if w_h is not None:
        chosen, tried = tune(problem, config, model, w_h, workers, counted, predicted)
        config = dataclasses.replace(config, **chosen)
    report = run(problem, seeds=seeds, config=config, workers=workers, counted=counted, predicted=predicted)
    sm, count = report.summary, report.count
    out = {"task": task, "model": model, "map_class": problem.map_class, "extractor": extractor,
           "support": f"{problem.support.kind} ({problem.support.length})",
           "count": count.count if count is not None and count.exact else None,
           "count_exact": bool(count is not None and count.exact), "seeds": list(seeds),
           "fitted": sm["fitted"], "on_counted": sm["on_counted"], "intended": sm["fitted_intended"],
           "outside": sm["outside"], "on_counted_ci": sm["on_counted_ci"], "intended_ci": sm["intended_ci"],
           "train_accuracy": [round(s.train_accuracy, 4) for s in report.seeds],
           "median_train_accuracy": round(float(np.median([s.train_accuracy for s in report.seeds])), 4),
           "val_accuracy": [max(s.curve, key=lambda c: c[1])[2] for s in report.seeds],
           "attempts": [s.attempts for s in report.seeds],
           "verdicts": [s.learned.verdict if s.learned else "no concepts" for s in report.seeds],
           "broken": [s.learned.broken if s.learned else None for s in report.seeds],
           "config": {"lr": config.lr, "entropy": config.entropy, "tnorm": config.tnorm, "p": config.p,
                      "concept_weight": config.concept_weight, "epochs": config.epochs,
                      "batch_size": config.batch_size, "restarts": config.restarts},
           "tuned": chosen, "tuning": tried,
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


def _tuned(r: dict) -> str:
    names = {"lr": "lr", "entropy": "w_h", "tnorm": "", "concept_weight": "w_c", "p": "p", "batch_size": "batch"}
    return ", ".join(f"{names[k]} {v}".strip() for k, v in r.get("tuned", {}).items()) or "defaults"


def table(rows: list) -> str:
    lines = ["| task | model | tuned | class | count | mF1(Y) | mF1(C) | Cls(C) | mCls(C) | median train / val acc | "
             "fitted | on a counted map (95% CI) | intended | head is K |", "|" + "---|" * 14]
    for r in rows:
        lo, hi = r["on_counted_ci"]
        fitted = len(r["fitted"])
        on = f"{r['on_counted']}/{fitted} [{lo:.2f}, {hi:.2f}]" if fitted else "no seed fit"
        if all(v == "no concepts" for v in r["verdicts"]):
            on = "- (no concepts)"
        acc = f"{r['median_train_accuracy']:.2f} / {np.median(r['val_accuracy']):.2f}"
        lines.append(f"| {r['task']} | {r['model']} | {_tuned(r)} | {r['map_class']} | "
                     f"{r['count'] if r['count'] else '-'} | {_pm(r, 'mF1_Y')} | {_pm(r, 'mF1_C')} | "
                     f"{_pm(r, 'Cls_C')} | {_pm(r, 'mCls_C')} | {acc} | "
                     f"{fitted}/{len(r['seeds'])} | {on} | {r['intended']} | {_pm(r, 'head_is_K')} |")
    return "\n".join(lines) + "\n"


def sweep_table(rows: list) -> str:
    lines = ["| supervision | count | median train acc | fitted | intended (95% CI) | on a counted map | mF1(C) |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        lo, hi = r["intended_ci"]
        sup = r["supervision"]
        n = int(r["support"].rsplit("(", 1)[1].rstrip(")"))
        what = (f"{round(sup * n)} of {n} vectors" if isinstance(sup, (int, float)) else "advised: " + " ".join(sup))
        lines.append(f"| {what} | {r['count']} | {r['median_train_accuracy']:.2f} | "
                     f"{len(r['fitted'])}/{len(r['seeds'])} | {r['intended']} [{lo:.2f}, {hi:.2f}] | "
                     f"{r['on_counted']} | {_pm(r, 'mF1_C')} |")
    return "\n".join(lines) + "\n"


def plot(rows: list, path: Path) -> None:
    rows = [r for r in rows if isinstance(r["supervision"], (int, float))]
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

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
    p.add_argument("--restarts", type=int, default=3, help="initialisations per seed at most (default 3)")
    p.add_argument("--quick", action="store_true", help="2 seeds, 2 epochs, small data: a smoke run")
    p.add_argument("--out", default=str(OUT))
    p.add_argument("--render", action="store_true", help="rewrite the table and plot from results.json only")
    p.add_argument("--only", metavar="TASK/MODEL,...",
                   help="run only these rows (or 'sweep') and replace them in the saved results.json")
    args = p.parse_args(argv)
    out = Path(args.out)
    only = set(args.only.split(",")) if args.only else None
    saved = json.loads((out / "results.json").read_text()) if (args.render or only) else None
    if args.render:
        write(out, saved)
        return
    seeds = RSBENCH_SEEDS[:2 if args.quick else args.seeds]
    epochs = 2 if args.quick else args.epochs
    sizes = {"n_train": 200, "n_val": 60, "n_test": 60} if args.quick else {}
    rows = []
    for task, opts, extractor, sup, w_h in TASKS:
        for model in MODELS:
            if only is not None and f"{task}/{model}" not in only:
                continue
            config = TrainConfig(model=model, extractor=extractor, epochs=epochs, restarts=args.restarts, **sizes)
            rows.append(row(task, opts, model, extractor, config, seeds, args.workers,
                            supervise=sup if model == "cbm" else (), w_h=w_h))
            print(json.dumps(rows[-1]), flush=True)
    task, opts, extractor, fractions = SWEEP
    w_h = next(t[4] for t in TASKS if t[0] == task)
    sweep = []
    config = TrainConfig(model="dpl", extractor=extractor, epochs=epochs, restarts=args.restarts, **sizes)
    for point in [*fractions, *ADVISED] if only is None or "sweep" in only else []:
        frac, items = (point, ()) if isinstance(point, float) else (None, point)
        sweep.append(row(task, opts, "dpl", extractor, config, seeds, args.workers, supervise=items,
                         concept_sup=frac, w_h=w_h))
        sweep[-1]["sweep"] = True
        print(json.dumps(sweep[-1]), flush=True)
    command = "python -m benchmarks.rsbench_table " + " ".join(argv if argv is not None else sys.argv[1:])
    if saved is None:
        saved = {"seeds": list(seeds), "epochs": epochs, "machine": f"{platform.machine()} / Python "
                 f"{platform.python_version()}", "command": command, "rows": rows + sweep}
    else:
        saved = merge(saved, rows, sweep, command)
    write(out, saved)


def merge(saved: dict, rows: list, sweep: list, command: str) -> dict:
    """``--only``: re-run rows take the places of the saved ones (a new sweep replaces the whole sweep)."""
    new = {(r["task"], r["model"]): r for r in rows}
    kept = [new.pop((r["task"], r["model"]), r) if not r.get("sweep") else r for r in saved["rows"]]
    if sweep:
        kept = [r for r in kept if not r.get("sweep")] + sweep
    return dict(saved, rows=kept + list(new.values()), reruns=saved.get("reruns", []) + [command])


def power_plot(rows: list, path: Path) -> None:
    """Per row, the share of fitted seeds on a counted map and on the intended one (95% Wilson intervals);
    rows without concepts or without a fitted seed are named, not drawn."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in rows if not all(v == "no concepts" for v in r["verdicts"])]
    fig, ax = plt.subplots(figsize=(6.5, 0.32 * len(rows) + 1.2))
    for y, r in enumerate(reversed(rows)):
        n = len(r["fitted"])
        if not n:
            ax.text(0.01, y, "no seed fits the labels", va="center", fontsize=7, color="#777")
            continue
        for share, ci, colour, dy in ((r["on_counted"] / n, r["on_counted_ci"], "#3465a4", 0.12),
                                      (r["intended"] / n, r["intended_ci"], "#c33", -0.12)):
            err = [[max(0.0, share - ci[0])], [max(0.0, ci[1] - share)]]
            ax.errorbar(share, y + dy, xerr=err, fmt="o", color=colour, ms=4, capsize=2)
        ax.text(1.02, y, f"{n} fitted", va="center", fontsize=7)
    names = [f"{r['task']} {r['model']}{', learned head' if 'head_is_K' in r else ''} ({r['count']} maps)"
             for r in reversed(rows)]
    ax.set_yticks(range(len(rows)), names, fontsize=7)
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of fitted seeds (blue: on a counted optimal map; red: on the intended map)", fontsize=8)
    ax.set_title("Where fitted models land, against the count", fontsize=9)
    fig.tight_layout()
    write_figure(fig, path)


def write(out: Path, saved: dict) -> None:
    """results.json, the markdown tables and the two plots."""
    rows = [r for r in saved["rows"] if not r.get("sweep")]
    sweep = [r for r in saved["rows"] if r.get("sweep")]
    (out / "results.json").write_text(json.dumps(saved, indent=1))
    (out / "rsbench-table.md").write_text(table(rows) + "\n" + sweep_table(sweep))
    if rows:
        power_plot(rows, out / "predictive-power.png")
    if sweep:
        plot(sweep, out / "supervision-sweep.png")


if __name__ == "__main__":
    main()
