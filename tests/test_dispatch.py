"""Dispatch is a value: the plan says which counters a problem gets and why, and counting follows it."""
from __future__ import annotations

import pytest

import rscount
from rscount.planning.dispatch import Plan, generic_step
from rscount.tasks import task_names


SMALL = {f"concon-t{t}": dict(objects=2, colors=2) for t in (1, 2, 3)}  # ConCon's own complete count takes minutes
SMALL["raven"] = dict(candidates=2, attributes="size", values=2, samples=20)  # RAVEN's 48 concepts: docs/benchmarks.md


def _problems():
    out = []
    for name in task_names():
        try:
            out.append((name, rscount.make_problem(name, params=SMALL.get(name))))
        except rscount.RscountError:  # a family that needs a file or parameters
            continue
    return out


@pytest.mark.parametrize("name, problem", _problems(), ids=[n for n, _ in _problems()])
def test_the_count_comes_from_a_step_of_the_plan(name, problem):
    r = rscount.count_problem(problem, timeout=120)
    assert isinstance(r.plan, Plan) and 0 <= r.answered < len(r.plan.steps)
    step = r.plan.steps[r.answered]
    if step.kind == "parts":
        assert r.backend.startswith("split(") and len(r.parts) == len(step.problems)
    elif step.kind == "as":  # another problem with the same maps (times the free maps of unread concepts)
        inner = rscount.count_problem(step.problems[0], timeout=120)
        assert r.backend == inner.backend and r.count == inner.count * (step.factor or 1)
    else:
        assert r.backend in step.counters
    if r.answered == 0:  # choose_backend names the first step: right by construction
        assert rscount.choose_backend(problem) in (*step.counters, "split", "as")  # a race's winner is the machine's
    assert r.to_dict()["plan"] == r.plan.lines() and r.to_dict()["answered_by_step"] == r.answered + 1


def test_plans_are_values():
    p = rscount.make_problem("xor3")
    assert rscount.plan(p) == rscount.plan(p)
    assert rscount.plan(p).lines() == [
        "1. try automorphism (half the time left): exhaustive support: count the label-keeping symmetries of the "
        "knowledge",
        "2. race structural and ganak: few enough blocks of interchangeable concepts to count one by one; ganak side "
        "by side, the first answer kept"]


@pytest.mark.parametrize("task, options, kinds, first", [
    ("xor3", {}, ["try", "race"], "automorphism"),
    ("sdd-oia", {}, ["parts"], "split"),
    ("mnadd-evenodd", {"map_class": "shared"}, ["try", "race"], "linear"),
    ("xor3", {"map_class": "joint"}, ["run"], "closed-form"),
    ("kand-logic", {"support": "by-label:100"}, ["race"], "search"),
])
def test_plans_of_library_problems(task, options, kinds, first):
    p = rscount.make_problem(task, **options)
    plan = rscount.plan(p)
    assert [s.kind for s in plan.steps] == kinds and plan.first_counter == first


def test_shared_with_singleton_groups_is_counted_as_disentangled():
    p = rscount.make_problem(rscount.task_from_text(["a ^ b", "a & c"], groups="a;b;c"), map_class="shared")
    plan = rscount.plan(p)
    assert [s.kind for s in plan.steps] == ["as"] and plan.steps[0].problems[0].map_class == "disentangled"
    assert rscount.count_problem(p).count == rscount.count_problem(p, "bruteforce").count


def test_shared_without_groups_gives_each_domain_one_classifier():
    """Never a quiet change of class: no groups means one classifier per domain (rsbench's shared extractor),
    and the result says so."""
    task = rscount.task_from_text(["d1 + d2", "s1 | s2"], "d1=0..3,d2=0..3,s1,s2")
    p = rscount.make_problem(task, map_class="shared", support="0,1,0,1;1,2,1,1;3,3,0,0")
    assert p.task.groups == (("d1", "d2"), ("s1", "s2"))
    r = rscount.count_problem(p)
    assert r.map_class == "shared" and any("one classifier" in w for w in r.warnings)
    grouped = rscount.make_problem(rscount.task_from_text(["d1 + d2", "s1 | s2"], "d1=0..3,d2=0..3,s1,s2",
                                                          groups="d1,d2;s1,s2"),
                                   map_class="shared", support="0,1,0,1;1,2,1,1;3,3,0,0")
    assert r.count == rscount.count_problem(grouped, "bruteforce").count
    own = rscount.make_problem(task, map_class="shared", support="0,1,0,1;1,2,1,1;3,3,0,0", groups="d1;d2;s1;s2")
    assert rscount.count_problem(own).count == rscount.count_problem(
        rscount.make_problem(task, map_class="disentangled", support="0,1,0,1;1,2,1,1;3,3,0,0")).count


def test_long_symmetric_chains_go_to_the_weight_closed_form():
    text = " ^ ".join(f"x{i}" for i in range(13))
    plan = rscount.plan(rscount.make_problem(rscount.task_from_text([text])))
    assert plan.steps[0].counters == ("weight",)


def test_a_named_backend_is_the_whole_plan():
    plan = rscount.plan(rscount.make_problem("xor3"), "ganak")
    assert [(s.kind, s.counters, s.reason) for s in plan.steps] == [
        ("run", ("ganak",), "named by the caller (backend=)")]


def test_the_generic_step_is_decided_only_when_reached():
    p = rscount.make_problem("xor3")
    lazy = rscount.plan(p, decide_generic=False)
    assert lazy.steps[-1].kind == "generic"
    assert generic_step(p) == rscount.plan(p).steps[-1]


def test_a_step_that_gives_up_is_said(monkeypatch):
    from rscount.counters.symmetry import automorphism
    monkeypatch.setattr(automorphism, "MAX_NODES", 1)
    r = rscount.count("mnadd", timeout=60)
    assert r.answered == 1 and any(n.startswith("automorphism gave up") for n in r.notes)
    assert "said: automorphism gave up" in r.explain()


def test_explain_on_the_command_line(capsys):
    from rscount.cli import main
    assert main(["--task", "xor3", "--explain"]) == 0
    out = capsys.readouterr().out
    assert "plan for xor3" in out and "answered by step 1: automorphism" in out


def test_conflicting_modes_are_refused_before_planning():
    with pytest.raises(rscount.EncodingError, match="exclude each other"):
        rscount.plan(rscount.make_problem("xor3"), exact=True, approx=True)


def test_exact_keeps_ganak_when_sdd_fails(monkeypatch):
    from rscount.counters.generic import sdd

    def broken(self, problem, encoding, options):
        raise rscount.BackendError("sdd ran out of memory")
    monkeypatch.setattr(sdd.Sdd, "count", broken)
    result = rscount.count("xor4", map_class="disentangled", supervise=["c1"])
    assert result.count == rscount.count("xor4", map_class="disentangled", supervise=["c1"],
                                         backend="bruteforce").count
    assert result.backend == "ganak"
    assert any("sdd gave up (sdd ran out of memory)" in note for note in result.notes)


def _steps(task, **kw) -> list:
    return [(s.kind, s.counters) for s in rscount.plan(rscount.make_problem(task, **kw)).steps]


def test_plans_of_typical_problems(patient_quick_tries):
    """Which counters a problem gets is the plan's business: asserted on the plan, never on a race's winner."""
    assert _steps("xor4")[0] == ("try", ("automorphism",))
    assert _steps("xor4", map_class="joint") == [("run", ("closed-form",))]
    assert rscount.plan(rscount.make_problem("xor4", map_class="joint"), approx=True).steps[-1].counters == \
        ("closed-form",)  # exact and quick: an estimate would only be worse
    assert _steps("xor4", map_class="shared", subsample=12)[0] == ("try", ("valuemaps",))
    assert _steps("xor4", subsample=12)[-1] == ("race", ("search", "ganak"))
    assert _steps("xor9", map_class="disentangled", support="by-label:300")[-1] == ("race", ("search", "ganak"))
    assert rscount.count("xor4", map_class="shared", subsample=12).backend == "valuemaps"
    small = rscount.count("xor4", subsample=12)
    assert small.backend == "search" and "in this process" in small.notes[0]  # the quick try, before any race


@pytest.mark.parametrize("seed", range(30))
def test_shared_without_groups_on_random_samples(seed):
    """No concept shares a classifier: the shared maps are the disentangled ones, and the result says so."""
    import random
    rng = random.Random(seed)
    task = rscount.task_from_text(["(a ^ b) | c", "c & ~d"], "a,b,c,d", groups="a;b;c;d")
    rows = rscount.model.support.grid(task.sizes, rng.sample(range(16), rng.randint(1, 16))).tolist()
    problem = rscount.make_problem(task, map_class="shared", support=rows)
    got = rscount.count_problem(problem)
    assert got.count == rscount.count_problem(problem, "bruteforce").count and got.map_class == "shared"
    assert "shared maps are the disentangled ones" in got.notes[-1]


@pytest.mark.parametrize("inference", ["knowledge", "learned"])
def test_approx_on_the_joint_class_is_its_exact_closed_form(inference):
    exact = rscount.count("mnadd-half", map_class="joint", inference=inference)
    approx = rscount.count("mnadd-half", map_class="joint", inference=inference, approx=True)
    assert approx.exact and approx.backend == "closed-form" and approx.count == exact.count


def test_class_bounds_hold_the_count_where_every_counter_gives_up(monkeypatch):
    """approx=True where every counting step gives up: a narrower class's exact count below, the class's size
    above (guaranteed, delta 0), and the brute-force count between them; on many small random problems."""
    import dataclasses

    from randomtasks import random_problem
    from rscount.counters.generic.bruteforce import number_of_candidates
    from rscount.planning import execute
    from rscount.problems.problem import for_class
    runners = dict(execute.RUNNERS)
    outer = {}

    def refuse(kind):
        def runner(problem, step, run):
            if problem is outer.get("problem") and run.backend is None:  # its narrower classes count as usual
                raise execute.GaveUp(kind) if kind == "try" else rscount.BackendError("given up on purpose")
            return runners[kind](problem, step, run)
        return runner
    for kind in ("try", "run", "race", "generic"):
        monkeypatch.setitem(execute.RUNNERS, kind, refuse(kind))
    checked = []
    for seed in range(40):
        cls = ("complete", "free", "permutation", "disentangled")[seed % 4]
        problem = outer["problem"] = random_problem(seed, cls)
        if rscount.plan(problem, approx=True).steps[-1].kind != "bounds":
            continue  # split into parts or counted as another problem: those steps answer for themselves
        r = rscount.count_problem(problem, approx=True)
        inner = r.backend.partition("(")[2].partition(":")[0]
        narrow = dataclasses.replace(problem, map_class=inner, task=for_class(problem.task, inner))
        truth = rscount.count_problem(problem, "bruteforce").count
        assert not r.exact and r.delta == 0 and r.upper == number_of_candidates(problem), seed
        assert r.lower == r.count == rscount.count_problem(narrow, "bruteforce").count <= truth <= r.upper, seed
        assert "given up on purpose" in r.notes[0] and "guaranteed bounds" in r.notes[0]
        assert f"optimal maps  at least {r.lower}" in str(r) and r.to_dict()["lower"] == r.lower
        checked.append(cls)
    assert set(checked) == {"complete", "free", "permutation", "disentangled"} and len(checked) >= 20


def test_no_backend_says_each_reason_once():
    from rscount.counters.base import race

    def fails(cancel=None):
        raise rscount.BackendError("the CNF is too large")
    with pytest.raises(rscount.BackendError) as caught:
        race([("sdd", fails), ("ganak", fails)])
    assert str(caught.value) == "no backend finished: sdd and ganak gave up (the CNF is too large)"


def test_explain_shows_the_plan_where_the_count_fails(capsys, monkeypatch):
    from rscount.cli import main
    from rscount.planning import execute

    def broken(problem, step, run):
        raise rscount.BackendError("broken on purpose")
    for kind in list(execute.RUNNERS):
        monkeypatch.setitem(execute.RUNNERS, kind, broken)
    assert main(["--task", "xor3", "--explain"]) != 0
    err = capsys.readouterr().err
    assert err.index("plan for xor3") < err.index("no step of it counted") < err.index("broken on purpose")
    assert "1. try automorphism" in err


def test_the_bounds_step_keeps_its_share_of_the_time(monkeypatch):
    """approx=True with a time limit: the steps before a bounds step run within (1 - BOUNDS_SHARE) of it, so an
    estimate that runs out of time still leaves the narrower classes time to bound the count."""
    from rscount.planning import execute
    seen = {}
    problem = rscount.make_problem("xor3", support="0,0,0;1,0,0;1,1,0;1,1,1", map_class="free")

    def out_of_time(p, step, run):
        if p is problem:
            seen[step.kind] = run.timeout
            raise rscount.CountTimeout(f"{step.kind} timed out on purpose")
        return runner(p, step, run)
    runner = execute.RUNNERS["run"]
    for kind in ("run", "race"):
        monkeypatch.setitem(execute.RUNNERS, kind, out_of_time)
    monkeypatch.setattr(rscount.planning.dispatch, "EXACT_FIRST", 0)
    assert rscount.plan(problem, approx=True).steps[-1].kind == "bounds"
    r = rscount.count_problem(problem, approx=True, timeout=40)
    assert seen and 0 < execute.BOUNDS_SHARE < 1 and max(seen.values()) <= 40 * (1 - execute.BOUNDS_SHARE) + 1e-9
    assert r.delta == 0 and r.lower <= r.upper and "timed out on purpose" in r.notes[0]


def test_the_time_counts_the_steps_that_gave_up(monkeypatch):
    """A result's seconds are the whole plan's: a try step that spent time before giving up is in them."""
    import time

    from rscount.planning import execute
    problem = rscount.make_problem("and3")
    runner = execute.RUNNERS["try"]

    def slow_give_up(p, step, run):
        if p is problem and step.counters == ("exact",):
            time.sleep(0.3)
            raise execute.GaveUp("on purpose")
        return runner(p, step, run)
    monkeypatch.setitem(execute.RUNNERS, "try", slow_give_up)
    r = rscount.count_problem(problem, approx=True)
    assert r.plan.steps[r.answered].counters == ("automorphism",) and r.exact and r.seconds >= 0.3
