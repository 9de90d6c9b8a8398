"""Label and concept metrics of rsbench (Section 3.4, Appendix A.1): accuracy, macro F1, confusion, collapse.

>>> macro_f1(np.array([0, 1, 1]), np.array([0, 1, 0]))
0.6666666666666666
>>> collapse(np.array([[0, 0], [0, 1], [1, 0]]), np.array([[0, 0], [0, 0], [0, 0]]))
0.6666666666666667
"""
from __future__ import annotations

import numpy as np

__all__ = ["accuracy", "macro_f1", "confusion", "collapse", "vector_ids", "concept_report", "label_report"]


def accuracy(true: np.ndarray, pred: np.ndarray) -> float:
    return float(np.mean(np.asarray(true) == np.asarray(pred))) if len(true) else float("nan")


def macro_f1(true: np.ndarray, pred: np.ndarray) -> float:
    """Mean of per-class F1 over the classes that occur in ``true`` or ``pred`` (scikit-learn's macro F1)."""
    from sklearn.metrics import f1_score
    if not len(true):
        return float("nan")
    return float(f1_score(np.asarray(true), np.asarray(pred), average="macro", zero_division=0))


def confusion(true: np.ndarray, pred: np.ndarray, size: int) -> np.ndarray:
    """Row-normalised confusion matrix: row = ground-truth value, column = predicted value (rows of values
    absent from ``true`` stay zero)."""
    from sklearn.metrics import confusion_matrix
    m = confusion_matrix(np.asarray(true), np.asarray(pred), labels=list(range(size))).astype(np.float64)
    rows = m.sum(axis=1, keepdims=True)
    return np.divide(m, rows, out=np.zeros_like(m), where=rows > 0)


def vector_ids(vectors: np.ndarray) -> list:
    """Whole concept vectors as hashable ids (rsbench turns bit strings into integers)."""
    return [tuple(map(int, v)) for v in np.asarray(vectors)]


def collapse(true: np.ndarray, pred: np.ndarray) -> float:
    """Cls(C) = 1 - p/m over whole concept vectors, m = |F(C) u F(C*)|, p = |F(C)| (Appendix A.1, Eq. 3-4)."""
    t, p = set(vector_ids(true)), set(vector_ids(pred))
    m = len(t | p)
    return 1.0 - len(p) / m if m else float("nan")


def concept_report(task, true: np.ndarray, pred: np.ndarray) -> dict:
    """Per-concept accuracy, macro F1, confusion and collapse, plus the same over whole vectors."""
    per = []
    for i, c in enumerate(task.concepts):
        cm = confusion(true[:, i], pred[:, i], len(c.domain))
        per.append({"concept": c.name, "accuracy": accuracy(true[:, i], pred[:, i]),
                    "f1": macro_f1(true[:, i], pred[:, i]),
                    "collapse": collapse(true[:, i:i + 1], pred[:, i:i + 1]), "confusion": cm})
    return {
        "accuracy": accuracy(true, pred),
        "f1": float(np.mean([p["f1"] for p in per])),
        "vector_accuracy": float(np.mean(np.all(true == pred, axis=1))),
        "collapse": collapse(true, pred),
        "per_concept": per,
    }


def label_report(true: np.ndarray, pred: np.ndarray) -> dict:
    """Accuracy of whole label vectors and mean macro F1 over labels (mean-F1 for multi-label)."""
    f1s = [macro_f1(true[:, j], pred[:, j]) for j in range(true.shape[1])]
    return {"accuracy": float(np.mean(np.all(true == pred, axis=1))), "f1": float(np.mean(f1s)),
            "per_label_f1": f1s}
