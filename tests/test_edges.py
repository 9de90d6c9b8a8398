"""The edges a held-out probe found: each point as a user of the library meets it, checked against an answer
(a count from brute force or from the definition), not only a message."""
from __future__ import annotations

import json

import numpy as np
import pytest

import rscount
from rscount.errors import DimacsError, KnowledgeError, OptionError, RscountError, TaskError
from rscount.readers.dimacs import parse_dimacs


# --- the joint class audits --------------------------------------------------------------------------------------

@pytest.mark.parametrize("inference", ["knowledge", "learned"])
def test_joint_audit_gives_a_supervision_that_the_counters_confirm(inference):
    a = rscount.audit("xor3", map_class="joint", inference=inference)
    fix = a.supervise_concepts
    assert fix.count == 1 and fix.reaches_one
    again = rscount.count("xor3", map_class="joint", inference=inference, supervise=list(fix.items))
    assert again.count == 1


def test_joint_value_fix_is_smallest_by_brute_force():
    """Under K every support vector moves on its own: the smallest value set is checked against every smaller
    set of supervised values, each counted."""
    import itertools
    a = rscount.audit("xor3", map_class="joint")
    fix = a.supervise_values
    assert fix.minimal and fix.count == 1
    values = [f"c{i}={v}" for i in (1, 2, 3) for v in (0, 1)]
    for size in range(len(fix.items)):
        for chosen in itertools.combinations(values, size):
            assert rscount.count("xor3", map_class="joint", supervise=list(chosen)).count > 1


def test_joint_data_fix_says_no_data_helps():
    a = rscount.audit("mnadd-half", map_class="joint")
    assert a.data.vectors == () and "no data lowers the count" in a.data.note


def _brute_learned_joint(task, support, supervised) -> int:
    """Maps of every support vector to a vector of its supervised values such that support vectors with
    different labels never share an image; vectors off the support go anywhere."""
    import itertools
    space = [tuple(v) for v in rscount.model.support.grid(task.sizes).tolist()]
    labels = {v: tuple(task.evaluate(np.array([v]))[0]) for v in space}
    rows = [tuple(v) for v in support]
    choices = [[w for w in space if all(w[i] == g[i] for i in supervised)] for g in rows]
    total = 0
    for images in itertools.product(*choices):
        seen: dict = {}
        if all(seen.setdefault(im, labels[g]) == labels[g] for g, im in zip(rows, images)):
            total += 1
    return total * len(space) ** (len(space) - len(set(rows)))


@pytest.mark.parametrize("supervise", [["a"], ["b"], ["a", "b"]])
def test_learned_joint_under_whole_concept_supervision_matches_brute_force(supervise):
    task = rscount.task_from_text(["a + b > 1"], "a,b=0..2")
    support = [[0, 0], [1, 1], [0, 1]]
    r = rscount.count(task, map_class="joint", inference="learned", supervise=supervise, support=support)
    index = [task.concepts.index(task.concept(n)) for n in supervise]
    assert r.count == _brute_learned_joint(task, support, index)


# --- several tasks: names, supports, groups ---------------------------------------------------------------------

def test_numpy_supports_of_several_tasks():
    one = rscount.count(["xor3", "and3"], support=[[np.int64(1), 1, 1]])
    assert one.count == rscount.count(["xor3", "and3"], support=[[1, 1, 1]]).count
    each = rscount.count(["xor3", "and3"], support=[np.array([[1, 1, 1]]), [[0, 0, 0]]])
    assert each.count == rscount.count(["xor3", "and3"], support=[[[1, 1, 1]], [[0, 0, 0]]]).count


def test_groups_over_several_tasks_name_the_tasks():
    with pytest.raises(TaskError, match=r"none of the tasks \(xor3, and3\) has"):
        rscount.count(["xor3", "and3"], map_class="shared", groups="c1,zz")


def test_rules_read_object_numbers_as_written():
    from rscount.rules.dnf import hypotheses
    one = rscount.task_from_spec({"name": "o", "concepts": {"shape01": "bool", "shape02": "bool"},
                                  "labels": ["shape01 | shape02"]})
    plain = rscount.task_from_spec({"name": "p", "concepts": {"shape1": "bool", "shape2": "bool"},
                                    "labels": ["shape1 | shape2"]})
    assert len(hypotheses(one).terms) == len(hypotheses(plain).terms)
    clash = rscount.task_from_spec({"name": "c", "concepts": {"shape01": "bool", "shape1": "bool"},
                                    "labels": ["shape01"]})
    with pytest.raises(TaskError, match="one number written two ways"):
        hypotheses(clash)


# --- options checked up front ------------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, error, fragment", [
    ({"seed": -1, "subsample": 0.5}, OptionError, "from 0 to 2"),
    ({"epsilon": -1, "approx": True}, OptionError, "epsilon= must be > 0"),
    ({"delta": 1.5}, OptionError, "delta= in"),
])
def test_library_checks_options_up_front(kwargs, error, fragment):
    with pytest.raises(error, match=fragment):
        rscount.count("xor3", **kwargs)


def test_params_with_a_task_object_is_refused():
    with pytest.raises(TaskError, match="is built already"):
        rscount.count(rscount.get_task("xor3"), params={"k": 3})


@pytest.mark.parametrize("params, fragment", [
    ({"objects": 2.9}, "whole number"), ({"rule": "nope"}, "must look like"), ({"confounders": "blue"}, "must look"),
    ({"rule": [1]}, "mappings"), ({"confounders": []}, "is empty"), ({"objects": True}, "whole number"),
])
def test_concon_parameters_refused_in_one_line(params, fragment):
    with pytest.raises(TaskError, match=fragment):
        rscount.get_task("concon-t1", **params)


def test_concon_rule_as_text_is_the_rule_as_data():
    text = rscount.get_task("concon-t1", objects=2, rule="shape=cube")
    data = rscount.get_task("concon-t1", objects=2, rule=[{"shape": "cube"}])
    assert [lab.text for lab in text.labels] == [lab.text for lab in data.labels]


# --- counts past 4,300 digits in the library ---------------------------------------------------------------------

def test_huge_counts_print_in_the_library():
    r = rscount.count("xor11", map_class="joint")
    assert len(str(r.count)) > 4300
    assert json.loads(json.dumps(r.to_dict()))["count"] == r.count
    assert "1.242e6165 optimal maps" in repr(r) and "1.242e6165" in str(r)


# --- knowledge that would take minutes is refused in a moment ---------------------------------------------------

def test_long_sums_refused_before_compiling():
    with pytest.raises(KnowledgeError, match="400,000 pairs"):
        rscount.task_from_text([" + ".join(f"x{i}" for i in range(1000))]).compiled


# --- DIMACS edges ------------------------------------------------------------------------------------------------

def test_dimacs_edges():
    assert parse_dimacs("\ufeffp cnf 2 1\n1 2 0\n").clauses == ((1, 2),)
    assert parse_dimacs("p cnf 3 1\n1 2 3 0\n%\n0\n\n").clauses == ((1, 2, 3),)
    assert parse_dimacs("c ind 1 2 0\np cnf 3 1\n1 2 3 0\n").show == (1, 2)
    with pytest.raises(DimacsError, match="names variable 1 again"):
        parse_dimacs("c var 1 concept a=1\nc var 1 concept b=1\np cnf 2 1\n1 2 0\n")
    with pytest.raises(DimacsError, match="outside the header's 1..2"):
        parse_dimacs("c var 7 concept a=1\np cnf 2 1\n1 2 0\n")


def test_wide_dimacs_describes_itself():
    from rscount.readers.dimacs import task_from_cnf
    task = task_from_cnf(parse_dimacs("p cnf 20000 1\n1 0\n"))
    problem = rscount.make_problem(task)
    assert "20000" in problem.describe() or "vectors" in problem.describe()


# --- sweeps: outputs rscount did not write, resume by content ----------------------------------------------------

def test_sweep_refuses_foreign_outputs_before_work(tmp_path):
    pytest.importorskip("pandas")
    from rscount.sweeps import SweepError
    bad = tmp_path / "x.jsonl"
    bad.write_text("[1, 2]\n")
    with pytest.raises(SweepError, match="not a row"):
        rscount.sweep({"tasks": ["xor3"]}, bad, workers=1)


def test_sweep_key_follows_the_spec_content(tmp_path):
    from rscount.sweeps import load_grid
    spec = tmp_path / "s.yaml"
    spec.write_text("name: s\nconcepts: [a, b]\nlabels: ['a & b']\n")
    grid = tmp_path / "g.yaml"
    grid.write_text("tasks: [{spec: s.yaml}]\n")
    before = load_grid(grid).points[0].key
    spec.write_text("name: s\nconcepts: [a, b]\nlabels: ['a | b']\n")
    assert load_grid(grid).points[0].key != before


def test_several_task_figures_that_are_estimates_are_marked():
    r = rscount.count(["xor3", "and3"], approx=True, backend="approxmc")
    text = str(r)
    if not r.exact:
        assert "~" in text.split("in this order")[1]
    assert len(r.to_dict()["cumulative_exact"]) == 2


def test_rscount_errors_are_typed():
    for cls in (DimacsError, KnowledgeError, OptionError, TaskError):
        assert issubclass(cls, RscountError)


@pytest.mark.parametrize("seed", range(6))
def test_joint_supervision_fix_is_smallest_on_random_supports(seed):
    """Against every smaller set of the same kind of items, each counted: none reaches the fix's count."""
    import itertools
    import random as _random
    from rscount.auditing.supervision import supervision_fix
    rng = _random.Random(seed)
    task = rscount.task_from_text([rng.choice(["a ^ b ^ c", "(a & b) | c", "a + b + c > 1"])], "a,b,c")
    rows = sorted(rng.sample(range(8), rng.randint(2, 8)))
    support = ";".join(",".join(str((r >> (2 - i)) & 1) for i in range(3)) for r in rows)
    problem = rscount.make_problem(task, map_class="joint", support=support)
    for by in ("value", "concept"):
        fix = supervision_fix(problem, rscount.count_problem(problem).count, None, by=by)
        items = [f"{c}={v}" for c in "abc" for v in (0, 1)] if by == "value" else list("abc")
        assert rscount.count(task, map_class="joint", support=support, supervise=list(fix.items)).count == fix.count
        for size in range(len(fix.items)):
            for chosen in itertools.combinations(items, size):
                assert rscount.count(task, map_class="joint", support=support,
                                     supervise=list(chosen)).count > fix.count, (by, chosen)


def test_a_background_thread_out_of_memory_is_one_line():
    import io
    import threading
    from rscount.cli import _thread_errors
    err = io.StringIO()

    def boom():
        raise MemoryError()
    with _thread_errors(err):
        t = threading.Thread(target=boom)
        t.start()
        t.join()
    assert err.getvalue().count("\n") == 1 and "ran out of memory (--memory-limit)" in err.getvalue()


def test_a_count_of_millions_of_digits_goes_to_json_in_seconds(capsys):
    """Kand-Logic's joint count has 2,914,533 digits: Python's own int-to-text takes minutes on it; JSON gets
    the digits as a string (python-flint writes them), the text its power of ten."""
    pytest.importorskip("flint")
    from rscount.cli import main
    assert main(["--task", "kand-logic", "--map-class", "joint", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert isinstance(data["count"], str) and len(data["count"]) == 2_914_533
    assert data["count"].startswith("2346559356") and data["count_log10"] > 2_914_532


@pytest.mark.parametrize("text, why", [
    ("sdd gave up (the CNF; 35 million clauses); raise timeout=", "sdd gave up (the CNF; 35 million clauses)"),
    ("counting timed out after 60 s", "counting timed out after 60 s"),
    ("a (b (c; d); e); f; g", "a (b (c; d); e)"),
])
def test_an_errors_reason_keeps_its_parentheses_whole(text, why):
    """The reason a note quotes is cut before the advice, never inside a parenthesis."""
    from rscount.errors import reason
    assert reason(rscount.CountTimeout(text)) == why
