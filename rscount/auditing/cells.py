"""One concept's confusion cells as a reader sees them: the text of a cell, its share of all optimal maps, and
the table in text and HTML (the audit's report and its page both draw them)."""
from __future__ import annotations

import html

import numpy as np

from ..results.count import compact_count, compact_log10, log10_count

__all__ = ["SCALE_HTML", "cell_text", "matrix_html", "matrix_text", "shares_of", "rounded"]


def shares_of(c, total: int) -> np.ndarray:
    """Each cell's share of all ``total`` optimal maps (0 where impossible); NaN where a pair is possible but its
    count is not known (existence only) or undecided, so that no cell looks surer than it is."""
    d = len(c.values)
    out = np.zeros((d, d))
    if c.log10_weights is not None:
        out[c.possible] = np.minimum(10 ** (c.log10_weights[c.possible] - log10_count(total)), 1.0) if total else np.nan
        return out
    if c.weights is None:
        out[c.possible | c.undecided] = np.nan
        return out
    for v in range(d):
        for u in range(d):
            if c.possible[v, u]:
                out[v, u] = int(c.weights[v, u]) / total if total else np.nan
    out[c.undecided] = np.nan
    return out


def rounded(c) -> bool:
    """Whether some cell of ``c`` is shown to four digits (its count reaches 10^6)."""
    if c.log10_weights is not None:
        return bool((c.log10_weights[c.possible] >= 6).any())
    return c.weights is not None and any(int(w) >= 10 ** 6 for w in np.asarray(c.weights, dtype=object).ravel())


def cell_text(c, v: int, u: int) -> str:
    if c.undecided[v, u]:
        return "?"
    if not c.possible[v, u]:
        return "."
    if c.log10_weights is not None:
        return compact_log10(float(c.log10_weights[v, u]))
    return "x" if c.weights is None else compact_count(int(c.weights[v, u]))


def matrix_text(c) -> list:
    vals = [str(v) for v in c.values]
    cells = [[cell_text(c, v, u) for u in range(len(vals))] for v in range(len(vals))]
    width = max(max(len(x) for row in cells for x in row), max(len(v) for v in vals))
    left = max(len(v) for v in vals) + 2
    lines = [" " * left + " ".join(v.rjust(width) for v in vals)]
    for v, row in enumerate(cells):
        mark = "  fixed" if c.fixed(v) else "" if c.seen[v] else "  (not in the support)"
        lines.append(vals[v].rjust(left - 2) + "  " + " ".join(x.rjust(width) for x in row) + mark)
    return lines


def matrix_html(c, total: int) -> str:
    shares = shares_of(c, total)
    head = "".join(f"<th>{html.escape(str(v))}</th>" for v in c.values)
    rows = []
    for v, value in enumerate(c.values):
        cells = "".join(f"<td style='background:{_shade(shares[v, u])};text-align:right' "
                        f"title='{_share_text(shares[v, u])}'>{html.escape(cell_text(c, v, u))}</td>"
                        for u in range(len(c.values)))
        mark = " <small>(fixed)</small>" if c.fixed(v) else ""
        rows.append(f"<tr><th>{html.escape(str(value))}{mark}</th>{cells}</tr>")
    return (f"<table class='relation'><caption>{html.escape(c.name)} (rows true, columns predicted)</caption>"
            f"<tr><th></th>{head}</tr>{''.join(rows)}</table>")


def _shade(share: float) -> str:
    """A cell's background: blue with opacity = its share of all optimal maps; grey where unknown."""
    return "#bbbbbb" if np.isnan(share) else f"rgba(31,119,180,{share:.2f})"


def _share_text(share: float) -> str:
    return "count not known (existence only)" if np.isnan(share) else f"{share:.1%} of the optimal maps"


SCALE_HTML = ("<p class='scale'>colour: a cell's share of all optimal maps, from "
              "<span style='background:rgba(31,119,180,0.05)'>&nbsp;0%&nbsp;</span> to "
              "<span style='background:rgba(31,119,180,1);color:white'>&nbsp;100%&nbsp;</span>; "
              "<span style='background:#bbbbbb'>&nbsp;grey&nbsp;</span>: possible, count not known</p>")
