"""DPL's probabilistic semantics, exactly: log p(y | x) = log sum_c [beta_K(c) = y] prod_j p(c_j | x).

Two interchangeable evaluators: enumeration of the concept vectors (small
spaces), and the knowledge compiled once to an SDD over one-hot value bits,
evaluated in log space as a smoothed arithmetic circuit (large spaces).
Both are differentiable torch functions of the per-concept log-probabilities.
"""
from __future__ import annotations

import math

import numpy as np
import torch

from ..counters.generic.sdd import _exactly_one, _GateSdds
from ..errors import HarnessError
from ..model.support import grid

__all__ = ["Enumeration", "CompiledCircuit", "exact_semantics", "ENUMERATION_LIMIT"]

ENUMERATION_LIMIT = 1 << 14


class Enumeration:
    """Sum over every concept vector; memory grows with batch x |C|."""

    def __init__(self, task):
        self.grid = torch.as_tensor(grid(task.sizes))
        self.labels = torch.as_tensor(task.evaluate(self.grid.numpy()))

    def log_likelihood(self, logps: list, y: torch.Tensor) -> torch.Tensor:
        lp = sum(logp[:, self.grid[:, j]] for j, logp in enumerate(logps))  # (B, N)
        fits = (self.labels[None, :, :] == y[:, None, :]).all(-1)
        return torch.logsumexp(lp.masked_fill(~fits, -math.inf), dim=1)


class CompiledCircuit:
    """One SDD per label vector seen in training, sharing nodes, evaluated layer by layer.

    Positive literals weigh p(c_j = u | x), negative ones 1, and a variable an
    element skips contributes p + 1 (smoothing); exactly-one constraints make
    the weighted count equal the sum over concept vectors.
    """

    def __init__(self, task, label_vectors: np.ndarray):
        from pysdd.sdd import SddManager, Vtree

        sizes = task.sizes
        self.offsets = np.cumsum([0] + list(sizes))[:-1]
        self.nvars = int(sum(sizes))
        self.mgr = SddManager.from_vtree(Vtree(var_count=self.nvars, var_order=list(range(1, self.nvars + 1)),
                                               vtree_type="balanced"))
        bits = {(j, u): self.mgr.literal(int(self.offsets[j]) + u + 1) for j in range(task.k)
                for u in range(sizes[j])}
        valid = self.mgr.true()
        for j in range(task.k):
            valid &= _exactly_one(self.mgr, [bits[(j, u)] for u in range(sizes[j])])
        kc = task.compiled
        on = _GateSdds(self.mgr, kc.circuit.defs, {var: bits[key] for key, var in kc.inputs.items()})
        self.keys = [tuple(map(int, y)) for y in np.unique(np.asarray(label_vectors), axis=0)]
        roots = []
        for y in self.keys:
            node = valid
            for table, code in zip(kc.tables, y):
                lit = table.get(task.decode(code))
                node = node & on(lit) if lit is not None else self.mgr.false()
            roots.append(node)
        self.index = {y: n for n, y in enumerate(self.keys)}
        self._flatten(roots)

    def _flatten(self, roots) -> None:
        varsets: dict = {}

        def vars_of_vtree(v) -> frozenset:
            found = varsets.get(v.position())
            if found is None:
                found = frozenset([v.var()]) if v.is_leaf() else vars_of_vtree(v.left()) | vars_of_vtree(v.right())
                varsets[v.position()] = found
            return found

        # Columns: 0 false, 1 true, then 2 per variable (positive, negative literal), then decision nodes.
        column = {}
        scope = {}  # node id -> its variables
        height = {}
        order = []
        stack = list(roots)
        while stack:
            x = stack[-1]
            if x.id in height:
                stack.pop()
                continue
            if not x.is_decision():
                height[x.id] = 0
                scope[x.id] = frozenset([abs(x.literal)]) if x.is_literal() else frozenset()
                column[x.id] = 0 if x.is_false() else 1 if x.is_true() else \
                    (2 * (x.literal - 1) + 2 if x.literal > 0 else 2 * (-x.literal - 1) + 3)
                stack.pop()
                continue
            kids = [c for pair in x.elements() for c in pair if c.id not in height]
            if kids:
                stack.extend(kids)
                continue
            stack.pop()
            height[x.id] = 1 + max(height[c.id] for pair in x.elements() for c in pair)
            scope[x.id] = vars_of_vtree(x.vtree())
            order.append(x)
        layers: dict = {}
        for x in order:
            layers.setdefault(height[x.id], []).append(x)
        next_col = 2 + 2 * self.nvars
        self.layers = []
        for h in sorted(layers):
            nodes = layers[h]
            prime, sub, gaps, slots = [], [], [], []
            for x in nodes:
                v = x.vtree()
                left, right = vars_of_vtree(v.left()), vars_of_vtree(v.right())
                mine = []
                for p, s in x.elements():
                    mine.append(len(prime))
                    prime.append(column[p.id])
                    sub.append(column[s.id])
                    gaps.append((left - scope[p.id]) | (right - scope[s.id]))
                slots.append(mine)
            for x in nodes:
                column[x.id] = next_col
                next_col += 1
            width = max(len(m) for m in slots)
            pad = np.full((len(nodes), width), len(prime), dtype=np.int64)  # points at a -inf column
            for n, m in enumerate(slots):
                pad[n, :len(m)] = m
            self.layers.append((torch.as_tensor(prime), torch.as_tensor(sub), _gap_matrix(gaps, self.nvars),
                                torch.as_tensor(pad)))
        every = frozenset(range(1, self.nvars + 1))
        self.roots = torch.as_tensor([column[r.id] for r in roots])
        self.root_gaps = _gap_matrix([every - scope[r.id] for r in roots], self.nvars)
        self.size = next_col

    def log_counts(self, logps: list) -> torch.Tensor:
        """log WMC of every root, shape (B, number of label vectors)."""
        logw = torch.cat(logps, dim=1).double()  # (B, nvars) positive-literal log weights
        batch = logw.shape[0]
        log1p = torch.log1p(logw.exp())  # log(p + 1): a skipped variable
        lits = torch.stack([logw, torch.zeros_like(logw)], dim=2).reshape(batch, -1)
        values = torch.cat([torch.full((batch, 1), -math.inf, dtype=torch.float64),
                            torch.zeros((batch, 1), dtype=torch.float64), lits], dim=1)
        for prime, sub, gap, pad in self.layers:
            elems = values[:, prime] + values[:, sub] + log1p @ gap
            elems = torch.cat([elems, torch.full((batch, 1), -math.inf, dtype=torch.float64)], dim=1)
            values = torch.cat([values, torch.logsumexp(elems[:, pad], dim=2)], dim=1)
        return values[:, self.roots] + log1p @ self.root_gaps

    def log_likelihood(self, logps: list, y: torch.Tensor) -> torch.Tensor:
        idx = torch.as_tensor([self.index.get(tuple(map(int, row)), -1) for row in y.tolist()])
        if (idx < 0).any():
            raise HarnessError("a label vector outside those the circuit was compiled for")
        return self.log_counts(logps).gather(1, idx[:, None])[:, 0].float()


def _gap_matrix(gaps: list, nvars: int) -> torch.Tensor:
    m = torch.zeros((nvars, len(gaps)), dtype=torch.float64)
    for e, g in enumerate(gaps):
        if g:
            m[[v - 1 for v in g], e] = 1.0
    return m


def exact_semantics(task, label_vectors: np.ndarray, method: str = "auto"):
    """Enumeration for at most ENUMERATION_LIMIT concept vectors, else the compiled circuit."""
    if method == "enumerate" or (method == "auto" and task.space_size <= ENUMERATION_LIMIT):
        return Enumeration(task)
    return CompiledCircuit(task, label_vectors)
