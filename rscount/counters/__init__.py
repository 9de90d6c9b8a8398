"""Counting backends, chosen by name from one registry, in wings named for what they exploit.

- ``generic/``: any problem, through its CNF or by brute force (ganak, sdd, approxmc, enumerate, bruteforce,
  pyeda-reference; separable: learned linear heads; kernels: learned heads under disentangled and shared);
- ``symmetry/``: the symmetries of the knowledge (automorphism, valuemaps, structural, closed-form);
- ``boolean/``: knowledge over boolean concepts (weight: xor / and / or chains; clauses: one CNF);
- ``arithmetic/``: labels that are sums, products or equations of integer concepts (linear, product,
  arithmetic, estimate);
- ``free/``: the free class alone (vector-join: few support vectors, their local maps joined);
- ``modules/``: knowledge built from modules read through a few classes (Kand-Logic; agreement: RAVEN's
  attributes read through their rule agreements);
- ``search/``: any listed support, by a search over the entries of the value maps.

>>> sorted(COUNTERS)
['agreement', 'approxmc', 'arithmetic', 'automorphism', 'bruteforce', 'clauses', 'closed-form', 'enumerate', 'estimate', 'ganak', 'kernels', 'kernels-estimate', 'linear', 'modules', 'product', 'pyeda-reference', 'sdd', 'search', 'separable', 'structural', 'valuemaps', 'vector-join', 'weight']
"""
from __future__ import annotations

from ..errors import BackendError
from .arithmetic import elimination, estimate, linear, product
from .base import Counter, Options
from .boolean import clauses, weight
from .free import vectors
from .generic import approxmc, bruteforce, ganak, kernels, pyeda_reference, sdd, separable
from .generic import enumerate as enumerate_
from .modules import agreement, prune
from .search import BACKEND as SEARCH
from .symmetry import automorphism, closedform, structural, valuemaps

__all__ = ["COUNTERS", "get_counter", "Counter", "Options"]

COUNTERS: dict = {
    "weight": weight.BACKEND,
    "structural": structural.BACKEND,
    "automorphism": automorphism.BACKEND,
    "valuemaps": valuemaps.BACKEND,
    "search": SEARCH,
    "linear": linear.BACKEND,
    "product": product.BACKEND,
    "arithmetic": elimination.BACKEND,
    "modules": prune.BACKEND,
    "agreement": agreement.BACKEND,
    "clauses": clauses.BACKEND,
    "ganak": ganak.BACKEND,
    "sdd": sdd.BACKEND,
    "approxmc": approxmc.BACKEND,
    "estimate": estimate.BACKEND,
    "enumerate": enumerate_.BACKEND,
    "separable": separable.BACKEND,
    "kernels": kernels.BACKEND,
    "kernels-estimate": kernels.ESTIMATE,
    "vector-join": vectors.BACKEND,
    "closed-form": closedform.BACKEND,
    "bruteforce": bruteforce.BACKEND,
    "pyeda-reference": pyeda_reference.BACKEND,
}


def get_counter(name: str) -> Counter:
    """Return the backend called ``name``; raise BackendError listing the valid names."""
    try:
        return COUNTERS[name]
    except (KeyError, TypeError):
        raise BackendError(f"unknown backend {name!r:.40}; choose one of {', '.join(COUNTERS)}") from None
