"""The sympy front-end: expressions in, knowledge out, and back; every construct against evaluation by hand."""
import itertools

import numpy as np
import pytest

import rscount
from rscount.errors import KnowledgeError

sp = pytest.importorskip("sympy")


SMALL = {"raven": dict(candidates=2, attributes="size")}  # sympy grows RAVEN's argmax chain of Max terms for minutes


def _names():
    out = []
    for name in rscount.task_names():
        try:
            rscount.get_task(name)
            out.append(name)
        except rscount.RscountError:  # a family that needs a file
            continue
    return out


@pytest.mark.parametrize("name", _names())
def test_every_library_task_round_trips_through_sympy(name):
    task = rscount.get_task(name, **SMALL.get(name, {}))
    exprs = dict(zip([label.name for label in task.labels], task.to_sympy()))
    back = rscount.task_from_sympy(exprs, concepts={c.name: list(c.domain) for c in task.concepts})
    rng = np.random.default_rng(0)
    vectors = np.stack([rng.integers(0, s, size=500) for s in task.sizes], axis=1)
    assert (back.evaluate(vectors) == task.evaluate(vectors)).all()


a, b, c = sp.symbols("a b c")
x, y = sp.symbols("x y")
CASES = [
    (sp.And(a, b), lambda a, b, c, x, y: a and b),
    (sp.Or(a, sp.Not(b)), lambda a, b, c, x, y: a or not b),
    (sp.Xor(a, b, c), lambda a, b, c, x, y: (a + b + c) % 2 == 1),
    (sp.Implies(a, b), lambda a, b, c, x, y: (not a) or b),
    (sp.Equivalent(a, c), lambda a, b, c, x, y: a == c),
    (sp.ITE(a, b, c), lambda a, b, c, x, y: b if a else c),
    (sp.Eq(x + y, 3), lambda a, b, c, x, y: x + y == 3),
    (sp.Ne(x, y), lambda a, b, c, x, y: x != y),
    (x < y, lambda a, b, c, x, y: x < y),
    (x <= 2, lambda a, b, c, x, y: x <= 2),
    (sp.Gt(2 * x, y + 1), lambda a, b, c, x, y: 2 * x > y + 1),
    (sp.Ge(x * y, 2), lambda a, b, c, x, y: x * y >= 2),
    (sp.Mod(x + y, 3), lambda a, b, c, x, y: (x + y) % 3),
    (x ** 2 - y, lambda a, b, c, x, y: x ** 2 - y),
    (sp.Min(x, y) + sp.Max(x, 1), lambda a, b, c, x, y: min(x, y) + max(x, 1)),
    (sp.Piecewise((x, a), (y, True)), lambda a, b, c, x, y: x if a else y),
    (sp.Abs(x - y), lambda a, b, c, x, y: abs(x - y)),
    (sp.And(a, sp.Eq(x, y)), lambda a, b, c, x, y: a and x == y),
]


@pytest.mark.parametrize("expr, want", CASES, ids=[str(e) for e, _ in CASES])
def test_each_construct_means_what_sympy_means(expr, want):
    task = rscount.task_from_sympy(expr, concepts="a,b,c,x=0..3,y=0..3")
    for vec in itertools.product(range(2), range(2), range(2), range(4), range(4)):
        got = task.label_of(vec)[0]
        assert got == int(want(*vec)), (expr, vec)
        assert expr.subs(dict(zip((a, b, c, x, y), vec))) in (sp.Integer(got), sp.true if got else sp.false)


def test_counts_from_sympy_expressions():
    assert rscount.count(sp.Xor(a, b, c)).count == rscount.count("xor3").count == 24
    d1, d2 = sp.symbols("d1 d2")
    assert rscount.count(d1 + d2, concepts="d1=0..9,d2=0..9").count == rscount.count("mnadd").count
    r = rscount.count([sp.Eq(2 * d1 + d2, 6), d1 > d2], concepts={"d1": range(5), "d2": range(5)})
    assert r.count == rscount.count(rscount.task_from_text(["Eq(2*d1 + d2, 6)", "d1 > d2"], "d1=0..4,d2=0..4")).count


def test_named_values_are_symbols_in_the_domain():
    col, shape = sp.symbols("col shape")
    red = sp.Symbol("red")
    task = rscount.task_from_sympy(sp.Eq(col, red), concepts="col={red,blue},shape={square,circle}")
    assert task.label_of((0, 1)) == (1,) and task.label_of((1, 0)) == (0,)
    assert task.to_sympy()[0] == sp.Eq(col, red)


@pytest.mark.parametrize("expr, words", [
    (sp.sin(a), "sympy's sin"),
    (x / y, "integer exponent"),
    (sp.Rational(1, 2) + x, "not an integer"),
    (sp.Piecewise((x, a), (y, b)), "otherwise"),
    ("a ^ b", "is text"),
])
def test_what_cannot_be_counted_is_named(expr, words):
    with pytest.raises(KnowledgeError, match=words):
        rscount.task_from_sympy(expr, concepts="a,b,x=0..3,y=1..3")


def test_text_is_never_sympified(monkeypatch):
    """Knowledge text never reaches sympy's parser: sympify and parse_expr fail loudly if called."""
    import sympy.parsing.sympy_parser as parser

    def boom(*args, **kwargs):
        raise AssertionError("user text reached sympy's parser")
    monkeypatch.setattr(sp, "sympify", boom)
    monkeypatch.setattr(parser, "parse_expr", boom)
    assert rscount.count(rscount.task_from_text("a ^ b ^ c")).count == 24
    assert rscount.count(sp.Xor(a, b, c)).count == 24
