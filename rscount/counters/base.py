"""The contract every counter follows, and a child-process runner for limits.

A counter takes a :class:`~rscount.problem.Problem` (and its CNF encoding
when ``needs_cnf``) and returns a :class:`~rscount.result.Tally`. Native
solvers run in a forked child so a time-out, a memory limit or Ctrl-C ends
them cleanly instead of hanging the caller.
"""
from __future__ import annotations

import multiprocessing as mp
import os
import resource
import sys
import time
import traceback
from dataclasses import dataclass
from typing import Callable, Iterable, Optional, Protocol

from ..errors import BackendError, CountTimeout
from ..result import Tally

__all__ = ["Options", "Counter", "run_isolated", "Deadline", "missing", "Lit", "Clause"]

Lit = int
Clause = tuple


@dataclass(frozen=True)
class Options:
    """Limits and knobs shared by every backend."""

    timeout: float | None = None
    memory_mb: int | None = None
    epsilon: float = 0.8
    delta: float = 0.2
    seed: int = 1
    progress: Optional[Callable[[str], None]] = None


class Counter(Protocol):
    name: str
    exact: bool
    needs_cnf: bool

    def unavailable(self) -> str | None:
        """Return why this backend cannot run here, or None."""

    def count(self, problem, encoding, options: Options) -> Tally:
        """Return the number of optimal maps of ``problem``."""

    def enumerate(self, problem, encoding, limit: int | None) -> Iterable:
        """Yield optimal maps (optional; raise NotImplementedError otherwise)."""


def missing(module: str, install: str) -> str | None:
    """Return why ``module`` cannot be imported (with the pip line that fixes it), or None."""
    import importlib
    try:
        importlib.import_module(module)
    except ImportError:
        return f"{module} is not installed (pip install {install})"
    return None


class Deadline:
    """Cheap time checks for pure-Python loops."""

    def __init__(self, seconds: float | None, backend: str, advice: str = "raise --timeout or try --approx"):
        self.end = None if seconds is None else time.monotonic() + seconds
        self.seconds, self.backend, self.advice = seconds, backend, advice

    def check(self) -> None:
        if self.end is not None and time.monotonic() > self.end:
            raise CountTimeout(f"{self.backend} timed out after {self.seconds:g} s; {self.advice}")


def _child(conn, fn, memory_mb):
    try:
        if memory_mb:
            limit = int(memory_mb) * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)  # native solvers print to stdout; keep ours clean
        conn.send(("ok", fn()))
    except MemoryError:
        conn.send(("memory", None))
    except BaseException as exc:  # report everything to the parent, typed
        conn.send(("error", (type(exc).__name__, str(exc), traceback.format_exc(limit=3))))
    finally:
        conn.close()


def run_isolated(fn: Callable, backend: str, timeout: float | None = None, memory_mb: int | None = None,
                 progress: Optional[Callable[[str], None]] = None):
    """Run ``fn()`` in a forked child under a time and memory limit; return its result."""
    ctx = mp.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    sys.stdout.flush()
    sys.stderr.flush()
    proc = ctx.Process(target=_child, args=(child, fn, memory_mb), daemon=True)
    start = time.monotonic()
    proc.start()
    child.close()
    try:
        while True:
            waited = time.monotonic() - start
            step = 2.0 if timeout is None else max(0.0, min(2.0, timeout - waited))
            if parent.poll(step):
                try:
                    status, payload = parent.recv()
                except EOFError:
                    status, payload = "died", None
                break
            if not proc.is_alive() and not parent.poll(0):
                status, payload = "died", None
                break
            waited = time.monotonic() - start
            if timeout is not None and waited >= timeout:
                raise CountTimeout(f"{backend} timed out after {timeout:g} s; raise --timeout or try --approx")
            if progress is not None:
                progress(f"{backend}: counting, {waited:.0f} s elapsed")
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()
        parent.close()
    if status == "ok":
        return payload
    if status == "memory" or (status == "died" and memory_mb):
        raise BackendError(f"{backend} ran out of memory (limit {memory_mb} MB); raise --memory-limit or try --approx")
    if status == "died":
        raise BackendError(f"{backend} crashed (exit code {proc.exitcode}); try another --backend")
    name, msg, _ = payload
    from .. import errors
    cls = getattr(errors, name, None)
    if isinstance(cls, type) and issubclass(cls, errors.RscountError):
        raise cls(msg)
    raise BackendError(f"{backend} failed: {name}: {msg}")
