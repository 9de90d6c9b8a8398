"""DIMACS: emitted encodings counted by an independent projected counter, and bad files."""

import pytest
from randomtasks import random_problem

import rscount
from rscount.cli import main
from rscount.readers.dimacs import parse_dimacs
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
    assert rscount.count(rscount.readers.dimacs.task_from_cnf(rscount.readers.dimacs.read_dimacs(path))).count == 24


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


LIBRARY = ["xor3", "and3", "or3", "mnlogic-random", "mnadd", "mnadd-evenodd", "mnadd-half", "mnmath", "mnmath-b1",
           "kand-logic", "cle4evr", "sdd-oia", "sdd-oia-ambulance", "bdd-oia"]


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in ("kand-logic", "mnadd-evenodd")
                                  else n for n in LIBRARY])
def test_exported_knowledge_reads_back_as_the_task(name):
    """dimacs/NAME.cnf fed to --cnf is the library task again: same concepts, same labels on every vector tried,
    same count on the task's own support."""
    from pathlib import Path

    import numpy as np
    task = rscount.get_task(name)
    folder = Path(__file__).resolve().parent.parent / "dimacs"
    back = rscount.readers.dimacs.task_from_cnf(rscount.readers.dimacs.read_dimacs(folder / f"{name}.cnf"))
    assert [(c.name, c.domain) for c in back.concepts] == [(c.name, c.domain) for c in task.concepts]
    rng = np.random.default_rng(0)
    vectors = np.stack([rng.integers(0, s, size=2000) for s in task.sizes], axis=1)
    assert (back.evaluate(vectors) == task.evaluate(vectors)).all()
    problem = rscount.make_problem(task)
    rows = "exhaustive" if problem.support.exhaustive else [
        [c.domain[u] for c, u in zip(task.concepts, row)] for row in problem.support.vectors.tolist()]
    again = rscount.make_problem(back, support=rows)
    assert rscount.count_problem(again, timeout=120).count == rscount.count_problem(problem, timeout=120).count


def test_cli_counts_the_exported_xor3_as_xor3(capsys):
    from pathlib import Path
    path = Path(__file__).resolve().parent.parent / "dimacs" / "xor3.cnf"
    assert main(["--cnf", str(path), "--json"]) == 0
    import json
    assert json.loads(capsys.readouterr().out)["count"] == 24


@pytest.mark.parametrize("text, words", [
    ("c var 1 concept a=0\nc var 2 concept a=1\nc var 3 label y=1\np cnf 4 1\n3 4 0\n", "not defined by its clauses"),
    ("c var 1 concept a=0\nc var 2 concept a=1\nc var 3 label y=0\nc var 4 label y=1\np cnf 4 2\n1 2 0\n3 0\n",
     "label 'y' no value|not defined|not deterministic"),
    ("c var 1 concept a=0\nc var 2 concept a=1\nc var 3 label y=0\nc var 4 label y=1\np cnf 4 4\n"
     "-3 1 0\n3 -1 0\n-4 1 0\n4 -1 0\n", "not deterministic|no value"),
    ("c var 1 concept a=0\nc var 2 concept a=1\nc var 3 label y=1\np cnf 3 3\n-3 1 0\n3 -1 0\n1 0\n",
     "contradictory"),
    ("c var 1 concept a\np cnf 1 0\n", "not .concept NAME=VALUE."),
])
def test_named_files_that_are_not_tseitin_knowledge_are_refused(tmp_path, text, words):
    from rscount.errors import RscountError
    path = tmp_path / "k.cnf"
    path.write_text(text)
    with pytest.raises(RscountError, match=words):
        rscount.readers.dimacs.task_from_cnf(rscount.readers.dimacs.read_dimacs(path))


def test_shown_variables_are_concepts_and_gates_are_quantified(tmp_path):
    """x1 xor x2 xor x3 written with a Tseitin gate g = x1 xor x2 (hidden): the shown variables are the concepts."""
    path = tmp_path / "xor.cnf"
    path.write_text("c p show 1 2 3 0\np cnf 4 6\n-4 1 2 0\n-4 -1 -2 0\n4 -1 2 0\n4 1 -2 0\n4 3 0\n-4 -3 0\n")
    task = rscount.readers.dimacs.task_from_cnf(rscount.readers.dimacs.read_dimacs(path))
    assert [c.name for c in task.concepts] == ["x1", "x2", "x3"]
    assert rscount.count(task).count == rscount.count("xor3").count == 24
    path.write_text("c p show 1 2 0\np cnf 3 1\n1 2 3 0\n")  # 3 is hidden and no gate: cannot be quantified
    with pytest.raises(DimacsError, match="cannot be quantified away"):
        rscount.readers.dimacs.task_from_cnf(rscount.readers.dimacs.read_dimacs(path))
