"""Training harness: models trained on labels only, checked against the counted optimal maps.

Needs the ``train`` extra (torch, scikit-learn, matplotlib):
``pip install -e ".[train]"``. Nothing here is imported by the counter.
"""
from .data import Dataset, Split, make_dataset
from .learned import LearnedMap, fit_class, learned_map
from .metrics import collapse, concept_report, confusion, label_report, macro_f1
from .train import SeedResult, TrainConfig, TrainReport, run, save, train_seed

__all__ = ["Dataset", "Split", "make_dataset", "LearnedMap", "fit_class", "learned_map", "collapse",
           "concept_report", "confusion", "label_report", "macro_f1", "SeedResult", "TrainConfig",
           "TrainReport", "run", "save", "train_seed"]
