"""Sweeps: grids are checked before any work, every row equals the single count, nothing is lost or recomputed,
and every output format stays readable by pandas after a crash. The cluster tests start a 2-worker LocalCluster
(slow tier); the rest run points in this process."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import rscount
from rscount.cli import main
from rscount.sweeps import ROW_FIELDS, SweepError, grid_from_mapping, read_rows, run_point
from rscount.sweeps.table import open_table

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")

GRID = {"tasks": [{"task": "mnadd-half"}, {"knowledge": "a ^ b ^ c", "concepts": "a,b,c"}],
        "map_class": ["complete", "shared"], "subsample": [2, 4], "seeds": [0, 1], "timeout": 30}


def _single(point) -> int:
    return rscount.count(point.task, map_class=point.map_class, subsample=point.subsample, seed=point.seed,
                         support=point.support, supervise=list(point.supervise), concept_sup=point.concept_sup).count


def test_grid_crosses_its_lists_and_keys_points_stably():
    grid = grid_from_mapping(GRID)
    assert len(grid.points) == 2 * 2 * 2 * 2
    assert len({p.key for p in grid.points}) == 16
    assert [p.key for p in grid_from_mapping(GRID).points] == [p.key for p in grid.points]
    one = grid_from_mapping({"tasks": [{"task": "xor3"}], "supervise": ["c1", "c2"]})
    assert [p.supervise for p in one.points] == [("c1", "c2")]  # one setting of two items
    two = grid_from_mapping({"tasks": [{"task": "xor3"}], "supervise": [[], ["c1"]]})
    assert [p.supervise for p in two.points] == [(), ("c1",)]


def test_several_grids_in_one_file_cross_each_over_the_keys_around_them():
    pytest.importorskip("torch")
    grid = grid_from_mapping({
        "tasks": [{"task": "xor3"}], "job": "train", "train_seeds": [5, 6], "train": {"epochs": 2, "model": "dpl"},
        "grids": [{"train": [{"model": "sl"}, {"lr": 0.01}]},
                  {"tasks": [{"task": "and3"}], "supervise": ["c1"], "job": "count"}]})
    first = [p for p in grid.points if p.task.name == "xor3"]
    assert [(dict(p.train), p.train_seed) for p in first] == [
        ({"epochs": 2, "model": "sl"}, 5), ({"epochs": 2, "model": "sl"}, 6),
        ({"epochs": 2, "model": "dpl", "lr": 0.01}, 5), ({"epochs": 2, "model": "dpl", "lr": 0.01}, 6)]
    second = [p for p in grid.points if p.task.name == "and3"]
    assert len(second) == 2 and {p.job for p in second} == {"count"} and {p.supervise for p in second} == {("c1",)}
    assert len({p.key for p in grid.points}) == 6
    assert json.loads(first[0].params["train"]) == {"epochs": 2, "model": "sl"} and first[0].params["train_seed"] == 5


def test_count_points_run_in_chunks_and_long_points_one_a_task():
    from rscount.sweeps.engine import MAX_CHUNK, _chunks
    grid = grid_from_mapping({"tasks": [{"task": "xor3"}], "seeds": list(range(200)), "job": ["count", "audit"]})
    chunks = _chunks(list(grid.points), 2)
    counts = [c for c in chunks if c[0].job == "count"]
    assert sum(map(len, counts)) == 200 and max(map(len, counts)) == MAX_CHUNK
    assert [len(c) for c in chunks if c[0].job == "audit"] == [1] * 200


@pytest.mark.parametrize("grid, words", [
    ({"tasks": [{"task": "xor3"}], "map_klass": ["complete"]}, "unknown sweep key 'map_klass'"),
    ({"tasks": [{"task": "xor3"}], "grids": []}, "'grids' is a non-empty list"),
    ({"tasks": [{"task": "xor3"}], "grids": [{"timeout": 5}]}, "'timeout' belongs to the whole file"),
    ({"grids": [{"seeds": [1]}]}, "each of 'grids' needs 'tasks'"),
    ({"tasks": [{"task": "xor3"}], "train": []}, "'train' is an empty list"),
    ({"tasks": [{"task": "xor3"}], "train": [5]}, "'train' takes mappings"),
    ({"tasks": [{"task": "xor3"}], "train_seeds": [1.5]}, "seed 1.5 must be"),
    ({"tasks": []}, "'tasks' is an empty list"),
    ({"tasks": [{"task": "xor3"}], "subsample": []}, "'subsample' is an empty list"),
    ({"tasks": [{"task": "nosuch"}]}, "does not load: unknown task 'nosuch'"),
    ({"tasks": [{"spec": "missing.yaml"}]}, "does not load: cannot read spec file"),
    ({"tasks": [{"task": "xor3", "knowledge": "a"}]}, "needs exactly one of"),
    ({"tasks": [{"task": "xor3"}], "job": ["count", "fit"]}, "sweep job 'fit' does not exist"),
    ({"tasks": [{"task": "xor3"}], "map_class": "nosuch"}, "map class 'nosuch' does not exist"),
    ({"tasks": [{"task": "xor3"}], "seeds": [-1]}, "seed -1 must be"),
    ({"tasks": [{"task": "xor3"}], "timeout": "nan"}, "timeout"),
    ({"tasks": [{"task": "xor3"}], "backend": "nosuch"}, "backend 'nosuch' does not exist"),
    ([1, 2], "a sweep grid is a mapping"),
])
def test_a_malformed_grid_is_refused_before_any_work(grid, words):
    with pytest.raises(SweepError) as info:
        grid_from_mapping(grid)
    assert words in str(info.value)


def test_the_command_line_refuses_a_malformed_grid_in_one_line(tmp_path, capsys):
    (tmp_path / "g.yaml").write_text("tasks: [{task: xor3}]\nsubsample: []\n")
    assert main(["sweep", str(tmp_path / "g.yaml"), "--out", str(tmp_path / "rows.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "'subsample' is an empty list" in err and err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.yaml"]


def test_each_row_equals_the_single_count():
    grid = grid_from_mapping(GRID)
    for point in grid.points:
        row = run_point(point, grid)
        assert row["status"] == "ok" and row["count"] == _single(point), row
        assert set(ROW_FIELDS) <= set(row)


def test_a_point_that_fails_or_times_out_is_a_row_with_its_status():
    grid = grid_from_mapping({"tasks": [{"task": "xor3"}, {"task": "xor6"}], "subsample": [9], "timeout": 0.2,
                              "backend": "ganak"})
    rows = [run_point(p, grid) for p in grid.points]
    assert rows[0]["status"] == "error" and "only 8 exist" in rows[0]["message"]
    slow = grid_from_mapping({"tasks": [{"task": "xor6"}], "timeout": 0.3, "backend": "ganak"})
    row = run_point(slow.points[0], slow)
    assert row["status"] == "timeout" and "timed out" in row["message"] and row["count"] is None


@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".parquet"])
def test_outputs_stay_readable_after_a_crash_and_resume(tmp_path, suffix):
    grid = grid_from_mapping(GRID)
    rows = [run_point(p, grid) for p in grid.points[:6]]
    out = tmp_path / f"rows{suffix}"
    with open_table(out, ROW_FIELDS) as table:
        table.add(rows[:3])
        table.add(rows[3:6])
    if suffix == ".jsonl":  # a crash in the middle of a line
        with out.open("a") as fh:
            fh.write('{"key": "cut sh')
    elif suffix == ".parquet":  # a crash while a part was being written: only its temporary file is left
        (out / ".part-00002.parquet.tmp").write_bytes(b"PAR1 half")
    assert len(read_rows(out)) == 6  # the cut line is skipped
    with open_table(out, ROW_FIELDS) as table:  # reopening (to resume) mends a cut line
        assert table.done == {r["key"] for r in rows}  # a resumed sweep runs only the other points
    frame = {".jsonl": lambda p: pd.read_json(p, lines=True), ".csv": pd.read_csv,
             ".parquet": pd.read_parquet}[suffix](out)  # one pandas call
    assert len(frame) == 6 and set(frame["status"]) == {"ok"}
    assert [int(c) for c in frame["count"]] == [r["count"] for r in rows]


def test_two_sweeps_do_not_write_one_output(tmp_path):
    out = tmp_path / "rows.jsonl"
    with open_table(out, ROW_FIELDS):
        with pytest.raises(SweepError, match="another sweep is writing"):
            with open_table(out, ROW_FIELDS):
                pass
    with open_table(out, ROW_FIELDS):  # the lock goes with the first sweep
        pass


def test_a_wrong_output_is_refused_before_any_work(tmp_path):
    with pytest.raises(SweepError, match="name a .jsonl or .csv file or a .parquet folder"):
        open_table(tmp_path / "rows.txt", ROW_FIELDS)
    (tmp_path / "f.parquet").write_text("x")
    with pytest.raises(SweepError, match="is a file"):
        open_table(tmp_path / "f.parquet", ROW_FIELDS)


def test_a_single_count_imports_no_dask():
    code = "import sys, rscount; rscount.count('xor3'); print(any(m.split('.')[0] in ('dask', 'distributed', " \
           "'pandas', 'pyarrow') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


# --- on a 2-worker LocalCluster ----------------------------------------------------------------------------------

@pytest.mark.slow
def test_a_sweep_on_two_workers_equals_single_counts_and_resumes(tmp_path):
    pytest.importorskip("distributed")
    grid = grid_from_mapping(GRID)
    out = tmp_path / "rows.parquet"
    first = rscount.sweep(grid, out, workers=2)
    assert len(first) == 16 and set(first["status"]) == {"ok"}
    by_key = {p.key: p for p in grid.points}
    for key, count in zip(first["key"], first["count"]):
        assert int(count) == _single(by_key[key])
    seen = []
    again = rscount.sweep(grid, out, workers=2, progress=seen.append)
    assert seen[0]["total"] == 0 and seen[0]["resumed"] == 16  # nothing recomputed
    assert sorted(again["key"]) == sorted(first["key"]) and len(pd.read_parquet(out)) == 16


@pytest.mark.slow
def test_a_worker_killed_mid_sweep_loses_no_point(tmp_path):
    pytest.importorskip("distributed")
    from rscount.sweeps import engine
    grid = grid_from_mapping({"tasks": [{"knowledge": "And(a, b, c, d, e, f)"}], "seeds": list(range(12)),
                              "support": ["exhaustive"], "backend": "bruteforce", "map_class": "disentangled"})
    rows, killed = [], []
    with engine.client(workers=2) as c:
        def progress(state):
            if state.get("done") == 1 and not killed:  # one point done, the others running or waiting
                pid = next(iter(c.run(os.getpid).values()))
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
        engine.run_grid(grid, list(grid.points), rows.extend, progress=progress, on=c)
    assert killed and sorted(r["key"] for r in rows) == sorted(p.key for p in grid.points)
    assert {r["status"] for r in rows} == {"ok"} and {r["count"] for r in rows} == {1}


@pytest.mark.slow
def test_ctrl_c_leaves_a_readable_file_and_no_worker(tmp_path):
    from test_processes import _ctrl_c_reaches_it, _gone
    grid = tmp_path / "g.yaml"
    grid.write_text("tasks: [{knowledge: 'And(a, b, c, d, e, f)'}]\nseeds: [" + ", ".join(map(str, range(40))) +
                    "]\nsupport: exhaustive\nbackend: bruteforce\nmap_class: disentangled\n")
    out = tmp_path / "rows.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "rscount.cli", "sweep", str(grid), "--out", str(out),
                             "--workers", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=_ctrl_c_reaches_it)
    try:
        end = time.monotonic() + 120
        while not (out.exists() and out.read_text().count("\n") >= 2):
            assert proc.poll() is None and time.monotonic() < end, proc.communicate()
            time.sleep(0.1)
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 130, err
        assert _gone(proc.pid) == []
        done = [json.loads(line) for line in out.read_text().splitlines()]
        assert 2 <= len(done) < 40 and {r["status"] for r in done} == {"ok"}
        assert not Path(str(out) + ".lock").exists()
        proc2 = subprocess.run([sys.executable, "-m", "rscount.cli", "sweep", str(grid), "--out", str(out),
                                "--workers", "2"], capture_output=True, text=True, timeout=300)
        assert proc2.returncode == 0, proc2.stderr
        assert len(read_rows(out)) == 40 and len({r["key"] for r in read_rows(out)}) == 40
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@pytest.mark.parametrize("train, words", [({"modle": "dpl"}, "unknown training option 'modle'"),
                                          ({"epochs": 0}, "epochs")])
def test_wrong_training_options_are_refused_before_any_work(train, words):
    pytest.importorskip("torch")
    with pytest.raises(SweepError, match=words):
        grid_from_mapping({"tasks": [{"task": "xor3"}], "job": "train", "train": train})


def test_a_train_point_is_the_seed_run_on_its_own():
    pytest.importorskip("torch")
    from rscount.harness import TrainConfig, run
    settings = {"model": "sl", "extractor": "shared", "epochs": 2, "n_train": 120, "n_val": 40, "n_test": 40,
                "entropy": 0.5}
    grid = grid_from_mapping({"tasks": [{"task": "mnadd-half"}], "map_class": "shared", "job": "train",
                              "train": settings, "train_seeds": [4]})
    row = run_point(grid.points[0], grid)
    alone = run(rscount.make_problem("mnadd-half", map_class="shared"), seeds=[4],
                config=TrainConfig(threads=1, **settings)).seeds[0]
    assert row["status"] == "ok" and row["count"] == 3 and row["train_seed"] == 4
    assert row["train_accuracy"] == alone.train_accuracy and row["mF1_Y"] == alone.rsbench["mF1_Y"]
    assert row["verdict"] == alone.learned.verdict and row["attempts"] == alone.attempts


def test_the_dashboard_without_bokeh_is_one_line_naming_it_and_leaves_no_output(tmp_path):
    (tmp_path / "g.yaml").write_text("tasks: [{task: xor3}]\n")
    code = ("import sys; sys.modules['bokeh'] = None; from rscount.cli import entry; "
            f"sys.argv = ['countrss', 'sweep', {str(tmp_path / 'g.yaml')!r}, '--out', "
            f"{str(tmp_path / 'rows.jsonl')!r}, '--dashboard']; entry()")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 3 and out.stderr.count("\n") == 1 and "bokeh" in out.stderr, out.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.yaml"]


def _rows_with_errors() -> list:
    rows = []
    for task, counts in (("mnadd-half", [30, 9, 3, None, None]), ("xor3", [24, 24, None, 24, 24])):
        for n, count in enumerate(counts):
            status = "ok" if count is not None else ("timeout" if task == "xor3" else "error")
            rows.append({"key": f"{task}-{n}", "task": task, "map_class": "shared", "subsample": 2 ** n,
                         "seed": 0, "status": status, "count": count})
    return rows


def test_a_sweep_plot_has_a_panel_per_task_and_names_the_points_it_did_not_draw():
    pytest.importorskip("matplotlib")
    from rscount.sweeps import _table_class
    table = _table_class().of(_rows_with_errors())
    fig = table.plot(x="subsample", hue="map_class")
    panels = [ax for ax in fig.axes if ax.get_title()]
    assert [ax.get_title() for ax in panels] == ["task mnadd-half: 5 points, 2 error not drawn",
                                                 "task xor3: 5 points, 1 timeout not drawn"]
    legends = [[t.get_text() for t in ax.get_legend().get_texts()] for ax in panels]
    assert legends == [["shared (2 error not drawn)"], ["shared (1 timeout not drawn)"]]
    first = panels[0].lines[0].get_xydata().tolist()  # only the 3 counted points of mnadd-half, not xor3's
    assert [x for x, _ in first] == [1, 2, 4]
    pooled = table.plot(x="subsample", hue="task", by=None)
    assert pooled.axes[0].get_title() == "all tasks pooled: 10 points, 1 timeout, 2 error not drawn"


def test_sweep_warns_with_the_summary_the_command_line_prints(monkeypatch):
    import rscount.sweeps as sweeps
    table = sweeps._table_class().of(_rows_with_errors())
    monkeypatch.setattr(sweeps, "_run", lambda *a: table)
    with pytest.warns(UserWarning, match=r"sweep sweep: 10 points \(7 ok, 1 timeout, 2 error, 0 lost\); see the"):
        sweeps.sweep({"tasks": [{"task": "xor3"}]})
    assert sweeps.summary(table, "g", "out.jsonl") == "sweep g: 10 points in out.jsonl (7 ok, 1 timeout, 2 error, 0 lost)"
