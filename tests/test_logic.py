"""Knowledge language: safe parsing, typing, and compiled circuits that agree with evaluation."""
import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rscount
from rscount.language.circuit import FALSE, TRUE
from rscount.errors import KnowledgeError
from rscount.language.logic import Const, Op, Var, free_names, parse
from rscount.readers.spec import task_from_spec
from rscount.model.support import exhaustive

NAMES = {"a", "b", "c", "d", "e"}


@pytest.mark.parametrize("text, expected", [
    ("a & b", Op("and", (Var("a"), Var("b")))),
    ("And(a, b)", Op("and", (Var("a"), Var("b")))),
    ("~a", Op("not", (Var("a"),))),
    ("a >> b", Op("implies", (Var("a"), Var("b")))),
    ("a + 2 * b", Op("add", (Var("a"), Op("mul", (Const(2), Var("b")))))),
    ("a < b <= c", Op("and", (Op("lt", (Var("a"), Var("b"))), Op("le", (Var("b"), Var("c")))))),
    ("True", Const(1)),
    ("-3", Const(-3)),
])
def test_parse(text, expected):
    assert parse(text, NAMES) == expected


@pytest.mark.parametrize("text, words", [
    ("__import__('os').system('true')", "only named functions"),
    ("a.b", "unsupported syntax"),
    ("[a, b]", "unsupported syntax"),
    ("lambda: 1", "unsupported syntax"),
    ("a if b else c", "unsupported syntax"),
    ("f(a)", "unknown function 'f'"),
    ("a & zz", "unknown symbol 'zz'"),
    ("And(a, b=1)", "keyword"),
    ("Not(a, b)", "takes 1 arguments"),
    ("a @ b", "unsupported operator"),
    ("'hello'", "unknown named value"),
    ("1.5", "unsupported constant"),
    ("", "empty"),
    ("a &", "syntax error"),
])
def test_rejects(text, words):
    with pytest.raises(KnowledgeError, match=words):
        parse(text, NAMES)


def test_never_evaluates(monkeypatch):
    import builtins
    monkeypatch.setattr(builtins, "eval", lambda *a: pytest.fail("eval called"))
    monkeypatch.setattr(builtins, "exec", lambda *a: pytest.fail("exec called"))
    task = task_from_spec({"concepts": {"a": "bool", "d": "0..3"}, "labels": ["ITE(a, d + 1, d * 2) % 3"]})
    assert task.label_of((1, 2)) == (0,)


@pytest.mark.parametrize("text, words", [
    ("d & a", "truth value"),
    ("col + 1", "named value, not a number"),
    ("col == 1", "compares a named value with a number"),
    ("d // (d - d)", "division by zero"),
])
def test_type_errors(text, words):
    with pytest.raises(KnowledgeError, match=words):
        task_from_spec({"concepts": {"a": "bool", "d": "0..3", "col": ["red", "blue"]}, "labels": [text]})


def test_free_names():
    assert free_names("Xor(c10, c2) & ~c1 | True") == ["c1", "c2", "c10"]


def _check_circuit(task):
    """Every concept vector: the compiled label literal of beta_K(g) is true, others false."""
    from pysat.solvers import Solver
    kc = task.compiled
    grid = exhaustive(task).vectors
    labels = task.evaluate(grid)
    with Solver(name="minisat22", bootstrap_with=kc.circuit.clauses) as s:
        for g, y in zip(grid, labels):
            assumptions = [kc.inputs[(i, u)] if u == g[i] else -kc.inputs[(i, u)]
                           for i in range(task.k) for u in range(task.sizes[i])]
            assert s.solve(assumptions=assumptions)
            model = set(s.get_model())
            for tab, code in zip(kc.tables, y):
                for value, lit in tab.items():
                    holds = lit == TRUE or (lit != FALSE and (lit in model if lit > 0 else -lit not in model))
                    assert holds == (value == task.decode(code)), (value, task.decode(code))


_leaf = st.sampled_from(["a", "b", "d", "e", "0", "1", "2"])
_ops = ["+", "-", "*", "==", "!=", "<", ">=", "&", "|", "^"]


def _exprs():
    return st.recursive(_leaf, lambda sub: st.one_of(
        st.tuples(sub, st.sampled_from(_ops), sub).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(sub, sub, sub).map(lambda t: f"ITE({t[0]} > 0, {t[1]}, {t[2]})"),
        st.tuples(sub, sub).map(lambda t: f"Max({t[0]}, {t[1]})"),
        sub.map(lambda t: f"Abs({t})"),
        sub.map(lambda t: f"(({t}) % 3)"),
    ), max_leaves=6)


@settings(max_examples=150, deadline=None)
@given(_exprs())
def test_compiled_circuit_agrees_with_evaluation(text):
    spec = {"concepts": {"a": "bool", "b": "bool", "d": "0..2", "e": "-1..1"}, "labels": [text]}
    try:
        task = task_from_spec(spec)
    except KnowledgeError as exc:  # ill-typed random text (e.g. a sum used as a truth value)
        assert "truth value" in str(exc) or "division" in str(exc)
        return
    _check_circuit(task)


def test_named_values_and_multilabel():
    task = task_from_spec({"concepts": {"s1": ["square", "circle"], "s2": ["square", "circle"], "a": "bool"},
                           "labels": {"same": "s1 == s2", "pick": "ITE(a, s1, s2)"}})
    _check_circuit(task)
    assert task.label_of((0, 1, 1)) == (0, "square")


def test_relation_becomes_function():
    task = task_from_spec({"concepts": {"a": "bool", "b": "bool"},
                           "relation": {"labels": {"y": "0..2"}, "constraints": ["y == a + b"]}})
    assert [task.label_of(v)[0] for v in itertools.product((0, 1), repeat=2)] == [0, 1, 1, 2]
    assert rscount.count(task).count == rscount.count(rscount.task_from_text("a + b", "a,b")).count
