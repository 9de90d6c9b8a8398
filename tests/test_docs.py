"""The docs that are generated from the library cannot drift from it."""
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_tasks_page_is_what_the_library_says():
    from benchmarks.tasks_table import render
    assert (ROOT / "docs" / "tasks.md").read_text() == render(), \
        "docs/tasks.md is stale: python -m benchmarks.tasks_table > docs/tasks.md"


def test_readme_and_guide_lines_stay_readable():
    for page in ("README.md", "docs/guide.md"):
        long = [n for n, line in enumerate((ROOT / page).read_text().splitlines(), 1)
                if len(line) > 110 and not line.startswith("|") and "http" not in line]
        assert not long, f"{page}: lines {long[:5]} are over 110 characters"


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
