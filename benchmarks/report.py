"""Turn raw benchmark results into the markdown table kept in docs/benchmarks.md."""
from __future__ import annotations

import math

from rscount.results.count import compact_count


def _secs(cell: dict) -> str:
    status = cell.get("status")
    if status == "ok":
        return f"{cell['seconds']:.3f}"
    if status == "timeout":
        return "timeout"
    return status or "-"


def _times(r: float) -> str:
    return f"{r:.1f}x" if r < 10 else f"{r:,.0f}x"


def _ratio(base: dict, ours: dict, timeout: float) -> str:
    """How many times faster rscount was; a baseline that timed out gives a lower bound."""
    if ours.get("status") != "ok":
        return "-"
    t = max(ours["seconds"], 1e-3)
    if base.get("status") == "ok":
        return _times(base['seconds'] / t)
    if base.get("status") in ("timeout", "skipped"):
        return f"> {_times(timeout / t)}"
    return "-"


def _agree(row: dict, methods: list) -> str:
    ours = row["rscount"]
    if ours.get("status") != "ok":
        return ""
    notes = []
    for m in methods:
        cell = row.get(m, {})
        if m == "rscount" or cell.get("status") != "ok":
            continue
        if cell.get("exact") and ours.get("exact") and cell["count"] != ours["count"]:
            notes.append(f"MISMATCH {m} {cell['count']}")
        if not cell.get("exact") and ours.get("exact"):
            lo, hi = int(cell["lower"]), int(cell["upper"])
            if not lo <= int(ours["count"]) <= hi:
                notes.append(f"{m} outside its bounds")
    return "; ".join(notes)


def _subset(what: str, pairs: list, goal: int) -> list:
    """One summary line for (ratio, instance) pairs: smallest, median, and the instances below ``goal``."""
    if not pairs:
        return []
    pairs = sorted(pairs)
    behind = [f"{name} ({_times(r)})" for r, name in pairs if r < goal]
    return [f"  - {what}: smallest {_times(pairs[0][0])}, median {_times(pairs[len(pairs) // 2][0])}; "
            f"below {goal}x: {', '.join(behind) or 'none'}."]


def _out_of_reach(method: str, ceilings: list, goal: int) -> list:
    """A summary line on the instances where even an instant count could not show ``goal``x: the baseline's
    time over the larger of 1 ms (the ratios' floor) and rscount's building of the task and support."""
    short = sorted((c, name, built) for c, name, built in ceilings if c < goal)
    if not short:
        return []
    by_building = [f"{name} ({_times(c)})" for c, name, built in short if built]
    return [f"  - Out of reach of even an instant count: {len(short)} of {len(ceilings)}; "
            f"{len(short) - len(by_building)} because {method} took under {goal} ms (ratios are floored at 1 ms)"
            + (f", {len(by_building)} because building the task and support (in both columns) takes over "
               f"1/{goal} of {method}'s time: {', '.join(by_building)}" if by_building else "") + "."]


def write_markdown(data: dict) -> str:
    meta, rows = data["meta"], data["rows"]
    methods, timeout = meta["methods"], meta["timeout"]
    base_timeout = meta.get("baseline_timeout", timeout)
    head = ["instance", "class", "count", "rscount s (backend)", "peak MB"]
    for m in methods[1:]:
        head.append(f"{m} s")
    for m in ("ganak", "pyeda-reference"):
        if m in methods:
            head.append(f"speed-up vs {m}")
    head.append("check")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    worst = {"ganak": math.inf, "pyeda-reference": math.inf}
    ratios: dict = {"ganak": [], "pyeda-reference": []}
    slow: dict = {"ganak": [], "pyeda-reference": []}  # ratios where the baseline took at least a second
    alone: dict = {"ganak": [], "pyeda-reference": []}  # the same, counting alone (building left out)
    ceiling: dict = {"ganak": [], "pyeda-reference": []}  # (best ratio an instant count could show, instance)
    slow_xor_and, over_60, peak = [], [], 0.0
    for row in rows:
        ours = row["rscount"]
        if ours.get("status") == "ok":
            kind = "" if ours.get("exact") else f" (approx [{ours['lower']}, {ours['upper']}])"
            count = f"{int(ours['count']):,}{kind}"
            built = ours.get("make_seconds", 0)
            mine = f"{ours['seconds']:.3f} ({ours['backend']}{f'; {built:.2f} building' if built >= 0.05 else ''})"
            peak = max(peak, ours.get("peak_mb", 0))
            if row["family"] in ("xor", "and") and row["map_class"] == "complete" and ours["seconds"] >= 1:
                slow_xor_and.append(row["id"])
            for m in worst:
                if row.get(m, {}).get("status") == "ok":
                    ratios[m].append(row[m]["seconds"] / max(ours["seconds"], 1e-3))
                    worst[m] = min(worst[m], ratios[m][-1])
                    built = ours.get("make_seconds", 0)
                    ceiling[m].append((row[m]["seconds"] / max(built, 1e-3), f"{row['id']} {row['map_class']}",
                                       built > 1e-3))
                    if row[m]["seconds"] >= 1:
                        slow[m].append((ratios[m][-1], f"{row['id']} {row['map_class']}"))
                        if "make_seconds" in row[m] and "make_seconds" in ours:
                            theirs = row[m]["seconds"] - row[m]["make_seconds"]
                            alone[m].append((theirs / max(ours["seconds"] - ours["make_seconds"], 1e-3),
                                             f"{row['id']} {row['map_class']}"))
        else:
            fb = row.get("fallback", {})
            count = (f"~{compact_count(int(fb['count']))} (--approx: {fb['backend']} [{compact_count(int(fb['lower']))}, "
                     f"{compact_count(int(fb['upper']))}], {fb['seconds']:.1f} s)" if fb.get("status") == "ok"
                     else "not counted")  # an estimate: four digits, the rest mean nothing
            mine = _secs(ours)
            estimated = f", estimated in {fb['seconds']:.1f} s" if fb.get("status") == "ok" else ""
            over_60.append(f"{row['id']} ({row['map_class']}{estimated})")
        cells = [row["id"], row["map_class"], count, mine, str(ours.get("peak_mb", "-"))]
        cells += [_secs(row.get(m, {})) for m in methods[1:]]
        cells += [_ratio(row.get(m, {}), ours, base_timeout) for m in ("ganak", "pyeda-reference") if m in methods]
        cells.append(_agree(row, methods))
        lines.append("| " + " | ".join(cells) + " |")
    summary = [
        f"Machine: {meta['machine']}, {meta['cores']} cores; {meta['date']}; limit {timeout:g} s per instance "
        f"for rscount, {base_timeout:g} s for each baseline; whole run {meta['wall_seconds']} s{' (--quick)' if meta['quick'] else ''}"
        f"{'; ' + meta['rerun'] if meta.get('rerun') else ''}.",
        "",
        f"- Instances: {len(rows)}; counted by rscount within the limit: "
        f"{sum(r['rscount'].get('status') == 'ok' for r in rows)}"
        + (f"; not within the limit: {', '.join(over_60)}" if over_60 else "") + ".",
        f"- xorN / andN (complete) at or above 1 s: {', '.join(slow_xor_and) or 'none'}.",
    ]
    for m, w in worst.items():
        if m in methods and w < math.inf:
            goal = 100 if m == "ganak" else 1000
            rs = sorted(ratios[m])
            summary.append(f"- Speed-up over {m} on the {len(rs)} instances {m} finished: smallest {_times(w)}, "
                           f"median {_times(rs[len(rs) // 2])}; at least {goal}x on "
                           f"{sum(r >= goal for r in rs)} of them.")
            summary += _out_of_reach(m, ceiling[m], goal)
            summary += _subset(f"Where {m} took at least 1 s ({len(slow[m])} instances)", slow[m], goal)
            summary += _subset(f"The same instances, counting alone (each column's time minus its own building of "
                               f"the task and support; {len(alone[m])} measured)", alone[m], goal)
    summary.append(f"- Peak memory of any rscount measurement: {peak:,.0f} MB.")
    return "\n".join(summary + [""] + lines) + "\n"
