"""Child processes that end with their parent, on every way out.

Solvers run in forked children. A child asks the kernel to kill it when its
parent dies (even by SIGKILL). Parallel work (sweeps, the data curve, training
seeds) runs on Dask (:mod:`rscount.runtime.cluster`), whose workers end with it.
"""
from __future__ import annotations

import ctypes
import multiprocessing as mp
import os
import signal

__all__ = ["die_with_parent", "allow_children"]

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


def allow_children() -> None:
    """Let this process start children even if it is a daemonic worker (Dask's default): multiprocessing forbids
    that to avoid orphans, and the children here die with their parent anyway (:func:`die_with_parent`)."""
    config = getattr(mp.current_process(), "_config", None)
    if isinstance(config, dict):
        config["daemon"] = False
