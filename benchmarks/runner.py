"""Measure instances: each (instance, method) in its own process, with a time limit and peak memory."""
from __future__ import annotations

import gc
import json
import os
import resource
import subprocess
import sys
import time
from dataclasses import asdict

import rscount

from .suite import Instance

# method -> (backend for count_problem, approx); "rscount" is the default --exact choice.
METHODS = {
    "rscount": (None, False),
    "ganak": ("ganak", False),
    "approxmc": ("approxmc", True),
    "pyeda-reference": ("pyeda-reference", False),
}
FALLBACK = "rscount-approx"  # rscount's --approx choice, measured where --exact gives no count
METHODS[FALLBACK] = (None, True)


def measure_here(instance: Instance, method: str, timeout: float) -> dict:
    """Count ``instance`` with ``method`` in this process; return what the table needs."""
    backend, approx = METHODS[method]
    gc.collect()  # what importing left for the collector is not the count's: a full pass costs about 1 ms
    start = time.perf_counter()
    row = {"status": "ok"}
    try:
        problem = rscount.make_problem(instance.task, **instance.problem_args())
        row["make_seconds"] = time.perf_counter() - start  # the task and its support, the same in every column
        r = rscount.count_problem(problem, backend, approx=approx, timeout=timeout)
        row.update(count=str(r.count), exact=r.exact, lower=str(r.lower), upper=str(r.upper), backend=r.backend,
                   support_size=r.support_size)
    except rscount.CountTimeout:
        row["status"] = "timeout"
    except rscount.RscountError as exc:
        row.update(status="error", error=str(exc).split(";")[0][:160])
    row["seconds"] = time.perf_counter() - start
    self_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    kids_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    row["peak_mb"] = round(max(self_kb, kids_kb) / 1024, 1)
    return row


REPEAT_UNDER, REPEATS = 1.0, 3  # a measurement this quick is taken this many times, in fresh processes


def measure(instance: Instance, method: str, timeout: float) -> dict:
    """The median of REPEATS fresh-process measurements where the first took under REPEAT_UNDER seconds, else
    the one: a cold run of a few milliseconds varies about 2x from process to process."""
    first = measure_once(instance, method, timeout)
    if first.get("status") != "ok" or first["seconds"] >= REPEAT_UNDER:
        return first
    runs = [first] + [measure_once(instance, method, timeout) for _ in range(REPEATS - 1)]
    ok = sorted((r for r in runs if r.get("status") == "ok"), key=lambda r: r["seconds"])
    return dict(ok[len(ok) // 2] if len(ok) == len(runs) else first, runs=len(runs))


def measure_once(instance: Instance, method: str, timeout: float) -> dict:
    """Run :func:`measure_here` in a fresh interpreter, so memory and crashes stay apart."""
    cmd = [sys.executable, "-m", "benchmarks", "one", "--method", method, "--timeout", str(timeout),
           "--instance", json.dumps(asdict(instance))]
    env = dict(os.environ, PYTHONHASHSEED="0")
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout + 60, env=env,
                              cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "seconds": timeout + 60}
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("{")]
    if done.returncode != 0 or not lines:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return {"status": "error", "error": tail[:160], "seconds": float("nan")}
    return json.loads(lines[-1])
