"""Every reader of user input either parses or raises the library's own error: nothing else escapes, nothing
runs. A few hundred examples each in the default tier; the slow tier runs many more."""
from __future__ import annotations

import json
import os
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rscount
from rscount.readers.rsbench import load_config, task_from_config
from rscount.readers.dimacs import parse_dimacs, read_dimacs
from rscount.errors import RscountError
from rscount.readers.spec import load_spec, parse_concepts, task_from_spec

SLOW = os.environ.get("RSCOUNT_FUZZ") == "many"
EXAMPLES = 5000 if SLOW else 200
# derandomized: CI sees the same examples every run (a random search is for a person hunting bugs: RSCOUNT_FUZZ_RANDOM=1)
fuzz = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow],
                derandomize=not os.environ.get("RSCOUNT_FUZZ_RANDOM"), database=None)

ALPHABET = "abcxy01239 ^&|~()+-*%=<>!,.[]{}_:'\"\\#;\n\t" + "Xor" + "ITE"
TOKENS = st.sampled_from(["a", "b", "c", "d1", "1", "0", "2", "^", "&", "|", "~", "(", ")", "+", "-", "*", "%",
                          "==", "!=", "<", ">=", ",", "Xor(", "ITE(", "Max(", "Implies(", "**", "//", ">>",
                          "lambda", "__import__", "open(", ".", "[", "]", "'x'", " "])


def _only_ours(fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except RscountError:
        pass


@fuzz
@given(st.one_of(st.text(ALPHABET, max_size=60), st.lists(TOKENS, max_size=25).map("".join)))
def test_knowledge_text(text):
    _only_ours(rscount.task_from_text, [text], "a,b,c,d1=0..3")


@fuzz
@given(st.text("abd1=0.,;{}[]-xyz rdebool", max_size=50))
def test_concept_declarations(text):
    _only_ours(parse_concepts, text)


@fuzz
@given(st.text("0123,;. -x\n\t[]", max_size=60))
def test_support_strings(text):
    _only_ours(rscount.make_problem, "xor3", support=text)


@fuzz
@given(st.text("pcnf 0123-\nc%x\t", max_size=80))
def test_dimacs(text):
    _only_ours(parse_dimacs, text)


SPEC_VALUES = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(-3, 12), st.text("abc01.^&| ", max_size=8)),
                           lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                   st.dictionaries(st.text("abcd", min_size=1, max_size=3), inner,
                                                                   max_size=3)), max_leaves=12)


@fuzz
@given(st.dictionaries(st.sampled_from(["name", "concepts", "labels", "groups", "support", "definitions",
                                        "description"]), SPEC_VALUES, max_size=6))
def test_spec_mappings(spec):
    _only_ours(task_from_spec, spec)


@fuzz
@given(st.dictionaries(st.sampled_from(["task", "symbols", "logic", "combinations_in_distribution", "digit_values",
                                        "n_digits", "num_digits", "colors", "shapes", "n_shapes", "n_figures",
                                        "aggregator_logic", "aggregator_symbols", "xor_rule"]),
                       SPEC_VALUES, max_size=6))
def test_generator_configs(cfg):
    _only_ours(task_from_config, cfg)


def _file(suffix: str, data: bytes) -> str:
    fd, path = tempfile.mkstemp(suffix=suffix)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    return path


def _read_file(read, suffix: str, data: bytes) -> None:
    path = _file(suffix, data)
    try:
        _only_ours(read, path)
    finally:
        os.unlink(path)


CSV_TEXT = st.text("01234,;x1 c23\n\t\r\"-", max_size=80)
JSON_TEXT = st.one_of(st.text("[]{}0123,\" :-.nulltruefalse\n", max_size=60),
                      st.recursive(st.one_of(st.integers(-2, 3), st.text("01a", max_size=2), st.none()),
                                   lambda inner: st.lists(inner, max_size=4), max_leaves=10).map(json.dumps))


@fuzz
@given(st.one_of(CSV_TEXT.map(str.encode), st.binary(max_size=80)), st.sampled_from([".csv", ".txt"]))
def test_support_files_csv(data, suffix):
    _read_file(lambda path: rscount.make_problem("xor3", support_file=path), suffix, data)


@fuzz
@given(JSON_TEXT.map(str.encode))
def test_support_files_json(data):
    _read_file(lambda path: rscount.make_problem("xor3", support_file=path), ".json", data)


@fuzz
@given(st.one_of(st.text("pcnf 0123-\nc%x\tshow", max_size=80).map(str.encode), st.binary(max_size=60)))
def test_dimacs_files(data):
    _read_file(read_dimacs, ".cnf", data)


YAML_TEXT = st.text("abc01:- []{}\n'\"!&|^#,name:concepts:labels:bool", max_size=100)


@fuzz
@given(st.one_of(YAML_TEXT.map(str.encode), st.binary(max_size=60)))
def test_spec_files(data):
    _read_file(lambda path: task_from_spec(load_spec(path)), ".yaml", data)


@fuzz
@given(st.one_of(YAML_TEXT.map(str.encode), st.binary(max_size=60)))
def test_generator_config_files(data):
    _read_file(load_config, ".yml", data)


@fuzz
@given(st.lists(st.text("abc123=,xyz_ {}", max_size=12), max_size=3), st.sampled_from(["complete", "shared"]))
def test_audit_supervision_items(items, map_class):
    """The audit reads supervision items as the count does; it runs only on what parses."""
    try:
        problem = rscount.make_problem("xor3", supervise=items, map_class=map_class)
    except RscountError:
        return
    _only_ours(rscount.audit, problem, timeout=5)


ALIASED_YAML = st.lists(st.sampled_from([
    "concepts: &c {a: bool, b: bool}\n", "concepts: {a: bool, a: bool}\n", "labels: [a]\n", "labels: *c\n",
    "x: &x [1, 2]\n", "y: &y [*x, *x, *x]\n", "z: [*y, *y, *y, *y]\n", "support: *x\n", "labels: {y: &t a}\n",
    "definitions: {q: *t}\n", "r: &r [*r]\n", "groups: [[a, b]]\n", "support: [[0, 1], *x]\n", "name: n\n",
]), max_size=7).map("".join)


@fuzz
@given(ALIASED_YAML)
def test_spec_files_with_aliases_and_repeated_keys(text):
    _read_file(lambda path: task_from_spec(load_spec(path)), ".yaml", text.encode())


PROJECTED_DIMACS = st.lists(st.sampled_from([
    "p cnf 3 2\n", "p cnf 3 1\n", "c p show 1 0\n", "c p show 2 3 0\n", "c p show 4 0\n", "c p show\n",
    "c var 1 concept a=1\n", "c var 2 label y=1\n", "c var \u00b2 concept b=0\n", "1 2 0\n", "-1 3 0\n",
    "2 -3\n", "0\n", "c p show 1 \u00b2 0\n", "p cnf 99999999999 1\n",
]), max_size=8).map("".join)


@fuzz
@given(PROJECTED_DIMACS)
def test_dimacs_with_projections(text):
    try:
        cnf = parse_dimacs(text)
    except RscountError:
        return
    if cnf.show is not None:
        assert len(set(cnf.show)) == len(cnf.show)  # every show line counts, each variable once
    _only_ours(lambda: rscount.count(rscount.readers.dimacs.task_from_cnf(cnf), timeout=5))


NUMBERS = st.sampled_from(["0", "-1", "1", "0.5", "nan", "inf", "-inf", "1e300", "1e-300", "99999999999999999999",
                           "18446744073709551617", "\u00b2", "", "x", "1_000", "0x10", " 3 ", "2.0"])


@fuzz
@given(st.sampled_from(["--timeout", "--memory-limit", "--subsample", "--concept-sup", "--epsilon", "--delta",
                        "--seed", "--enumerate", "--support"]), NUMBERS)
def test_numeric_options(flag, value):
    """Any value of a numeric option gives a count or one line and exit 2 or 3, never a traceback."""
    import contextlib
    import io

    from rscount.cli import main
    value = f"by-label:{value}" if flag == "--support" else value
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(["--task", "xor3", "--approx" if flag in ("--epsilon", "--delta") else "--exact", flag, value])
        except SystemExit as exc:  # argparse's own type errors
            code = exc.code
    assert code in (0, 2, 3), (flag, value, err.getvalue())
    assert "Traceback" not in err.getvalue()


LIBRARY_ARGS = st.one_of(st.none(), st.integers(-2, 10 ** 20), st.floats(allow_nan=True), st.text("xor3 +d1", max_size=6),
                         st.lists(st.integers(0, 1), max_size=3), st.sets(st.integers(0, 2), max_size=2),
                         st.dictionaries(st.text("ab", max_size=2), st.integers(0, 1), max_size=2))


@fuzz
@given(st.sampled_from(["task", "timeout", "memory_mb", "support", "subsample", "supervise", "concept_sup", "seed",
                        "map_class", "groups", "epsilon", "delta"]), LIBRARY_ARGS)
def test_public_functions_take_or_refuse_any_argument(name, value):
    """count() either counts or raises the library's error or a TypeError saying what it expected."""
    kwargs = {"task": "xor3", name: value} if name != "task" else {"task": value}
    task = kwargs.pop("task")
    try:
        rscount.count(task, timeout=kwargs.pop("timeout", 10), **kwargs)
    except (RscountError, TypeError):
        pass


@pytest.mark.slow
def test_many_examples_in_the_slow_tier():
    """Run this module (and test_trust.py's property tests) again with RSCOUNT_FUZZ=many (5000 examples per
    reader)."""
    import subprocess
    import sys
    env = dict(os.environ, RSCOUNT_FUZZ="many")
    trust = os.path.join(os.path.dirname(__file__), "test_trust.py")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", __file__, trust, "-m",
                           "not slow"],
                          env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:]
