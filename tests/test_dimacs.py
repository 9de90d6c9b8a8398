"""DIMACS: emitted encodings counted by an independent projected counter, and bad files."""

import pytest
from randomtasks import random_problem

import rscount
from rscount.cli import main
from rscount.dimacs import parse_dimacs
from rscount.errors import DimacsError


def independent_projected_count(text: str) -> int:
    """Parse DIMACS by hand and count models projected on 'c p show' with SAT blocking clauses."""
    from pysat.solvers import Solver
    show, clauses, cur = None, [], []
    for line in text.splitlines():
        if line.startswith("c p show"):
            show = [int(x) for x in line.split()[3:] if x != "0"]
        elif line.startswith("c") or line.startswith("p") or not line.strip():
            continue
        else:
            for x in map(int, line.split()):
                if x == 0:
                    clauses.append(cur)
                    cur = []
                else:
                    cur.append(x)
    n = 0
    with Solver(name="minisat22", bootstrap_with=clauses) as s:
        while s.solve():
            model = set(s.get_model())
            s.add_clause([-v if v in model else v for v in show])
            n += 1
    return n


@pytest.mark.parametrize("seed", range(30))
def test_emitted_dimacs_counts_the_same(tmp_path, seed):
    for map_class in ("free", "complete", "disentangled", "shared"):
        problem = random_problem(seed, map_class)
        path = tmp_path / f"{map_class}.cnf"
        from rscount.cli import _emit
        _emit(problem, str(path))
        text = path.read_text()
        assert "c p show" in text and "c var 1 " in text
        assert independent_projected_count(text) == rscount.count_problem(problem, "bruteforce").count


def test_cli_emit_dimacs_xor3(tmp_path):
    path = tmp_path / "xor3.cnf"
    assert main(["--task", "xor3", "--emit-dimacs", str(path), "--json"]) == 0
    text = path.read_text()
    assert independent_projected_count(text) == 24
    cnf = parse_dimacs(text)
    assert len(cnf.show) == 36 and all(v in cnf.names for v in cnf.show)


def test_cnf_input_is_the_cnf_task(tmp_path):
    path = tmp_path / "xor.cnf"
    path.write_text("c x1 xor x2 xor x3\np cnf 3 4\n1 2 3 0\n1 -2 -3 0\n-1 2 -3 0\n-1 -2 3 0\n")
    assert rscount.count(rscount.dimacs.task_from_cnf(rscount.dimacs.read_dimacs(path))).count == 24


@pytest.mark.parametrize("text, words", [
    ("1 2 0\n", "clause before the 'p cnf' header"),
    ("c only a comment\n", "no 'p cnf"),
    ("p cnf 2 1\n1 3 0\n", "exceeds"),
    ("p cnf 2 2\n1 2 0\n", "declares 2 clauses"),
    ("p cnf x 1\n1 0\n", "not an integer"),
    ("p dnf 2 1\n1 0\n", "header must be"),
    ("p cnf 2 1\n1 a 0\n", "not an integer"),
])
def test_malformed_dimacs(text, words):
    with pytest.raises(DimacsError, match=words):
        parse_dimacs(text)
