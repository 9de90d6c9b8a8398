"""``python -m benchmarks.scaling``: how counting time grows with a design's size, each count in a fresh process
(wall time, start-up included): ConCon's three strict tasks together against the number of objects, Kand-Logic
against the number of figures, MNMath against the support size. Writes docs/scaling.md and docs/scaling.png.
"""
from __future__ import annotations

import json
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SECONDS = 60
CONCON = ["--task", "concon-t1", "--task", "concon-t2", "--task", "concon-t3", "--param", "mode=strict"]
SERIES = [
    ("ConCon t1+t2+t3 strict", "objects", [2, 3, 4, 5, 6], ("disentangled", "shared", "complete"),
     lambda n: CONCON + ["--param", f"objects={n}"]),
    ("Kand-Logic", "figures", [1, 2, 3], ("disentangled", "shared", "complete"),
     lambda n: ["--task", "kand-logic", "--param", f"figures={n}"]),
    ("MNMath", "support vectors (by-label)", [10, 100, 1000, 10000], ("disentangled", "shared", "complete"),
     lambda n: ["--task", "mnmath", "--support", f"by-label:{n}"]),
]


def timed(args: list, cls: str) -> dict:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "rscount.cli", *args, "--map-class", cls, "--timeout", str(SECONDS),
                           "--json", "--quiet"], capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode:
        return {"wall": wall, "error": proc.stderr.strip().split("countrss: error: ")[-1].split(";")[0][:160]}
    data = json.loads(proc.stdout)
    return {"wall": wall, "count": data["count"], "read_count": data["read_count"], "backend": data["backend"]}


def main() -> int:
    rows = []
    for name, axis, sizes, classes, args in SERIES:
        for cls in classes:
            for n in sizes:
                r = timed(args(n), cls)
                rows.append({"series": name, "axis": axis, "size": n, "class": cls, **r})
                print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
                if "error" in r:  # larger sizes of this class only take longer
                    break
    (ROOT / "docs" / "scaling.json").write_text(json.dumps(rows, indent=1))
    plot(rows, ROOT / "docs" / "scaling.png")
    lines = ["# How counting time grows", "",
             f"Written by `python -m benchmarks.scaling` on {platform.machine()} with 2 cores, "
             f"{time.strftime('%Y-%m-%d')}: each count in a fresh process with `--timeout {SECONDS}` (wall time, "
             f"start-up included, about 0.3 s); a class's larger sizes are not run once one fails. Figure: "
             f"[scaling.png](scaling.png) (a cross: not counted, at the time it stopped).", "",
             "| design | size | class | optimal maps (read concepts) | wall (s) | counter, or why not |",
             "|---|---|---|---|---|---|"]
    from rscount.results.count import short_count
    for r in rows:
        shown = short_count(r["read_count"]) if "read_count" in r else "not counted"
        lines.append(f"| {r['series']} | {r['axis']} {r['size']} | {r['class']} | {shown} | {r['wall']:.1f} | "
                     f"{r.get('backend') or r.get('error')} |")
    page = ROOT / "docs" / "scaling.md"
    prose = page.read_text().partition("\nWhat grows:")[2] if page.exists() else ""
    page.write_text("\n".join(lines) + "\n" + (f"\nWhat grows:{prose}" if prose else ""))  # the text below is kept
    return 0


def plot(rows: list, path: Path) -> None:
    from rscount.files.writing import pyplot, write_figure
    plt = pyplot()
    series = list(dict.fromkeys(r["series"] for r in rows))
    fig, axes = plt.subplots(1, len(series), figsize=(4.6 * len(series), 3.6), squeeze=False, layout="constrained")
    for ax, name in zip(axes[0], series):
        mine = [r for r in rows if r["series"] == name]
        for cls in dict.fromkeys(r["class"] for r in mine):
            done = [r for r in mine if r["class"] == cls and "error" not in r]
            failed = [r for r in mine if r["class"] == cls and "error" in r]
            line, = ax.plot([r["size"] for r in done], [r["wall"] for r in done], "o-", label=cls)
            if failed:  # at the time it stopped: a timeout near SECONDS, a refusal at once
                ax.plot([r["size"] for r in failed], [r["wall"] for r in failed], "x", color=line.get_color(),
                        label=f"{cls}: not counted")
        ax.set_yscale("log")
        if name == "MNMath":
            ax.set_xscale("log")
        if name != "MNMath":
            ax.set_xticks(sorted({r["size"] for r in mine}))
        ax.set_title(name, fontsize=10)
        ax.set_xlabel(mine[0]["axis"])
        ax.set_ylabel("wall time (s)")
        ax.legend(fontsize=7)
    write_figure(fig, path)


if __name__ == "__main__":
    raise SystemExit(main())
