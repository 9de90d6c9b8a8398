"""The docs that are generated from the library cannot drift from it."""
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_tasks_page_is_what_the_library_says():
    from benchmarks.tasks_table import render
    assert (ROOT / "docs" / "tasks.md").read_text() == render(), \
        "docs/tasks.md is stale: python -m benchmarks.tasks_table > docs/tasks.md"


def _console_blocks(page: str) -> list:
    """(command, printed lines) of each ```console block of ``page`` that shows one countrss command."""
    import re
    out = []
    for block in re.findall(r"```console\n(.*?)```", (ROOT / page).read_text(), re.S):
        lines = block.rstrip("\n").split("\n")
        if lines[0].startswith("$ countrss ") and not any(line.startswith("$") for line in lines[1:]):
            out.append((lines[0][2:], lines[1:]))
    return out


def test_readme_and_guide_lines_stay_readable():
    for page in ("README.md", "docs/guide.md"):
        printed = {line for _, lines in _console_blocks(page) for line in lines}  # verbatim output may be long
        long = [n for n, line in enumerate((ROOT / page).read_text().splitlines(), 1)
                if len(line) > 110 and not line.startswith("|") and "http" not in line and line not in printed]
        assert not long, f"{page}: lines {long[:5]} are over 110 characters"


def test_readme_shows_what_the_command_prints(capsys):
    import shlex

    from rscount.cli import main
    shown = [(cmd, lines) for cmd, lines in _console_blocks("README.md") if lines]
    assert shown, "README.md shows no command with its output"
    for cmd, lines in shown:
        assert main(shlex.split(cmd)[1:]) == 0
        printed = capsys.readouterr().out.rstrip("\n").split("\n")
        timeless = [line for line in printed if not line.startswith("time ")]
        assert timeless == [line for line in lines if not line.startswith("time ")], cmd


def test_harness_results_hold_the_fields_the_issue_names():
    import json
    data = json.loads((ROOT / "docs" / "harness" / "results.json").read_text())
    need = {"task", "model", "map_class", "count", "seeds", "fitted", "on_counted", "intended", "on_counted_ci",
            "mF1_Y"}
    for row in data["rows"]:
        assert need <= set(row), sorted(need - set(row))
        assert set(row["fitted"]) <= set(row["seeds"]) and row["on_counted"] <= len(row["fitted"])
        low, high = row["on_counted_ci"]
        assert 0 <= low <= high <= 1
    assert any("supervision" in row for row in data["rows"])


def test_every_command_shown_with_its_output_prints_it_now():
    """README.md and docs/guide.md: the output under each countrss command is what it prints (cheap: 2 s);
    python -m benchmarks.docs_numbers rewrites them."""
    from benchmarks.docs_numbers import check
    assert check() == [], "stale console blocks: python -m benchmarks.docs_numbers"


def _table(page: str) -> list:
    """The rows of the first markdown table of ``page``, as dicts of its header's columns."""
    lines = [x for x in (ROOT / page).read_text().splitlines() if x.startswith("|")]
    head = [c.strip() for c in lines[0].strip("|").split("|")]
    return [dict(zip(head, (c.strip() for c in x.strip("|").split("|")))) for x in lines[2:]]



@pytest.mark.slow
def test_audit_times_counts_are_what_counting_says_now():
    """docs/audit-times.md (written by benchmarks/audit_runs.py): each row's count is the count today."""
    import rscount
    from rscount.results.count import short_count
    rows = _table("docs/audit-times.md")
    assert rows
    for row in rows:
        shown = row["optimal maps (read concepts)"]
        if shown.startswith("error"):
            continue
        r = rscount.count(row["task"], map_class=row["class"], timeout=60)
        assert shown.split(" (")[0] == short_count(r.read_count), row  # 4.656e78 where it has 7+ digits
        if "unread" in shown:
            assert f"x {short_count(r.free_maps)} maps of {len(r.unread)} unread" in shown, row


@pytest.mark.slow
def test_harness_counts_are_what_counting_says_now():
    """docs/harness/results.json: the count each trained row is checked against is the count today."""
    import json

    import rscount
    data = json.loads((ROOT / "docs" / "harness" / "results.json").read_text())
    checked = 0
    for row in data["rows"]:
        if row.get("supervision") or "(" not in row.get("support", "") or not row["support"].startswith("task"):
            continue
        r = rscount.count(row["task"], map_class=row["map_class"], timeout=60)
        assert r.count == row["count"], (row["task"], row["model"], row["map_class"])
        checked += 1
    assert checked >= 5
