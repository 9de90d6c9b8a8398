"""RAVEN's DPL semantics as rsbench's model computes it (``ravendpl.py``): rules scored per attribute.

The exact sum over RAVEN's 3^48 concept vectors neither enumerates nor compiles, so rsbench factorises:
per attribute and row, p(rule) = the probability of the rows of three values that follow it; per
candidate, the agreement of rows 1, 2 and the candidate-completed row 3 on one rule (summed over rules);
the candidate's score is the product over attributes, and p(answer | x) a softmax of the log scores.
At one-hot concepts the scores are rsbench's rule counts, so the argmax is the task's label (checked on
construction against the compiled knowledge).
"""
from __future__ import annotations

import numpy as np
import torch

from ..errors import HarnessError
from ..tasks.raven import CONTEXT, panel_concept, rule_holds, rules_of

__all__ = ["RuleScoring", "is_raven"]

CHECKED = 2000  # concept vectors on which the scores' argmax must equal the knowledge's label


def _layout(task) -> tuple | None:
    """(attributes, candidates, values, per attribute the concept index of each panel), or None when ``task``
    is not a RAVEN task of rscount's library."""
    params = dict(task.params)
    if not {"candidates", "attributes", "values"} <= set(params) or len(task.labels) != 1:
        return None
    attrs, k, d = str(params["attributes"]).split(","), int(params["candidates"]), int(params["values"])
    index = {c.name: i for i, c in enumerate(task.concepts)}
    panels = {a: [index.get(panel_concept(a, p)) for p in range(CONTEXT + k)] for a in attrs}
    if any(i is None for ps in panels.values() for i in ps) or len(index) != len(attrs) * (CONTEXT + k) \
            or any(task.sizes[i] != d for ps in panels.values() for i in ps):
        return None
    return attrs, k, d, panels


def is_raven(task) -> bool:
    """Whether ``task`` is a RAVEN task (``--task raven`` with any parameters)."""
    return _layout(task) is not None


class RuleScoring:
    """log p(answer | x) as rsbench's RAVEN model scores candidates; differentiable in the concepts'
    log-probabilities."""

    def __init__(self, task):
        layout = _layout(task)
        if layout is None:
            raise HarnessError(f"task {task.name} is not a RAVEN task: rule scoring needs rscount's RAVEN layout "
                               f"(--task raven); use the exact semantics")
        self.attrs, self.k, self.d, self.panels = layout
        worlds = [(x, y, z) for x in range(self.d) for y in range(self.d) for z in range(self.d)]
        self.follows = {a: torch.as_tensor([[rule_holds(r, *w) for r in rules_of(a)] for w in worlds])
                        for a in self.attrs}  # (d^3, rules): which rows of three values follow each rule
        self._check(task)

    def _rows(self, lp: torch.Tensor, panels: tuple, follows: torch.Tensor) -> torch.Tensor:
        """log p(rule) of the row of ``panels``, (B, rules): logsumexp over the rows of values following it."""
        a, b, c = (lp[:, p] for p in panels)
        worlds = (a[:, :, None, None] + b[:, None, :, None] + c[:, None, None, :]).reshape(len(lp), -1)
        masked = worlds[:, :, None].masked_fill(~follows[None], -torch.inf)
        return torch.logsumexp(masked, dim=1)

    def log_scores(self, logps: list) -> torch.Tensor:
        """Per candidate, the sum over attributes of log agreement of the three rows: (B, candidates)."""
        total = 0.0
        for a in self.attrs:
            lp = torch.stack([logps[i] for i in self.panels[a]], dim=1)  # (B, panels, d)
            follows = self.follows[a].to(lp.device)
            both = self._rows(lp, (0, 1, 2), follows) + self._rows(lp, (3, 4, 5), follows)
            third = torch.stack([self._rows(lp, (6, 7, CONTEXT + c), follows) for c in range(self.k)], dim=1)
            total = total + torch.logsumexp(both[:, None, :] + third, dim=2)
        return total

    def log_likelihood(self, logps: list, y: torch.Tensor) -> torch.Tensor:
        ys = torch.log_softmax(self.log_scores(logps), dim=1)
        return ys.gather(1, y[:, :1].long().to(ys.device))[:, 0]

    def answers(self, vectors: np.ndarray) -> np.ndarray:
        """The argmax candidate (the first of the highest) at one-hot concepts: rsbench's rule counts."""
        score = np.ones((len(vectors), self.k), dtype=np.int64)
        for a in self.attrs:
            rules = rules_of(a)
            col = [vectors[:, i] for i in self.panels[a]]
            for c in range(self.k):
                agree = np.zeros(len(vectors), dtype=np.int64)
                for r in rules:
                    agree += np.fromiter((rule_holds(r, *w) and rule_holds(r, *u) and rule_holds(r, *v) for w, u, v
                                          in zip(zip(*col[0:3]), zip(*col[3:6]),
                                                 zip(col[6], col[7], col[CONTEXT + c]))),
                                         dtype=bool, count=len(vectors))
                score[:, c] *= agree
        return score.argmax(axis=1)

    def _check(self, task) -> None:
        """The scores' argmax equals the knowledge's label on the task's support and random puzzles."""
        rng = np.random.default_rng(0)
        vectors = rng.integers(self.d, size=(CHECKED, task.k))
        if task.default_support:
            vectors = np.concatenate([np.asarray(task.default_support, dtype=np.int64)[:CHECKED], vectors])
        label = task.evaluate(vectors)[:, 0]
        answers = self.answers(vectors)
        wrong = np.flatnonzero(answers != label)
        if len(wrong):
            raise HarnessError(f"RAVEN rule scoring answers {answers[wrong[0]]} where task "
                               f"{task.name}'s knowledge answers {label[wrong[0]]}: the task's knowledge was changed; "
                               f"use the exact semantics")
