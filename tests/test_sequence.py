"""Sequential training on several tasks: steps read against the counts, regimes, refusals."""
from __future__ import annotations

import pytest

import rscount

torch = pytest.importorskip("torch")

from rscount.errors import HarnessError  # noqa: E402
from rscount.harness.sequence import run_sequence  # noqa: E402


def _halves():
    return [rscount.make_problem("xor3", support=s, map_class="disentangled")
            for s in ("0,0,0;1,1,0;0,1,1;1,0,1", "1,0,0;0,1,0;0,0,1;1,1,1")]


@pytest.mark.parametrize("regime, steps", [("naive", 2), ("cumulative", 2), ("joint", 1)])
def test_steps_are_read_against_the_counts(regime, steps):
    problems = _halves()
    counted = rscount.planning.multitask.count_tasks(problems)
    report = run_sequence(problems, regime, "dpl", seeds=[0], epochs=2, n_train=64, n_val=32, n_test=64, threads=1)
    assert report.cumulative == counted.cumulative and report.forgets == counted.forgets
    done = report.seeds[0]
    assert len(done) == steps and done[-1].step == 2
    for s in done:
        assert len(s.accuracies) == 2 and all(0 <= a <= 1 for a in s.accuracies)
        # on a map optimal for all tasks so far exactly when each task's support keeps its labels
        assert s.on_all_so_far == (all(s.optimal[:s.step]) and s.in_class)
        assert not (s.on_all_so_far and s.newest_only)
    summary = report.summary()
    assert summary[-1]["count"] == counted.cumulative[-1] and summary[-1]["seeds"] == 1
    assert "after task" in str(report)


def test_nn_reports_accuracies_only():
    report = run_sequence(_halves(), "naive", "nn", seeds=[0], epochs=1, n_train=32, n_val=16, n_test=32, threads=1)
    assert report.seeds[0][0].on_all_so_far is None and "on_all_so_far" not in report.summary()[0]


def test_tasks_with_other_knowledge_are_refused():
    problems = [rscount.make_problem("xor3", map_class="disentangled"),
                rscount.make_problem("and3", map_class="disentangled")]
    with pytest.raises(HarnessError, match="share their knowledge"):
        run_sequence(problems, "naive", seeds=[0], epochs=1)
    with pytest.raises(HarnessError, match="unknown regime"):
        run_sequence(_halves(), "shuffled", seeds=[0], epochs=1)
