"""Child processes that end with their parent, on every way out.

Solvers run in forked children and sweeps of counts or training seeds in
process pools. A child asks the kernel to kill it when its parent dies (even
by SIGKILL), and a pool left by an error, a time-out, Ctrl-C or SIGTERM kills
its workers at once instead of waiting for their work to finish.
"""
from __future__ import annotations

import contextlib
import ctypes
import multiprocessing as mp
import os
import signal
from concurrent.futures import ProcessPoolExecutor

__all__ = ["die_with_parent", "process_pool", "allow_children"]

_PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int | None = None) -> None:
    """Have the kernel send SIGKILL to this process when the thread that forked it ends (Linux; elsewhere a
    no-op). ``parent`` is the pid it was forked from: if that is gone already, exit now."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        return
    if parent is not None and os.getppid() != parent:
        os._exit(1)


def _init_worker(parent: int, initializer, initargs) -> None:
    die_with_parent(parent)
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):  # the parent decides when workers end
        signal.signal(s, signal.SIG_DFL if s != signal.SIGINT else signal.SIG_IGN)
    if initializer is not None:
        initializer(*initargs)


@contextlib.contextmanager
def process_pool(workers: int, initializer=None, initargs: tuple = ()):
    """A forked ``ProcessPoolExecutor`` whose workers die with this process and are killed, not awaited, when
    the block is left by an exception (Ctrl-C, SIGTERM, a time-out)."""
    pool = ProcessPoolExecutor(workers, mp_context=mp.get_context("fork"), initializer=_init_worker,
                               initargs=(os.getpid(), initializer, initargs))
    try:
        yield pool
    except BaseException:
        _kill(pool)
        raise
    else:
        pool.shutdown(wait=True)


def _kill(pool: ProcessPoolExecutor) -> None:
    processes = list((getattr(pool, "_processes", None) or {}).values())
    for proc in processes:
        with contextlib.suppress(Exception):
            proc.kill()
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in processes:
        with contextlib.suppress(Exception):
            proc.join(timeout=2)


def allow_children() -> None:
    """Let this process start children even if it is a daemonic worker (Dask's default): multiprocessing forbids
    that to avoid orphans, and the children here die with their parent anyway (:func:`die_with_parent`)."""
    config = getattr(mp.current_process(), "_config", None)
    if isinstance(config, dict):
        config["daemon"] = False
