"""Children end with their parent: SIGTERM, SIGHUP, Ctrl-C and even SIGKILL leave no solver or worker behind, and
a time limit holds. These read the real process table (/proc), never mocks; they start real commands, so they are
in the slow tier."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")]


def _group(pgid: int) -> list:
    """Pids of the live (not zombie) processes of process group ``pgid``."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[2]) == pgid and fields[0] != "Z":
            out.append(int(entry.name))
    return out


def _ctrl_c_reaches_it() -> None:
    """Let Ctrl-C reach the child even when this run ignores SIGINT (a shell's background job does, and Python
    keeps an ignored SIGINT ignored: the child would finish as if no Ctrl-C came)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start(*args: str) -> subprocess.Popen:
    """``countrss ARGS`` in a session of its own: its process group holds it and every child it starts."""
    return subprocess.Popen([sys.executable, "-m", "rscount.cli", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True, preexec_fn=_ctrl_c_reaches_it)


def _wait_for_children(proc: subprocess.Popen, at_least: int = 2, seconds: float = 60.0) -> None:
    end = time.monotonic() + seconds
    while len(_group(proc.pid)) < at_least:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < end, "no child process started"
        time.sleep(0.05)


def _gone(pgid: int, seconds: float = 10.0) -> list:
    end = time.monotonic() + seconds
    while _group(pgid) and time.monotonic() < end:
        time.sleep(0.05)
    return _group(pgid)


def _cleanup(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


@pytest.mark.parametrize("sig, status", [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_a_termination_signal_ends_the_solver_too(sig, status):
    proc = _start("--task", "xor6", "--backend", "ganak")
    try:
        _wait_for_children(proc)
        os.kill(proc.pid, sig)  # the parent alone, as a scheduler's kill does
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == status, err
        assert "Traceback" not in err and err.count("\n") == 1 and "terminated" in err
        assert _gone(proc.pid) == []
    finally:
        _cleanup(proc)


def test_a_killed_parent_takes_its_solver_with_it():
    proc = _start("--task", "xor6", "--backend", "ganak")
    try:
        _wait_for_children(proc)
        os.kill(proc.pid, signal.SIGKILL)  # no handler runs: the kernel ends the child (parent-death signal)
        proc.wait(timeout=30)
        assert _gone(proc.pid) == []
    finally:
        _cleanup(proc)


def test_ctrl_c_during_a_parallel_curve_ends_every_worker():
    proc = _start("audit", "--task", "mnlogic-random", "--param", "k=10", "--param", "m=8", "--curve",
                  "--sizes", "64,128,256,512", "--seeds", "0,1,2,3,4,5,6,7", "--workers", "2", "--timeout", "600")
    try:
        _wait_for_children(proc, at_least=3)
        os.killpg(proc.pid, signal.SIGINT)  # a terminal's Ctrl-C reaches the whole foreground group
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == 130, err
        assert _gone(proc.pid) == []
    finally:
        _cleanup(proc)


def test_sigterm_during_parallel_training_ends_every_worker():
    pytest.importorskip("torch")
    proc = _start("train", "--task", "xor3", "--seeds", "0,1,2,3", "--workers", "2", "--epochs", "1000",
                  "--n-train", "256", "--n-val", "64", "--n-test", "64")
    try:
        _wait_for_children(proc, at_least=3, seconds=120)
        os.kill(proc.pid, signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
        assert proc.returncode == 143, err
        assert _gone(proc.pid) == []
    finally:
        _cleanup(proc)


def test_the_audit_holds_its_time_limit():
    """A time-out inside a step the audit would skip cannot be swallowed: the whole audit ends at its limit."""
    proc = _start("audit", "--task", "kand-logic", "--support", "by-label:100", "--map-class", "complete",
                  "--timeout", "5")  # (disentangled now audits in under 5 s: its maps come from the group)
    try:
        out, err = proc.communicate(timeout=60)  # before the fix it ran about 100 s
        assert proc.returncode == 3 and err.count("\n") == 1, err  # its count's share, or the whole limit:
        assert re.match(r"countrss: error: the audit of kand-logic (stopped after [0-5] s|.*timed out after 5 s)",
                        err), err
        assert _gone(proc.pid) == []
    finally:
        _cleanup(proc)
