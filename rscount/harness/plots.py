"""Concept confusion matrices as figures (matplotlib, no screen needed)."""
from __future__ import annotations

import math
from pathlib import Path

__all__ = ["confusion_figure"]


def confusion_figure(task, seed_result, path: str | Path) -> None:
    """One heat map per concept: rows ground-truth values, columns predicted values."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    per = seed_result.concepts["per_concept"]
    cols = min(len(per), 5)
    rows = math.ceil(len(per) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(2.6 * cols, 2.6 * rows), squeeze=False)
    for ax in axes.flat[len(per):]:
        ax.axis("off")
    for ax, pc, concept in zip(axes.flat, per, task.concepts):
        ax.imshow(pc["confusion"], vmin=0, vmax=1, cmap="Blues")
        ticks = range(len(concept.domain))
        ax.set_xticks(ticks, [str(v) for v in concept.domain], fontsize=6, rotation=90)
        ax.set_yticks(ticks, [str(v) for v in concept.domain], fontsize=6)
        ax.set_title(f"{concept.name} (acc {pc['accuracy']:.2f})", fontsize=8)
        ax.set_xlabel("predicted", fontsize=7)
        ax.set_ylabel("true", fontsize=7)
    verdict = seed_result.learned.verdict if seed_result.learned else ""
    fig.suptitle(f"{task.name}, seed {seed_result.seed}: {verdict}", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
