"""Races, child processes and limits: losers stop, time-outs say where the time went, huge encodings stop early."""

import pytest

import rscount


def test_race_stops_the_loser_and_its_child():
    import multiprocessing as mp
    import time

    from rscount.counters.base import race, run_isolated
    start = time.monotonic()
    name, value, lost = race([("slow", lambda cancel: run_isolated(lambda: time.sleep(60), "slow", cancel=cancel)),
                              ("fast", lambda cancel: 42)])
    assert (name, value) == ("fast", 42)
    assert time.monotonic() - start < 10
    assert not [p for p in mp.active_children() if p.is_alive()]


@pytest.mark.slow
def test_child_forked_while_a_thread_computes_a_property_does_not_hang():
    """A racer's child reads task properties that the other racer may be computing at fork time."""
    import threading
    import time

    from rscount.counters.base import run_isolated
    from rscount.runtime.lazy import cached_property

    class Task:
        def __init__(self, delay):
            self.delay = delay

        @cached_property
        def value(self):
            time.sleep(self.delay)
            return 2

    busy = threading.Thread(target=lambda: Task(3).value)
    busy.start()
    time.sleep(0.2)  # the other thread is inside the property now
    try:
        assert run_isolated(lambda: Task(0).value, "child", timeout=2) == 2
    finally:
        busy.join()


def test_race_head_start_runs_the_others_only_when_needed():
    """With a head start the later entries never run if the first wins in time, and start at once if it fails."""
    import time

    from rscount.counters.base import race
    ran = []

    def later(cancel=None):
        ran.append(time.monotonic())
        return "later"
    assert race([("first", lambda cancel: "first"), ("later", later)], head_start=5)[:2] == ("first", "first")
    assert not ran

    def broken(cancel=None):
        raise rscount.BackendError("first broke")
    start = time.monotonic()
    name, value, lost = race([("first", broken), ("later", later)], head_start=30)
    assert (name, value) == ("later", "later") and "first" in lost and ran[0] - start < 10


def test_race_reports_the_timeout_when_all_fail():
    from rscount.counters.base import race

    def late(cancel=None):
        raise rscount.CountTimeout("a timed out")

    def broken(cancel=None):
        raise rscount.BackendError("b failed")
    with pytest.raises(rscount.CountTimeout):
        race([("a", late), ("b", broken)])


def test_race_names_every_failure_when_none_finishes():
    from rscount.counters.base import race

    def broken(what):
        def fail(cancel=None):
            raise rscount.BackendError(what)
        return fail
    with pytest.raises(rscount.BackendError, match=r"^no backend finished: a gave up \(a broke\); b gave up \(b broke\)$"):
        race([("a", broken("a broke")), ("b", broken("b broke"))])


def test_an_encoding_too_large_to_hold_stops_early(monkeypatch):
    """A DIMACS task over 18 booleans on 131,072 sampled vectors once grew the encoding past 18 GB."""
    from rscount import encoding
    monkeypatch.setattr(encoding, "MAX_CLAUSES", 10_000)
    problem = rscount.make_problem("mnlogic-random", params={"k": 12, "m": 6, "l": 3}, subsample=0.5)
    with pytest.raises(rscount.BackendError, match=r"^the CNF encoding of 2048 support vectors would hold about "
                                                   r"\d+ million clauses \(limit 10,000\)"):
        encoding.encode(problem)


@pytest.mark.slow
def test_a_timeout_after_a_structural_counter_gave_up_says_so():
    """The generic counters get what the structural one left; the message must not look like a shorter limit."""
    problem = rscount.make_problem("mnmath-b1", map_class="disentangled", support="by-label:100")
    with pytest.raises(rscount.CountTimeout, match=r"^product gave up, then \w+ timed out after [\d.]+ s "
                                                   r"\(the rest of the time limit\); raise timeout="):
        rscount.count_problem(problem, timeout=3)
