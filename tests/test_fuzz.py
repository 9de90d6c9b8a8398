"""Every reader of user input either parses or raises the library's own error: nothing else escapes, nothing
runs. A few hundred examples each in the default tier; the slow tier runs many more."""
from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rscount
from rscount.config import task_from_config
from rscount.dimacs import parse_dimacs
from rscount.errors import RscountError
from rscount.spec import parse_concepts, task_from_spec

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


@pytest.mark.slow
def test_many_examples_in_the_slow_tier():
    """Run this module again with RSCOUNT_FUZZ=many (5000 examples per reader)."""
    import subprocess
    import sys
    env = dict(os.environ, RSCOUNT_FUZZ="many")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", __file__, "-m", "not slow"],
                          env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:]
