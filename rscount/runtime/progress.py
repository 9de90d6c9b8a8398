"""One progress display per command: every source (racing counters, the encoder, training seeds) reports to it.

On a terminal it is a single tqdm line that shows each source's latest
message side by side and is cleared when the command ends; elsewhere (a log
file, a pipe) each message is one line. Child processes never write to it:
the parent thread that waits on a child reports for it, so racing workers
cannot overwrite one another.
"""
from __future__ import annotations

import sys
import threading
from typing import TextIO

__all__ = ["Display", "display"]


class Display:
    """A callable taking ``"source: message"``; keeps the latest message per source."""

    def __init__(self, prog: str, stream: TextIO | None = None, live: bool | None = None):
        self.prog, self.stream = prog, stream or sys.stderr
        self.live = self.stream.isatty() if live is None else live
        self._lock = threading.Lock()
        self._latest: dict = {}
        self._bar = None
        if self.live:
            from tqdm import tqdm
            self._bar = tqdm(file=self.stream, bar_format="{desc}", leave=False, dynamic_ncols=True)

    def __call__(self, message: str) -> None:
        source, sep, rest = message.partition(": ")
        if not sep:
            source, rest = "", message
        with self._lock:
            if self._bar is None:
                print(f"{self.prog}: {message}", file=self.stream, flush=True)
                return
            self._latest.pop(source, None)
            self._latest[source] = rest  # the newest source last
            shown = " | ".join(f"{s}: {m}" if s else m for s, m in self._latest.items())
            self._bar.set_description_str(f"{self.prog}: {shown}", refresh=True)

    def close(self) -> None:
        with self._lock:
            if self._bar is not None:
                self._bar.close()
                self._bar = None

    def __enter__(self) -> "Display":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def display(prog: str, wanted: bool, stream: TextIO | None = None) -> Display | None:
    """The command's display when ``wanted`` (else None: no status at all)."""
    return Display(prog, stream) if wanted else None
