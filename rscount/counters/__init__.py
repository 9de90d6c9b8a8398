"""Counting backends, chosen by name from one registry.

>>> sorted(COUNTERS)
['approxmc', 'arithmetic', 'automorphism', 'bruteforce', 'clauses', 'closed-form', 'enumerate', 'estimate', 'ganak', 'linear', 'modules', 'product', 'pyeda-reference', 'sdd', 'search', 'structural', 'valuemaps', 'weight']
"""
from __future__ import annotations

from ..errors import BackendError
from . import (
    approxmc,
    arithmetic,
    automorphism,
    bruteforce,
    clauses,
    closedform,
    estimate,
    ganak,
    linear,
    modules,
    product,
    pyeda_reference,
    sdd,
    search,
    structural,
    valuemaps,
    weight,
)
from . import enumerate as enumerate_
from .base import Counter, Options

__all__ = ["COUNTERS", "get_counter", "Counter", "Options"]

COUNTERS: dict = {
    "weight": weight.BACKEND,
    "structural": structural.BACKEND,
    "automorphism": automorphism.BACKEND,
    "valuemaps": valuemaps.BACKEND,
    "search": search.BACKEND,
    "linear": linear.BACKEND,
    "product": product.BACKEND,
    "arithmetic": arithmetic.BACKEND,
    "modules": modules.BACKEND,
    "clauses": clauses.BACKEND,
    "ganak": ganak.BACKEND,
    "sdd": sdd.BACKEND,
    "approxmc": approxmc.BACKEND,
    "estimate": estimate.BACKEND,
    "enumerate": enumerate_.BACKEND,
    "closed-form": closedform.BACKEND,
    "bruteforce": bruteforce.BACKEND,
    "pyeda-reference": pyeda_reference.BACKEND,
}


def get_counter(name: str) -> Counter:
    """Return the backend called ``name``; raise BackendError listing the valid names."""
    try:
        return COUNTERS[name]
    except KeyError:
        raise BackendError(f"unknown backend {name!r}; choose one of {', '.join(COUNTERS)}") from None
