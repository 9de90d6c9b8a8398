"""Train on several tasks in sequence and check, after each step, where the model lands against the counts.

Tasks share their concepts and their knowledge (ConCon's tasks, MNAdd-EvenOdd split by its pairs): one model,
data that changes from task to task. Regimes: ``naive`` (task t's data alone at step t, no memory),
``cumulative`` (tasks 1..t's data at step t) and ``joint`` (every task's data at once, one step). After each
step the learned concept map (each concept's majority prediction over every task's test examples) is checked
against each task's support: on a map optimal for the tasks so far (one of ``cumulative[t]`` counted maps), on
one optimal for the newest task only (one of ``forgets[t]``), on the intended map; and the label accuracy on
each task's test data (forgetting). NN has no concepts: only its label accuracies are reported.
"""
from __future__ import annotations

import copy
import time
from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

import numpy as np
import torch

from ..errors import HarnessError
from ..problems.problem import Problem
from ..results.count import json_int
from .data import Dataset, Split, make_dataset
from .learned import learned_map
from .metrics import label_report
from .models import build_model
from .train import FIT, RSBENCH_SEEDS, TrainConfig, _label_scores, check_seeds, wilson

__all__ = ["REGIMES", "StepResult", "SequenceReport", "train_sequence", "run_sequence"]

REGIMES = ("naive", "cumulative", "joint")


@dataclass(frozen=True)
class StepResult:
    """Where one seed's model stands after one step of a regime."""

    step: int  # tasks 1..step seen (the joint regime has one step: every task)
    accuracies: tuple  # label accuracy on each task's test data
    optimal: tuple  # per task: the learned map keeps its labels on its support (None: no concepts)
    in_class: bool | None
    intended: bool | None
    description: str = ""
    train_accuracy: float = 1.0  # label accuracy on the data this step trained on
    fitted: bool = True  # train_accuracy >= FIT: the step's data is fitted, so the verdicts read a fitted model

    @property
    def on_all_so_far(self) -> bool | None:
        if self.optimal[0] is None:
            return None
        return bool(all(self.optimal[:self.step]) and self.in_class)

    @property
    def newest_only(self) -> bool | None:
        if self.optimal[0] is None:
            return None
        return bool(self.optimal[self.step - 1] and self.in_class and not all(self.optimal[:self.step - 1]))

    def to_dict(self) -> dict:
        return {"step": self.step, "accuracies": [round(a, 4) for a in self.accuracies],
                "train_accuracy": round(self.train_accuracy, 4), "fitted": self.fitted,
                "optimal": list(self.optimal), "in_class": self.in_class, "intended": self.intended,
                "on_all_so_far": self.on_all_so_far, "newest_only": self.newest_only, "map": self.description}


@dataclass(frozen=True)
class SequenceReport:
    """Every seed's steps for one regime and model, with the counts they are read against."""

    tasks: tuple
    regime: str
    model: str
    map_class: str
    cumulative: tuple  # counted maps after tasks 1..t
    forgets: tuple  # maps optimal for task t alone that break an earlier task
    seeds: dict = field(default_factory=dict)  # seed -> tuple of StepResult
    seconds: float = 0.0

    def summary(self) -> list:
        """Per step: seeds on maps optimal for all tasks so far, on newest-only maps, on the intended map, mean
        accuracy on each task."""
        out = []
        steps = len(next(iter(self.seeds.values()))) if self.seeds else 0
        for s in range(steps):
            rows = [v[s] for v in self.seeds.values()]
            n = len(rows)
            concepts = rows[0].optimal[0] is not None
            fitted = [r for r in rows if r.fitted]
            entry = {"step": rows[0].step, "seeds": n, "fitted": len(fitted),
                     "count": self.cumulative[rows[0].step - 1] if concepts else None,
                     "mean_accuracy": [round(float(np.mean([r.accuracies[t] for r in rows])), 4)
                                       for t in range(len(self.tasks))]}
            if concepts:  # verdicts of the seeds that fitted the step's data, as the single-task harness reads them
                counted = sum(bool(r.on_all_so_far) for r in fitted)
                entry.update(on_all_so_far=counted, on_all_so_far_ci=wilson(counted, len(fitted)),
                             newest_only=sum(bool(r.newest_only) for r in fitted),
                             intended=sum(bool(r.intended) for r in fitted))
            out.append(entry)
        return out

    def to_dict(self) -> dict:
        return {"tasks": list(self.tasks), "regime": self.regime, "model": self.model, "map_class": self.map_class,
                "cumulative": [json_int(c) for c in self.cumulative], "forgets": [json_int(f) for f in self.forgets],
                "summary": self.summary(),
                "seeds": {str(k): [s.to_dict() for s in v] for k, v in self.seeds.items()},
                "seconds": round(self.seconds, 2)}

    def __str__(self) -> str:
        lines = [f"{self.model} {self.regime} on {' -> '.join(self.tasks)} ({self.map_class}; counts after each "
                 f"step {', '.join(map(str, self.cumulative))})"]
        for e in self.summary():
            acc = ", ".join(f"{a:.3f}" for a in e["mean_accuracy"])
            head = f"  after task{'s 1..' if e['step'] > 1 else ' '}{e['step']}: accuracy per task {acc}"
            head += f"; fitted {e['fitted']}/{e['seeds']}"
            if "on_all_so_far" in e:
                head += (f"; of those on a map optimal for all so far {e['on_all_so_far']}, newest only "
                         f"{e['newest_only']}, intended {e['intended']}")
            lines.append(head)
        return "\n".join(lines)


def _check(problems: Sequence[Problem]) -> None:
    first = problems[0].task
    for p in problems[1:]:
        if [(c.name, c.domain) for c in p.task.concepts] != [(c.name, c.domain) for c in first.concepts]:
            raise HarnessError(f"task {p.task.name} reads other concepts than {first.name}; the sequential harness "
                               f"trains tasks over the same concepts, in the same order")
        if [repr(lab.expr) for lab in p.task.labels] != [repr(lab.expr) for lab in first.labels]:
            raise HarnessError(f"task {p.task.name} has other knowledge than {first.name}; the sequential harness "
                               f"trains tasks that share their knowledge (one model, data that changes)")
        if p.map_class != problems[0].map_class:
            raise HarnessError("the tasks are trained and counted in one map class")


def _join(splits: Sequence[Split]) -> Split:
    return Split(np.concatenate([s.x for s in splits]), np.concatenate([s.concepts for s in splits]),
                 np.concatenate([s.labels for s in splits]), np.concatenate([s.rows for s in splits]))


def _train_on(model, train: Split, val: Split, problem: Problem, config: TrainConfig, seed: int) -> None:
    """Train ``model`` further on ``train`` (a fresh optimiser, as a new task starts); keep the epoch with the
    best validation mF1(Y) on ``val``."""
    opt = torch.optim.Adam(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    x, y = torch.as_tensor(train.x), torch.as_tensor(train.labels)
    c = torch.as_tensor(train.concepts)
    mask = torch.zeros((len(train), problem.task.k + sum(problem.task.sizes)), dtype=torch.bool)
    gen = torch.Generator().manual_seed(seed)
    best, best_state = -1.0, None
    for _ in range(config.epochs):
        model.train()
        order = torch.randperm(len(train), generator=gen)
        for b in range(0, len(train), config.batch_size):
            idx = order[b:b + config.batch_size]
            loss = model.loss(x[idx], y[idx], c[idx], mask[idx], config.concept_weight)
            opt.zero_grad()
            loss.backward()
            opt.step()
        score = _label_scores(model, problem, val, None)[1]
        if score > best:
            best, best_state = score, copy.deepcopy(model.state_dict())
    if best_state is not None:
        model.load_state_dict(best_state)


def _step(model, problems: Sequence[Problem], data: Sequence[Dataset], step: int, trained: Split) -> StepResult:
    model.eval()
    fit = label_report(trained.labels, model.predict_labels(torch.as_tensor(trained.x)))["accuracy"]
    accuracies = []
    for d in data:
        pred = model.predict_labels(torch.as_tensor(d.test.x))
        accuracies.append(label_report(d.test.labels, pred)["accuracy"])
    if not getattr(model, "has_concepts", False):
        return StepResult(step, tuple(accuracies), (None,) * len(problems), None, None, "", fit, fit >= FIT)
    true = np.concatenate([d.test.concepts for d in data])
    pred = np.concatenate([model.predict_concepts(torch.as_tensor(d.test.x)) for d in data])
    maps = [learned_map(p, true, pred) for p in problems]
    whole = learned_map(_union(problems), true, pred)  # the map on every task's support at once
    return StepResult(step, tuple(accuracies), tuple(m.optimal for m in maps), whole.in_class is not False,
                      whole.intended, whole.description, fit, fit >= FIT)


def _union(problems: Sequence[Problem]) -> Problem:
    """The tasks as one problem on the union of their supports (they share concepts and knowledge)."""
    from ..problems.union import as_single, join
    single = as_single(join(problems))
    if single is None:
        raise HarnessError("the tasks' supervision differs; the sequential harness needs one supervision")
    return single[0]


def train_sequence(problems: Sequence[Problem], regime: str, config: TrainConfig, seed: int,
                   data: Sequence[Dataset] | None = None) -> tuple:
    """One seed: the steps of ``regime`` over ``problems`` (one per task, in order)."""
    if regime not in REGIMES:
        raise HarnessError(f"unknown regime {regime!r}; choose one of {', '.join(REGIMES)}")
    _check(problems)
    if config.threads:
        torch.set_num_threads(config.threads)
    data = data or [make_dataset(p, config.n_train, config.n_val, config.n_test, seed + 7919 * t, config.inputs,
                                 appearance=seed, cover_train=config.cover_train)  # one look for shared concepts
                    for t, p in enumerate(problems)]
    torch.manual_seed(seed)
    labels = np.concatenate([d.train.labels for d in data])
    model = build_model(config.model, problems[0].task, data[0].dim, config.extractor, labels, config.tnorm,
                        config.p, config.semantics, config.width)
    model.entropy_weight = config.entropy
    out = []
    if regime == "joint":
        train = _join([d.train for d in data])
        _train_on(model, train, _join([d.val for d in data]), problems[0], config, seed)
        return (_step(model, problems, data, len(problems), train),)
    for t in range(len(problems)):
        seen = data[:t + 1] if regime == "cumulative" else data[t:t + 1]
        train = _join([d.train for d in seen])
        _train_on(model, train, _join([d.val for d in seen]), problems[t], config, seed + t)
        out.append(_step(model, problems, data, t + 1, train))
    return tuple(out)


def run_sequence(problems: Sequence[Problem], regime: str = "naive", model: str = "dpl",
                 seeds: Sequence[int] = RSBENCH_SEEDS, *, config: TrainConfig | None = None,
                 count_timeout: float | None = 120.0, progress: Optional[Callable[[str], None]] = None,
                 **overrides) -> SequenceReport:
    """Count the tasks' sequence (cumulative counts, forgets), then train one model per seed in ``regime``."""
    from ..planning.multitask import count_tasks
    start = time.perf_counter()
    config = config or TrainConfig(model=model, **overrides)
    seeds = check_seeds(seeds)
    _check(problems)
    counted = count_tasks(list(problems), timeout=count_timeout)
    results = {}
    for s in seeds:
        if progress:
            progress(f"{config.model} {regime}: seed {s}")
        results[s] = train_sequence(problems, regime, config, s)
    return SequenceReport(tuple(p.task.name for p in problems), regime, config.model, problems[0].map_class,
                          counted.cumulative, counted.forgets, results, time.perf_counter() - start)
