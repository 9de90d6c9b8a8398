"""Whole-command limits and endings: a time limit, a memory limit, and termination signals.

The counters check their own deadlines and run native solvers in child
processes under the limits; these are the backstop around a whole command
(count, audit, train), so a step that checks no deadline (a long pure-Python
loop, a training epoch) still ends at the limit with the library's error.

The backstop fires as :class:`Expired`, a ``BaseException``: a step that
catches the library's errors to carry on (an audit that skips a fix it cannot
count in time) cannot swallow it; :func:`time_limit` turns it into
:class:`~rscount.errors.CountTimeout` where the limit was set.
"""
from __future__ import annotations

import contextlib
import errno
import gc
import math
import resource
import signal
import threading
import time

import numpy as np

from ..errors import BackendError, CountTimeout, OptionError

__all__ = ["time_limit", "memory_limit", "check_seconds", "check_megabytes", "terminating", "Terminated", "Expired",
           "GRACE"]

GRACE = 1.0  # seconds past the limit before the backstop fires: the counters' own deadlines answer first
REPEAT = 0.5  # the backstop fires again this often until the limit's block is left
MAX_SECONDS = 1e7  # about 115 days: longer limits are no limit a timer can hold


class Expired(BaseException):
    """The whole-command time limit ran out (raised by the signal handler; not an ``Exception``)."""


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP arrived: unwind like Ctrl-C, so every ``finally`` ends its child processes."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def check_seconds(seconds, what: str = "timeout=") -> float | None:
    """``seconds`` as a positive finite float (None stays None); anything else raises a clear error."""
    if seconds is None:
        return None
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
        raise TypeError(f"{what} must be a number of seconds, not {type(seconds).__name__} {seconds!r:.40}")
    if not (math.isfinite(seconds) and 0 < seconds <= MAX_SECONDS):
        raise OptionError(f"{what} must be a positive number of seconds up to {MAX_SECONDS:g}, got {seconds!r}; "
                           f"leave it out for no limit")
    return float(seconds)


MAX_SEED = (1 << 63) - 1


def check_seed(seed, what: str = "seed=") -> int:
    """``seed`` as a whole number from 0 to 2^63 - 1: a negative seed would draw what its absolute value draws."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"{what} must be a whole number, not {type(seed).__name__} {seed!r:.40}")
    if not 0 <= seed <= MAX_SEED:
        raise OptionError(f"{what} must be a whole number from 0 to 2^63 - 1, got {seed}")
    return int(seed)


def check_confidence(epsilon, delta) -> tuple:
    """(epsilon, delta) of an (epsilon, delta) estimate: epsilon > 0 and finite, delta in (0, 1)."""
    for name, v in (("epsilon=", epsilon), ("delta=", delta)):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise TypeError(f"{name} must be a number, not {type(v).__name__} {v!r:.40}")
    if not (0 < epsilon < math.inf and 0 < delta < 1):
        raise OptionError(f"epsilon= must be > 0 and delta= in (0, 1), got {epsilon:g} and {delta:g}")
    return float(epsilon), float(delta)


def check_megabytes(mb, what: str = "memory_mb=") -> int | None:
    """``mb`` as a positive whole number of MB that this platform can set as a limit (None stays None)."""
    if mb is None:
        return None
    if isinstance(mb, bool) or not isinstance(mb, int):
        raise TypeError(f"{what} must be a whole number of MB, not {type(mb).__name__} {mb!r:.40}")
    most = (1 << 63) // (1024 * 1024) - 1
    if not 0 < mb <= most:
        raise OptionError(f"{what} must be a positive number of MB up to {most:,}, got {mb}")
    return mb


@contextlib.contextmanager
def time_limit(seconds: float | None, what: str = "the command", advice: str = "raise timeout=",
               shown: float | None = None):
    """Raise CountTimeout in this (main) thread ``seconds`` + GRACE from now; no-op without a limit or off the
    main thread (signals reach only it). Blocks nest: the inner one restores the outer's timer. ``shown``: the
    limit the message names (the user's, where ``seconds`` is what is left of it)."""
    seconds = check_seconds(seconds)
    if seconds is None or threading.current_thread() is not threading.main_thread():
        yield
        return
    outer_left, _ = signal.getitimer(signal.ITIMER_REAL)
    start = time.monotonic()
    token = Expired(what)

    def fire(signum, frame):
        if _in_gc_callback(frame):  # an exception raised there is printed and dropped: fire again just after
            signal.setitimer(signal.ITIMER_REAL, 0.01, REPEAT)
            return
        raise token

    first = seconds + GRACE
    owns = not (outer_left and outer_left < first)  # else the outer limit comes first and keeps its timer
    if owns:
        previous = signal.signal(signal.SIGALRM, fire)
        signal.setitimer(signal.ITIMER_REAL, first, REPEAT)
    try:
        yield
    except Expired as exc:
        if exc is not token:
            raise
        raise CountTimeout(f"{what} timed out after {shown or seconds:g} s; {advice}") from None
    finally:
        if owns:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
            if outer_left:
                signal.setitimer(signal.ITIMER_REAL, max(outer_left - (time.monotonic() - start), 1e-3), REPEAT)


WEAKREF_FILES = ("weakref.py", "_weakrefset.py")  # where weak references' callbacks run


def _in_gc_callback(frame, depth: int = 64) -> bool:
    """Whether the signal arrived where Python prints and drops exceptions: a garbage-collector callback (a
    profiler's, hypothesis's), a weak reference's callback or a ``__del__``."""
    codes = {getattr(cb, "__code__", None) for cb in gc.callbacks}
    while frame is not None and depth:
        code = frame.f_code
        if code in codes or code.co_name == "__del__" or code.co_filename.endswith(WEAKREF_FILES):
            return True
        frame, depth = frame.f_back, depth - 1
    return False


@contextlib.contextmanager
def memory_limit(mb: int | None, what: str = "the command"):
    """Cap this process's address space at ``mb`` MB (child processes inherit it); running out raises
    BackendError naming the limit. The previous limit is restored after."""
    mb = check_megabytes(mb)
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


ENDING = (signal.SIGTERM, signal.SIGHUP)


@contextlib.contextmanager
def terminating():
    """Turn SIGTERM and SIGHUP into :class:`Terminated` in the main thread for the block, so that a scheduler's
    kill unwinds the command as Ctrl-C does: every ``finally`` runs and kills its children. A second signal
    while unwinding is ignored, so the cleanup itself is not cut short."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def end(signum, frame):
        for s in ENDING:
            signal.signal(s, signal.SIG_IGN)
        raise Terminated(signum)

    previous = {s: signal.signal(s, end) for s in ENDING}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
