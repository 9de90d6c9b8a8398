"""What a designer reads: the headline separates the concepts the labels read from the free ones, estimates are
marked, and the audit fixes the read concepts by default."""
from __future__ import annotations

import json

import pytest

import rscount
from rscount.cli import main

CONCON = ["--task", "concon-t1", "--task", "concon-t2", "--task", "concon-t3", "--param", "mode=strict",
          "--param", "objects=2", "--param", "colors=2", "--map-class", "disentangled"]


def test_concon_headline_counts_the_read_concepts_and_the_free_factor_apart(capsys):
    assert main(CONCON) == 0
    out = capsys.readouterr().out
    assert "optimal maps  1  (on the concepts the labels read)" in out
    assert "shortcuts     0" in out
    assert "unread        4 concepts no label reads (color1, material1, color2, material2): 256 value maps" in out
    assert "in all        256 optimal maps, 255 shortcuts" in out
    assert main(CONCON + ["--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["read_count"], data["read_rs_count"], data["free_maps"], data["count"]) == (1, 0, 256, 256)
    assert data["unread_concepts"] == ["color1", "material1", "color2", "material2"]


def test_concon_headline_in_the_notebook():
    tasks = ["concon-t1", "concon-t2", "concon-t3"]
    r = rscount.count(tasks, params={"mode": "strict", "objects": 2, "colors": 2}, map_class="disentangled")
    assert (r.read_count, r.free_maps, r.count) == (1, 256, 256)
    html = r._repr_html_()
    assert ">optimal maps</th>" in html and ">1  (on the concepts the labels read)<" in html
    assert "256 value maps" in html


def test_the_free_factor_is_the_count_of_the_read_concepts_times_the_unread_maps():
    """Checked against counting the projected task alone and the unread concepts' d^d by hand."""
    task = rscount.task_from_text("x1 | x3", "x1,x2,x3,x4=0..2")
    r = rscount.count(task, map_class="disentangled")
    alone = rscount.count(rscount.task_from_text("x1 | x3", "x1,x3"), map_class="disentangled")
    assert r.unread == ("x2", "x4") and r.free_maps == 2 ** 2 * 3 ** 3
    assert r.read_count == alone.count and r.count == alone.count * r.free_maps
    supervised = rscount.count(task, map_class="disentangled", supervise=["x4=1"])
    assert supervised.free_maps == 2 ** 2 * 3 ** 2


def test_every_concept_read_keeps_the_plain_headline(capsys):
    assert main(["--task", "xor3", "--map-class", "disentangled"]) == 0
    out = capsys.readouterr().out
    assert "unread" not in out and "optimal maps  " in out
    assert rscount.count("xor3", map_class="disentangled").unread == ()


def test_an_estimate_is_marked_in_the_headline():
    r = rscount.count("xor3", approx=True, backend="approxmc", seed=1)
    text = str(r)
    line = next(x for x in text.splitlines() if x.startswith("optimal maps"))
    assert not r.exact and r.lower <= 24 <= r.upper
    assert line.startswith(f"optimal maps  ~{r.count}  (estimate: between {r.lower} and {r.upper} with probability")
    assert "shortcuts     ~" in text


def test_the_audit_fixes_the_read_concepts_by_default(capsys):
    args = ["audit", "--task", "concon-t1", "--task", "concon-t2", "--param", "mode=disjoint", "--param",
            "objects=2", "--map-class", "shared"]
    assert main(args) == 0
    out = capsys.readouterr().out
    fixes = out.split("Cheapest fixes")[1].split("note")[0]
    for unread in ("color", "material"):
        assert unread not in fixes
        assert f"\n  {unread}1\n" not in out  # no heat map for it either
    assert "on the concepts the labels read" in out and "--all-concepts" in out
    assert main(args + ["--all-concepts", "--json", "--timeout", "10"]) == 0  # the names only: a short audit
    every = json.loads(capsys.readouterr().out)
    assert "color1" in [c["name"] for c in every["concepts"]]


def test_the_read_only_audit_agrees_with_counting_the_fix():
    task = rscount.task_from_text("x1 ^ x2", "x1,x2,x3,x4")
    support = "0,0,0,0;1,1,0,1"
    audit = rscount.audit(task, support=support, map_class="disentangled", timeout=30)
    fix = audit.supervise_concepts
    assert audit.result.unread == ("x3", "x4")
    assert all(item.split("=")[0] in ("x1", "x2") for item in fix.items)
    full = rscount.count(task, support=support, map_class="disentangled", supervise=list(fix.items))
    assert full.read_count == fix.count
    assert audit.classes["disentangled"][0] == rscount.count(task, support=support, map_class="disentangled").count


@pytest.mark.parametrize("n", [999_999, 1_000_000, 123_456_789_012])
def test_big_counts_show_their_power_of_ten(n):
    from rscount.results.count import headline_count
    shown = headline_count(n)
    assert shown.startswith(str(n))
    assert ("e" in shown) == (n >= 10 ** 6)


def test_a_timeout_names_the_whole_command_budget(monkeypatch, capsys):
    """The joint count comes first: where it times out, the command fails naming the whole budget."""
    import rscount.planning.multitask as multitask
    from rscount.errors import CountTimeout

    def slow_first(problem, *args, **kw):
        raise CountTimeout("search timed out after 0.4 s; raise timeout=")

    monkeypatch.setattr(multitask, "count_problem", slow_first)
    assert main(["--task", "xor3", "--task", "and3", "--timeout", "45"]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "counting timed out after 45 s (--timeout is the whole command's time) while counting tasks 1..2" in err
    assert "0.4 s" not in err


def test_counts_besides_the_joint_one_out_of_time_are_said_not_counted(monkeypatch, capsys):
    """Where the joint count finished and a count of the sequence did not (in its share of the time left),
    the joint count is printed and that count says it was not made in time."""
    import rscount.planning.multitask as multitask
    from rscount.errors import CountTimeout
    real, calls = multitask.count_problem, []

    def slow_second(problem, *args, **kw):
        calls.append(problem)
        if problem is calls[1 % len(calls)] and len(calls) > 1:  # task xor3 alone, each try (1..1 is the same)
            raise CountTimeout("search timed out after 0.4 s; raise timeout=")
        return real(problem, *args, **kw)

    monkeypatch.setattr(multitask, "count_problem", slow_second)
    assert main(["--task", "xor3", "--task", "and3", "--timeout", "45"]) == 0
    out = capsys.readouterr().out
    assert "1. xor3  not counted in time; forgets n/a (a count not made in time)" in out
    assert "not counted in their share of the time left after the joint count: task xor3 alone" in out
    result = rscount.count(["xor3", "xor3"], timeout=45)
    assert None not in result.cumulative and result.forgets == (0, 0)


def test_heat_map_colour_is_each_cells_share_of_all_optimal_maps():
    """mnadd-half shared: 2->2 is kept by 1 of the 3 maps, 0->0 by all; the colour data says 1/3 and 1 on one
    0..1 scale for every panel, with a colour bar, counts in the cells and fixed values marked."""
    pytest.importorskip("matplotlib")
    a = rscount.audit("mnadd-half", map_class="shared")
    fig = a.plot()
    panels = [ax for ax in fig.axes if ax.images]
    assert [ax.get_title() for ax in panels] == ["d1", "d2"]
    for ax in panels:
        image = ax.images[0]
        data = image.get_array()
        assert (image.norm.vmin, image.norm.vmax) == (0, 1)
        assert data[0, 0] == 1 and abs(data[2, 2] - 1 / 3) < 1e-9 and data[0, 1] == 0
        assert [t.get_text() for t in ax.texts][:2] == ["3", "3"]
        assert ax.get_yticklabels()[0].get_text() == "0 (fixed)"
    bars = [ax for ax in fig.axes if ax.get_ylabel() == "share of the optimal maps"]
    assert len(bars) == 1
    html = a._repr_html_()
    assert "share of all optimal maps" in html and "rgba(31,119,180,0.33)" in html and "rgba(31,119,180,1.00)" in html


def test_the_count_command_draws_its_plot(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    path = tmp_path / "count.png"
    assert main(CONCON + ["--plot", str(path)]) == 0
    assert path.read_bytes()[:4] == b"\x89PNG"
    r = rscount.count("concon-t1", params={"mode": "strict", "objects": 2, "colors": 2}, map_class="disentangled")
    fig = r.plot()
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels[:3] == ["identity", "optimal maps,\nread concepts", "free maps of 4\nunread concepts"]
    assert main(["--task", "xor3", "--plot", str(tmp_path / "x.txt")]) == 2


def test_a_task_file_is_named_as_a_task_is_everywhere(tmp_path, capsys):
    """The same spec file by path: rscount.count, --task, a spec's tasks:, --candidate-task; a shipped example by
    its name from any folder."""
    import os
    spec = tmp_path / "t.yaml"
    spec.write_text("name: mine\nconcepts: [a, b, c]\nlabels: ['a ^ b ^ c']\n")
    assert rscount.count(str(spec)).count == rscount.count("xor3").count == 24
    assert main(["--task", str(spec)]) == 0 and "optimal maps  24" in capsys.readouterr().out
    both = tmp_path / "both.yaml"
    both.write_text("tasks: [t.yaml, and3]\n")
    assert len(rscount.count(str(both)).per_task) == 2
    other = tmp_path / "c.yaml"
    other.write_text("name: other\nconcepts: [c1, c2, c3]\nlabels: ['c1 & c2']\n")
    assert main(["audit", "--task", "xor3", "--candidate-task", str(other)]) == 0
    assert "+other" in capsys.readouterr().out
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        assert rscount.load_config("mnmath-table24").name == rscount.load_config(
            rscount.examples()["mnmath-table24"]).name
        assert rscount.count("crossing-design.yaml").count == 40
    finally:
        os.chdir(here)
    with pytest.raises(rscount.TaskError, match="needs its query"):
        rscount.count("deepproblog-addition.pl")
    with pytest.raises(rscount.TaskError, match="no library task and no file"):
        rscount.count(str(tmp_path / "none.yaml"))


def test_pandas_supports_short_reprs_and_audit_memory():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"d2": [1, 3], "d1": [0, 2], "label": [1, 5]})  # columns in any order, extras aside
    assert rscount.count("mnadd-half", support=frame, map_class="shared").count == \
        rscount.count("mnadd-half", support="0,1;2,3", map_class="shared").count
    with pytest.raises(rscount.SupportError, match="no column 'd2'"):
        rscount.count("mnadd-half", support=pd.DataFrame({"d1": [0]}))
    assert repr(rscount.count("xor3")) == "<CountResult xor3 complete: 24 optimal maps (exact, automorphism)>"
    assert repr(rscount.get_task("xor3")) == "<Task xor3: 3 concepts (c1:bool, c2:bool, c3:bool); labels: y>"
    assert repr(rscount.audit("xor3", memory_mb=8000)).startswith("<Audit xor3 complete: 24 optimal maps")


def test_compare_names_every_setting_that_differs():
    a = rscount.make_problem("mnadd-half", map_class="shared")
    b = rscount.make_problem("mnadd-half", map_class="disentangled")
    shown = rscount.compare([a, b])
    assert shown.differing() == ["map_class"]
    assert str(shown).startswith("the designs differ in: map class")
    assert "class shared" in str(shown) and "class disentangled" in str(shown)


def test_rules_are_on_the_help_and_answer_concons_fits_columns(capsys):
    assert rscount.rules.count_rules is not None
    from rscount.cli import build_parser
    assert "rules ('countrss rules" in build_parser().format_help()
    g = "g={shape=sphere} & {shape=cube, size=small}"
    c = "c={color=blue} | {material=metal} | {size=large}"
    for mode, confounders in (("strict", "no"), ("disjoint", "yes")):
        assert main(["rules", "--task", "concon-t1", "--task", "concon-t2", "--task", "concon-t3", "--param",
                     f"mode={mode}", "--param", "objects=2", "--param", "colors=2", "--terms", "1",
                     "--literals", "2", "--rule", g, "--rule", c]) == 0
        out = capsys.readouterr().out
        assert "rule g fits" in out and out.split("rule g fits")[1].split("\n")[0].endswith("tasks 1..3 yes")
        assert out.split("rule c fits")[1].split("\n")[0].endswith(f"tasks 1..3 {confounders}")
    assert main(["rules", "--task", "concon-t1", "--param", "objects=2", "--rule", "g={shape=pyramid}"]) == 2
    assert "shape has no value 'pyramid'" in capsys.readouterr().err


def test_an_error_after_a_status_line_starts_its_own_line(monkeypatch):
    """The live status line is cleared before the error is printed."""
    import io

    import rscount.cli as cli

    class Tty(io.StringIO):
        def isatty(self):
            return True

    err = Tty()
    monkeypatch.setattr(cli.sys, "stderr", err)
    monkeypatch.setattr(cli.sys, "stdout", io.StringIO())
    assert cli.main(["--task", "xor6", "--backend", "ganak", "--timeout", "0.3", "--progress"]) == 3
    text = err.getvalue()
    last = text.split("\r")[-1]
    assert last.startswith("countrss: error: counting timed out"), repr(text[-300:])


def test_several_tasks_write_large_counts_in_json_as_digits(monkeypatch):
    """The sequence's counts (cumulative, forgets, survivors) go through json_int as the count does: a joint
    count of millions of digits (ConCon at 3 objects) is written by python-flint, not Python's quadratic
    int-to-text conversion, which held the command for minutes past its timeout."""
    import rscount.results.count as counts
    monkeypatch.setattr(counts, "JSON_DIGITS", 3)
    data = rscount.count(["and3", "or3"], map_class="joint").to_dict()
    written = data["cumulative"] + data["forgets"] + [data["survive_every_step"]]
    assert all(isinstance(x, str) or abs(x) < 1000 for x in written) and any(isinstance(x, str) for x in written)
    assert data["cumulative"][-1] == data["count"]
