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
from rscount.config import load_config, task_from_config
from rscount.dimacs import parse_dimacs, read_dimacs
from rscount.errors import RscountError
from rscount.spec import load_spec, parse_concepts, task_from_spec

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


@pytest.mark.slow
def test_many_examples_in_the_slow_tier():
    """Run this module again with RSCOUNT_FUZZ=many (5000 examples per reader)."""
    import subprocess
    import sys
    env = dict(os.environ, RSCOUNT_FUZZ="many")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", __file__, "-m", "not slow"],
                          env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:]
