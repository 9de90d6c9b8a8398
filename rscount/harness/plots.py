"""Concept confusion matrices as figures (matplotlib, no screen needed)."""
from __future__ import annotations

import math
from pathlib import Path

from ..files.writing import write_figure

__all__ = ["confusion_figure"]


def confusion_figure(task, seed_result, path: str | Path | None, predicted=None):
    """One heat map per concept: rows ground-truth values, columns predicted values; with ``predicted`` (the
    audit's relation) a second row of maps shows where the count says optimal maps may go, side by side.
    Saved to ``path``, or returned as a figure when ``path`` is None."""
    import matplotlib

    if path is not None:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    per = seed_result.concepts["per_concept"]
    cols = min(len(per), 5)
    rows = math.ceil(len(per) / cols)
    pair = 2 if predicted is not None else 1  # learned above, predicted below
    fig, axes = plt.subplots(rows * pair, cols, figsize=(2.6 * cols, 2.6 * rows * pair), squeeze=False)
    for ax in axes.flat:
        ax.axis("off")
    for n, (pc, concept) in enumerate(zip(per, task.concepts)):
        r, c = divmod(n, cols)
        panels = [(axes[r * pair, c], pc["confusion"], f"{concept.name} learned (acc {pc['accuracy']:.2f})")]
        if predicted is not None:
            rel = predicted.concepts[n]
            panels.append((axes[r * pair + 1, c], (rel.possible | rel.undecided).astype(float),
                           f"{concept.name} predicted by the count"))
        for ax, matrix, title in panels:
            ax.axis("on")
            ax.imshow(matrix, vmin=0, vmax=1, cmap="Blues")
            ticks = range(len(concept.domain))
            ax.set_xticks(ticks, [str(v) for v in concept.domain], fontsize=6, rotation=90)
            ax.set_yticks(ticks, [str(v) for v in concept.domain], fontsize=6)
            ax.set_title(title, fontsize=8)
            ax.set_xlabel("predicted", fontsize=7)
            ax.set_ylabel("true", fontsize=7)
    verdict = seed_result.learned.verdict if seed_result.learned else ""
    fig.suptitle(f"{task.name}, seed {seed_result.seed}: {verdict}", fontsize=9)
    fig.tight_layout()
    if path is None:
        return fig
    write_figure(fig, path, dpi=110)
    plt.close(fig)
    return None
