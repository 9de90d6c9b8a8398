"""The audit's HTML report in a real browser: headless Chromium opens the file, takes a screenshot, logs no
console error, and shows the text a collaborator reads (Debian's chromium; .ci/run installs it)."""
from __future__ import annotations

import html
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import rscount
from rscount.cli import main

BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")
needs_browser = pytest.mark.skipif(BROWSER is None, reason="headless Chromium is not installed (apt install "
                                                            "chromium; .ci/run installs it)")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _browse(page: Path, tmp: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([BROWSER, *FLAGS, f"--user-data-dir={tmp / 'profile'}", "--enable-logging=stderr",
                           "--v=0", *extra, page.as_uri()], capture_output=True, text=True, timeout=120)


def _console_errors(stderr: str) -> list:
    return [line for line in stderr.splitlines() if ":CONSOLE" in line]


def _shown_text(dom: str) -> str:
    body = re.sub(r"<(style|script|svg)\b.*?</\1>", " ", dom, flags=re.S)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", body)))


@needs_browser
def test_the_console_check_sees_an_error(tmp_path):
    """The check below can fail: a page with a script error is caught."""
    bad = tmp_path / "bad.html"
    bad.write_text("<html><body><p>x</p><script>missing_function();</script></body></html>")
    assert any("missing_function" in line for line in _console_errors(_browse(bad, tmp_path, "--dump-dom").stderr))


@needs_browser
def test_the_audit_report_opens_in_a_browser_and_shows_the_design(tmp_path, capsys):
    page = tmp_path / "report.html"
    args = ["audit", "--task", "concon-t1", "--task", "concon-t2", "--param", "mode=disjoint", "--param",
            "objects=2", "--map-class", "shared", "--html", str(page)]
    assert main(args) == 0
    capsys.readouterr()
    source = page.read_text()
    assert not re.search(r"""(src|href|url)\s*[=(]\s*["']?(https?:|//)""", source)  # self-contained: no request
    dom = _browse(page, tmp_path, "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert _console_errors(dom.stderr) == []
    text = _shown_text(dom.stdout)
    for shown in ("rscount audit: concon-disjoint-t1-2x3x8x2x2 + concon-disjoint-t2-2x3x8x2x2",
                  "optimal maps: 4 (on the concepts the labels read)",
                  "unread: 4 concepts no label reads (color1, material1, color2, material2)",
                  "identifiable: size1, size2", "What a model may confuse", "shape1 (rows true, columns predicted)",
                  "supervise values", "--supervise shape1=sphere -> count 2"):
        assert shown in text, shown
    assert "color1 (rows true" not in text  # unread concepts are named, not drawn
    shot = tmp_path / "report.png"
    taken = _browse(page, tmp_path, f"--screenshot={shot}", "--window-size=1200,1800")
    assert taken.returncode == 0 and shot.read_bytes()[:4] == b"\x89PNG" and shot.stat().st_size > 20_000
    assert _console_errors(taken.stderr) == []


def test_the_report_is_one_file_with_its_figures_inline(tmp_path):
    pytest.importorskip("matplotlib")
    a = rscount.audit("mnadd-half", map_class="shared", curve=True, sizes=[2, 8], seeds=[0, 1], workers=1)
    page = a.to_html(tmp_path / "a.html")
    assert page == (tmp_path / "a.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and page.count("<svg") == 1 and "<img" not in page
    assert "How much data" in page and "rgba(31,119,180,0.33)" in page
    with pytest.raises(rscount.errors.RscountError):
        a.to_html(tmp_path / "a.txt")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.html"]
    both = rscount.compare(["mnadd-half", "xor3"], map_class="shared").to_html()
    assert "design 1: mnadd-half" in both and "design 2: xor3" in both
