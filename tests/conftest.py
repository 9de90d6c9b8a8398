import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

FAST_CASES = 3  # cases of one parametrized test the default tier runs; the slow tier runs the rest


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Keep the default tier fast: of a parametrized test's many cases (random seeds, library tasks) the first
    FAST_CASES run there and the others are marked slow, so ``-m slow`` still runs every case."""
    seen: dict = {}
    for item in items:
        if getattr(item, "callspec", None) is None or item.get_closest_marker("slow"):
            continue
        key = (item.path, item.cls, item.originalname)
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > FAST_CASES:
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def patient_quick_tries(monkeypatch):
    """Give the counters' in-process quick tries 30 s instead of milliseconds, so a test of that path does not
    depend on how busy the machine is (under load a quick try gives up and a race counts instead)."""
    from rscount.counters import base, search
    from rscount.counters.boolean import clauses
    from rscount.counters.modules import prune
    monkeypatch.setattr(base, "SMALL_SECONDS", 30.0)
    for module in (search, clauses, prune):
        monkeypatch.setattr(module, "QUICK_SECONDS", 30.0)
