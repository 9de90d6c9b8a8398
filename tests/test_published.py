"""Published counts (rsbench Section 3.4, class complete) on every exact backend."""
import itertools

import pytest

import rscount

EXACT = ["ganak", "sdd", "enumerate", "bruteforce"]


@pytest.mark.parametrize("backend", EXACT)
@pytest.mark.parametrize("task, expected", [("xor3", 24), ("and3", 6)])
def test_exhaustive(task, expected, backend):
    result = rscount.count(task, backend=backend)
    assert (result.count, result.rs_count, result.exact) == (expected, expected - 1, True)


@pytest.mark.parametrize("backend", ["ganak", "enumerate", "bruteforce"])
@pytest.mark.parametrize("example", ["".join(map(str, v)) for v in itertools.product((0, 1), repeat=3)])
def test_one_example(example, backend):
    support = ",".join(example)
    assert rscount.count("xor3", support=support, backend=backend).count == 192
    assert rscount.count("and3", support=support, backend=backend).count == (48 if example == "111" else 336)


def test_complete_equals_permutation_on_library_tasks():
    for task in ("xor3", "and3", "or3"):
        assert rscount.count(task, map_class="complete").count == rscount.count(task, map_class="permutation").count


def test_closed_forms():
    # xor3: two label classes of 4 vectors: 4^4 * 4^4; disentangled: 2 negations x parity; shared: identity
    assert rscount.count("xor3", map_class="joint").count == 4 ** 4 * 4 ** 4
    assert rscount.count("xor3", map_class="disentangled").count == 4
    assert rscount.count("xor3", map_class="shared").count == 1
    # xorN: N! * 2^(N-1) under complete
    assert rscount.count("xor4").count == 24 * 8


def test_full_concept_supervision_removes_shortcuts():
    assert rscount.count("xor3", concept_sup=8).count == 1
    assert rscount.count("xor3", concept_sup=1.0).count == 1


def test_maps_are_readable_and_include_identity():
    result = rscount.count("xor3")
    maps = [str(m) for m in result.maps(None)]
    assert len(maps) == 24 and len(set(maps)) == 24
    assert "identity" in maps
    assert "c1 <- c2 | c2 <- c1" in maps
    assert "c1: 0->1, 1->0 | c2: 0->1, 1->0" in maps
    assert len(list(result.maps(5))) == 5
