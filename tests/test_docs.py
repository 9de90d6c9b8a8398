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
