"""Small HTML pieces for notebook views (``_repr_html_``): tables and matplotlib figures inlined as PNG.

>>> table([("count", 24), ("exact", True)])
'<table><tr><th style="text-align:left">count</th><td style="text-align:left">24</td></tr><tr><th style="text-align:left">exact</th><td style="text-align:left">True</td></tr></table>'
"""
from __future__ import annotations

import base64
import html
import io

__all__ = ["table", "grid", "figure_png", "escape"]

_CELL = 'style="text-align:left"'


def escape(value) -> str:
    return html.escape(str(value))


def table(rows, head: str = "") -> str:
    """A two-column table of (field, value) rows, values escaped."""
    body = "".join(f"<tr><th {_CELL}>{escape(k)}</th><td {_CELL}>{escape(v)}</td></tr>" for k, v in rows)
    return f"{head}<table>{body}</table>"


def grid(header, rows) -> str:
    """A table with a header row and one row per item, values escaped."""
    top = "".join(f"<th {_CELL}>{escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td {_CELL}>{escape(v)}</td>" for v in row) + "</tr>" for row in rows)
    return f"<table><tr>{top}</tr>{body}</table>"


def figure_png(fig, dpi: int = 90) -> str:
    """A matplotlib figure as an inline <img> (the figure is closed)."""
    import matplotlib.pyplot as plt
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    plt.close(fig)
    return f'<img src="data:image/png;base64,{base64.b64encode(buf.getvalue()).decode()}"/>'
