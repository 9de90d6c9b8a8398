"""Write the output shown under every ``$ countrss ...`` console block of README.md and docs/guide.md, by
running the command, so that no number printed in the docs is typed by hand.

    python -m benchmarks.docs_numbers            # rewrite the blocks (and the figures their commands draw)
    python -m benchmarks.docs_numbers --check    # exit 1, naming each block whose output differs

A block is a ```console fence whose first line is ``$ countrss`` (a trailing backslash continues the command)
and that holds one command. Lines starting ``time`` are compared without their number (a command's time
varies from run to run). tests/test_docs.py checks README.md in the default tier and every page here in the
slow tier; the tables of the other docs pages are written by their own scripts (each page names it).
"""
from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import shlex
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGES = ("README.md", "docs/guide.md")
FENCE = re.compile(r"```console\n(.*?)```", re.S)


def blocks(text: str) -> list:
    """(span of the block's body, command lines, output lines) of each one-command countrss block."""
    out = []
    for match in FENCE.finditer(text):
        lines = match.group(1).rstrip("\n").split("\n")
        n = 1
        while lines[n - 1].endswith("\\") and n < len(lines):
            n += 1
        if lines[0].startswith("$ countrss ") and not any(x.startswith("$") for x in lines[n:]):
            out.append((match.span(1), lines[:n], lines[n:]))
    return out


def command(lines: list) -> list:
    return shlex.split(" ".join(x.rstrip("\\").strip() for x in lines)[2:])[1:]


def run(argv: list) -> list:
    """What ``countrss argv`` prints on stdout, run from the repository root."""
    from rscount.cli import main
    here, buffer = os.getcwd(), io.StringIO()
    os.chdir(ROOT)
    try:
        with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(io.StringIO()):
            status = main(argv)
    finally:
        os.chdir(here)
    if status:
        raise SystemExit(f"countrss {' '.join(argv)} exited {status}")
    return buffer.getvalue().rstrip("\n").split("\n")


def timeless(lines: list) -> list:
    return [re.sub(r"^time( +)[0-9.]+ s.*$", r"time\1(varies)", x) for x in lines]


def check(pages=PAGES) -> list:
    """'page: command' for each block whose shown output differs from what the command prints now."""
    stale = []
    for page in pages:
        for _, cmd, shown in blocks((ROOT / page).read_text()):
            if shown and timeless(run(command(cmd))) != timeless(shown):
                stale.append(f"{page}: {' '.join(cmd)}")
    return stale


def rewrite(page: str) -> int:
    """Run every block's command and write its output under it; return how many blocks changed."""
    path = ROOT / page
    text = path.read_text()
    changed = 0
    for (start, end), cmd, shown in reversed(blocks(text)):
        if not shown:  # a command shown without output (a file the reader writes first): nothing to run
            continue
        printed = run(command(cmd))
        if timeless(printed) != timeless(shown):
            changed += 1
            text = text[:start] + "\n".join(cmd + printed) + "\n" + text[end:]
    path.write_text(text)
    return changed


def main(argv=None) -> int:
    args = argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_known_args(argv)[1]
    if "--check" in args:
        stale = check()
        for line in stale:
            print(f"stale: {line}", file=sys.stderr)
        return 1 if stale else 0
    for page in PAGES:
        print(f"{page}: {rewrite(page)} blocks rewritten")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
