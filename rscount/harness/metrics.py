"""Label and concept metrics of rsbench (Section 3.4, Appendix A.1): accuracy, macro F1, confusion, collapse.

>>> macro_f1(np.array([0, 1, 1]), np.array([0, 1, 0]))
0.6666666666666666
>>> collapse(np.array([[0, 0], [0, 1], [1, 0]]), np.array([[0, 0], [0, 0], [0, 0]]))
0.6666666666666667
"""
from __future__ import annotations

import numpy as np

__all__ = ["accuracy", "macro_f1", "binary_f1", "confusion", "collapse", "vector_ids",
           "concept_report", "label_report", "concept_units", "rsbench_metrics"]


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


# --- rsbench's metrics, as Section 4 and Appendix A.1 define them -------------------------------------------------

def binary_f1(true: np.ndarray, pred: np.ndarray) -> float:
    """F1 of the positive class (value 1) of a boolean label or concept."""
    from sklearn.metrics import f1_score
    if not len(true):
        return float("nan")
    return float(f1_score(np.asarray(true), np.asarray(pred), labels=[1], average="macro", zero_division=0))


def concept_units(task) -> tuple:
    """How rsbench reads a task's concepts for F1(C) and Cls(C): (units, stacked).

    A unit is a tuple of concepts read as one categorical value. Tasks whose groups are one shared classifier
    over all concepts (MNAdd's digits) stack every concept as one classification; tasks with several groups of
    equal size (Kand-Logic's shapes and colors) read the i-th member of every group as one object (a shape and a
    color: 9 values) and stack the objects; any other task reads each concept on its own (not stacked).
    """
    groups = [tuple(task.index(n) for n in g) for g in task.groups if len(g) > 1]
    covered = sorted(i for g in groups for i in g)
    if groups and covered == list(range(task.k)):
        if len(groups) == 1:
            return tuple((i,) for i in groups[0]), True
        if len({len(g) for g in groups}) == 1:
            return tuple(zip(*groups)), True
    return tuple((i,) for i in range(task.k)), False


def _unit_codes(task, vectors: np.ndarray, unit: tuple) -> np.ndarray:
    code = np.zeros(len(vectors), dtype=np.int64)
    for i in unit:
        code = code * task.sizes[i] + vectors[:, i]
    return code


def rsbench_metrics(task, concepts_true, concepts_pred, labels_true, labels_pred) -> dict:
    """mF1(Y), mF1(C), Cls(C) and mCls(C) as rsbench defines them (``concepts_*`` may be None: labels only).

    - mF1(Y): macro F1 of the label; with several labels, the mean of their F1s (binary F1 for boolean labels,
      as for SDD-OIA's four actions; macro F1 otherwise).
    - mF1(C): macro F1 over the stacked units (MNAdd's digits, Kand-Logic's objects); for concepts read one by
      one, the mean of their F1s (binary F1 for boolean concepts, as for SDD-OIA's 21).
    - Cls(C): collapse over the stacked units' values, else over whole concept vectors as integers.
    - mCls(C): the mean over labels of the collapse of the concepts each label reads (SDD-OIA's per-action Cls).
    """
    labels_true, labels_pred = np.asarray(labels_true), np.asarray(labels_pred)
    booleans = [set(np.unique(labels_true[:, j]).tolist()) | set(np.unique(labels_pred[:, j]).tolist()) <= {0, 1}
                for j in range(labels_true.shape[1])]
    f1y = [(binary_f1 if b and len(booleans) > 1 else macro_f1)(labels_true[:, j], labels_pred[:, j])
           for j, b in enumerate(booleans)]
    out = {"mF1_Y": float(np.mean(f1y)), "mF1_C": None, "Cls_C": None, "mCls_C": None}
    if concepts_true is None or concepts_pred is None:
        return out
    ct, cp = np.asarray(concepts_true), np.asarray(concepts_pred)
    units, stacked = concept_units(task)
    if stacked:
        t = np.concatenate([_unit_codes(task, ct, u) for u in units])
        p = np.concatenate([_unit_codes(task, cp, u) for u in units])
        out["mF1_C"] = macro_f1(t, p)
        out["Cls_C"] = collapse(t[:, None], p[:, None])
    else:
        out["mF1_C"] = float(np.mean([(binary_f1 if task.concepts[i].is_bool else macro_f1)(ct[:, i], cp[:, i])
                                      for i in range(task.k)]))
        out["Cls_C"] = collapse(ct, cp)
    from ..language.logic import variables
    per_label = []
    for label in task.labels:
        cols = sorted(task.index(n) for n in variables(label.expr))
        per_label.append(collapse(ct[:, cols], cp[:, cols]))
    out["mCls_C"] = float(np.mean(per_label))
    return out
