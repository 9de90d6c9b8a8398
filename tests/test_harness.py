"""The training harness: exact DPL semantics, fuzzy semantics, learned-map checks, metrics, training runs."""
from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sklearn")

from randomtasks import random_problem  # noqa: E402

import rscount  # noqa: E402
from rscount.cli import main  # noqa: E402
from rscount.counters.generic.bruteforce import candidates, label_table, optimal  # noqa: E402
from rscount.harness import TrainConfig, learned_map, make_dataset, run  # noqa: E402
from rscount.harness.fuzzy import TNORMS, FuzzyKnowledge  # noqa: E402
from rscount.harness.metrics import collapse, macro_f1  # noqa: E402
from rscount.harness.probabilistic import CompiledCircuit, Enumeration  # noqa: E402
from rscount.model.support import grid as _grid  # noqa: E402


def _random_logps(task, batch, gen):
    return [torch.log_softmax(torch.randn(batch, s, generator=gen, dtype=torch.float64) * 2, 1) for s in task.sizes]


# --- exact probabilistic semantics ---------------------------------------------

@pytest.mark.parametrize("seed", range(40))
def test_compiled_circuit_equals_enumeration(seed):
    problem = random_problem(seed, "disentangled")
    task = problem.task
    labels = task.evaluate(_grid(task.sizes))
    gen = torch.Generator().manual_seed(seed)
    logps = [lp.requires_grad_() for lp in _random_logps(task, 5, gen)]
    y = torch.as_tensor(labels[np.random.default_rng(seed).integers(len(labels), size=5)])
    circuit = CompiledCircuit(task, labels)
    a = circuit.log_likelihood(logps, y).double()
    b = Enumeration(task).log_likelihood(logps, y)
    assert torch.allclose(a, b, atol=1e-5), (a, b)
    ga = torch.autograd.grad(a.sum(), logps)
    gb = torch.autograd.grad(b.sum(), logps)
    for x, z in zip(ga, gb):
        assert torch.allclose(x, z, atol=1e-5)


def test_dpl_likelihood_sums_to_one_over_labels():
    task = rscount.get_task("mnadd")
    labels = task.evaluate(_grid(task.sizes))
    circuit = CompiledCircuit(task, labels)
    logps = _random_logps(task, 3, torch.Generator().manual_seed(0))
    total = torch.logsumexp(circuit.log_counts(logps), dim=1).exp()
    assert torch.allclose(total, torch.ones(3, dtype=torch.float64))


def test_compiled_circuit_on_sdd_oia_matches_sampled_enumeration():
    task = rscount.get_task("sdd-oia")
    support = rscount.make_problem(task, support="by-label:200", seed=3).support.vectors
    labels = task.evaluate(support)
    circuit = CompiledCircuit(task, labels)
    logps = _random_logps(task, 2, torch.Generator().manual_seed(1))
    y = torch.as_tensor(labels[:2])
    got = circuit.log_likelihood(logps, y).double()
    # Reference: sum over all 2^20 vectors in chunks.
    grid = _grid(task.sizes)
    want = []
    for b in range(2):
        total = -np.inf
        for start in range(0, len(grid), 1 << 17):
            chunk = grid[start:start + (1 << 17)]
            fits = np.all(task.evaluate(chunk) == labels[b], axis=1)
            lp = sum(logps[j][b].numpy()[chunk[:, j]] for j in range(task.k))
            if fits.any():
                total = np.logaddexp(total, np.logaddexp.reduce(lp[fits]))
        want.append(total)
    assert np.allclose(got.numpy(), want, atol=1e-6)


# --- fuzzy semantics ---------------------------------------------------------------

@pytest.mark.parametrize("tnorm", list(TNORMS))
@pytest.mark.parametrize("seed", range(15))
def test_fuzzy_semantics_is_crisp_on_one_hot_concepts(seed, tnorm):
    problem = random_problem(seed, "disentangled")
    task = problem.task
    grid = _grid(task.sizes)
    labels = task.evaluate(grid)
    probs = [torch.nn.functional.one_hot(torch.as_tensor(grid[:, j]), s).float() for j, s in enumerate(task.sizes)]
    fuzzy = FuzzyKnowledge(task, tnorm)
    assert torch.allclose(fuzzy.satisfaction(probs, torch.as_tensor(labels)), torch.ones(len(grid)))
    wrong = labels.copy()
    wrong[:, 0] = labels[::-1, 0]
    differs = torch.as_tensor(np.any(wrong != labels, axis=1))
    sat = fuzzy.satisfaction(probs, torch.as_tensor(wrong))
    assert torch.all(sat[differs] == 0)


def test_fuzzy_product_and_goedel_values():
    task = rscount.task_from_text(["a & b", "a | b"], "a,b")
    probs = [torch.tensor([[0.2, 0.8]]), torch.tensor([[0.6, 0.4]])]
    product = FuzzyKnowledge(task, "product")
    assert float(product.degrees(probs, 0)[1]) == pytest.approx(0.8 * 0.4)
    assert float(product.degrees(probs, 1)[1]) == pytest.approx(0.8 + 0.4 - 0.32)
    goedel = FuzzyKnowledge(task, "goedel")
    assert float(goedel.degrees(probs, 0)[1]) == pytest.approx(0.4)
    luk = FuzzyKnowledge(task, "lukasiewicz")
    assert float(luk.degrees(probs, 0)[1]) == pytest.approx(0.2)


# --- learned maps against the brute-force oracle -----------------------------------

@pytest.mark.parametrize("cls", ["complete", "disentangled", "shared"])
@pytest.mark.parametrize("seed", range(25))
def test_learned_map_is_counted_exactly_when_brute_force_says_optimal(seed, cls):
    problem = random_problem(seed, cls)
    table, k = label_table(problem.task), problem.task.k
    rows = [(g, table[g], problem.supervised(r, g), problem.observed(r))
            for r, g in enumerate(problem.support.rows())]
    support = problem.support.vectors
    checked = 0
    for assign in candidates(problem):
        images = []
        for g in support.tolist():
            out = [None] * k
            for j, u in enumerate(g):
                i, v = assign[j][u]
                out[i] = v if out[i] is None or out[i] == v else -1
            images.append(out)
        if any(None in img or -1 in img for img in images):
            continue  # not a function onto one-hot vectors: not a model output
        learned = learned_map(problem, support, np.asarray(images))
        assert learned.counted == optimal(assign, rows, table, k), (assign, learned)
        assert learned.in_class
        checked += 1
        if checked > 300:
            break
    assert checked


def test_learned_map_verdicts_on_xor3():
    problem = rscount.make_problem("xor3", map_class="disentangled")
    g = problem.support.vectors
    assert learned_map(problem, g, g).verdict == "intended"
    flip = g.copy()
    flip[:, :2] = 1 - flip[:, :2]
    lm = learned_map(problem, g, flip)
    assert lm.verdict == "shortcut" and "c1: 0->1, 1->0" in lm.description
    assert learned_map(problem, g, np.zeros_like(g)).verdict == "not optimal"
    swap = g[:, [1, 0, 2]]  # a permutation: optimal, but not disentangled
    assert learned_map(problem, g, swap, per_concept=False).verdict == "outside class"
    complete = rscount.make_problem("xor3", map_class="complete")
    assert learned_map(complete, g, swap).verdict == "shortcut"


def test_per_concept_reading_ignores_a_few_misread_images():
    problem = rscount.make_problem("xor3", map_class="disentangled")
    true = problem.support.vectors.copy()  # each vector seen once
    pred = true.copy()
    pred[3, 0] = 1 - pred[3, 0]  # one misread image
    lm = learned_map(problem, true, pred)
    assert lm.verdict == "intended" and lm.agreement == 7 / 8
    assert learned_map(problem, true, pred, per_concept=False).verdict == "not optimal"


# --- metrics -----------------------------------------------------------------------

def test_macro_f1_matches_scikit_learn():
    from sklearn.metrics import f1_score
    rng = np.random.default_rng(0)
    for _ in range(20):
        t, p = rng.integers(5, size=50), rng.integers(4, size=50)
        assert macro_f1(t, p) == pytest.approx(f1_score(t, p, average="macro"))


def test_collapse_follows_appendix_a1():
    true = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    assert collapse(true, true) == 0.0
    assert collapse(true, np.zeros_like(true)) == pytest.approx(1 - 1 / 4)
    # A prediction outside the ground-truth vectors widens the matrix: m = |F(C) u F(C*)|.
    assert collapse(true[:2], np.array([[1, 1], [1, 1]])) == pytest.approx(1 - 1 / 3)


# --- data --------------------------------------------------------------------------

def test_dataset_covers_support_and_keeps_test_images_apart():
    problem = rscount.make_problem("mnadd-evenodd")
    data = make_dataset(problem, 300, 100, 200, seed=1, n_ood=50)
    assert {tuple(r) for r in data.test.concepts.tolist()} == {tuple(r) for r in problem.support.vectors.tolist()}
    assert np.array_equal(data.train.labels, problem.task.evaluate(data.train.concepts))
    train_imgs = {row.tobytes() for row in data.train.x.reshape(-1, 64)}
    assert not train_imgs & {row.tobytes() for row in data.test.x.reshape(-1, 64)}
    inside = {tuple(r) for r in problem.support.vectors.tolist()}
    assert data.ood is not None and not inside & {tuple(r) for r in data.ood.concepts.tolist()}


def test_cover_train_puts_every_support_vector_in_the_training_split():
    problem = rscount.make_problem("sdd-oia", support="by-label:200")
    rows = lambda data: set(data.train.rows.tolist())  # noqa: E731
    assert rows(make_dataset(problem, 400, 10, 10, seed=3, cover_train=True)) == set(range(200))
    assert len(rows(make_dataset(problem, 400, 10, 10, seed=3))) < 200  # drawn at random, ~27 missed
    with pytest.raises(rscount.HarnessError, match="cover_train"):
        TrainConfig(cover_train="yes")


def test_countrss_train_takes_cover_train(capsys):
    assert main(["train", "--task", "xor2", "--epochs", "1", "--n-train", "20", "--seeds", "0", "--json",
                 "--cover-train"]) == 0
    assert json.loads(capsys.readouterr().out)["config"]["cover_train"] is True


def test_inputs_follow_the_concepts():
    kand = make_dataset(rscount.make_problem("kand-logic", support="by-label:50"), 20, 10, 10)
    assert kand.inputs == "shapes" and kand.dim == 192
    oia = make_dataset(rscount.make_problem("sdd-oia", support="by-label:50"), 20, 10, 10)
    assert oia.inputs == "embeddings"
    with pytest.raises(rscount.HarnessError, match="not digits"):
        make_dataset(rscount.make_problem("kand-logic", support="by-label:5"), 5, 5, 5, inputs="digits")


# --- training runs -----------------------------------------------------------------

@pytest.mark.parametrize("model", ["dpl", "ltn", "nn", "cbm"])
def test_every_model_trains_on_a_tiny_task(model):
    report = run(rscount.make_problem("xor2", map_class="disentangled"), model, seeds=[0], epochs=2,
                 n_train=100, n_val=20, n_test=40)
    seed = report.seeds[0]
    assert 0 <= seed.labels["accuracy"] <= 1
    assert (seed.learned is None) == (model == "nn")
    assert report.count.count == 2


@pytest.mark.parametrize("seed", [0, pytest.param(1, marks=pytest.mark.slow)])
def test_dpl_on_xor3_lands_on_a_counted_map(seed):
    report = run(rscount.make_problem("xor3", map_class="disentangled"), "dpl", seeds=[seed], epochs=20, threads=1)
    assert report.count.count == 4
    for s in report.seeds:
        assert s.labels["accuracy"] > 0.9
        assert s.learned.counted, s.learned


def test_full_concept_supervision_leaves_one_map_and_the_model_finds_it():
    problem = rscount.make_problem("xor3", map_class="disentangled", concept_sup=1.0)
    report = run(problem, "dpl", seeds=[0], epochs=15)
    assert report.count.count == 1
    assert report.seeds[0].learned.verdict == "intended"
    assert report.seeds[0].concepts["accuracy"] > 0.95


def test_dpl_with_compiled_circuit_trains_on_sdd_oia():
    problem = rscount.make_problem("sdd-oia", map_class="disentangled", support="by-label:300")
    report = run(problem, "dpl", seeds=[0], epochs=3, n_train=600, n_val=100, n_test=300, count_timeout=60)
    assert report.seeds[0].labels["accuracy"] > 0.5


def test_countrss_train_cli(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["train", "--task", "xor2", "--epochs", "2", "--n-train", "100", "--seeds", "0,1",
                 "--json", "--out", str(out)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["map_class"] == "disentangled" and data["count"]["count"] == 2
    assert len(data["seeds"]) == 2 and data["summary"]["seeds"] == 2
    names = sorted(p.name for p in out.iterdir())
    assert names == ["confusion-seed0.json", "confusion-seed0.png", "confusion-seed1.json",
                     "confusion-seed1.png", "curve-seed0.csv", "curve-seed1.csv", "model-seed0.pt", "model-seed1.pt",
                     "report.json"]
    assert (out / "curve-seed0.csv").read_text().splitlines()[0] == "epoch,loss,val_mF1_Y,val_accuracy"


@pytest.mark.parametrize("argv, message", [
    (["--task", "xor3", "--seeds", "a"], "--seeds"),
    (["--task", "xor3", "--epochs", "0"], "--epochs"),
    (["--task", "kand-logic", "--support", "by-label:5", "--inputs", "digits"], "not digits"),
    (["--task", "nope"], "unknown task"),
])
def test_countrss_train_bad_input(argv, message, capsys):
    assert main(["train", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


# --- value supervision: a value labelled wherever it occurs is known absent elsewhere ----------------------------

def test_value_supervision_mask_marks_known_absent_values():
    from rscount.harness.train import _supervision_mask
    problem = rscount.make_problem("mnadd-half", supervise=["d1=4"])
    data = make_dataset(problem, 50, 10, 10, 0)
    mask = _supervision_mask(problem, data.train)
    d1 = data.train.concepts[:, 0]
    assert mask.shape == (50, 2 + 5 + 5)
    assert (mask[:, 0] == (d1 == 4)).all() and not mask[:, 1].any()
    assert (mask[:, 2 + 4] == (d1 != 4)).all()  # d1's slot for value 4
    assert mask[:, 2:2 + 4].sum() == 0 and mask[:, 7:].sum() == 0


def test_concept_loss_on_known_absent_values_by_hand():
    from rscount.harness.models import build_model
    task = rscount.get_task("xor3")
    model = build_model("dpl", task, 4, "separate", np.zeros((1, 1), dtype=np.int64))
    logps = [torch.log(torch.tensor([[0.2, 0.8], [0.6, 0.4]])) for _ in range(3)]
    concepts = torch.tensor([[0, 0, 0], [0, 0, 0]])
    mask = torch.zeros((2, 3 + 6), dtype=torch.bool)
    mask[0, 0] = True  # example 0: c1 supervised, true value 0: -log 0.2
    mask[1, 3 + 0] = True  # example 1: c1 known not 0: -log(1 - 0.6)
    got = model.concept_loss(logps, concepts, mask)
    assert got.item() == pytest.approx((-np.log(0.2) - np.log(0.4)) / 2, rel=1e-5)


def test_advised_value_supervision_recovers_the_intended_map_on_xor3():
    """The audit's value advice for xor3 (disentangled) reaches count 1; DPL then finds the intended map."""
    a = rscount.audit("xor3", map_class="disentangled")
    problem = rscount.make_problem("xor3", map_class="disentangled", supervise=list(a.supervise_values.items))
    report = run(problem, "dpl", seeds=[0], epochs=20)
    assert report.count.count == 1
    assert report.seeds[0].learned.verdict == "intended"


# --- rsbench's metrics, by hand ------------------------------------------------------------------------------------

def test_rsbench_metrics_stack_digits_as_rsbench_does():
    """MNAdd: both digits stacked as one 10-class classification; collapse over the values seen or predicted."""
    from rscount.harness.metrics import rsbench_metrics
    task = rscount.get_task("mnadd-evenodd")
    true = np.array([[0, 6], [2, 8], [4, 6]])
    pred = np.array([[0, 6], [0, 6], [4, 6]])  # 2 -> 0 and 8 -> 6: values 0, 4, 6 used
    labels_t, labels_p = task.evaluate(true), task.evaluate(pred)
    m = rsbench_metrics(task, true, pred, labels_t, labels_p)
    # stacked true (0,2,4,6,8,6) vs pred (0,0,4,6,6,6): m = 5 categories, p = 3 predicted
    assert m["Cls_C"] == pytest.approx(1 - 3 / 5)
    from sklearn.metrics import f1_score
    assert m["mF1_C"] == pytest.approx(f1_score([0, 2, 4, 6, 8, 6], [0, 0, 4, 6, 6, 6], average="macro",
                                                zero_division=0))
    assert m["mF1_Y"] == pytest.approx(f1_score(labels_t[:, 0], labels_p[:, 0], average="macro", zero_division=0))


def test_rsbench_metrics_read_kandinsky_objects_as_shape_and_color():
    from rscount.harness.metrics import concept_units, rsbench_metrics
    task = rscount.get_task("kand-logic")
    units, stacked = concept_units(task)
    assert stacked and units[0] == (task.index("sha1_1"), task.index("col1_1")) and len(units) == 6
    true = np.zeros((2, 12), dtype=int)
    pred = true.copy()
    pred[1, task.index("col1_1")] = 2  # one object's color wrong: object codes 0 (true) vs 2 (pred)
    m = rsbench_metrics(task, true, pred, task.evaluate(true), task.evaluate(pred))
    assert m["Cls_C"] == pytest.approx(1 - 2 / 2)  # categories {0, 2}, both predicted


def test_rsbench_metrics_for_many_boolean_labels_average_binary_f1s():
    """SDD-OIA: mF1 over labels and concepts is the mean of binary F1s; Cls over whole 20-bit vectors, with
    vectors absent from the test set adding columns (m = |F(C) u F(C*)|); mCls per label's concepts."""
    from rscount.harness.metrics import binary_f1, rsbench_metrics
    task = rscount.get_task("sdd-oia")
    rng = np.random.default_rng(0)
    true = rng.integers(0, 2, size=(30, task.k))
    pred = true.copy()
    pred[:10, 0] = 0  # red_light never seen on ten examples
    m = rsbench_metrics(task, true, pred, task.evaluate(true), task.evaluate(pred))
    want_c = np.mean([binary_f1(true[:, i], pred[:, i]) for i in range(task.k)])
    assert m["mF1_C"] == pytest.approx(want_c)
    lt, lp = task.evaluate(true), task.evaluate(pred)
    assert m["mF1_Y"] == pytest.approx(np.mean([binary_f1(lt[:, j], lp[:, j]) for j in range(4)]))
    codes = lambda v: [int("".join(map(str, r)), 2) for r in v]  # noqa: E731
    t, p = set(codes(true)), set(codes(pred))
    assert m["Cls_C"] == pytest.approx(1 - len(p) / len(t | p))
    assert 0 <= m["mCls_C"] <= 1


def test_wilson_interval():
    from rscount.harness.train import wilson
    assert wilson(0, 0) == [0.0, 1.0]
    low, high = wilson(10, 10)
    assert high == pytest.approx(1.0) and low == pytest.approx(0.7225, abs=1e-3)
    low, high = wilson(5, 10)
    assert low == pytest.approx(0.2366, abs=1e-3) and high == pytest.approx(0.7634, abs=1e-3)


def test_head_verdict_tells_a_head_that_is_k_from_one_that_is_not():
    from rscount.harness.train import head_agreement
    task = rscount.get_task("xor3")
    concepts = np.array([[0, 0, 1], [1, 1, 0], [1, 0, 0]])
    labels = task.evaluate(concepts)
    assert head_agreement(task, labels, concepts) == 1.0
    assert head_agreement(task, 1 - labels, concepts) == 0.0


def test_a_seeded_run_repeats_exactly_and_parallel_seeds_agree():
    from rscount.harness import TrainConfig, run
    problem = rscount.make_problem("mnadd-half", map_class="shared")
    config = TrainConfig(model="sl", extractor="shared", epochs=2, n_train=120, n_val=40, n_test=40, threads=1,
                         entropy=0.5)
    a = run(problem, seeds=[3, 4], config=config)
    b = run(problem, seeds=[3, 4], config=config, workers=2)
    for x, y in zip(a.seeds, b.seeds):
        assert x.rsbench == y.rsbench and x.curve == y.curve and x.train_accuracy == y.train_accuracy
    assert "head_is_K" in a.seeds[0].rsbench and len(a.seeds[0].curve) == 2
    s = a.summary
    assert s["on_counted_ci"][0] <= s["on_counted_ci"][1] and "mF1_Y_std" in s


def test_entropy_penalty_by_hand():
    import math

    import torch

    from rscount.harness.models import build_model
    task = rscount.get_task("xor3")
    model = build_model("dpl", task, 4, "separate", task.evaluate(np.array([[0, 0, 0], [1, 1, 0]])))
    model.entropy_weight = 2.0
    uniform = [torch.log(torch.full((5, 2), 0.5)) for _ in range(3)]
    assert float(model.entropy_penalty(uniform)) == pytest.approx(0.0, abs=1e-6)
    peaked = [torch.log(torch.tensor([[0.9, 0.1]] * 5)) for _ in range(3)]
    h = -(0.9 * math.log(0.9) + 0.1 * math.log(0.1)) / math.log(2)
    assert float(model.entropy_penalty(peaked)) == pytest.approx(2.0 * (1 - h), rel=1e-5)


def test_restarts_retrain_only_unfitted_seeds_and_keep_the_best_by_validation():
    from rscount.harness import TrainConfig
    from rscount.harness.train import train_seed
    problem = rscount.make_problem("mnadd-half", map_class="shared")
    tiny = dict(model="dpl", extractor="shared", epochs=1, n_train=60, n_val=30, n_test=30, threads=1)
    once = train_seed(problem, TrainConfig(**tiny), 5)
    assert not once.fitted and once.attempts == 1  # one epoch on 60 examples does not fit the labels
    thrice = train_seed(problem, TrainConfig(**tiny, restarts=3), 5)
    assert thrice.attempts == 3 and len(thrice.curve) == 1
    assert max(c[1] for c in thrice.curve) >= max(c[1] for c in once.curve)  # best validation mF1(Y) kept
    again = train_seed(problem, TrainConfig(**tiny, restarts=3), 5)
    assert again.rsbench == thrice.rsbench and again.curve == thrice.curve
    easy = train_seed(rscount.make_problem("xor2", map_class="disentangled"),
                      TrainConfig(epochs=15, n_train=200, n_val=40, n_test=40, threads=1, restarts=3), 0)
    assert easy.fitted and easy.attempts == 1


def test_the_rsbench_table_tunes_by_mean_validation_mf1_and_keeps_the_simpler_setting_on_ties(monkeypatch):
    from types import SimpleNamespace

    import benchmarks.rsbench_table as bench
    from rscount.harness import TrainConfig
    scores = {(): 0.5, (("entropy", 1.0),): 0.9, (("entropy", 2.0),): 0.9, (("lr", 0.003), ("entropy", 1.0)): 0.7,
              (("lr", 0.0003), ("entropy", 1.0), ("batch_size", 32)): 0.8}
    seen = []

    def fake_run(problem, seeds, config, **kw):
        over = tuple((k, getattr(config, k)) for k in ("lr", "entropy", "batch_size") if getattr(config, k) != getattr(
            TrainConfig(), k))
        seen.append((over, config.restarts, tuple(seeds)))
        fit = fits.get(over, 0.5)
        return SimpleNamespace(seeds=[SimpleNamespace(curve=[(1.0, scores[over] - 0.1, 0.5), (1.0, scores[over], 0.6)],
                                                      train_accuracy=fit) for _ in seeds])

    monkeypatch.setattr(bench, "run", fake_run)
    fits = {}
    chosen, tried = bench.tune(None, TrainConfig(restarts=3), "dpl", 1.0, 1, None, None)
    assert chosen == {"entropy": 1.0}  # none fits; 0.9 twice: the first (smaller w_h) wins
    assert [t["val_mF1_Y"] for t in tried] == [0.5, 0.9, 0.9, 0.7, 0.8]
    fits = {(("lr", 0.003), ("entropy", 1.0)): 0.99}
    assert bench.tune(None, TrainConfig(), "dpl", 1.0, 1, None, None)[0] == {"lr": 3e-3, "entropy": 1.0}  # fit first
    assert all(r == 1 and s == bench.TUNE_SEEDS for _, r, s in seen)  # tuning trains each setting once
    assert not set(bench.TUNE_SEEDS) & set(bench.RSBENCH_SEEDS)  # tuned on seeds that are not reported


def test_rerun_rows_take_the_places_of_the_saved_ones():
    from benchmarks.rsbench_table import merge
    saved = {"seeds": [1], "rows": [{"task": "a", "model": "dpl", "n": 1}, {"task": "b", "model": "sl", "n": 1},
                                    {"task": "a", "model": "dpl", "sweep": True, "n": 1}]}
    out = merge(saved, [{"task": "b", "model": "sl", "n": 2}], [], "cmd")
    assert [r["n"] for r in out["rows"]] == [1, 2, 1] and out["reruns"] == ["cmd"] and out["seeds"] == [1]
    out = merge(out, [], [{"task": "a", "model": "dpl", "sweep": True, "n": 3}], "cmd2")
    assert [r["n"] for r in out["rows"]] == [1, 2, 3] and out["reruns"] == ["cmd", "cmd2"]
    out = merge(out, [], [{"task": "a", "model": "cbm", "sweep": True, "n": 4}], "cmd3")  # a column of its own
    assert [(r["model"], r["n"]) for r in out["rows"]] == [("dpl", 1), ("sl", 2), ("dpl", 3), ("cbm", 4)]
    assert saved["rows"][1]["n"] == 1  # the saved results are not changed in place
