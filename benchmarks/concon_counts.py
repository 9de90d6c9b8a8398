"""``python -m benchmarks.concon_counts [--timeout S] [--out DIR]``: ConCon's finding as counts.

For ``strict`` and ``disjoint`` at several sizes: concept maps with the rule g fixed (each task alone, the
joint support, after each task in order) in the disentangled and shared classes, and the rules of two
hypothesis classes that fit (the rule learned). Writes ``DIR/results.json`` and ``DIR/concon.png``; the table
in docs/concon.md is read off the JSON.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import rscount
from rscount.rules.dnf import hypotheses, rule_sequence, scene_space

SIZES = [dict(objects=2, colors=2), dict(objects=2, colors=8), dict(objects=3, colors=2), dict(objects=3, colors=8),
         dict(objects=4, colors=2), dict(objects=4, colors=8)]
CLASSES = ("disentangled", "shared", "complete", "free")
RULE_CLASSES = {"1 term, 2 predicates": dict(terms=1, literals=2, values=2),
                "3 terms, 1 predicate": dict(terms=3, literals=1, values=2)}
G = [[(("shape", "sphere"),), (("shape", "cube"), ("size", "small"))]]
ANY = [[(("color", "blue"),)], [(("material", "metal"),)], [(("size", "large"),)]]


def free_maps(task, cls: str) -> int:
    """Value maps of the attributes g never reads (colour, material): free in every design."""
    n_obj = task.k // 4
    colors, materials = len(task.concept("color1").domain), len(task.concept("material1").domain)
    per = colors ** colors * materials ** materials
    return per ** n_obj if cls == "disentangled" else per


def concept_row(mode: str, size: dict, cls: str, timeout: float) -> dict:
    tasks = [rscount.get_task(f"concon-t{t}", mode=mode, **size) for t in (1, 2, 3)]
    start = time.perf_counter()
    try:
        r = rscount.count(tasks, map_class=cls, timeout=timeout)
    except rscount.RscountError as exc:
        return {"error": str(exc).split(";")[0][:160], "seconds": round(time.perf_counter() - start, 2)}
    free = free_maps(tasks[0], cls) if cls in ("disentangled", "shared") else 1
    return {"support": [len(t.default_support) for t in tasks], "sampled": "sample" in tasks[0].notes[0],
            "alone": [t.count for t in r.per_task], "cumulative": list(r.cumulative), "forgets": list(r.forgets),
            "joint": r.count, "free": free, "joint_over_free": r.count // free if r.count % free == 0 else None,
            "backend": r.backend, "seconds": round(time.perf_counter() - start, 2)}


def rule_row(mode: str, size: dict, h_kw: dict) -> dict:
    problems = [rscount.make_problem(rscount.get_task(f"concon-t{t}", mode=mode, **size)) for t in (1, 2, 3)]
    start = time.perf_counter()
    try:
        h = hypotheses(problems[0].task, **h_kw)
        space = scene_space(problems[0].task)
        found = rule_sequence(problems, h, space, {"g": G, "any confounder": ANY})
    except rscount.RscountError as exc:
        return {"error": str(exc).split(";")[0][:160]}
    return {"alone": [(r.rules, r.behaviours) for r in found["per_task"]],
            "cumulative": [(r.rules, r.behaviours) for r in found["cumulative"]],
            "joint_fits": found["joint"].has, "behaviours_on": "every scene" if space is not None else "the data",
            "seconds": round(time.perf_counter() - start, 2)}


def plot(rows: list, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    for ax, what in zip(axes, ("concepts", "rules")):
        for row in rows:
            if row["kind"] != what or "error" in row["result"]:
                continue
            if what == "concepts" and row["map_class"] != "disentangled":
                continue
            if what == "rules" and row["class"] != "1 term, 2 predicates":
                continue
            res = row["result"]
            ys = ([math.log10(c / res["free"]) if c else math.nan for c in res["cumulative"]]
                  if what == "concepts" else [b for _, b in res["cumulative"]])
            style = "-" if row["mode"] == "strict" else "--"
            ax.plot([1, 2, 3], ys, style, marker="o", label=f"{row['mode']} {row['size']}")
        ax.set_xticks([1, 2, 3], ["t1", "t1..t2", "t1..t3"])
        ax.set_title("concept maps, g fixed (log10 count / free part)" if what == "concepts"
                     else "rules learned: behaviours that fit (1 term, 2 predicates)")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.concon_counts")
    p.add_argument("--timeout", type=float, default=60.0)
    p.add_argument("--out", default="docs/concon")
    p.add_argument("--page", default="docs/concon.md")
    p.add_argument("--render", action="store_true", help="write the page from DIR/results.json, count nothing")
    p.add_argument("--only", action="append", default=[],
                   help="recount the concept rows whose 'mode, size, class' contains this text (repeatable), keep "
                        "the other rows of DIR/results.json")
    args = p.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.render:
        Path(args.page).write_text(page(json.loads((out / "results.json").read_text())["rows"]))
        return 0
    if args.only:  # recount the matching concept rows (adding those of a class new to CLASSES), keep the rest
        old = json.loads((out / "results.json").read_text())["rows"]
        key = lambda r: (r["kind"], r["mode"], r["size"], r.get("map_class", r.get("class")))
        have = {key(r): r for r in old}
        rows = []
        for r in old:
            rows.append(r)
            if r["kind"] != "concepts" or r["map_class"] != CLASSES[-2]:
                continue
            for cls in CLASSES[-1:]:  # a class added after the page was written: its row after the one before
                if ("concepts", r["mode"], r["size"], cls) not in have:
                    rows.append({"kind": "concepts", "mode": r["mode"], "size": r["size"], "map_class": cls})
        for row in rows:
            if row["kind"] == "concepts" and any(t in f"{row['mode']}, {row['size']}, {row['map_class']}"
                                                 for t in args.only):
                objects, colors = (int(w) for w in row["size"].replace(",", "").split()[::2])
                row["result"] = concept_row(row["mode"], dict(objects=objects, colors=colors), row["map_class"],
                                            args.timeout)
                print(json.dumps(row), flush=True)
        return _write([r for r in rows if "result" in r], out, args.page)
    rows = []
    for size in SIZES:
        label = f"{size['objects']} objects, {size['colors']} colours"
        for mode in ("strict", "disjoint"):
            for cls in CLASSES:
                row = {"kind": "concepts", "mode": mode, "size": label, "map_class": cls,
                       "result": concept_row(mode, size, cls, args.timeout)}
                rows.append(row)
                print(json.dumps(row), flush=True)
            if size["objects"] <= 3 and size["objects"] * size["colors"] <= 16:  # rules over every scene
                for name, h_kw in RULE_CLASSES.items():
                    row = {"kind": "rules", "mode": mode, "size": label, "class": name,
                           "result": rule_row(mode, size, h_kw)}
                    rows.append(row)
                    print(json.dumps(row), flush=True)
    return _write(rows, out, args.page)


def _write(rows: list, out: Path, page_path: str) -> int:
    (out / "results.json").write_text(json.dumps({"rows": rows, "python": sys.version.split()[0]}, indent=1))
    plot(rows, out / "concon.png")
    Path(page_path).write_text(page(rows))
    return 0


def _ratio(n: int | None, free: int) -> str:
    if n is None:  # a count of the sequence not made in its share of the time (the joint count was)
        return "not in time"
    return f"{n // free:,}" if n % free == 0 else f"{n / free:.3g}"


def page(rows: list) -> str:
    """docs/concon.md: the tables of ``rows`` with what they show."""
    concepts = ["| mode | size | class | support (t1, t2, t3) | alone / free | after t1, t1..t2, t1..t3 / free | "
                "joint = free | s |", "|---|---|---|---|---|---|---|---|"]
    for r in (r for r in rows if r["kind"] == "concepts"):
        res = r["result"]
        if "error" in res:
            concepts.append(f"| {r['mode']} | {r['size']} | {r['map_class']} | | not counted: {res['error']} | | | "
                            f"{res['seconds']} |")
            continue
        f = res["free"]
        sup = ", ".join(map(str, res["support"])) + (" (sampled)" if res["sampled"] else "")
        concepts.append(f"| {r['mode']} | {r['size']} | {r['map_class']} | {sup} | "
                        f"{', '.join(_ratio(a, f) for a in res['alone'])} | "
                        f"{', '.join(_ratio(a, f) for a in res['cumulative'])} | "
                        f"{'yes' if res['joint'] == f else 'no'} | {res['seconds']} |")
    rules = ["| mode | size | class | alone (t1, t2, t3): behaviours | after t1, t1..t2, t1..t3: rules / behaviours "
             "| joint fits g | joint fits c1 or c2 or c3 |", "|---|---|---|---|---|---|---|"]
    for r in (r for r in rows if r["kind"] == "rules"):
        res = r["result"]
        if "error" in res:
            rules.append(f"| {r['mode']} | {r['size']} | {r['class']} | not counted: {res['error']} | | | |")
            continue
        rules.append(f"| {r['mode']} | {r['size']} | {r['class']} | {', '.join(str(b) for _, b in res['alone'])} | "
                     f"{', '.join(f'{a} / {b}' for a, b in res['cumulative'])} | "
                     f"{'yes' if res['joint_fits']['g'] else 'no'} | "
                     f"{'yes' if res['joint_fits']['any confounder'] else 'no'} |")
    return TEMPLATE.format(concepts="\n".join(concepts), rules="\n".join(rules))


TEMPLATE = (Path(__file__).with_name("concon_page.md")).read_text() if Path(__file__).with_name(
    "concon_page.md").exists() else "{concepts}\n\n{rules}\n"


if __name__ == "__main__":
    sys.exit(main())
