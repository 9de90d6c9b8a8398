"""LTN's fuzzy semantics of the knowledge: truth degrees under a t-norm, aggregated with p-means.

Each sub-expression evaluates to a map value -> truth degree (a batch
tensor). Connectives use the t-norm T, its t-conorm S and 1 - x; any other
operator gives value r the degree S over argument values producing r of T
over their degrees (an existential reading, as LTN grounds functions of
categorical symbols). The label's degree is the degree of its observed value.
"""
from __future__ import annotations

import itertools
from functools import reduce

import torch

from ..errors import HarnessError
from ..language.logic import Const, Var
from ..language.semantics import apply_scalar

__all__ = ["TNORMS", "FuzzyKnowledge", "p_mean_error"]


def _product():
    return (lambda a, b: a * b, lambda a, b: a + b - a * b)


def _goedel():
    return (torch.minimum, torch.maximum)


def _lukasiewicz():
    return (lambda a, b: torch.clamp(a + b - 1, min=0), lambda a, b: torch.clamp(a + b, max=1))


TNORMS = {"product": _product, "goedel": _goedel, "lukasiewicz": _lukasiewicz}
_BOOLEAN = {"and", "or", "not", "xor", "implies", "equiv"}


def p_mean_error(sat: torch.Tensor, p: float = 2.0) -> torch.Tensor:
    """LTN's universal aggregator: 1 - (mean (1 - x)^p)^(1/p)."""
    return 1 - ((1 - sat).clamp(min=0) ** p).mean().clamp(min=1e-12) ** (1 / p)


class FuzzyKnowledge:
    """Truth degree of ``beta_K(c) = y`` for predicted concept distributions, under one t-norm."""

    def __init__(self, task, tnorm: str = "product"):
        if tnorm not in TNORMS:
            raise HarnessError(f"unknown t-norm {tnorm!r}; choose one of {', '.join(TNORMS)}")
        self.task, self.tnorm = task, tnorm
        self.T, self.S = TNORMS[tnorm]()

    def _truth(self, dist: dict, batch: int) -> torch.Tensor:
        degrees = [d for v, d in dist.items() if v not in (0, False)]
        return reduce(self.S, degrees) if degrees else torch.zeros(batch)

    def _bool(self, t: torch.Tensor) -> dict:
        return {1: t, 0: 1 - t}

    def degrees(self, probs: list, label: int) -> dict:
        """Map each value of label ``label`` to its truth degree; ``probs`` are (B, |D_j|) per concept."""
        batch = probs[0].shape[0]
        env = {c.name: {v: probs[j][:, u] for u, v in enumerate(c.domain)} for j, c in enumerate(self.task.concepts)}
        memo: dict = {}

        def ev(node) -> dict:
            if node in memo:
                return memo[node]
            if isinstance(node, Const):
                out = {node.value: torch.ones(batch)}
            elif isinstance(node, Var):
                out = env[node.name]
            else:
                out = self._op(node.op, [ev(a) for a in node.args], batch)
            memo[node] = out
            return out

        return ev(self.task.labels[label].expr)

    def _op(self, op: str, args: list, batch: int) -> dict:
        T, S = self.T, self.S
        if op in _BOOLEAN:
            t = [self._truth(a, batch) for a in args]
            if op == "not":
                return self._bool(1 - t[0])
            if op == "and":
                return self._bool(reduce(T, t) if t else torch.ones(batch))
            if op == "or":
                return self._bool(reduce(S, t) if t else torch.zeros(batch))
            if op == "xor":
                return self._bool(reduce(lambda a, b: S(T(a, 1 - b), T(1 - a, b)), t) if t else torch.zeros(batch))
            if op == "implies":
                return self._bool(S(1 - t[0], t[1]))
            # equiv: all true or all false
            return self._bool(S(reduce(T, t), reduce(T, [1 - x for x in t])))
        out: dict = {}
        folded = args if op == "ite" else [args[0]]
        rest = [] if op == "ite" else args[1:]
        for arg in rest or [None]:
            pool = folded + ([arg] if arg is not None else [])
            out = {}
            for combo in itertools.product(*[list(a.items()) for a in pool]):
                values = [v for v, _ in combo]
                r = apply_scalar(op, values)
                d = reduce(T, [d for _, d in combo])
                out[r] = S(out[r], d) if r in out else d
            folded = [out]
        return out

    def satisfaction(self, probs: list, y: torch.Tensor) -> torch.Tensor:
        """Per example, T over labels of the degree of the observed label value; ``y`` holds label codes."""
        sat = None
        for label in range(len(self.task.labels)):
            dist = self.degrees(probs, label)
            codes = y[:, label]
            deg = torch.zeros(y.shape[0])
            for code in torch.unique(codes).tolist():
                value = self.task.decode(code)
                if value in dist:
                    deg = deg + (codes == code).float() * dist[value]
            sat = deg if sat is None else self.T(sat, deg)
        return sat
