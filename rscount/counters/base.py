"""The contract every counter follows, and a child-process runner for limits.

A counter takes a :class:`~rscount.problems.problem.Problem` (and its CNF encoding
when ``needs_cnf``) and returns a :class:`~rscount.results.count.Tally`. Native
solvers run in a forked child so a time-out, a memory limit or Ctrl-C ends
them cleanly instead of hanging the caller.
"""
from __future__ import annotations

import multiprocessing as mp
import os
import queue
import resource
import sys
import threading
import time
import traceback
from dataclasses import dataclass
from multiprocessing.connection import wait
from typing import Callable, Iterable, Optional

from ..errors import BackendError, CountTimeout
from ..results.count import Tally
from ..runtime.children import die_with_parent

__all__ = ["Options", "Counter", "run_isolated", "briefly", "small_first", "Deadline", "missing", "race", "Cancelled", "Lit",
           "Clause"]

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
    cancel: Optional[threading.Event] = None  # set when another backend of a race has answered

    def deadline(self, backend: str, advice: str = "raise timeout= or try approx=True") -> "Deadline":
        """A :class:`Deadline` for this call's time limit and cancellation."""
        return Deadline(self.timeout, backend, advice, self.cancel)


class Counter:
    """The base of every counter: a subclass gives its name, what it takes and its own counting, nothing else.

    ``needs_cnf`` counters get the problem's CNF encoding; the others get None.
    ``scope`` says what the counter takes (the error when :meth:`applies` is
    False, and the reason :meth:`require` gives).
    """

    name: str = ""
    exact: bool = True
    needs_cnf: bool = False
    scope: str = ""
    inferences: tuple = ("knowledge",)  # the problem.inference values it counts (its CNF or its own semantics)
    several: bool = False  # whether it counts a problem of several tasks (rows that show only their task's labels)

    def unavailable(self) -> str | None:
        """Why this backend cannot run here (a missing package), or None."""
        return None

    def applies(self, problem) -> bool:
        """Whether this counter takes ``problem`` (generic counters take every problem)."""
        return True

    def require(self, problem) -> None:
        """Raise BackendError with :attr:`scope` when this counter does not take ``problem``."""
        if not self.applies(problem):
            raise BackendError(self.scope or f"{self.name} does not count this problem; name no backend")

    def count(self, problem, encoding, options: Options) -> Tally:
        """The number of optimal maps of ``problem``."""
        raise NotImplementedError

    def enumerate(self, problem, encoding, limit: int | None) -> Iterable:
        """Yield optimal maps (where the counter can list them)."""
        raise NotImplementedError(f"{self.name} does not list maps")


class Screened(Counter):
    """A counter that says why it does not take a problem (:meth:`why_not`, None where it does) and counts it
    in this process under the call's deadline (:meth:`tally`)."""

    def why_not(self, problem) -> str | None:
        raise NotImplementedError

    def tally(self, problem, deadline: "Deadline") -> Tally:
        raise NotImplementedError

    def applies(self, problem) -> bool:
        return self.why_not(problem) is None

    def count(self, problem, encoding, options: Options) -> Tally:
        why = self.why_not(problem)
        if why:
            raise BackendError(why)
        return self.tally(problem, options.deadline(self.name))


def missing(module: str, install: str) -> str | None:
    """Return why ``module`` cannot be imported (with the pip line that fixes it), or None.

    It looks the module up without loading it: choosing a backend should not
    cost the milliseconds of loading a solver that may never run.
    """
    import importlib.util
    try:
        found = importlib.util.find_spec(module) is not None
    except ImportError:  # a parent package is missing
        found = False
    return None if found else f"{module} is not installed (pip install {install})"


class Cancelled(BackendError):
    """Another backend of a race finished first."""


def _check_cancelled(backend: str, cancel: threading.Event | None) -> None:
    if cancel is not None and cancel.is_set():
        raise Cancelled(f"{backend} stopped: another backend finished first")


JOIN_SECONDS = 0.5  # how long a finished race waits for each loser to stop
REPORT_EVERY = 2.0  # seconds between a child's "counting, N s elapsed" reports


def race(entries: list, poll: float = 0.25, head_start: float = 0.0):
    """Run ``(name, fn)`` entries at once, each in a thread (their native work forks); first success wins.

    Each ``fn`` is called with a ``threading.Event`` that is set once another
    entry has answered; it passes it on (``Options.cancel``) to its deadlines
    and child processes, which stop when it is set.

    The entries after the first start ``head_start`` seconds later, or as
    soon as the first fails (not at all once it succeeds): on two cores a
    structural counter that answers in a fraction of a second should not
    share them with a generic one.
    Return ``(name, result, {loser: error})``; the others are cancelled and
    their child processes killed. If every entry fails, raise the most
    telling error (a time-out before other failures).
    """
    results: queue.Queue = queue.Queue()
    events = {name: threading.Event() for name, _ in entries}
    wake = threading.Event()  # the first entry failed, or the race is over: the others stop waiting

    def runner(name, fn, delay):
        wake.wait(delay)
        if events[name].is_set():
            results.put((name, False, Cancelled(f"{name} stopped: another backend finished first")))
            return
        try:
            results.put((name, True, fn(events[name])))
        except BaseException as exc:  # reported to the caller below
            if not delay:
                wake.set()
            results.put((name, False, exc))

    threads = [threading.Thread(target=runner, args=(name, fn, head_start if n else 0.0), daemon=True)
               for n, (name, fn) in enumerate(entries)]
    for t in threads:
        t.start()
    errors: dict = {}
    try:
        while len(errors) < len(entries):
            try:
                name, ok, value = results.get(timeout=poll)
            except queue.Empty:
                continue
            if ok:
                return name, value, errors
            errors[name] = value
    finally:
        for event in events.values():
            event.set()
        wake.set()
        for t in threads:  # a loser busy in a step that checks no deadline is left behind (daemon threads)
            t.join(timeout=JOIN_SECONDS)
    timeouts = [e for e in errors.values() if isinstance(e, CountTimeout)]
    if timeouts or len(errors) == 1 or not all(isinstance(e, BackendError) for e in errors.values()):
        raise (timeouts or list(errors.values()))[-1]
    said: dict = {}  # one reason once, with every backend that gave it
    for n, e in errors.items():
        said.setdefault(str(e), []).append(n)
    raise BackendError("no backend finished: " + "; ".join(f"{' and '.join(names)} gave up ({why})"
                                                           for why, names in said.items()))


class Deadline:
    """Cheap time checks for pure-Python loops (which also stop when ``cancel`` is set: a race is lost)."""

    def __init__(self, seconds: float | None, backend: str, advice: str = "raise timeout= or try approx=True",
                 cancel: threading.Event | None = None):
        seconds = None if seconds is None else max(seconds, 0.0)  # a share already spent is none left
        self.end = None if seconds is None else time.monotonic() + seconds
        self.seconds, self.backend, self.advice, self.cancel = seconds, backend, advice, cancel

    def check(self) -> None:
        _check_cancelled(self.backend, self.cancel)
        if self.end is not None and time.monotonic() > self.end:
            raise CountTimeout(f"{self.backend} timed out after {self.seconds:.3g} s; {self.advice}")


def briefly(fn: Callable[[Deadline], object], seconds: float, backend: str, catch: tuple = (CountTimeout,)):
    """``fn(deadline)`` in this process under a short deadline; None when it raises one of ``catch``.

    Forking a child costs about 10 ms, more than counting many small
    problems: backends first try those here, and fall back to their child
    process (or to the race) when this gives up.
    """
    try:
        return fn(Deadline(seconds, backend))
    except catch:
        return None


SMALL_ROWS, SMALL_SECONDS = 256, 0.05  # supports this small are first counted in this process, this long


def small_first(fn: Callable[[Deadline], object], rows: int, backend: str, options: Options,
                advice: str = "raise timeout= or try approx=True") -> tuple:
    """(``fn(deadline)``, whether it ran in this process): on a support of at most SMALL_ROWS rows first here
    for SMALL_SECONDS (see :func:`briefly`), else, or when that gives up, in a child under the real limits."""
    if rows <= SMALL_ROWS:
        done = briefly(fn, min(SMALL_SECONDS, options.timeout or SMALL_SECONDS), backend)
        if done is not None:
            return done, True
    return run_isolated(lambda: fn(Deadline(options.timeout, backend, advice)), backend, options.timeout,
                        options.memory_mb, options.progress, options.cancel), False


def _child(conn, fn, memory_mb, parent):
    try:
        die_with_parent(parent)
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


def check_accuracy(epsilon: float, delta: float) -> None:
    """Reject an (epsilon, delta) no estimate can promise."""
    if not (0 < epsilon < float("inf") and 0 < delta < 1):
        raise BackendError(f"epsilon= must be a finite number > 0 and delta= in (0, 1), got {epsilon} and {delta}")


def _advice(backend: str, limit: str) -> str:
    """What to do after running out of a limit: approximate, unless that is what ran out."""
    if backend in ("approxmc", "estimate", "kernels-estimate"):
        return f"raise {limit} or loosen epsilon= / delta="
    return f"raise {limit} or try approx=True"


def run_isolated(fn: Callable, backend: str, timeout: float | None = None, memory_mb: int | None = None,
                 progress: Optional[Callable[[str], None]] = None, cancel: threading.Event | None = None):
    """Run ``fn()`` in a forked child under a time and memory limit; return its result. The child is killed
    when ``cancel`` is set."""
    return run_isolated_all([fn], backend, timeout, memory_mb, progress, cancel)[0]


def run_isolated_all(fns: list, backend: str, timeout: float | None = None, memory_mb: int | None = None,
                     progress: Optional[Callable[[str], None]] = None, cancel: threading.Event | None = None
                     ) -> list:
    """Run each of ``fns`` in its own forked child, side by side, under one time limit (and each under the memory
    limit: a child's address space starts as the parent's); return their results in order. The first child to
    fail ends the others."""
    ctx = mp.get_context("fork")
    sys.stdout.flush()
    sys.stderr.flush()
    running = {}
    start = time.monotonic()
    try:
        for n, fn in enumerate(fns):
            parent, child = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=_child, args=(child, fn, memory_mb, os.getpid()), daemon=True)
            proc.start()
            child.close()
            running[n] = (proc, parent)
        results, reported = {}, 0.0
        while len(results) < len(fns):
            waited = time.monotonic() - start
            step = 0.02 if timeout is None else max(0.0, min(0.02, timeout - waited))
            pending = [n for n in running if n not in results]
            wait([running[n][1] for n in pending], step)
            for n in pending:
                proc, parent = running[n]
                if parent.poll(0):
                    try:
                        status, payload = parent.recv()
                    except EOFError:
                        status, payload = "died", None
                elif not proc.is_alive():
                    status, payload = "died", None
                else:
                    continue
                if status != "ok":
                    _raise_child(backend, status, payload, proc, memory_mb)
                results[n] = payload
            _check_cancelled(backend, cancel)
            waited = time.monotonic() - start
            if len(results) < len(fns) and timeout is not None and waited >= timeout:
                raise CountTimeout(f"{backend} timed out after {timeout:.3g} s; {_advice(backend, 'timeout=')}")
            if progress is not None and waited - reported >= REPORT_EVERY:
                reported = waited
                progress(f"{backend}: counting, {waited:.0f} s elapsed")
    finally:
        for proc, parent in running.values():
            if proc.is_alive():
                proc.kill()
            proc.join()
            parent.close()
        if progress is not None and reported:
            progress(f"{backend}: ")  # done: the display drops its line (it said "counting" long after)
    return [results[n] for n in range(len(fns))]


def _raise_child(backend: str, status: str, payload, proc, memory_mb: int | None):
    """The typed error a child reported (or its death)."""
    if status == "died":
        proc.join(1.0)
    if status == "memory" or (status == "died" and memory_mb):
        limit = f" (limit {memory_mb} MB)" if memory_mb else ""
        raise BackendError(f"{backend} ran out of memory{limit}; {_advice(backend, 'memory_mb=')}")
    if status == "died":
        raise BackendError(f"{backend} crashed (exit code {proc.exitcode}); try another backend=")
    name, msg, _ = payload
    from .. import errors
    cls = getattr(errors, name, None)
    if isinstance(cls, type) and issubclass(cls, errors.RscountError):
        raise cls(msg)
    raise BackendError(f"{backend} failed: {name}: {msg}")
