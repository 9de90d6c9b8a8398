"""Whole-command limits: a time limit and a memory limit that hold for any work, checked or not.

The counters check their own deadlines and run native solvers in child
processes under the limits; these are the backstop around a whole command
(count, audit, train), so a step that checks no deadline (a long pure-Python
loop, a training epoch) still ends at the limit with the library's error.
"""
from __future__ import annotations

import contextlib
import errno
import resource
import signal
import threading

from .errors import BackendError, CountTimeout

__all__ = ["time_limit", "memory_limit", "GRACE"]

GRACE = 2.0  # seconds past the limit before the backstop fires: the counters' own deadlines answer first


@contextlib.contextmanager
def time_limit(seconds: float | None, what: str = "the command", advice: str = "raise timeout="):
    """Raise CountTimeout in this (main) thread ``seconds`` + GRACE from now; no-op without a limit or off the
    main thread (signals reach only it)."""
    if seconds is None or threading.current_thread() is not threading.main_thread():
        yield
        return

    def fire(signum, frame):
        raise CountTimeout(f"{what} timed out after {seconds:g} s; {advice}")

    previous = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds + GRACE)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@contextlib.contextmanager
def memory_limit(mb: int | None, what: str = "the command"):
    """Cap this process's address space at ``mb`` MB (child processes inherit it); running out raises
    BackendError naming the limit. The previous limit is restored after."""
    if mb is None:
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = int(mb) * 1024 * 1024
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        yield
    except (MemoryError, ImportError, OSError) as exc:
        if not isinstance(exc, MemoryError) and not _out_of_memory(exc):
            raise
        raise BackendError(f"{what} ran out of memory (limit {mb} MB); raise memory_mb=") from None
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _out_of_memory(exc: BaseException) -> bool:
    """An OSError or ImportError that means the address space ran out (a library could not be mapped)."""
    text = str(exc).lower()
    return getattr(exc, "errno", None) == errno.ENOMEM or "cannot allocate memory" in text or "failed to map" in text
