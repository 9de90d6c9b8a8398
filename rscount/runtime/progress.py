"""One progress display per command: every source (racing counters, the encoder, training seeds) reports to it.

On a terminal it is a single tqdm line that shows the elapsed time and each
source's latest message side by side, refreshed every second and cleared when
the command ends. Elsewhere (a log file, a pipe) ``--progress`` prints each
message as a line; without it a line every HEARTBEAT seconds says the command
is still working and what it last reported, so a long job is never silent.
Child processes never write to it: the parent thread that waits on a child
reports for it, so racing workers cannot overwrite one another.
"""
from __future__ import annotations

import sys
import threading
import time
from typing import TextIO

__all__ = ["Display", "display", "HEARTBEAT"]

HEARTBEAT = 15.0  # seconds between the status lines of a command whose stderr is not a terminal
HINT_AFTER = 60.0  # seconds after which a display with a hint shows it (how to bound a command that runs long)
MODES = ("live", "lines", "heartbeat")


class Display:
    """A callable taking ``"source: message"``; keeps the latest message per source (``"source: "``, nothing after
    it, says the source is done: its message goes)."""

    def __init__(self, prog: str, stream: TextIO | None = None, live: bool | None = None,
                 mode: str | None = None, every: float | None = None, hint: str | None = None,
                 hint_after: float | None = None):
        self.prog, self.stream = prog, stream or sys.stderr
        every = HEARTBEAT if every is None else every
        self.hint, self._hinted = hint, False
        self.hint_after = HINT_AFTER if hint_after is None else hint_after
        live = self.stream.isatty() if live is None else live
        self.mode = mode or ("live" if live else "lines")
        self.live = self.mode == "live"
        self.began = time.monotonic()
        self._lock = threading.Lock()
        self._latest: dict = {}
        self._bar = None
        self._done = threading.Event()
        if self.live:
            from tqdm import tqdm
            self._bar = tqdm(file=self.stream, bar_format="{desc}", leave=False, dynamic_ncols=True)
        if self.mode != "lines":
            threading.Thread(target=self._tick, args=(1.0 if self.live else every,), daemon=True,
                             name=f"{prog}-status").start()

    def elapsed(self) -> str:
        return f"{time.monotonic() - self.began:.0f} s"

    def _shown(self) -> str:
        text = " | ".join(f"{s}: {m}" if s else m for s, m in self._latest.items())
        if self.live and self._hint_due():
            text += f" ({self.hint})"
        return text

    def _hint_due(self) -> bool:
        return self.hint is not None and time.monotonic() - self.began >= self.hint_after

    def __call__(self, message: str) -> None:
        source, sep, rest = message.partition(": ")
        if not sep:
            source, rest = "", message
        with self._lock:
            if sep and not rest.strip():
                self._latest.pop(source, None)
                self._draw()
                return
            if self.mode == "lines":
                print(f"{self.prog}: [{self.elapsed()}] {message}", file=self.stream, flush=True)
                return
            self._latest.pop(source, None)
            self._latest[source] = rest  # the newest source last
            self._draw()

    def _draw(self) -> None:
        if self._bar is not None:
            self._bar.set_description_str(f"{self.prog}: [{self.elapsed()}] {self._shown()}", refresh=True)

    def _tick(self, every: float) -> None:
        while not self._done.wait(every):
            with self._lock:
                if self._done.is_set():
                    return
                if self.live:
                    self._draw()
                else:
                    latest = self._shown()
                    print(f"{self.prog}: still working after {self.elapsed()}"
                          + (f" ({latest})" if latest else ""), file=self.stream, flush=True)
                    if self._hint_due() and not self._hinted:
                        self._hinted = True
                        print(f"{self.prog}: {self.hint}", file=self.stream, flush=True)

    def close(self) -> None:
        with self._lock:
            self._done.set()
            if self._bar is not None:
                self._bar.close()
                self._bar = None

    def __enter__(self) -> "Display":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def display(prog: str, wanted: bool, stream: TextIO | None = None, quiet: bool = False,
            hint: str | None = None) -> Display | None:
    """The command's display: live on a terminal, a line per message where ``wanted`` (``--progress``) off one,
    else a heartbeat line now and then; None under ``quiet``. ``hint``: said once past HINT_AFTER seconds."""
    if quiet:
        return None
    stream = stream or sys.stderr
    if stream.isatty():
        return Display(prog, stream, mode="live", hint=hint)
    return Display(prog, stream, mode="lines" if wanted else "heartbeat", hint=hint)
