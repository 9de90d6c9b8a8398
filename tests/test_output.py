"""Output paths and bad input that used to slip through: one line, exit 2, no partial file, devices kept."""
from __future__ import annotations

import os
import resource
import stat
import subprocess
import sys
import threading

import pytest

import rscount

from rscount.cli import main
from rscount.errors import OutputError
from rscount.files.writing import write_atomic


def test_emit_dimacs_into_a_folder_is_refused_before_counting(tmp_path, capsys):
    assert main(["--task", "xor3", "--emit-dimacs", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert "is a folder" in captured.err and captured.out == ""


def test_emit_dimacs_into_a_missing_folder(tmp_path, capsys):
    assert main(["--task", "xor3", "--emit-dimacs", str(tmp_path / "no" / "x.cnf")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_a_fifo_is_written_in_place_never_replaced(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()))
    reader.start()
    write_atomic(fifo, "p cnf 1 1\n1 0\n")
    reader.join(5)
    assert got == [b"p cnf 1 1\n1 0\n"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_a_file_size_limit_leaves_no_partial_file(tmp_path):
    """RLIMIT_FSIZE in a child: the write fails with OutputError and nothing is left beside the target."""
    target = tmp_path / "big.cnf"
    code = (
        "import resource, signal, sys\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))\n"
        "from rscount.files.writing import write_atomic\n"
        "from rscount.errors import OutputError\n"
        f"try:\n    write_atomic({str(target)!r}, 'x' * 100000)\n"
        "except OutputError as e:\n    print(e); sys.exit(2)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 2 and "cannot write" in proc.stdout
    assert list(tmp_path.iterdir()) == []
    assert resource.getrlimit(resource.RLIMIT_FSIZE)  # the parent keeps its own limits


def test_write_into_a_missing_folder_raises_output_error(tmp_path):
    with pytest.raises(OutputError, match="does not exist"):
        write_atomic(tmp_path / "no" / "f.txt", "x")


def test_huge_domain_refused_before_allocating(capsys):
    assert main(["--knowledge", "a + b", "--concepts", "a=0..9999999999,b=0..1"]) == 2
    assert "limit 65,536" in capsys.readouterr().err


def test_binary_support_file_names_the_file(tmp_path, capsys):
    path = tmp_path / "s.csv"
    path.write_bytes(bytes(range(256)) * 4)
    assert main(["--task", "xor3", "--support-file", str(path)]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and err.count("\n") == 1


@pytest.mark.slow
def test_a_3000_term_xor_parses_flat():
    import rscount
    from rscount.language.logic import flatten_chains
    text = " ^ ".join(f"x{i}" for i in range(3000))
    assert flatten_chains(text).startswith("Xor(x0, x1, ")
    assert rscount.task_from_text([text]).k == 3000
    short = " ^ ".join(f"x{i}" for i in range(40))
    assert rscount.count(rscount.task_from_text([short]), support=",".join("1" * 40)).count == \
        rscount.count(rscount.task_from_text([f"Xor({short.replace(' ^ ', ', ')})"]), support=",".join("1" * 40)).count


def test_chains_next_to_comparisons_keep_python_precedence():
    """A comparison binds looser than | ^ & +: the operands on each side of it are flattened, the comparison kept;
    a minus or a keyword at the level leaves the text as it is."""
    from rscount.language.logic import flatten_chains
    ors = " | ".join(f"x{i}" for i in range(40))
    assert flatten_chains(ors + " == y") == "Or(" + ors.replace(" | ", ", ") + ") == y"
    sums = " + ".join(f"x{i}" for i in range(40))
    assert flatten_chains(sums + " - y == 3") == sums + " - y == 3"
    assert flatten_chains("not " + ors + " == y") == "not " + ors + " == y"
    short = " | ".join(f"x{i}" for i in range(34))
    support = ";".join(",".join(str((r >> i) & 1) for i in range(35)) for r in (0, 1, 5, 1 << 34))
    assert rscount.count(rscount.task_from_text([short + " == y"]), support=support,
                         map_class="disentangled").count == \
        rscount.count(rscount.task_from_text([f"({short}) == y"]), support=support, map_class="disentangled").count


def test_leading_digits_of_huge_counts_from_the_top_bits_are_the_exact_ones():
    """Past about 79,000 digits a count's first digits and length come from its top 64 bits (a division of
    numbers of millions of digits took seconds per printed count); forced on small numbers, they equal the
    exact ones, powers of ten and their neighbours included."""
    import random

    from rscount.results import count as c
    rng = random.Random(1)
    numbers = [rng.randrange(2, 10 ** rng.randint(31, 400)) * 3 ** rng.randint(0, 400) for _ in range(300)]
    numbers += [10 ** k + d for k in (31, 100, 1000, 5000) for d in (-1, 0, 1)] + [2 * 10 ** 300 - 1]
    exact = [c.format_count(n) for n in numbers]
    saved, c.EXACT_LEAD_BITS = c.EXACT_LEAD_BITS, 32
    try:
        assert [c.format_count(n) for n in numbers] == exact
    finally:
        c.EXACT_LEAD_BITS = saved


def test_an_estimate_prints_four_digits_not_sixteen():
    """An (epsilon, delta) estimate's last digits mean nothing: the headline showed ~5244643980267768 and
    bounds of 16 digits for MNMath-B.1's estimate within a factor 1.8; it now shows four digits."""
    import dataclasses
    from rscount.results.count import CountResult
    exact = rscount.count("xor3")
    fields = {f.name: getattr(exact, f.name) for f in dataclasses.fields(CountResult) if f.init}
    estimate = CountResult(**{**fields, "count": 5244643980267768, "exact": False, "lower": 3630907370954616,
                              "upper": 9440359164481980, "epsilon": 0.8, "delta": 0.2})
    text = str(estimate)
    assert "optimal maps  ~5.244e15  (estimate: between 3.630e15 and 9.440e15 with probability >= 0.8)" in text
    assert "5244643980267768" not in text and estimate.to_dict()["count"] == 5244643980267768
