"""The estimate counter: uniform draws through the elimination, the stopping rule, and bounds that hold."""
import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

import rscount
from rscount.counters.arithmetic import estimate, montecarlo
from rscount.counters.arithmetic.linear import Rows, _components, _constraints, _count_component
from rscount.counters.arithmetic.montecarlo import Confidence, _Sampler
from rscount.counters.sampling import Estimate, stopping_rule
from rscount.counters.base import Deadline
from rscount.planning import dispatch


def _system(domain: list, rows: list) -> Rows:
    system = Rows()
    system.domain = [list(d) for d in domain]
    for op, terms, rhs in rows:
        assert system.add(op, terms, rhs)
    return system


def _solutions(domain: list, rows: list) -> list:
    """Every assignment keeping the ``eq`` rows, by brute force."""
    out = []
    for x in itertools.product(*domain):
        if all(sum(a * x[c] for c, a in terms) == rhs for op, terms, rhs in rows if op == "eq"):
            out.append(x)
    return out


def test_draws_are_uniform_over_the_solutions_of_the_equations():
    """Merged states reach some solutions along many paths: drawing by path would favour them."""
    domain = [[0, 1, 2, 3]] * 5
    rows = [("eq", ((0, 1), (1, 1), (2, 1), (3, -1)), 0), ("eq", ((3, 1), (4, 1)), 4)]
    system = _system(domain, rows)
    arrays = [np.asarray(d, dtype=np.int64).reshape(len(d), 1) for d in system.domain]
    free, cons = _constraints(system, arrays, Deadline(None, "test"))
    (cols, group), = _components(free, cons)[0]
    trace: list = []
    n = _count_component(cols, group, arrays, Deadline(None, "test"), trace=trace)
    truth = _solutions(domain, rows)
    assert n == len(truth) > 5
    picked: dict = {}
    draws = 40_000
    _Sampler(trace).draw(draws, np.random.default_rng(3), picked)
    free_values = sorted({tuple(x[c] for c in cols) for x in truth})
    assert len(free_values) == len(truth)  # the free entries decide the rest
    seen = {}
    for row in zip(*(picked[c] for c in cols)):
        key = tuple(domain[c][i] for c, i in zip(cols, row))
        seen[key] = seen.get(key, 0) + 1
    assert set(seen) == set(free_values)
    expected = draws / len(truth)
    chi2 = sum((seen[k] - expected) ** 2 / expected for k in free_values)
    assert chi2 < len(truth) + 6 * math.sqrt(2 * len(truth)), chi2


@pytest.mark.parametrize("p", [0.02, 0.3, 0.95])
def test_stopping_rule_is_within_epsilon(p):
    rng = np.random.default_rng(7)
    for epsilon in (0.1, 0.4):
        mu, draws = stopping_rule(lambda n: rng.random(n) < p, epsilon, 0.05, Deadline(None, "test"))
        assert abs(float(mu) / p - 1) <= epsilon and draws > 0


def test_stopping_rule_counts_the_draw_that_reaches_the_target():
    outcomes = iter([1] * 1000)
    mu, draws = stopping_rule(lambda n: [next(outcomes) for _ in range(n)], 0.5, 0.5, Deadline(None, "test"))
    upsilon1 = 1 + 1.5 * 4 * (math.e - 2) * math.log(4) / 0.25
    assert draws == math.ceil(upsilon1) and mu == Fraction(upsilon1) / draws


def test_estimates_add_and_multiply_as_intervals():
    a = Estimate(Fraction(10), Fraction(8), Fraction(12))
    assert 2 * a + 1 == Estimate(Fraction(21), Fraction(17), Fraction(25))
    assert a * a == Estimate(Fraction(100), Fraction(64), Fraction(144))
    assert not Estimate.of(0) and a and 0 + a == a


def test_confidence_shares_delta_over_any_number_of_estimates():
    confidence = Confidence(0.5, 0.1)
    assert sum(confidence.next_delta() for _ in range(10_000)) < 0.1
    with pytest.raises(rscount.BackendError, match="epsilon="):
        Confidence(0.5, 1.5)


@pytest.mark.parametrize("kind, cls", [("linear", "disentangled"), ("product", "disentangled"),
                                       ("product", "shared"), ("product", "complete")])
def test_bounds_hold_when_every_system_is_sampled(kind, cls, monkeypatch):
    """No room for exact elimination and none for checking every solution: each constrained system is
    estimated (or gives up when too few solutions keep its disequations), against brute force."""
    import randomtasks
    monkeypatch.setattr(montecarlo, "EXACT_CELLS", 0)
    monkeypatch.setattr(montecarlo, "EVERY", 0)
    monkeypatch.setattr(montecarlo, "MAX_DRAWS", 1 << 13)
    make = getattr(randomtasks, f"random_{kind}_problem")
    sampled = 0
    for seed in range(40):
        problem = make(seed, cls)
        if not estimate.BACKEND.applies(problem):
            continue
        truth = rscount.count_problem(problem, "bruteforce").count
        confidence = Confidence(0.3, 0.01, seed)
        try:
            got = estimate._solve(problem, Deadline(None, "test"), confidence)
        except rscount.BackendError as exc:
            assert "too few for the stopping rule" in str(exc)
            continue
        if isinstance(got, Estimate):
            sampled += confidence.estimates
            assert got.lower <= truth <= got.upper, (seed, problem.describe(), float(got.value), truth)
            assert got.upper <= got.value * Fraction(13, 10) and got.lower * Fraction(13, 10) >= got.value
        else:
            assert got == truth
    assert sampled >= 10


@pytest.mark.parametrize("kind, cls", [("linear", "disentangled"), ("product", "shared"), ("product", "complete")])
def test_small_systems_are_checked_solution_by_solution(kind, cls, monkeypatch):
    """No room for exact elimination, but few solutions to the equations: each is checked, the count exact."""
    import randomtasks
    monkeypatch.setattr(montecarlo, "EXACT_CELLS", 0)
    checked = 0
    for seed in range(40):
        problem = randomtasks.__dict__[f"random_{kind}_problem"](seed, cls)
        if estimate.BACKEND.applies(problem):
            got = estimate._solve(problem, Deadline(None, "test"), Confidence(0.3, 0.01, seed))
            truth = rscount.count_problem(problem, "bruteforce").count
            if isinstance(got, Estimate):  # over EVERY solutions
                assert got.lower <= truth <= got.upper
            else:
                assert got == truth, (seed, problem.describe())
                checked += 1
    assert checked >= 20


@pytest.mark.slow
def test_mnmath_b1_forced_sampling_agrees_with_the_exact_count(monkeypatch):
    """1,000 vectors: exact (12 disentangled maps); sampling every system must still bracket it."""
    monkeypatch.setattr(montecarlo, "EXACT_CELLS", 0)
    monkeypatch.setattr(montecarlo, "EVERY", 0)
    monkeypatch.setattr(dispatch, "EXACT_FIRST", 0)  # else the exact plan counts it, as it should
    problem = rscount.make_problem("mnmath-b1", support="by-label:1000", map_class="disentangled")
    r = rscount.count_problem(problem, approx=True, epsilon=0.2, delta=0.05, timeout=120)
    assert not r.exact and r.backend.startswith("split(estimate")  # ApproxMC answers where sampling gave up
    assert r.lower <= 12 <= r.upper


@pytest.mark.slow
def test_mnmath_b1_by_label_100_is_estimated():
    """The instance no exact method finishes: the product part is sampled, the sum part stays exact."""
    r = rscount.count("mnmath-b1", support="by-label:100", map_class="disentangled", approx=True)
    assert not r.exact and r.backend == "split(estimate)" and r.delta == 0.2
    assert r.lower <= r.count <= r.upper <= r.count * 1.8 and r.lower * 1.8 >= r.count
    assert "mnmath-b1[y1]: 12 (estimate, exact)" in r.notes[0]
    assert any("were sampled" in note for note in r.notes)
    assert 1e14 < r.count / 12 < 1e15  # ApproxMC, given 139 s on a CNF of this part alone, says 4.6e14


def test_approx_stays_exact_where_elimination_finishes():
    r = rscount.count("mnadd-evenodd", approx=True, backend="estimate")
    assert r.exact and r.count == 2592 and r.backend == "estimate"
    r = rscount.count("xor3", map_class="free", support="0,0,0;1,0,0;1,1,0;1,1,1", approx=True, backend="approxmc")
    assert not r.exact and r.backend == "approxmc"


def test_approx_counts_exactly_first_where_that_is_quick():
    """An exact count beats an estimate: approx=True tries the exact plan first, for a short while (not before
    the estimate counter, which is exact where elimination finishes)."""
    assert "exact" not in [s.counters[0] for s in rscount.plan(rscount.make_problem("mnadd-evenodd"), approx=True).steps]
    for name, options in (("and3", {}), ("xor3", dict(map_class="free", support="0,0,0;1,0,0;1,1,0;1,1,1"))):
        r, truth = rscount.count(name, approx=True, **options), rscount.count(name, exact=True, **options)
        assert r.exact and r.count == truth.count and r.epsilon is None
        assert any(note.startswith("approx: counted exactly") for note in r.notes)
        assert r.plan.steps[0].counters == ("exact",)


def test_split_shares_the_accuracy_between_estimated_parts(monkeypatch):
    """Two sampled parts: each gets sqrt(1 + epsilon) and delta / 2, so the product keeps 1 + epsilon."""
    monkeypatch.setattr(dispatch, "EXACT_FIRST", 0)
    monkeypatch.setattr(montecarlo, "EXACT_CELLS", 0)
    monkeypatch.setattr(montecarlo, "EVERY", 0)
    task = rscount.task_from_text(["c1 * c2 != c3", "c4 * c5 != c6"],
                                  "c1=0..3,c2=0..3,c3=0..3,c4=0..3,c5=0..3,c6=0..3")
    problem = rscount.make_problem(task, map_class="disentangled", support="by-label:30")
    r = rscount.count_problem(problem, approx=True, epsilon=0.5, delta=0.2)
    truth = rscount.count_problem(problem).count
    assert not r.exact and r.backend == "split(estimate)"
    assert r.lower <= truth <= r.upper and r.upper <= r.count * 1.5 + 1 and r.delta <= 0.2
    assert all(f"{part.task}: ~" in r.notes[0] and ", estimated)" in r.notes[0] for part in r.parts)


def test_a_split_estimate_marks_its_exact_parts_exact(monkeypatch):
    """An estimate's split note says which parts were counted exactly: MNMath-B.1's sum part read
    "12 (estimate)" beside its estimated product part, as if 12 were estimated."""
    from rscount.planning import execute
    real = execute.count_problem

    def sampled_product(part, *args, **kwargs):  # the sum part as the counters take it; the product part sampled
        with monkeypatch.context() as m:
            if part.task.name.endswith("[y2]"):
                m.setattr(montecarlo, "EXACT_CELLS", 0)
                m.setattr(montecarlo, "EVERY", 0)
            return real(part, *args, **kwargs)
    monkeypatch.setattr(dispatch, "EXACT_FIRST", 0)
    monkeypatch.setattr(execute, "count_problem", sampled_product)
    task = rscount.task_from_text(["c1 + c2 == c3", "c4 * c5 != c6"], "c1=0..3,c2=0..3,c3=0..3,c4=0..3,c5=0..3,c6=0..3")
    r = real(rscount.make_problem(task, map_class="disentangled", support="by-label:30"),
                              approx=True)
    exact, estimated = r.parts
    assert r.backend == "split(estimate)" and exact.exact and not estimated.exact, r.notes
    assert f"{exact.task}: {exact.count} (estimate, exact)" in r.notes[0]
    assert f"{estimated.task}: ~" in r.notes[0] and "(estimate, estimated)" in r.notes[0]


def test_cli_estimate_backend(capsys):
    from rscount.cli import main
    assert main(["--task", "mnadd-evenodd", "--approx", "--backend", "estimate", "--json"]) == 0
    assert '"exact": true' in capsys.readouterr().out


def test_approxmc_takes_over_when_the_estimate_gives_up(monkeypatch):
    from rscount.counters.arithmetic import product
    monkeypatch.setattr(product, "MAX_PATTERNS", 0)
    monkeypatch.setattr(dispatch, "EXACT_FIRST", 0)
    task = rscount.task_from_text(["c1 * c2 == c3"], "c1=0..3,c2=0..3,c3=0..3")
    problem = rscount.make_problem(task, map_class="disentangled", support="by-label:20")
    r = rscount.count_problem(problem, approx=True)
    assert r.backend == "approxmc" and any("estimate gave up" in note for note in r.notes)
    assert r.lower <= rscount.count_problem(problem).count <= r.upper


def test_named_backend_counts_each_label_part_when_it_fits_every_part():
    """MNMath-B.1 has a sum part and a product part: estimate fits both, linear only the first."""
    problem = rscount.make_problem("mnmath-b1", support="by-label:1000", map_class="disentangled")
    r = rscount.count_problem(problem, "estimate", approx=True)
    assert r.exact and r.count == 12 and r.backend == "split(estimate)"
    with pytest.raises(rscount.BackendError, match=r"counts some label parts of this task but not mnmath-b1\[y2\]"):
        rscount.count_problem(problem, "linear")
    with pytest.raises(rscount.BackendError, match="bruteforce would try"):  # a reference is never split
        rscount.count_problem(problem, "bruteforce")
