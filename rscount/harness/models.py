"""Models of the field: DPL, Semantic Loss, LTN, a plain network and a concept-bottleneck model, over three
extractors.

Extractors mirror the map classes: ``joint`` reads the whole input for every
concept, ``separate`` has one network per concept position (disentangled),
``shared`` one network per concept group (weight sharing).
"""
from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn

from ..errors import HarnessError
from .fuzzy import FuzzyKnowledge, p_mean_error
from .probabilistic import exact_semantics
from .raven import RuleScoring, is_raven

__all__ = ["EXTRACTORS", "MODELS", "SEMANTICS", "Extractor", "build_model", "label_classes", "semantics_for"]

EXTRACTORS = {"joint": "complete", "separate": "disentangled", "shared": "shared"}
HIDDEN = 64
MIN_LOGP = -27.0  # p >= 2e-12 keeps circuit gradients finite


def _mlp(d_in: int, d_out: int, width: int = HIDDEN) -> nn.Module:
    return nn.Sequential(nn.Linear(d_in, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU(),
                         nn.Linear(width, d_out))


class Extractor(nn.Module):
    """p(c | x) as one log-probability tensor (B, |D_j|) per concept."""

    def __init__(self, task, dim: int, kind: str, width: int = HIDDEN):
        super().__init__()
        if kind not in EXTRACTORS:
            raise HarnessError(f"unknown extractor {kind!r}; choose one of {', '.join(EXTRACTORS)}")
        self.kind, self.sizes, self.k = kind, task.sizes, task.k
        if kind == "joint":
            self.net = _mlp(task.k * dim, sum(task.sizes), width)
        else:
            owner = [task.group_of(i)[0] if kind == "shared" else i for i in range(task.k)]
            self.owner = owner
            self.nets = nn.ModuleDict({str(o): _mlp(dim, task.sizes[o], width) for o in sorted(set(owner))})

    def forward(self, x: torch.Tensor) -> list:
        if self.kind == "joint":
            logits = torch.split(self.net(x.flatten(1)), list(self.sizes), dim=1)
        else:
            logits = [self.nets[str(self.owner[i])](x[:, i]) for i in range(self.k)]
        return [torch.log_softmax(z, dim=1).clamp(min=MIN_LOGP) for z in logits]


SEMANTICS = ("auto", "enumerate", "circuit", "rules")


def semantics_for(task, train_labels: np.ndarray, method: str = "auto"):
    """DPL's likelihood: exact (enumeration or compiled circuit), or for RAVEN rsbench's rule scoring, which
    ``auto`` picks there (3^48 concept vectors neither enumerate nor compile)."""
    if method not in SEMANTICS:
        raise HarnessError(f"unknown semantics {method!r}; choose one of {', '.join(SEMANTICS)}")
    if method == "rules" or (method == "auto" and is_raven(task)):
        return RuleScoring(task)
    return exact_semantics(task, train_labels, method)


def label_classes(task) -> list:
    """Per label, the codes of the values it can take (from the compiled knowledge)."""
    out = []
    for table in task.compiled.tables:
        out.append(sorted(task.codes[v] if isinstance(v, str) else int(v) for v in table))
    return out


class _Base(nn.Module):
    has_concepts = True
    entropy_weight = 0.0  # w_h of rsbench's Eq. 20

    def __init__(self, task, dim: int, extractor: str, width: int = HIDDEN):
        super().__init__()
        self.task = task
        self.extractor = Extractor(task, dim, extractor, width)

    def entropy_penalty(self, logps: list) -> torch.Tensor:
        """w_h (1 - H): H the entropy of each concept's batch-mean distribution over its values, normalised by
        log |D_j| and averaged over concepts (rsbench Eq. 19-20); it keeps a model from using few values."""
        if not self.entropy_weight:
            return torch.zeros(())
        hs = []
        for lp in logps:
            mean = lp.exp().mean(dim=0).clamp(min=1e-12)
            hs.append(-(mean * mean.log()).sum() / math.log(lp.shape[1]))
        return self.entropy_weight * (1 - torch.stack(hs).mean())

    def concept_loss(self, logps: list, concepts: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Concept supervision; ``mask`` is (B, k + sum of domain sizes) boolean.

        The first k columns mark supervised (example, concept) pairs: cross-entropy
        on the true value. The rest mark, per concept and value, values an example
        is known not to have (a value supervised wherever it occurs is absent where
        no label says it): -log(1 - p(those values)). Without them, labels on one
        value alone teach the classifier to predict that value everywhere.
        """
        if not mask.any():
            return torch.zeros(())
        k = len(logps)
        terms, at = [], k
        for j, lp in enumerate(logps):
            terms.append(-(lp.gather(1, concepts[:, j:j + 1])[:, 0])[mask[:, j]])
            excluded = mask[:, at:at + lp.shape[1]]
            at += lp.shape[1]
            rows = excluded.any(dim=1) & ~mask[:, j]
            if rows.any():
                inside = torch.logsumexp(lp[rows].masked_fill(~excluded[rows], -math.inf), dim=1)
                terms.append(-torch.log1p(-inside.exp().clamp(max=1 - 1e-6)))
        return torch.cat(terms).mean()

    def predict_concepts(self, x: torch.Tensor) -> np.ndarray:
        with torch.no_grad():
            return torch.stack([lp.argmax(1) for lp in self.extractor(x)], dim=1).cpu().numpy()

    def predict_labels(self, x: torch.Tensor) -> np.ndarray:
        """beta_K of the most likely concept vector."""
        return self.task.evaluate(self.predict_concepts(x))


class DPL(_Base):
    """DeepProbLog-style: maximise log p(y | x) = log sum_c [beta_K(c) = y] p(c | x), computed exactly."""

    def __init__(self, task, dim: int, extractor: str, train_labels: np.ndarray, semantics: str = "auto",
                 width: int = HIDDEN):
        super().__init__(task, dim, extractor, width)
        self.semantics = semantics_for(task, train_labels, semantics)

    def loss(self, x, y, concepts, mask, weight: float = 1.0):
        logps = self.extractor(x)
        return (-self.semantics.log_likelihood(logps, y).mean() + weight * self.concept_loss(logps, concepts, mask)
                + self.entropy_penalty(logps))


class LTN(_Base):
    """Logic Tensor Network-style: maximise the p-mean-aggregated fuzzy satisfaction of beta_K(c) = y."""

    def __init__(self, task, dim: int, extractor: str, tnorm: str = "product", p: float = 2.0,
                 width: int = HIDDEN):
        super().__init__(task, dim, extractor, width)
        self.fuzzy, self.p = FuzzyKnowledge(task, tnorm), p

    def loss(self, x, y, concepts, mask, weight: float = 1.0):
        logps = self.extractor(x)
        sat = self.fuzzy.satisfaction([lp.exp() for lp in logps], y)
        return (1 - p_mean_error(sat, self.p) + weight * self.concept_loss(logps, concepts, mask)
                + self.entropy_penalty(logps))


class _LabelHead(nn.Module):
    def __init__(self, task, d_in: int, width: int = HIDDEN):
        super().__init__()
        self.classes = label_classes(task)
        self.heads = nn.ModuleList(_mlp(d_in, len(c), width) for c in self.classes)
        self.lookup = [{code: n for n, code in enumerate(c)} for c in self.classes]

    def loss(self, h, y):
        total = 0.0
        for j, head in enumerate(self.heads):
            target = torch.as_tensor([self.lookup[j][int(c)] for c in y[:, j].tolist()], device=h.device)
            total = total + nn.functional.cross_entropy(head(h), target)
        return total

    def predict(self, h) -> np.ndarray:
        with torch.no_grad():
            cols = [np.asarray(c)[head(h).argmax(1).cpu().numpy()] for c, head in zip(self.classes, self.heads)]
        return np.stack(cols, axis=1)


class NN(nn.Module):
    """A plain network from the whole input to the labels: no knowledge, no concepts."""

    has_concepts = False

    def __init__(self, task, dim: int, extractor: str = "joint", width: int = HIDDEN):
        super().__init__()
        self.task = task
        self.head = _LabelHead(task, task.k * dim, width)

    def loss(self, x, y, concepts, mask, weight: float = 1.0):
        return self.head.loss(x.flatten(1), y)

    def predict_labels(self, x) -> np.ndarray:
        return self.head.predict(x.flatten(1))


class CBM(_Base):
    """Concept bottleneck: concepts from the extractor, a learned label head on their probabilities."""

    learned_head = True  # its labels come from the head, not from K

    def __init__(self, task, dim: int, extractor: str, width: int = HIDDEN):
        super().__init__(task, dim, extractor, width)
        self.head = _LabelHead(task, int(sum(task.sizes)))

    def _bottleneck(self, x):
        logps = self.extractor(x)
        return logps, torch.cat([lp.exp() for lp in logps], dim=1)

    def loss(self, x, y, concepts, mask, weight: float = 1.0):
        logps, h = self._bottleneck(x)
        return self.head.loss(h, y) + weight * self.concept_loss(logps, concepts, mask) + self.entropy_penalty(logps)

    def predict_labels(self, x) -> np.ndarray:
        with torch.no_grad():
            return self.head.predict(self._bottleneck(x)[1])

    def head_labels(self, concepts: np.ndarray) -> np.ndarray:
        """What the learned head says on concept index vectors (one-hot, as a confident extractor gives them)."""
        sizes = [int(s) for s in self.task.sizes]
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(int)
        h = np.zeros((len(concepts), sum(sizes)), dtype=np.float32)
        for j, off in enumerate(offsets):
            h[np.arange(len(concepts)), off + concepts[:, j]] = 1.0
        device = next(self.head.parameters()).device
        return self.head.predict(torch.as_tensor(h, device=device))


class SL(CBM):
    """Semantic Loss (Xu et al. 2018): a learned label head on the concepts, plus -log p(K gives y) on the concept
    distribution, computed exactly as DPL's likelihood, so the knowledge shapes the concepts."""

    def __init__(self, task, dim: int, extractor: str, train_labels: np.ndarray, semantics: str = "auto",
                 weight: float = 1.0, width: int = HIDDEN):
        super().__init__(task, dim, extractor, width)
        self.semantics, self.sl_weight = semantics_for(task, train_labels, semantics), weight

    def loss(self, x, y, concepts, mask, weight: float = 1.0):
        logps, h = self._bottleneck(x)
        return (self.head.loss(h, y) - self.sl_weight * self.semantics.log_likelihood(logps, y).mean()
                + weight * self.concept_loss(logps, concepts, mask) + self.entropy_penalty(logps))


MODELS = {"dpl": DPL, "sl": SL, "ltn": LTN, "nn": NN, "cbm": CBM}


def build_model(name: str, task, dim: int, extractor: str, train_labels: np.ndarray, tnorm: str = "product",
                p: float = 2.0, semantics: str = "auto", width: int = HIDDEN) -> nn.Module:
    """Instantiate one of :data:`MODELS` for ``task`` and inputs of ``dim`` features per concept; ``width`` is
    the hidden width of the concept extractor's networks (of the whole network for NN)."""
    if name not in MODELS:
        raise HarnessError(f"unknown model {name!r}; choose one of {', '.join(MODELS)}")
    if width < 1:
        raise HarnessError(f"width {width}: the extractor needs at least one hidden unit")
    if name == "dpl":
        return DPL(task, dim, extractor, train_labels, semantics, width=width)
    if name == "sl":
        return SL(task, dim, extractor, train_labels, semantics, width=width)
    if name == "ltn":
        return LTN(task, dim, extractor, tnorm, p, width=width)
    return MODELS[name](task, dim, extractor, width=width)
