"""Dask, the one engine for parallel work: sweeps, the audit's data curve and training seeds.

A client on a LocalCluster of single-threaded worker processes (torch, numpy
and BLAS pinned to one thread each) or on an existing cluster by address.
Tasks carry explicit keys, results are taken as they finish, and leaving the
block early (Ctrl-C, SIGTERM, an error) cancels what is left and closes the
local cluster; its workers end with it. Dask is the ``sweep`` extra: nothing
here is imported by a single count. The counter race keeps its own processes,
since it must kill the losers.
"""
from __future__ import annotations

import contextlib
import importlib.util
import itertools
import os
import re
import warnings
from typing import Callable, Iterable, Optional

from ..errors import BackendError, brief

__all__ = ["have_dask", "require_dask", "client", "map_tasks", "ALLOWED_FAILURES"]

ALLOWED_FAILURES = 2  # a task whose worker dies is tried again this many times before it counts as lost
START_METHOD = "fork"  # how the local cluster starts its worker processes (see client())
QUICK_CLOSE = 10.0  # seconds the client and the cluster each get to close after Ctrl-C, SIGTERM or an error
_RUNS = itertools.count()


def have_dask() -> bool:
    """Whether the ``sweep`` extra (Dask distributed) is installed."""
    return importlib.util.find_spec("distributed") is not None


def require_dask(what: str = "parallel work") -> tuple:
    """(dask, distributed), or BackendError naming the extra that installs them."""
    try:
        import dask
        import distributed
    except ImportError as exc:
        raise BackendError(f"{what} runs on Dask ({exc.name} is missing): pip install 'rscount[sweep]'") from None
    return dask, distributed


@contextlib.contextmanager
def client(workers: int | None = None, scheduler: str | None = None, *, dashboard: bool = False,
           what: str = "parallel work"):
    """A Dask client: on the cluster at ``scheduler``, or on a LocalCluster of ``workers`` single-threaded worker
    processes (default: one per core) that is closed when the block ends; ``dashboard`` serves Dask's dashboard
    on a free port (it needs bokeh)."""
    dask, distributed = require_dask(what)
    settings = {"distributed.scheduler.allowed-failures": ALLOWED_FAILURES, "distributed.worker.daemon": False,
                "distributed.admin.system-monitor.gil.enabled": False}
    with dask.config.set(settings):
        if scheduler is not None:
            if not isinstance(scheduler, str) or not re.fullmatch(r"([a-z]+://)?[^\s:/]+:[0-9]{1,5}", scheduler):
                raise BackendError(f"scheduler={brief(scheduler, 40)} is not a Dask scheduler address; give "
                                   f"HOST:PORT or tcp://HOST:PORT (e.g. tcp://127.0.0.1:8786)")
            try:
                c = distributed.Client(scheduler, timeout="20s")
            except (OSError, TimeoutError, ValueError) as exc:
                raise BackendError(f"cannot reach the Dask scheduler at {scheduler!r}: {exc}") from None
            try:
                yield c
            finally:
                c.close()
            return
        if dashboard:
            if importlib.util.find_spec("bokeh") is None:
                raise BackendError("Dask's dashboard needs bokeh: pip install 'bokeh>=3.1'")
        n = workers or os.cpu_count() or 1
        env = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
        # Forked workers start in a fraction of a second with rscount (and torch) already imported, and never
        # re-run the caller's script as spawned ones do (a script without a __main__ guard would recurse).
        with dask.config.set({"distributed.worker.multiprocessing-method": START_METHOD}), _quiet_children():
            before = _children()
            try:
                with warnings.catch_warnings():
                    warnings.filterwarnings("ignore", message=".*fork.*", category=DeprecationWarning)
                    cluster = distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True, env=env,
                                                       dashboard_address=":0" if dashboard else None,
                                                       silence_logs=50)
            except BaseException:  # SIGTERM or Ctrl-C while the cluster starts: its workers end now
                _kill_new_children(before)
                _forget_clusters()
                raise
            try:
                c = distributed.Client(cluster)
            except BaseException:
                _end(None, cluster, before, QUICK_CLOSE)
                raise
            try:
                yield c
            except BaseException:  # Ctrl-C, SIGTERM, an error: end the workers now, not after their task
                _kill_workers(cluster)
                _end(c, cluster, before, QUICK_CLOSE)
                raise
            _end(c, cluster, None, None)


@contextlib.contextmanager
def _quiet_children():
    """Dask's loggers at CRITICAL while the cluster lives, so forked workers inherit it and write no log line:
    a thread of ours (the scheduler's) may hold stderr's buffer lock at the fork, and a child writing to that
    stream then waits on it forever (seen as a worker hanging in its first log line, the cluster never up)."""
    import logging
    loggers = [logging.getLogger(name) for name in ("distributed", "tornado", "bokeh")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for lg, level in zip(loggers, levels):
            lg.setLevel(level)


def _children() -> set:
    """Pids of this process's live children (Linux /proc; empty elsewhere)."""
    me, out = os.getpid(), set()
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else ():
        if entry.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                if int(fields[1]) == me and fields[0] != "Z":
                    out.add(int(entry))
    return out


def _forget_clusters(cluster=None) -> None:
    """Drop ``cluster`` (default: every half-started one) from Dask's exit hook, which would wait on their dead
    workers."""
    with contextlib.suppress(Exception):
        from distributed.deploy.spec import SpecCluster
        if cluster is None:
            SpecCluster._instances.clear()
        else:
            SpecCluster._instances.discard(cluster)


def _end(c, cluster, before: set | None, timeout: float | None) -> None:
    """Close the client and the local cluster (within ``timeout`` seconds each, when given); after a stop
    (``before``: the children we had before the cluster) SIGKILL any child still alive, since a nanny may have
    restarted a worker we killed and a worker left behind holds the interpreter's exit (multiprocessing joins
    its children there)."""
    if timeout is None:
        if c is not None:
            c.close()
        cluster.close()
        return
    for closer in ((c.close,) if c is not None else ()) + (cluster.close,):
        with contextlib.suppress(Exception):
            closer(timeout=timeout)
    _kill_new_children(before or set())
    _forget_clusters(cluster)


def _kill_new_children(before: set) -> None:
    """SIGKILL this process's children that were not among ``before``."""
    for pid in _children() - before:
        with contextlib.suppress(OSError):
            os.kill(pid, 9)


def _kill_workers(cluster) -> None:
    """SIGKILL every worker process of a LocalCluster (a graceful close waits for the running tasks)."""
    import signal
    for nanny in list(getattr(cluster, "workers", {}).values()):
        proc = getattr(getattr(nanny, "process", None), "process", None)
        pid = getattr(proc, "pid", None)
        if pid:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


def map_tasks(fn: Callable, items: Iterable, *, shared=None, workers: int | None = None,
              scheduler: str | None = None, name: str = "rscount",
              done: Optional[Callable[[int, int], None]] = None) -> list:
    """``[fn(shared, item) for item in items]`` on Dask, in the items' order; ``shared`` (a problem, say) is
    sent to every worker once. ``done(finished, total)`` is called as results arrive. A task's exception is
    raised here; a task whose worker keeps dying raises BackendError."""
    items = list(items)
    _, distributed = require_dask(name)
    run = f"{name}-{os.getpid()}-{next(_RUNS)}"
    out: dict = {}
    with client(workers, scheduler) as c:
        held = c.scatter(shared, broadcast=True, hash=False) if shared is not None else None
        futures = {c.submit(fn, held, item, key=f"{run}-{n}", pure=False): n for n, item in enumerate(items)}
        try:
            for future in distributed.as_completed(futures):
                try:
                    out[futures[future]] = future.result()
                except distributed.KilledWorker:
                    raise BackendError(f"a worker running {name} died {ALLOWED_FAILURES + 1} times; "
                                       f"run with fewer workers or more memory") from None
                if done is not None:
                    done(len(out), len(items))
        finally:
            if len(out) < len(items):
                c.cancel(list(futures), force=True)
    return [out[n] for n in range(len(items))]
