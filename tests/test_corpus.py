"""Every case of tests/corpus/cli.txt, run as a user runs the command line: exit status, one line, no traceback,
nothing left behind."""
from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from rscount.cli import main

CORPUS = Path(__file__).parent / "corpus" / "cli.txt"


def _cases() -> list:
    out = []
    for n, line in enumerate(CORPUS.read_text().splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        head, fragment, args = (part.strip() for part in line.split(" | ", 2))
        words = head.split()
        marks = [pytest.mark.slow] if "slow" in words else []
        out.append(pytest.param(int(words[-1]), fragment, args, "proc" in words, id=f"line{n}", marks=marks))
    return out


def _files(tmp: Path) -> None:
    """The inputs the corpus names under {tmp}."""
    (tmp / "out").mkdir()
    (tmp / "bad.cnf").write_text("p cnf 2 1\n1 5 0\n")
    (tmp / "no-header.cnf").write_text("1 2 0\n")
    (tmp / "binary.csv").write_bytes(bytes(range(256)) * 4)
    (tmp / "empty.csv").write_text("")
    (tmp / "good.csv").write_text("1,1,1\n")
    (tmp / "contradictory.yaml").write_text(
        "concepts: {a: bool, b: bool}\nrelation:\n  labels: {y: bool}\n  constraints: ['y >> a', 'y']\n")
    (tmp / "nondeterministic.yaml").write_text(
        "concepts: {a: bool, b: bool}\nrelation:\n  labels: {y: bool}\n  constraints: ['y >> (a | b)']\n")
    (tmp / "python-tag.yaml").write_text("concepts: !!python/object/apply:os.system ['true']\nlabels: [a]\n")
    (tmp / "bad-field.yml").write_text("n_digits: 2\nnot_a_field: 3\n")
    (tmp / "xor3000.yaml").write_text(
        "name: xor3000\nconcepts: [" + ", ".join(f"x{i}" for i in range(3000)) + "]\n"
        "labels: ['" + " ^ ".join(f"x{i}" for i in range(3000)) + "']\n")
    (tmp / "two-show.cnf").write_text("p cnf 3 1\nc p show 1 0\nc p show 2 3 0\n1 2 3 0\n")
    (tmp / "superscript.cnf").write_text("p cnf 2 1\n1 \u00b22 0\n")
    (tmp / "huge-header.cnf").write_text("p cnf 2147483648 1\n1 0\n")
    (tmp / "many-vars.cnf").write_text("p cnf 5000000 0\n")
    (tmp / "dup-concept.yaml").write_text("concepts: {a: bool, a: 0..3}\nlabels: [a]\n")
    (tmp / "dup-labels.yaml").write_text("concepts: {a: bool, b: bool}\nlabels: [a]\nlabels: [b]\n")
    (tmp / "dup.json").write_text('{"concepts": {"a": "bool", "a": "0..3"}, "labels": ["a"]}')
    (tmp / "def-clash.yaml").write_text("concepts: {a: bool, b: bool, c: bool}\ndefinitions: {a: 'b & c'}\n"
                                        "labels: [a]\n")
    (tmp / "kand-clash.yml").write_text("n_figures: 2\nn_shapes: 1\nlogic: 'shape_1 == square'\n"
                                        "aggregator_symbols: [shape_1_f1, p2]\n")
    (tmp / "newline-name.yaml").write_text('concepts: {"a\\n": bool}\nlabels: [a]\n')
    levels = ["a: &a [" + ", ".join(['"lol"'] * 9) + "]"]
    for prev, name in zip("abcdefgh", "bcdefghi"):
        levels.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 9) + "]")
    (tmp / "bomb.yaml").write_text("\n".join(levels) + "\nconcepts: *i\nlabels: [a]\n")
    (tmp / "recursive.yaml").write_text("a: &a [*a]\n")
    (tmp / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    (tmp / "deep.yaml").write_text("concepts: " + "[" * 100_000 + "]" * 100_000 + "\n")
    (tmp / "range-int.yaml").write_text("concepts: {a: {range: 3}}\nlabels: [a]\n")
    (tmp / "range-three.yaml").write_text("concepts: {a: {range: [1, 2, 3]}}\nlabels: [a]\n")
    (tmp / "unclosed.yml").write_text("n_digits: 2\nxor_rule: false\nsymbols: [a, b]\nlogic: '(a & b'\n")
    (tmp / "xor45.yml").write_text("n_digits: 45\nxor_rule: true\n")
    (tmp / "wide-relation.yaml").write_text("concepts: {a: bool}\nrelation:\n  labels: {y: 0..255, z: 0..255}\n"
                                            "  constraints: ['y == a', 'z == a']\n")
    (tmp / "relation-clash.yaml").write_text("concepts: {a: bool}\nrelation:\n  labels: {a: bool}\n"
                                             "  constraints: [a]\n")
    (tmp / "long-number.cnf").write_text("p cnf 2 1\n1 2" + "0" * 30 + " 0\n")
    (tmp / "dom-a.yaml").write_text("name: ta\nconcepts: {a: bool, b: bool}\nlabels: [a & b]\n")
    (tmp / "dom-b.yaml").write_text("name: tb\nconcepts: {a: 0..2}\nlabels: ['a == 1']\n")
    (tmp / "mixed200.yaml").write_text(
        "name: mixed\nconcepts: [" + ", ".join(f"x{i}" for i in range(200)) + "]\n"
        "labels: ['" + " ^ ".join(f"(x{i} & x{i + 1})" if i % 2 == 0 else f"x{i}" for i in range(200)) + "']\n")
    # trust, second pass: DIMACS edges, several tasks, rules, sweep outputs rscount did not write
    (tmp / "var-twice.cnf").write_text("c var 1 concept a=1\nc var 1 concept b=1\nc var 2 label y=1\np cnf 2 1\n1 2 0\n")
    (tmp / "ind.cnf").write_text("c ind 1 2 3 0\np cnf 3 1\n1 2 3 0\n")
    (tmp / "satlib.cnf").write_text("p cnf 3 1\n1 2 3 0\n%\n0\n\n")
    (tmp / "bom.cnf").write_bytes(b"\xef\xbb\xbfp cnf 2 1\n1 2 0\n")
    (tmp / "var-beyond.cnf").write_text("c var 7 concept a=1\np cnf 2 1\n1 2 0\n")
    (tmp / "wide.cnf").write_text("p cnf 100000 1\n1 0\n")
    (tmp / "t1.json").write_text('{"name": "t1", "concepts": {"a": "bool", "b": "bool"}, "labels": ["a | b"], '
                                 '"support": [[0, 0], [0, 1]]}')
    (tmp / "c1.json").write_text('{"name": "c1", "concepts": {"a": "bool", "b": "bool"}, "labels": ["b"], '
                                 '"support": [[1, 0]]}')
    (tmp / "objects01.yaml").write_text("name: o\nconcepts: {shape01: bool, shape1: bool}\nlabels: [shape01]\n")
    (tmp / "concon-float.yaml").write_text("tasks:\n  - {task: concon-t1, params: {objects: 2.9}}\n")
    (tmp / "nested.yaml").write_text("tasks:\n  - tasks: [{name: x, concepts: [a], labels: [a]}]\n")
    (tmp / "minus.yaml").write_text("name: minus\nconcepts: [" + ", ".join(f"x{i}" for i in range(3000)) + "]\n"
                                    "labels: ['" + " - ".join(f"x{i}" for i in range(3000)) + " > 3']\n")
    (tmp / "grid.yaml").write_text("tasks: [xor3]\n")
    (tmp / "grid-nan.yaml").write_text("tasks: [xor3]\nsubsample: .nan\n")
    (tmp / "grid-seed.yaml").write_text("tasks: [xor3]\njob: train\ntrain_seeds: [9223372036854775800]\n")
    (tmp / "binary.jsonl").write_bytes(bytes(range(128, 256)))
    (tmp / "array.jsonl").write_text("[1, 2]\n")
    (tmp / "foreign.csv").write_text("a,b\n1,2\n")
    (tmp / "ragged.csv").write_text('key,"a\n1')


@pytest.mark.parametrize("status, fragment, args, child", _cases())
def test_cli_case(status, fragment, args, child, tmp_path, capsys):
    _files(tmp_path)
    before = sorted(tmp_path.rglob("*"))
    argv = shlex.split(args.replace("{tmp}", str(tmp_path)).replace("{out}", str(tmp_path / "out")))
    if child:
        proc = subprocess.run([sys.executable, "-m", "rscount.cli", *argv], capture_output=True, text=True,
                              timeout=300)
        code, out, err = proc.returncode, proc.stdout, proc.stderr
    else:
        code = main(argv)
        captured = capsys.readouterr()
        out, err = captured.out, captured.err
    assert code == status, (args, err[-2000:])
    assert "Traceback" not in err, err
    if status == 0:
        assert fragment in out, out[-2000:]
    else:
        assert fragment in err and err.count("\n") == 1 and err.startswith("countrss"), err
    assert sorted(tmp_path.rglob("*")) == before  # no partial output, no temporary file
