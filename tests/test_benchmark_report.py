"""The benchmark table's summary: ratios, the slow-baseline subset and counting alone."""
from benchmarks.report import write_markdown


def _cell(seconds, make=0.0, count="6", backend="search"):
    return {"status": "ok", "count": count, "exact": True, "lower": "None", "upper": "None", "backend": backend,
            "seconds": seconds, "make_seconds": make, "peak_mb": 50.0}


def _data(rows):
    meta = {"methods": ["rscount", "ganak"], "timeout": 60, "baseline_timeout": 30, "machine": "test", "cores": 2,
            "date": "today", "wall_seconds": 1, "quick": False}
    return {"meta": meta, "rows": rows}


def test_summary_names_slow_baseline_instances_below_the_goal():
    rows = [
        {"id": "fast", "family": "f", "map_class": "complete", "rscount": _cell(0.01), "ganak": _cell(0.5)},
        {"id": "big", "family": "f", "map_class": "complete", "rscount": _cell(0.02), "ganak": _cell(4.0)},
        {"id": "sampled", "family": "f", "map_class": "shared", "rscount": _cell(1.1, make=1.0),
         "ganak": _cell(3.0, make=1.0)},
    ]
    text = write_markdown(_data(rows))
    assert "on the 3 instances ganak finished: smallest 2.7x, median 50x; at least 100x on 1 of them" in text
    assert "Where ganak took at least 1 s (2 instances): smallest 2.7x, median 200x; below 100x: " \
           "sampled shared (2.7x)." in text
    assert "counting alone" in text and "2 measured): smallest 20x, median 200x; below 100x: sampled shared (20x)." \
        in text
    assert "| sampled | shared | 6 | 1.100 (search; 1.00 building) |" in text


def test_a_count_that_disagrees_is_flagged():
    rows = [{"id": "x", "family": "f", "map_class": "complete", "rscount": _cell(0.01),
             "ganak": _cell(0.5, count="7")}]
    assert "MISMATCH ganak 7" in write_markdown(_data(rows))


def test_summary_counts_instances_no_counter_could_reach_the_goal_on():
    """Ratios are floored at 1 ms and both columns include building: 50 ms of Ganak can never be 100x."""
    rows = [
        {"id": "tiny", "family": "f", "map_class": "complete", "rscount": _cell(0.001), "ganak": _cell(0.05)},
        {"id": "built", "family": "f", "map_class": "shared", "rscount": _cell(0.1, make=0.05),
         "ganak": _cell(2.0, make=0.05)},
        {"id": "big", "family": "f", "map_class": "complete", "rscount": _cell(0.02), "ganak": _cell(4.0)},
    ]
    assert ("Out of reach of even an instant count: 2 of 3; 1 because ganak took under 100 ms (ratios are floored "
            "at 1 ms), 1 because building the task and support (in both columns) takes over 1/100 of ganak's time: "
            "built shared (40x).") in write_markdown(_data(rows))
