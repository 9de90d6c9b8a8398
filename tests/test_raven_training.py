"""RAVEN's DPL semantics (rsbench's rule scoring) against an independent sum over the rows' values; the
argmax at one-hot concepts against the knowledge; refusals; a short training run."""
from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sklearn")

import rscount  # noqa: E402
from rscount.errors import HarnessError  # noqa: E402
from rscount.harness import TrainConfig, run  # noqa: E402
from rscount.harness.models import MIN_LOGP, semantics_for  # noqa: E402
from rscount.harness.raven import RuleScoring, is_raven  # noqa: E402
from rscount.language.logic import parse  # noqa: E402
from rscount.model.task import Label  # noqa: E402
from rscount.tasks import get_task  # noqa: E402


def _follows(rule: str, row) -> bool:
    x, y, z = row
    return {"constant": x == y == z,
            "progression": (y, z) in ((x + 1, x + 2), (x - 1, x - 2)),
            "arithmetic": z in (x + y, x - y),
            "distribute_three": len(set(row)) == 3}[rule]


RULES = {"type": ("constant", "progression", "distribute_three"),
         "size": ("constant", "progression", "arithmetic", "distribute_three"),
         "color": ("constant", "progression", "arithmetic", "distribute_three")}


def _log_answer_probs(task, probs: dict, attrs: list, k: int, d: int) -> np.ndarray:
    """rsbench's scoring of one example from its definition: per row and rule the probability of the value rows
    that follow the rule, agreement summed over rules, log scores summed over attributes, then a softmax."""
    def p_rule(a, panels, rule):
        return sum(math.prod(probs[(a, p)][v] for p, v in zip(panels, row))
                   for row in itertools.product(range(d), repeat=3) if _follows(rule, row))
    scores = []
    for c in range(k):
        total = 0.0
        for a in attrs:
            total += math.log(sum(p_rule(a, (0, 1, 2), r) * p_rule(a, (3, 4, 5), r) * p_rule(a, (6, 7, 8 + c), r)
                                  for r in RULES[a]))
        scores.append(total)
    scores = np.asarray(scores)
    return scores - np.log(np.exp(scores - scores.max()).sum()) - scores.max()


@pytest.mark.parametrize("params", [{}, {"candidates": 3, "attributes": "size"},
                                    {"candidates": 2, "attributes": "type,color", "values": 2}])
def test_rule_scoring_equals_a_sum_over_the_rows_values(params):
    task = get_task("raven", samples=50, **params)
    attrs, k, d = task_layout(task)
    scoring = RuleScoring(task)
    gen = torch.Generator().manual_seed(1)
    logps = [torch.log_softmax(torch.randn(3, s, generator=gen, dtype=torch.float64) * 2, 1) for s in task.sizes]
    y = torch.as_tensor([[0], [k - 1], [k // 2]])
    got = scoring.log_likelihood(logps, y)
    names = [c.name for c in task.concepts]
    for b in range(3):
        probs = {}
        for a in attrs:
            for p in range(8 + k):
                name = f"{a}_p{p + 1}" if p < 8 else f"{a}_c{p - 7}"
                probs[(a, p)] = logps[names.index(name)][b].exp().tolist()
        want = _log_answer_probs(task, probs, attrs, k, d)
        assert got[b].item() == pytest.approx(want[int(y[b, 0])], rel=1e-9, abs=1e-9)


def task_layout(task):
    params = dict(task.params)
    return params["attributes"].split(","), params["candidates"], params["values"]


def test_one_hot_concepts_answer_the_label_where_one_candidate_is_best():
    task = get_task("raven")
    scoring = RuleScoring(task)
    support = np.asarray(task.default_support, dtype=np.int64)
    logps = [torch.full((len(support), s), MIN_LOGP, dtype=torch.float64).scatter(
        1, torch.as_tensor(support[:, j:j + 1]), 0.0) for j, s in enumerate(task.sizes)]
    soft = scoring.log_scores(logps).numpy()
    labels = task.evaluate(support)[:, 0]
    assert (scoring.answers(support) == labels).all()
    top = np.sort(soft, axis=1)
    unique = top[:, -1] - top[:, -2] > 1.0  # one candidate's rule count is highest
    assert unique.sum() > 500
    assert (soft.argmax(axis=1)[unique] == labels[unique]).all()
    assert torch.isfinite(scoring.log_likelihood(logps, torch.as_tensor(labels[:, None]))).all()


def test_gradients_are_finite():
    task = get_task("raven", samples=20)
    logits = [torch.randn(4, s, requires_grad=True) for s in task.sizes]
    logps = [torch.log_softmax(z, 1).clamp(min=MIN_LOGP) for z in logits]
    loss = -RuleScoring(task).log_likelihood(logps, torch.zeros((4, 1), dtype=torch.long)).mean()
    loss.backward()
    assert all(torch.isfinite(z.grad).all() for z in logits)


def test_auto_picks_rule_scoring_for_raven_only():
    raven = get_task("raven", samples=20)
    assert is_raven(raven) and isinstance(semantics_for(raven, np.zeros((1, 1), dtype=np.int64)), RuleScoring)
    xor3 = get_task("xor3")
    assert not is_raven(xor3)
    assert not isinstance(semantics_for(xor3, np.zeros((1, 1), dtype=np.int64)), RuleScoring)
    with pytest.raises(HarnessError, match="not a RAVEN task"):
        semantics_for(xor3, np.zeros((1, 1), dtype=np.int64), "rules")
    with pytest.raises(HarnessError, match="semantics"):
        TrainConfig(semantics="bogus")


def test_a_changed_knowledge_is_refused():
    raven = get_task("raven", candidates=3, attributes="size", samples=50)
    # RAVEN's layout and parameters with a different answer (the last candidate's progression alone)
    text = "ITE((size_p7 - size_p8 == 1) & (size_p8 - size_c3 == 1), 2, 0)"
    label = Label("answer", parse(text, [c.name for c in raven.concepts]), text)
    with pytest.raises(HarnessError, match="knowledge"):
        RuleScoring(dataclasses.replace(raven, labels=(label,)))


def test_a_short_training_run_reads_a_map():
    problem = rscount.make_problem(get_task("raven", candidates=3, attributes="size", samples=100),
                                   map_class="shared")
    report = run(problem, "dpl", seeds=[0], epochs=2, n_train=100, n_val=40, n_test=60, extractor="shared")
    assert report.count is not None and report.count.exact
    seed = report.seeds[0]
    assert seed.learned is not None and seed.learned.covered > 0
    assert seed.labels["accuracy"] >= 0.0
