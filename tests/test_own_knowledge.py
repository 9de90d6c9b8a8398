"""Knowledge researchers already have (ProbLog programs, Python functions, tables) counts exactly as the same task
written as text, in every class and support; bad programs, functions and tables are refused in one line."""
from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

import pytest

import rscount

EXAMPLES = Path(__file__).resolve().parents[1] / "knowledge" / "examples"
from rscount.errors import CountTimeout, KnowledgeError, TaskError
from rscount.model.support import grid

from randomtasks import CLASSES, random_categorical_task, random_cnf_task
from tiers import tiered

pytest.importorskip("problog")
pd = pytest.importorskip("pandas")

ADDITION = "nn(mnist_net, [X], Y, [0,1,2,3,4,5,6,7,8,9]) :: digit(X, Y).\n" \
           "addition(X, Y, Z) :- digit(X, N1), digit(Y, N2), Z is N1 + N2.\n"
MULTI = "nn(mnist_net, [X], Y, [0,1,2,3,4,5,6,7,8,9]) :: digit(X, Y).\n" \
        "number([], R, R).\n" \
        "number([H|T], Acc, R) :- digit(H, N), Acc2 is N + 10 * Acc, number(T, Acc2, R).\n" \
        "multi_addition(X, Y, Z) :- number(X, 0, X2), number(Y, 0, Y2), Z is X2 + Y2.\n"
FORMULA = "nn(net_digit, [X], Y, [0,1,2,3]) :: digit(X, Y).\n" \
          "nn(net_op, [X], Y, [plus, minus, times]) :: operator(X, Y).\n" \
          "apply(A, plus, B, R) :- R is A + B.\napply(A, minus, B, R) :- R is A - B.\n" \
          "apply(A, times, B, R) :- R is A * B.\n" \
          "formula(X, O, Y, R) :- digit(X, A), operator(O, Op), digit(Y, B), apply(A, Op, B, R).\n"
ALL_ON = "nn(net, [X]) :: on(X).\nall_on([]).\nall_on([H|T]) :- on(H), all_on(T).\n"


def _same_counts(a, b, classes=CLASSES, supports=("exhaustive",), **options):
    for cls in classes:
        for support in supports:
            if cls == "joint" and a.space_size > 64:
                continue
            x = rscount.count(a, map_class=cls, support=support, **options)
            y = rscount.count(b, map_class=cls, support=support, **options)
            assert (x.count, x.exact) == (y.count, y.exact), (cls, support)


def _as_named(task, names):
    """The program's task (concepts ``c1_img_c1``, ...) with the text's names, in the text's order."""
    by = {c.name.split("_img_")[0]: c for c in task.concepts}
    rename = {by[n].name: n for n in names}
    from rscount.language.logic import Op, Var

    def sub(e, memo={}):
        key = id(e)
        if key not in memo:
            memo[key] = Var(rename[e.name]) if isinstance(e, Var) else Op(e.op, tuple(sub(a) for a in e.args)) \
                if isinstance(e, Op) else e
        return memo[key]
    labels = tuple(dataclasses.replace(lab, expr=sub(lab.expr, {})) for lab in task.labels)
    concepts = tuple(dataclasses.replace(by[n], name=n) for n in names)
    return dataclasses.replace(task, concepts=concepts, labels=labels)


def test_addition_program_counts_as_the_text():
    program = rscount.task_from_problog(ADDITION, "addition(a, b, Z)")
    assert [c.name for c in program.concepts] == ["digit_a", "digit_b"]
    assert program.shown == (("digit_a", "digit(a)"), ("digit_b", "digit(b)"))
    text = rscount.task_from_text(["digit_a + digit_b"], "digit_a=0..9,digit_b=0..9")
    _same_counts(program, text, supports=("exhaustive", "0,0;1,2;3,4;5,5;9,9"))


@pytest.mark.slow
def test_multi_digit_program_counts_as_the_text():
    program = rscount.task_from_problog(MULTI, "multi_addition([a, b], [c, d], Z)")
    names = [c.name for c in program.concepts]
    text = rscount.task_from_text([f"10 * {names[0]} + {names[1]} + 10 * {names[2]} + {names[3]}"],
                                  ",".join(f"{n}=0..9" for n in names))
    _same_counts(program, text, classes=("disentangled", "shared"), supports=("by-label:40",))


def test_formula_program_counts_as_the_text():
    program = rscount.task_from_problog(FORMULA, "formula(x, o, y, R)")
    assert [(c.name, c.domain) for c in program.concepts] == [
        ("digit_x", (0, 1, 2, 3)), ("operator_o", ("plus", "minus", "times")), ("digit_y", (0, 1, 2, 3))]
    text = rscount.task_from_text(["ITE(operator_o == plus, digit_x + digit_y, ITE(operator_o == minus, "
                                   "digit_x - digit_y, digit_x * digit_y))"],
                                  "digit_x=0..3,operator_o={plus,minus,times},digit_y=0..3")
    _same_counts(program, text, classes=("complete", "disentangled", "shared"), supports=("exhaustive", "by-label:6"))


def test_boolean_neural_predicates_and_a_ground_query():
    program = rscount.task_from_problog(ALL_ON, "all_on([a, b, c])")
    assert [c.domain for c in program.concepts] == [(0, 1)] * 3
    _same_counts(program, rscount.task_from_text(["on_a & on_b & on_c"], "on_a,on_b,on_c"))


def _table_program(task) -> tuple:
    """A ProbLog program for ``task``: one neural predicate per concept, the labels as a table of facts."""
    lines, heads = [], []
    for c in task.concepts:
        values = ", ".join(str(v) for v in c.domain)
        lines.append(f"nn(net_{c.name}, [X], Y, [{values}]) :: {c.name}(X, Y).")
        heads.append(f"{c.name}(img_{c.name}, V_{c.name})")
    codes = grid(task.sizes)
    for row, lab in zip(codes.tolist(), task.evaluate(codes).tolist()):
        vals = ", ".join(str(c.domain[u]) for c, u in zip(task.concepts, row))
        lines.append(f"table({vals}, {', '.join(str(int(v)) for v in lab)}).")
    vars_ = ", ".join(f"V_{c.name}" for c in task.concepts)
    outs = ", ".join(f"Y{i}" for i in range(len(task.labels)))
    lines.append(f"label({outs}) :- {', '.join(heads)}, table({vars_}, {outs}).")
    return "\n".join(lines), f"label({outs})"


def _random_task(seed):
    rng = random.Random(seed)
    task = random_cnf_task(rng, rng.randint(2, 3)) if rng.random() < 0.4 else random_categorical_task(rng)
    return dataclasses.replace(task, groups=()), rng


@pytest.mark.parametrize("seed", tiered(range(40), 3))
def test_random_knowledge_as_function_table_and_program_counts_as_text(seed):
    task, rng = _random_task(seed)
    names = [c.name for c in task.concepts]
    codes = grid(task.sizes)
    values = [[c.domain[u] for c, u in zip(task.concepts, row)] for row in codes.tolist()]
    labels = task.evaluate(codes)

    def f(**given):
        row = codes[[i for i, v in enumerate(values) if v == [given[n] for n in names]][0]]
        out = tuple(int(x) for x in task.evaluate(row[None, :])[0])
        return out if len(out) > 1 else out[0]
    spec = ",".join(f"{c.name}={c.domain[0]}..{c.domain[-1]}" for c in task.concepts)
    lab_names = [lab.name for lab in task.labels]
    from_function = rscount.task_from_function(f, spec, labels=lab_names)
    frame = pd.DataFrame([v + [int(x) for x in lab] for v, lab in zip(values, labels.tolist())],
                         columns=names + lab_names)
    from_table = rscount.task_from_table(frame, names, lab_names)
    program, query = _table_program(task)
    from_program = _as_named(rscount.task_from_problog(program, query), names)
    rows = [list(r) for r in grid(task.sizes, rng.sample(range(task.space_size), rng.randint(1, task.space_size)))]
    for other in (from_function, from_table, from_program):
        _same_counts(task, other, supports=("exhaustive", ";".join(",".join(map(str, r)) for r in rows)))


# --- bad input: one line, naming the problem ----------------------------------------------------------------------

@pytest.mark.parametrize("program, query, fragment", [
    ("p(a).\nq(X) :- p(X).\n", "q(a)", "no neural predicate"),
    (ADDITION + "big(X, Z) :- digit(X, N), N > 20, Z is N.\n", "big(a, Z)", "no answer for any concept vector"),
    (ADDITION, "subtraction(a, b, Z)", "No clauses found for 'subtraction/3'"),
    (ADDITION + "0.3::noise.\n", "addition(a, b, Z)", "stochastic: noise/0"),
    (ADDITION + "1/2::coin(h); 1/2::coin(t).\n", "addition(a, b, Z)", "coin/1"),
    ("nn(net, [X], Y, [0,1,2]) :: digit(X, Y).\nans(X, 1) :- digit(X, 1).\nans(X, 0) :- digit(X, 0).\n",
     "ans(a, Z)", "has no answer for the concept vector digit_a=2"),
    ("nn(net, [X], Y, [0,1]) :: digit(X, Y).\nans(X, 1) :- digit(X, 1).\nans(X, 2) :- digit(X, 1).\n"
     "ans(X, 0) :- digit(X, 0).\n", "ans(a, Z)", "two answers"),
    ("nn(net, [X], Y, [0,1]) :: digit(X, Y).\nthis is not prolog", "p(a)", "cannot parse"),
])
def test_bad_programs_are_refused_in_one_line(program, query, fragment):
    with pytest.raises(KnowledgeError, match=fragment.replace("(", r"\(")):
        rscount.task_from_problog(program, query)


def test_stochastic_facts_declared_concepts_are_concepts():
    program = ADDITION + "0.3::noise.\nout(X, Y, Z) :- addition(X, Y, Z), \\+ noise.\nout(X, Y, -1) :- noise.\n"
    task = rscount.task_from_problog(program, "out(a, b, Z)", as_concepts=["noise"])
    assert [c.name for c in task.concepts][-1] == "noise" and task.concepts[-1].domain == (0, 1)


def test_recursion_without_end_stops_at_the_limit():
    program = "nn(net, [X], Y, [0,1]) :: digit(X, Y).\np(X, Z) :- q(s(X), Z).\nq(X, Z) :- q(s(X), Z).\n"
    with pytest.raises((CountTimeout, KnowledgeError)):
        rscount.task_from_problog(program, "p(a, Z)", seconds=2)


def test_functions_that_raise_or_return_floats_are_refused():
    with pytest.raises(KnowledgeError, match=r"raised ZeroDivisionError"):
        rscount.task_from_function(lambda a: 1 // a, "a=0..2")
    with pytest.raises(KnowledgeError, match=r"returned 0.0 \(float\)"):
        rscount.task_from_function(lambda a: a / 2, "a=0..2")
    with pytest.raises(KnowledgeError, match="1,000,000,000 concept vectors"):
        rscount.task_from_function(lambda **v: 0, ",".join(f"d{i}=0..9" for i in range(9)))


def test_vectorized_function_gives_the_same_task():
    a = rscount.task_from_function(lambda x, y: (x + y, x * y), "x=0..3,y=0..3", vectorized=True)
    b = rscount.task_from_function(lambda x, y: (x + y, x * y), "x=0..3,y=0..3")
    _same_counts(a, b, classes=("complete", "disentangled"))


def test_tables_missing_or_doubling_a_vector_are_refused(tmp_path):
    frame = pd.DataFrame([(a, b, a ^ b) for a in range(2) for b in range(2)], columns=["a", "b", "y"])
    with pytest.raises(TaskError, match=r"\(a=1, b=1\) has no row"):
        rscount.task_from_table(frame.iloc[:3])
    with pytest.raises(TaskError, match=r"\(a=0, b=0\) has two rows"):
        rscount.task_from_table(pd.concat([frame, frame.iloc[:1]]))
    (tmp_path / "header.csv").write_text("a,b,y\n")  # a header alone: was a ValueError from a reshape
    for empty in (frame.iloc[:0], tmp_path / "header.csv"):
        with pytest.raises(TaskError, match=r"has no rows; give one row per concept vector"):
            rscount.task_from_table(empty)
    path = tmp_path / "xor.csv"
    frame.to_csv(path, index=False)
    assert rscount.count(rscount.task_from_table(path)).count == rscount.count("xor2").count
    frame.to_parquet(tmp_path / "xor.parquet")
    assert rscount.count(rscount.task_from_table(tmp_path / "xor.parquet")).count == rscount.count("xor2").count


def test_the_command_line_reads_programs_and_tables(tmp_path, capsys):
    from rscount.cli import main
    (tmp_path / "add.pl").write_text(ADDITION)
    assert main(["--problog", str(tmp_path / "add.pl"), "--query", "addition(a, b, Z)", "--json"]) == 0
    import json
    assert json.loads(capsys.readouterr().out)["count"] == rscount.count("mnadd").count
    assert main(["audit", "--problog", str(tmp_path / "add.pl"), "--query", "addition(a, b, Z)"]) == 0
    capsys.readouterr()
    assert main(["--problog", str(tmp_path / "add.pl")]) == 2
    assert "needs --query" in capsys.readouterr().err


def test_problog_concepts_print_back_as_the_program_writes_them(capsys):
    pytest.importorskip("problog")
    from rscount.cli import main
    program = str(EXAMPLES / "deepproblog-addition.pl")
    assert main(["audit", "--problog", program, "--query", "addition(a, b, Z)", "--map-class", "shared"]) == 0
    out = capsys.readouterr().out
    assert "identifiable  digit(a), digit(b)" in out and "digit_a" not in out
    assert main(["--problog", program, "--query", "addition(a, b, Z)", "--supervise", "digit(a)=3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["concept_names"] == {"digit_a": "digit(a)", "digit_b": "digit(b)"}
    assert data["supervision"] == "digit_a=3"
