"""Train a model on labels only and check where it lands among the counted optimal maps.

>>> from rscount import make_problem
>>> report = run(make_problem("xor2", map_class="disentangled"), "dpl", seeds=[0], epochs=2, n_train=200)
>>> report.seeds[0].learned.verdict in ("intended", "shortcut", "not optimal")
True
"""
from __future__ import annotations

import copy
import dataclasses
import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional, Sequence

import numpy as np
import torch

from ..errors import HarnessError, RscountError
from ..files.writing import staged, write_atomic
from ..planning.execute import count_problem
from ..problems.problem import Problem
from .data import Dataset, Split, check_inputs, make_dataset
from .learned import LearnedMap, head_on_images, learned_map
from .metrics import concept_report, label_report, rsbench_metrics
from .models import SEMANTICS, build_model

__all__ = ["TrainConfig", "SeedResult", "TrainReport", "run", "train_seed", "count_and_relation", "wilson",
           "seed_record", "summarise", "RSBENCH_SEEDS"]

FIT = 0.95  # training label accuracy from which a model counts as having fitted the labels
RSBENCH_SEEDS = (123, 456, 789, 1011, 1213, 1415, 1617, 1819, 2021, 2122)  # rsbench Appendix B.3
RESTART_STRIDE = 100_003  # torch seed of restart r: seed + r * RESTART_STRIDE


def wilson(successes: int, n: int, z: float = 1.959964) -> list:
    """The 95% Wilson score interval of a proportion, [low, high] ([0, 1] when n is 0).

    >>> [round(v, 3) for v in wilson(8, 10)]
    [0.49, 0.943]
    """
    if n == 0:
        return [0.0, 1.0]
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return [float(max(0.0, centre - half)), float(min(1.0, centre + half))]


@dataclass(frozen=True)
class TrainConfig:
    """How to train: model, extractor, sizes of the splits, optimisation and fuzzy-logic settings."""

    model: str = "dpl"
    extractor: str = "separate"
    epochs: int = 30
    batch_size: int = 64
    width: int = 64  # hidden width of the concept extractor's networks (rsbench tunes architectures per task)
    lr: float = 1e-3
    weight_decay: float = 0.0  # Adam's weight decay (rsbench tunes it in [0, 1e-4] and above)
    n_train: int = 2000
    n_val: int = 500
    n_test: int = 1000
    n_ood: int = 0
    inputs: str | None = None
    tnorm: str = "product"
    p: float = 2.0
    concept_weight: float = 1.0
    semantics: str = "auto"
    entropy: float = 0.0  # w_h of rsbench's entropy loss (Eq. 19-20); rsbench tunes it in {0.2, 0.5, 0.8, 1, 2}
    threads: int | None = None  # torch.set_num_threads; None leaves torch's default
    device: str = "cpu"  # "cuda" where a GPU is present; CPU is what the tests run
    restarts: int = 1  # initialisations per seed, at most: one that does not fit the labels starts again
    cover_train: bool = False  # every support vector at least once in the training split (when n_train allows)

    def __post_init__(self) -> None:
        for name, low in (("epochs", 1), ("batch_size", 1), ("width", 1), ("n_train", 1), ("n_val", 1),
                          ("n_test", 1), ("n_ood", 0), ("restarts", 1)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= MAX_SIZE:
                raise HarnessError(f"{name}= must be a whole number from {low} to {MAX_SIZE:,}, got {value!r:.40}")
        if self.semantics not in SEMANTICS:
            raise HarnessError(f"semantics= must be one of {', '.join(SEMANTICS)}, got {self.semantics!r:.40}")
        if not isinstance(self.cover_train, bool):
            raise HarnessError(f"cover_train= must be true or false, got {self.cover_train!r:.40}")
        if self.threads is not None and (not isinstance(self.threads, int) or not 1 <= self.threads <= 1024):
            raise HarnessError(f"threads= must be a whole number from 1 to 1024, got {self.threads!r:.40}")
        for name, positive in (("lr", True), ("p", True), ("weight_decay", False), ("concept_weight", False),
                               ("entropy", False)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                    or value < 0 or (positive and value == 0):
                raise HarnessError(f"{name}= must be a finite number {'> 0' if positive else '>= 0'}, "
                                   f"got {value!r:.40}")


MAX_SIZE = 10_000_000  # examples, epochs, widths: past this a run is a mistake, not an experiment
MAX_SEED = (1 << 63) - 1 - 1000 * RESTART_STRIDE  # torch seeds (seed + restarts) stay within 64 bits


def check_seeds(seeds: Sequence[int]) -> tuple:
    """The training seeds as a tuple of whole numbers from 0 to MAX_SEED (torch's seeds are 64-bit)."""
    seeds = tuple(seeds)
    if not seeds:
        raise HarnessError("seeds= is empty; give at least one training seed")
    for s in seeds:
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)) or not 0 <= s <= MAX_SEED:
            raise HarnessError(f"seed {s!r:.40} must be a whole number from 0 to {MAX_SEED:,}")
    return tuple(int(s) for s in seeds)

@dataclass(frozen=True, eq=False)
class SeedResult:
    """One trained model: label and concept metrics on the test split and its learned map."""

    seed: int
    labels: dict
    concepts: dict | None
    learned: LearnedMap | None
    ood: dict | None
    epochs_run: int
    seconds: float
    predictions: np.ndarray | None = field(default=None, repr=False)
    truth: np.ndarray | None = field(default=None, repr=False)
    rsbench: dict = field(default_factory=dict)  # mF1(Y), mF1(C), Cls(C), mCls(C), ood-mF1(Y) as rsbench defines them
    train_accuracy: float | None = None  # label accuracy on the training split: did the model fit the labels?
    curve: tuple = ()  # per epoch: (training loss, validation mF1(Y), validation label accuracy)
    state: dict | None = field(default=None, repr=False)  # the selected model's weights (CPU tensors)
    attempts: int = 1  # initialisations trained for this seed (TrainConfig.restarts)
    pair: LearnedMap | None = None  # a learned head's model read as a pair (map, its own head): inference learned
    probe: LearnedMap | None = None  # the same pair with the head probed on one-hot images instead of examples

    @property
    def fitted(self) -> bool:
        """Whether the model fits the training labels (accuracy >= FIT); a model that does not says nothing
        about shortcuts."""
        return self.train_accuracy is not None and self.train_accuracy >= FIT

    def to_dict(self) -> dict:
        concepts = None
        if self.concepts is not None:
            concepts = {k: v for k, v in self.concepts.items() if k != "per_concept"}
            concepts["per_concept"] = [{k: (v.round(4).tolist() if isinstance(v, np.ndarray) else v)
                                        for k, v in pc.items()} for pc in self.concepts["per_concept"]]
        return {"seed": self.seed, "labels": self.labels, "concepts": concepts,
                "learned_map": self.learned.to_dict() if self.learned else None,
                "learned_pair": self.pair.to_dict() if self.pair else None,
                "probed_pair": self.probe.to_dict() if self.probe else None, "ood": self.ood,
                "rsbench": self.rsbench, "train_accuracy": self.train_accuracy,
                "curve": [list(c) for c in self.curve], "epochs": self.epochs_run, "attempts": self.attempts,
                "seconds": round(self.seconds, 3)}


@dataclass(frozen=True, eq=False)
class TrainReport:
    """All seeds of one run, the count they are checked against, and a summary."""

    problem: Problem
    config: TrainConfig
    seeds: tuple
    count: object | None  # CountResult, or None when counting failed
    count_error: str | None = None
    predicted: object | None = None  # the audit's predicted confusion relation (rscount.auditing.Relation)

    def outside_predicted(self, seed_result) -> dict | None:
        """Per concept, the share of test examples whose (true, predicted) value pair no optimal map realises:
        perception error, if the count is right."""
        if self.predicted is None or seed_result.predictions is None:
            return None
        out = {}
        for j, c in enumerate(self.predicted.concepts):
            possible = c.possible | c.undecided
            t, p = seed_result.truth[:, j], seed_result.predictions[:, j]
            out[c.name] = round(float((~possible[t, p]).mean()), 4) if len(t) else 0.0
        return out

    @property
    def summary(self) -> dict:
        """Verdicts over all seeds; over the seeds that fit the labels, how many land on a counted optimal map
        (the intended one included) with its 95% Wilson interval; rsbench's metrics as mean and std."""
        return summarise([seed_record(s, self.outside_predicted(s)) for s in self.seeds])

    def to_dict(self) -> dict:
        cfg = self.config
        return {"task": self.problem.task.name, "model": cfg.model, "extractor": cfg.extractor,
                "map_class": self.problem.map_class, "support": self.problem.support.kind,
                "support_size": len(self.problem.support),
                "supervision": self.problem.supervision.describe(self.problem.task),
                "count": self.count.to_dict() if self.count is not None else None,
                "count_error": self.count_error, "config": cfg.__dict__,
                "seeds": [dict(s.to_dict(), outside_predicted=self.outside_predicted(s)) for s in self.seeds],
                "summary": self.summary}

    def __str__(self) -> str:
        p, cfg = self.problem, self.config
        lines = [f"task          {p.task.name}",
                 f"model         {cfg.model} ({cfg.extractor} extractor, {cfg.epochs} epochs)",
                 f"support       {p.support.kind} ({p.support.length} vectors)",
                 f"map class     {p.map_class}",
                 f"supervision   {p.supervision.describe(p.task)}"]
        if self.count is not None:
            kind = "exact" if self.count.exact else "estimate"
            lines.append(f"optimal maps  {self.count.count} ({kind}, {self.count.backend})")
        else:
            lines.append(f"optimal maps  not counted: {self.count_error}")
        for s in self.seeds:
            head = f"seed {s.seed}: label acc {s.labels['accuracy']:.3f} F1 {s.labels['f1']:.3f}"
            if s.attempts > 1:
                head += f" ({s.attempts} initialisations, train acc {s.train_accuracy:.3f})"
            if s.concepts is not None:
                head += (f" | concept acc {s.concepts['accuracy']:.3f} F1 {s.concepts['f1']:.3f} "
                         f"collapse {s.concepts['collapse']:.3f}")
            lines.append(head)
            if s.learned is not None:
                lm = s.learned
                broken = f", labels broken on {lm.broken}" if lm.broken else ""
                lines.append(f"    learned map: {lm.verdict} ({lm.description}; {lm.covered}/{lm.support_size} "
                             f"support vectors seen{broken}, agreement {lm.agreement:.2f})")
            if s.pair is not None:
                lines.append(f"    with its own head (inference learned): {s.pair.verdict} ({s.pair.description}"
                             + (f"; pair breaks {s.pair.broken} support labels" if s.pair.broken else "")
                             + (f"; head read on {s.pair.head_read} of {s.pair.covered} images"
                                if s.pair.head_read is not None else "")
                             + (f"; the map alone breaks {s.pair.map_broken}" if s.pair.map_broken else "") + ")")
            if s.probe is not None:
                lines.append(f"    its head probed on one-hot images: {s.probe.verdict}"
                             + (f" (pair breaks {s.probe.broken} support labels)" if s.probe.broken else ""))
            outside = self.outside_predicted(s)
            if outside:
                worst = max(outside, key=outside.get)
                why = ("perception error, as the count reads it" if s.fitted else
                       "this seed did not fit the training labels, so the count says nothing of it")
                lines.append(f"    outside the predicted relation: {max(outside.values()):.1%} of test examples "
                             f"at worst ({worst}); {why}")
        sm = self.summary
        lines.append(f"summary       {sm['intended']} intended, {sm['shortcut']} on a counted shortcut, "
                     f"{sm['no_optimal_map']} on no optimal map, of {sm['seeds']} seeds")
        lo, hi = sm["on_counted_ci"]
        lines.append(f"fitted        {len(sm['fitted'])} of {sm['seeds']} seeds fit the training labels (>= {FIT}); "
                     f"{sm['on_counted']} of them on a counted optimal map (95% Wilson [{lo:.2f}, {hi:.2f}])")
        if "pair_on_counted" in sm:
            lo, hi = sm["pair_on_counted_ci"]
            lines.append(f"learned head  {sm['pair_on_counted']} fitted seeds on a counted pair (map, head) under "
                         f"inference learned (95% Wilson [{lo:.2f}, {hi:.2f}]), {sm['pair_intended']} intended"
                         + (f"; maps alone counted: {sm['pair_map_on_counted']}" if "pair_map_on_counted" in sm
                            else ""))
        shown = [f"{k} {sm[k]:.2f} +- {sm[k + '_std']:.2f}" for k in RSBENCH_KEYS if k in sm]
        lines.append("rsbench       " + ", ".join(shown))
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        from ..results.notebook import figure_png, grid, table
        from .plots import confusion_figure
        p, cfg, sm = self.problem, self.config, self.summary
        count = (f"{self.count.count} ({'exact' if self.count.exact else 'estimate'})" if self.count is not None
                 else f"not counted: {self.count_error}")
        head = table([("task", p.task.name), ("model", f"{cfg.model} ({cfg.extractor} extractor)"),
                      ("map class", p.map_class), ("optimal maps", count),
                      ("summary", f"{sm['intended']} intended, {sm['shortcut']} on a counted shortcut, "
                                  f"{sm['no_optimal_map']} on no optimal map, of {sm['seeds']} seeds")])
        rows = [(s.seed, f"{s.labels['accuracy']:.3f}",
                 f"{s.concepts['accuracy']:.3f}" if s.concepts else "-",
                 s.learned.verdict if s.learned else "-") for s in self.seeds]
        seeds = grid(["seed", "label accuracy", "concept accuracy", "learned map"], rows)
        first = next((s for s in self.seeds if s.concepts is not None), None)
        image = figure_png(confusion_figure(p.task, first, None, self.predicted)) if first is not None else ""
        return head + seeds + image


RSBENCH_KEYS = ("mF1_Y", "mF1_C", "Cls_C", "mCls_C", "ood_mF1_Y", "head_is_K")


def seed_record(s: SeedResult, outside: dict | None = None) -> dict:
    """One trained seed as plain values: what a summary, a sweep row and the rsbench table are made of."""
    return {"seed": s.seed, "verdict": s.learned.verdict if s.learned is not None else None, "fitted": s.fitted,
            "train_accuracy": s.train_accuracy, "label_accuracy": s.labels["accuracy"],
            "concept_accuracy": s.concepts["accuracy"] if s.concepts else None,
            "val_accuracy": max(s.curve, key=lambda c: c[1])[2] if s.curve else None, "attempts": s.attempts,
            "broken": s.learned.broken if s.learned is not None else None,
            "outside_predicted": max(outside.values()) if outside else None,
            "pair_verdict": s.pair.verdict if s.pair is not None else None,
            "pair_broken": s.pair.broken if s.pair is not None else None,
            "pair_head_read": s.pair.head_read if s.pair is not None else None,
            "pair_map_broken": s.pair.map_broken if s.pair is not None else None,
            "pair_map_counted": s.pair.map_counted if s.pair is not None else None,
            "probe_verdict": s.probe.verdict if s.probe is not None else None,
            "probe_broken": s.probe.broken if s.probe is not None else None,
            **{k: s.rsbench.get(k) for k in RSBENCH_KEYS}}


def summarise(records: Sequence[dict]) -> dict:
    """The summary of seeds given as :func:`seed_record` values (a run's, or a sweep's rows of one setting)."""
    verdicts = [r["verdict"] for r in records if r["verdict"] is not None]
    fitted = [r for r in records if r["fitted"]]
    fv = [r["verdict"] for r in fitted if r["verdict"] is not None]
    on_counted = sum(v in ("intended", "shortcut") for v in fv)
    out = {"seeds": len(records), "intended": verdicts.count("intended"), "shortcut": verdicts.count("shortcut"),
           "no_optimal_map": sum(1 for v in verdicts if v not in ("intended", "shortcut")),
           "label_accuracy": float(np.mean([r["label_accuracy"] for r in records])),
           "concept_accuracy": (float(np.mean([r["concept_accuracy"] for r in records]))
                                if all(r["concept_accuracy"] is not None for r in records) else None),
           "fitted": [r["seed"] for r in fitted], "on_counted": on_counted,
           "fitted_intended": fv.count("intended"), "outside": len(fv) - on_counted,
           "on_counted_ci": wilson(on_counted, len(fv)), "intended_ci": wilson(fv.count("intended"), len(fv))}
    for key in RSBENCH_KEYS:
        values = [r[key] for r in records if r.get(key) is not None]
        if values:
            out[key], out[key + "_std"] = float(np.mean(values)), float(np.std(values))
    pairs = [r.get("pair_verdict") for r in fitted if r.get("pair_verdict") is not None]
    if pairs:  # a learned head read as a pair (map, head): inference learned
        on = sum(v in ("intended", "shortcut") for v in pairs)
        out.update(pair_on_counted=on, pair_intended=pairs.count("intended"), pair_on_counted_ci=wilson(on, len(pairs)),
                   pair_intended_ci=wilson(pairs.count("intended"), len(pairs)))
        alone = [r["pair_map_counted"] for r in fitted if r.get("pair_map_counted") is not None]
        if alone:  # the map part of the pair, whatever the head does: the count's maps (a)
            on = sum(alone)
            out.update(pair_map_on_counted=on, pair_map_on_counted_ci=wilson(on, len(alone)))
    probes = [r.get("probe_verdict") for r in fitted if r.get("probe_verdict") is not None]
    if probes:  # the head probed on one-hot images
        on = sum(v in ("intended", "shortcut") for v in probes)
        out.update(probe_on_counted=on, probe_on_counted_ci=wilson(on, len(probes)))
    return out


def _supervision_mask(problem: Problem, split: Split) -> np.ndarray:
    """(examples, k + sum of domain sizes): supervised concepts, then values each example is known not to have.

    ``--supervise NAME=VALUE`` labels NAME wherever it has VALUE, so an example
    of the support without that label does not have VALUE: the harness passes
    that on (models.concept_loss), as a data set labelled this way would.
    """
    task = problem.task
    k, sizes = task.k, task.sizes
    offset = np.concatenate([[k], k + np.cumsum(sizes)[:-1]]).astype(int)
    values = [(i, u) for i, u in problem.supervision.concepts if u is not None]
    by_row = {}
    mask = np.zeros((len(split), k + sum(sizes)), dtype=bool)
    for n, (row, g) in enumerate(zip(split.rows.tolist(), split.concepts.tolist())):
        if row < 0:
            continue
        if row not in by_row:
            by_row[row] = problem.supervised(row, tuple(g))
        mask[n, list(by_row[row])] = True
        for i, u in values:
            if g[i] != u and not mask[n, i]:
                mask[n, offset[i] + u] = True
    return mask


def _evaluate(model, problem: Problem, split: Split, with_map: bool, device=None, also: Split | None = None) -> tuple:
    """(label report, concept report, learned map, concept predictions, rsbench's metrics, pair, probed pair)
    on ``split``.

    A learned head is read on ``split`` and ``also`` (the training split: more examples of each predicted
    vector, and the head's inputs are the predicted concepts, whatever split they come from)."""
    model.eval()
    x = torch.as_tensor(split.x, device=device)
    label_pred = model.predict_labels(x)
    labels = label_report(split.labels, label_pred)
    if not getattr(model, "has_concepts", False):
        return labels, None, None, None, rsbench_metrics(problem.task, None, None, split.labels, label_pred), None, None
    pred = model.predict_concepts(x)
    concepts = concept_report(problem.task, split.concepts, pred)
    learned = learned_map(problem, split.concepts, pred) if with_map else None
    metrics = rsbench_metrics(problem.task, split.concepts, pred, split.labels, label_pred)
    pair = probe = None
    if getattr(model, "learned_head", False):
        metrics["head_is_K"] = head_agreement(problem.task, label_pred, pred)
        if with_map:
            true, seen, said = split.concepts, pred, label_pred
            if also is not None:
                xa = torch.as_tensor(also.x, device=device)
                true = np.concatenate([true, also.concepts])
                seen = np.concatenate([pred, model.predict_concepts(xa)])
                said = np.concatenate([label_pred, model.predict_labels(xa)])
            as_pair = dataclasses.replace(problem, inference="learned")
            pair = learned_map(as_pair, split.concepts, pred, head=head_on_images(true, seen, said))
            probe = learned_map(as_pair, split.concepts, pred,
                                head=lambda src, img: (model.head_labels(img), np.ones(len(img), dtype=bool)))
    return labels, concepts, learned, pred, metrics, pair, probe


def _label_scores(model, problem: Problem, split: Split, device) -> tuple:
    """(label accuracy, mF1(Y)) on ``split``: what model selection and the fit check read, nothing more."""
    model.eval()
    label_pred = model.predict_labels(torch.as_tensor(split.x, device=device))
    mf1 = rsbench_metrics(problem.task, None, None, split.labels, label_pred)["mF1_Y"]
    return label_report(split.labels, label_pred)["accuracy"], mf1


def head_agreement(task, head_labels: np.ndarray, concepts: np.ndarray) -> float:
    """Share of examples on which a learned label head gives the label K gives the predicted concepts.

    Below 1, the head itself departs from K: a joint concept-and-inference shortcut (Bortolotti et al. 2025),
    which the count of K's maps does not bound.
    """
    by_k = task.evaluate(concepts)
    return float(np.mean(np.all(head_labels == by_k, axis=1))) if len(head_labels) else float("nan")


def _device(name: str) -> torch.device:
    if name == "cuda" and not torch.cuda.is_available():
        raise HarnessError("device cuda asked for, but torch sees no GPU here; use device cpu")
    if name not in ("cpu", "cuda"):
        raise HarnessError(f"device {name!r}: choose cpu or cuda")
    return torch.device(name)


def train_seed(problem: Problem, config: TrainConfig, seed: int, data: Dataset | None = None,
               progress: Optional[Callable[[str], None]] = None) -> SeedResult:
    """Train one model with ``seed``; keep the epoch with the best validation mF1(Y) (rsbench's model selection).

    While the model does not fit the training labels, train a fresh initialisation, ``config.restarts`` in all,
    and keep the one with the best validation mF1(Y): restarts read labels only, never concepts, so they favour
    no map over another. Fixed seeds give identical results on the CPU with the same number of threads.
    """
    start = time.perf_counter()
    if config.threads:
        torch.set_num_threads(config.threads)
    device = _device(config.device)
    data = data or make_dataset(problem, config.n_train, config.n_val, config.n_test, seed, config.inputs,
                                config.n_ood, cover_train=config.cover_train)
    best = None
    for attempt in range(max(1, config.restarts)):
        tried = _fit(problem, config, data, seed + RESTART_STRIDE * attempt, device, progress,
                     f"seed {seed}" + (f" (restart {attempt})" if attempt else ""))
        if best is None or tried[1] > best[1]:
            best = tried
        model, _, curve = best
        fit = _label_scores(model, problem, data.train, device)[0]
        if fit >= FIT:
            break
    labels, concepts, learned, pred, metrics, pair, probe = _evaluate(model, problem, data.test, True, device,
                                                              also=data.train)
    ood = None
    if data.ood is not None:
        ood_labels, ood_concepts, _, _, ood_metrics, _, _ = _evaluate(model, problem, data.ood, False, device)
        ood = {"labels": ood_labels, "concept_accuracy": ood_concepts["accuracy"] if ood_concepts else None}
        metrics = dict(metrics, ood_mF1_Y=ood_metrics["mF1_Y"])
    state = {k: v.detach().cpu() for k, v in model.state_dict().items()}
    return SeedResult(seed, labels, concepts, learned, ood, config.epochs, time.perf_counter() - start,
                      pred, data.test.concepts, metrics, fit, tuple(curve), state, attempt + 1, pair, probe)


def _fit(problem: Problem, config: TrainConfig, data: Dataset, seed: int, device, progress, name: str) -> tuple:
    """(model at its best epoch, that epoch's validation mF1(Y), per-epoch curve) of one initialisation."""
    torch.manual_seed(seed)
    model = build_model(config.model, problem.task, data.dim, config.extractor, data.train.labels,
                        config.tnorm, config.p, config.semantics, config.width)
    model.entropy_weight = config.entropy
    model.to(device)
    opt = torch.optim.Adam(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    tr = data.train
    x, y = torch.as_tensor(tr.x, device=device), torch.as_tensor(tr.labels, device=device)
    c = torch.as_tensor(tr.concepts, device=device)
    mask = torch.as_tensor(_supervision_mask(problem, tr), device=device)
    gen = torch.Generator().manual_seed(seed)
    best, best_state, curve = -1.0, None, []
    for epoch in range(config.epochs):
        model.train()
        order = torch.randperm(len(tr), generator=gen)
        total = 0.0
        for b in range(0, len(tr), config.batch_size):
            idx = order[b:b + config.batch_size].to(device)
            loss = model.loss(x[idx], y[idx], c[idx], mask[idx], config.concept_weight)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
        val_accuracy, score = _label_scores(model, problem, data.val, device)
        curve.append((round(total / len(tr), 6), round(score, 6), round(val_accuracy, 6)))
        if score > best:
            best, best_state = score, copy.deepcopy(model.state_dict())
        if progress:
            progress(f"{name}: epoch {epoch + 1}/{config.epochs}, loss {total / len(tr):.4f}, "
                     f"val mF1(Y) {score:.3f}")
    if best_state is not None:
        model.load_state_dict(best_state)
    return model, best, curve


def run(problem: Problem, model: str = "dpl", seeds: Sequence[int] = (0,), *, config: TrainConfig | None = None,
        count_timeout: float | None = 120.0, progress: Optional[Callable[[str], None]] = None, workers: int = 1,
        counted=None, predicted=None, **overrides) -> TrainReport:
    """Count the optimal maps of ``problem``, train one model per seed, and check each learned map.

    With ``workers`` > 1 the seeds train on that many Dask worker processes, each with one torch thread. ``counted`` (a
    CountResult) and ``predicted`` (the audit's relation) reuse what an earlier run of the same problem found.
    """
    config = config or TrainConfig(model=model, **overrides)
    seeds = check_seeds(seeds)
    check_inputs(problem, config.inputs)  # fail on unusable options before the (maybe long) count
    counted, predicted, error = count_and_relation(problem, count_timeout, counted, predicted)
    if workers > 1 and len(seeds) > 1:
        results = _parallel(problem, dataclasses.replace(config, threads=1), seeds, workers, progress)
    else:
        results = tuple(train_seed(problem, config, s, progress=progress) for s in seeds)
    return TrainReport(problem, config, results, counted, error, predicted)


def count_and_relation(problem: Problem, timeout: float | None, counted=None, predicted=None) -> tuple:
    """(CountResult or None, the audit's predicted confusion relation or None, why the count failed or None),
    reusing ``counted`` and ``predicted`` where given: what every trained seed of ``problem`` is checked against."""
    error = None
    if counted is None:
        try:
            counted = count_problem(problem, timeout=timeout)
        except RscountError as exc:
            error = str(exc)
    if counted is not None and predicted is None and problem.map_class != "joint":
        from ..auditing import confusion
        try:
            predicted = confusion(problem, counted, seconds=timeout)
        except RscountError:
            predicted = None
    return counted, predicted, error


def _parallel(problem: Problem, config: TrainConfig, seeds: Sequence[int], workers: int, progress) -> tuple:
    """The seeds on the project's Dask engine, ``workers`` single-threaded worker processes."""
    from ..runtime.cluster import map_tasks

    def done(n: int, total: int) -> None:
        if progress:
            progress(f"seeds: {n}/{total} trained")
    return tuple(map_tasks(_train_one, seeds, shared=(problem, config), workers=workers, name="training seeds",
                           done=done))


def _train_one(shared: tuple, seed: int) -> SeedResult:
    problem, config = shared
    return train_seed(problem, config, seed)


RUN_FILES = ("report.json", "model-seed*.pt", "curve-seed*.csv", "confusion-seed*.json", "confusion-seed*.png")


def save(report: TrainReport, folder: str | Path) -> list:
    """Write report.json, per-seed confusion data (.json), figures (.png), learning curves (.csv) and the selected
    model's weights (model-seedN.pt) into ``folder``.

    All or nothing: the files are written into a staging folder and moved in together, and an earlier run's
    files there (by these names) that this run does not write are removed, so the folder never mixes two runs.
    """
    import io

    from .plots import confusion_figure
    folder = Path(folder)
    names = []
    with staged(folder, RUN_FILES) as stage:
        for s in report.seeds:
            if s.state is not None:
                buf = io.BytesIO()
                torch.save(s.state, buf)
                write_atomic(stage / f"model-seed{s.seed}.pt", buf.getvalue())
                names.append(f"model-seed{s.seed}.pt")
            write_atomic(stage / f"curve-seed{s.seed}.csv", "epoch,loss,val_mF1_Y,val_accuracy\n" + "".join(
                f"{e},{loss},{f1},{acc}\n" for e, (loss, f1, acc) in enumerate(s.curve, 1)))
            names.append(f"curve-seed{s.seed}.csv")
            if s.concepts is None:
                continue
            stem = f"confusion-seed{s.seed}"
            data = {pc["concept"]: pc["confusion"].tolist() for pc in s.concepts["per_concept"]}
            write_atomic(stage / f"{stem}.json", json.dumps(data))
            confusion_figure(report.problem.task, s, stage / f"{stem}.png", report.predicted)
            names += [f"{stem}.json", f"{stem}.png"]
        write_atomic(stage / "report.json", json.dumps(report.to_dict(), indent=1, default=_plain))
    return sorted(folder / n for n in names + ["report.json"])


def _plain(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return str(value)
