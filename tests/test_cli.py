"""The countrss command: output, JSON, options and one-line errors."""
import json
import subprocess
import sys

import pytest

from rscount.cli import main


def run(args, capsys):
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_main_job(capsys):
    code, out, err = run(["--task", "xor3", "--exact"], capsys)
    assert code == 0
    for words in ("xor3", "exhaustive (8 vectors)", "complete", "optimal maps  24", "shortcuts     23",
                  "backend", "exact", "time"):
        assert words in out


def test_json_fields(capsys):
    code, out, _ = run(["--task", "xor3", "--json"], capsys)
    data = json.loads(out)
    assert code == 0
    for key in ("task", "map_class", "support_size", "count", "rs_count", "exact", "lower", "upper",
                "epsilon", "delta", "backend", "seconds", "encoding"):
        assert key in data
    assert data["count"] == 24 and data["rs_count"] == 23 and data["exact"] is True
    assert data["encoding"]["quotient_vectors"] == 8 and data["backend"] == "automorphism"
    code, out, _ = run(["--task", "xor3", "--backend", "ganak", "--json"], capsys)
    data = json.loads(out)
    assert data["encoding"]["vars"] > 0 and data["encoding"]["clauses"] >= 0


def test_json_approx(capsys):
    code, out, _ = run(["--task", "xor3", "--approx", "--backend", "approxmc", "--epsilon", "0.5", "--delta", "0.1",
                        "--json"], capsys)
    data = json.loads(out)
    assert code == 0 and data["exact"] is False and data["epsilon"] == 0.5 and data["delta"] == 0.1
    assert data["lower"] <= 24 <= data["upper"]


def test_enumerate(capsys):
    code, out, _ = run(["--task", "xor3", "--enumerate", "3", "--json"], capsys)
    assert code == 0 and len(json.loads(out)["maps"]) == 3


@pytest.mark.parametrize("args, expected", [
    (["--task", "and3", "--support", "1,1,1"], 48),
    (["--task", "and3", "--support", "0,1,0"], 336),
    (["--task", "xor3", "--subsample", "1", "--seed", "3"], 192),
    (["--task", "xor3", "--supervise", "c1"], 4),
    (["--task", "xor3", "--concept-sup", "1.0"], 1),
    (["--knowledge", "a ^ b ^ c"], 24),
    (["--knowledge", "d1 + d2", "--concepts", "d1=0..2,d2=0..2", "--map-class", "disentangled"], 1),
    (["--task", "xor3", "--map-class", "joint"], 65536),
    (["--task", "xor", "--param", "k=3"], 24),
])
def test_counts_from_the_command_line(args, expected, capsys):
    code, out, err = run(args + ["--json"], capsys)
    assert code == 0, err
    assert json.loads(out)["count"] == expected


def test_support_file(tmp_path, capsys):
    f = tmp_path / "s.csv"
    f.write_text("c1,c2,c3\n1,1,1\n")
    code, out, _ = run(["--task", "and3", "--support-file", str(f), "--json"], capsys)
    assert json.loads(out)["count"] == 48
    g = tmp_path / "s.json"
    g.write_text("[[0, 1, 0]]")
    code, out, _ = run(["--task", "and3", "--support-file", str(g), "--json"], capsys)
    assert json.loads(out)["count"] == 336


@pytest.mark.parametrize("args, words", [
    (["--task", "nosuch"], "unknown task 'nosuch'"),
    (["--knowledge", "a & foo("], "syntax error"),
    (["--knowledge", "a & b", "--concepts", "a"], "unknown symbol 'b'"),
    (["--task", "xor3", "--support", "1,1"], "has 2 values"),
    (["--task", "xor3", "--support", "1,2,1"], "not in the domain"),
    (["--task", "xor3", "--support", ";"], "lists no vector"),
    (["--task", "xor3", "--subsample", "0"], "keeps no vector"),
    (["--task", "xor3", "--exact", "--approx"], "not allowed with"),
    (["--task", "xor3", "--approx", "--backend", "ganak"], "--approx uses approxmc"),
    (["--task", "xor3", "--cnf", "x.cnf"], "cannot read DIMACS file"),
    (["--task", "xor3", "--supervise", "zz"], "unknown concept 'zz'"),
    (["--task", "xor3", "--map-class", "joint", "--backend", "ganak"], "no CNF encoding"),
    (["--task", "xor3", "--param", "k=4"], "already fixes k=3"),
    (["--task", "xor3", "--approx", "--epsilon", "-1"], "--epsilon must be > 0"),
    (["--task", "xor3", "--delta", "1"], "--delta in (0, 1)"),
    (["--task", "xor3", "--memory-limit", "0"], "--memory-limit must be a positive"),
    (["--spec", "/nonexistent.yaml"], "cannot read spec file"),
    (["--config", "/nonexistent.yml"], "cannot read config file"),
    (["--cnf", "/nonexistent.cnf"], "cannot read DIMACS"),
])
def test_bad_input_one_line_exit_2(args, words, capsys):
    code, out, err = run(args, capsys)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("countrss: error:") and words in err, err
    assert "Traceback" not in err


def test_a_sized_task_takes_its_own_k(capsys):
    """``--task xor3 --param k=3`` once died with a TypeError (k passed twice)."""
    code, out, err = run(["--task", "xor3", "--param", "k=3", "--json"], capsys)
    assert code == 0 and json.loads(out)["count"] == 24


def test_malformed_dimacs_and_no_file_left(tmp_path, capsys):
    bad = tmp_path / "bad.cnf"
    bad.write_text("p cnf 2 1\n1 5 0\n")
    target = tmp_path / "out.cnf"
    code, out, err = run(["--cnf", str(bad), "--emit-dimacs", str(target)], capsys)
    assert code == 2 and "exceeds" in err and not target.exists()
    assert list(tmp_path.iterdir()) == [bad]


def test_emit_into_missing_folder(tmp_path, capsys):
    code, out, err = run(["--task", "xor3", "--emit-dimacs", str(tmp_path / "no" / "x.cnf")], capsys)
    assert code == 2 and "does not exist" in err


def test_timeout_exits_nonzero_and_says_so(capsys):
    code, out, err = run(["--task", "xor6", "--backend", "ganak", "--timeout", "0.5", "--json"], capsys)
    assert code == 3 and "timed out" in err
    assert json.loads(out)["status"] == "timeout"


@pytest.mark.parametrize("constraints, words", [
    ("['y >> a', 'y']", "contradictory knowledge"),
    ("['y >> (a | b)']", "not deterministic"),
])
def test_relational_knowledge_is_checked(tmp_path, capsys, constraints, words):
    spec = tmp_path / "k.yaml"
    spec.write_text(f"concepts: {{a: bool, b: bool}}\nrelation:\n  labels: {{y: bool}}\n"
                    f"  constraints: {constraints}\n")
    code, out, err = run(["--spec", str(spec)], capsys)
    assert code == 2 and words in err


def test_list_tasks(capsys):
    code, out, _ = run(["--list-tasks"], capsys)
    assert code == 0 and "xor" in out and "mnadd" in out


def test_console_script_runs():
    proc = subprocess.run([sys.executable, "-m", "rscount.cli", "--task", "and3", "--json"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and json.loads(proc.stdout)["count"] == 6


def test_version_and_subcommands(capsys):
    assert main(["--version"]) == 0 and capsys.readouterr().out.startswith("countrss 0.")
    assert main(["count", "--task", "xor3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["count"] == 24
    for command in ("count", "audit", "train"):
        with pytest.raises(SystemExit) as stop:
            main([command, "--help"])
        assert stop.value.code == 0
        assert f"countrss {command}" in capsys.readouterr().out or command == "count"


def test_groups_on_the_command_line(capsys):
    base = ["--knowledge", "d1 + d2", "--concepts", "d1=0..9,d2=0..9", "--support", "0,6;6,0;2,8;8,2",
            "--map-class", "shared", "--json"]
    assert main(base) == 0
    one = json.loads(capsys.readouterr().out)
    assert one["count"] == 63_000_000 and any("one classifier" in w for w in one["warnings"])
    assert main(base + ["--groups", "d1;d2"]) == 0
    assert json.loads(capsys.readouterr().out)["count"] == 3_969_000_000_000_000  # disentangled
    assert main(base + ["--groups", "d1,zz"]) == 2
    assert "unknown concept 'zz'" in capsys.readouterr().err


def test_library_errors_name_parameters_and_the_command_line_names_flags(capsys):
    import rscount
    with pytest.raises(rscount.SupportError) as info:
        rscount.make_problem("xor3", subsample=0)
    assert "subsample=0" in str(info.value) and "--" not in str(info.value)
    with pytest.raises(rscount.EncodingError, match="exact=True and approx=True"):
        rscount.count("xor3", exact=True, approx=True)
    assert main(["--task", "xor3", "--subsample", "0"]) == 2
    assert "--subsample 0 keeps no vector" in capsys.readouterr().err


def test_one_display_for_racing_sources():
    """Two counters racing report through one display: on a terminal one line holds both, cleared at the end;
    in a log each message is its own line."""
    import io
    import threading

    from rscount.runtime.progress import Display
    live = io.StringIO()
    d = Display("countrss", live, live=True)
    threads = [threading.Thread(target=lambda n=n: [d(f"{n}: counting, {s} s elapsed") for s in range(50)])
               for n in ("ganak", "search")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    d.close()
    text = live.getvalue()
    assert "\n" not in text and "ganak: counting, 49 s elapsed" in text and "search: counting, 49 s" in text
    assert text.endswith("\r")  # cleared
    log = io.StringIO()
    with Display("countrss", log, live=False) as d:
        d("encoding: 10/20 support vectors")
    assert log.getvalue() == "countrss: [0 s] encoding: 10/20 support vectors\n"


def test_a_source_that_is_done_leaves_the_status(monkeypatch):
    """A counter that stopped says so ("ganak: ", nothing after) and its line goes: a command racing Ganak
    said "ganak: counting, 4 s elapsed" in every status line for the 100 s after Ganak had stopped."""
    import io

    from rscount.counters import base
    from rscount.runtime.progress import Display
    d = Display("countrss", io.StringIO(), mode="heartbeat", every=1e9)
    d("ganak: counting, 4 s elapsed")
    d("search: counting, 2 s elapsed")
    d("ganak: ")
    assert d._shown() == "search: counting, 2 s elapsed"
    said = []
    monkeypatch.setattr(base, "REPORT_EVERY", 0.01)
    assert base.run_isolated(_slow_two, backend="slow", progress=said.append) == 2
    assert said[-1] == "slow: " and any(s.startswith("slow: counting") for s in said)
    d.close()
    log = io.StringIO()
    with Display("countrss", log, live=False) as d:
        d("encoding: ")
    assert log.getvalue() == ""  # --progress prints no line for a source that is done


def test_a_command_without_a_limit_says_once_how_to_bound_it(monkeypatch):
    """Past a minute without --timeout, the status says once how to stop the command or bound the count: the
    paper's ConCon task 1 alone runs for hours, and its status lines alone did not say that a limit exists."""
    import io
    import time

    from rscount.cli import _status, build_parser
    from rscount.runtime import progress
    monkeypatch.setattr(progress, "HINT_AFTER", 0.0)
    monkeypatch.setattr(progress, "HEARTBEAT", 0.05)
    log = io.StringIO()
    args = build_parser().parse_args(["--task", "xor3"])
    shown = _status(args, log, "countrss")
    time.sleep(0.3)
    shown.close()
    lines = log.getvalue().splitlines()
    hints = [line for line in lines if "no --timeout was given" in line]
    assert len(hints) == 1 and "--approx gives bounds or an estimate" in hints[0], lines
    log = io.StringIO()
    args = build_parser().parse_args(["--task", "xor3", "--timeout", "5"])
    shown = _status(args, log, "countrss")
    time.sleep(0.2)
    shown.close()
    assert "no --timeout" not in log.getvalue()


def _slow_two():
    import time
    time.sleep(0.2)
    return 2


def test_a_long_command_off_a_terminal_says_it_is_still_working():
    """Without --progress and off a terminal, a heartbeat line (elapsed time and the latest step) comes every so
    often, and none after the display closes."""
    import io
    import time

    from rscount.runtime.progress import Display
    log = io.StringIO()
    with Display("countrss", log, mode="heartbeat", every=0.05) as d:
        d("search: 100 partial maps")
        time.sleep(0.3)
    lines = log.getvalue().splitlines()
    assert lines and all(x.startswith("countrss: still working after ") for x in lines)
    assert lines[-1].endswith("(search: 100 partial maps)")
    time.sleep(0.15)
    assert log.getvalue().splitlines() == lines


def test_an_estimate_out_of_time_does_not_suggest_estimating(capsys):
    """--approx that times out says what helps an estimate, not "try --approx" again."""
    code, out, err = run(["--task", "concon-t1", "--map-class", "complete", "--approx", "--timeout", "1"], capsys)
    assert code != 0 and not out
    assert "estimating timed out after 1 s" in err and "try --approx" not in err and "--epsilon" in err
