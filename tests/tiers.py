"""Split a parametrization between the default tier and the slow one; the two tiers together run every value."""
from __future__ import annotations

import pytest


def tiered(values, fast: int) -> list:
    """The first ``fast`` of ``values`` run in the default tier, the rest under the ``slow`` marker."""
    return [v if i < fast else pytest.param(v, marks=pytest.mark.slow) for i, v in enumerate(values)]
