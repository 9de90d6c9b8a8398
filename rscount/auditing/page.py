"""The audit as one self-contained HTML page to share: design, headline, heat maps, fixes and curve, with every
figure inline (SVG) and no network request, readable by a collaborator who has no Python."""
from __future__ import annotations

import html
import io
import re
from datetime import datetime, timezone

from ..version import __version__
from .cells import SCALE_HTML, matrix_html

__all__ = ["audit_page", "comparison_page"]

STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; } h2 { font-size: 1.15em; margin-top: 1.6em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 0.5em 0; } th, td { padding: 0.2em 0.6em; border: 1px solid #e3e3e3; }
table.design th { text-align: left; background: #f7f7f7; font-weight: 600; }
table.relation td { min-width: 3em; } caption { font-weight: 600; text-align: left; }
.headline { font-size: 1.1em; background: #f4f8fc; border-left: 4px solid #1f77b4; padding: 0.6em 1em; }
.headline div { margin: 0.15em 0; } .muted { color: #666; font-size: 0.9em; }
.maps { display: flex; flex-wrap: wrap; gap: 1.5em; } figure { margin: 0; } svg { max-width: 100%; height: auto; }
code { background: #f2f2f2; padding: 0 0.25em; border-radius: 3px; }
"""


def audit_page(audit, title: str | None = None) -> str:
    """The whole page for one :class:`~rscount.auditing.report.Audit`."""
    r = audit.result
    title = title or f"rscount audit: {r.task}"
    body = [f"<h1>{_e(title)}</h1>",
            f"<p class='muted'>written by rscount {__version__} on {_now()}; every count below was computed by "
            f"the counters, exact unless marked ~</p>", _section_for(audit)]
    return _page(title, "".join(body))


def comparison_page(comparison, title: str = "rscount: designs compared") -> str:
    """One page for several designs audited alone: the side-by-side table, then each design's section."""
    table = comparison._repr_html_()
    sections = "".join(f"<h2>design {n}: {_e(a.result.task)}</h2>{_section_for(a, level=3)}"
                       for n, a in enumerate(comparison.audits, 1))
    return _page(title, f"<h1>{_e(title)}</h1><p class='muted'>written by rscount {__version__} on {_now()}</p>"
                        f"{table}{sections}")


def _section_for(audit, level: int = 2) -> str:
    r, h = audit.result, f"h{level}"
    design = [("task", r.task), ("support", f"{r.support} ({r.support_size} vectors)"), ("map class", r.map_class),
              ("supervision", r.supervision), ("inference", r.inference)]
    head = "".join(f"<div>{_e(line[:14].strip())}: <b>{_e(line[14:].strip())}</b></div>" for line in r._headline())
    several = "".join(f"<div>{_e(line)}</div>" for line in r._several_lines())
    identifiable = ", ".join(audit.identifiable) or "none"
    out = [f"<{h}>The design</{h}>", _rows(design),
           f"<{h}>What the count says</{h}>", f"<div class='headline'>{head}{several}"
           f"<div>identifiable: <b>{_e(identifiable)}</b></div></div>"]
    tables = "".join(matrix_html(c, r.read_count) for c in audit.relation.concepts if not c.identifiable)
    out.append(f"<{h}>What a model may confuse</{h}>")
    if tables:
        out += ["<p>Rows: the true value; columns: the value a model predicts; a cell: the optimal maps that "
                "predict it so (how many, and its share of all of them).</p>", SCALE_HTML,
                f"<div class='maps'>{tables}</div>", _figure(audit)]
    else:
        out.append("<p>Nothing: every optimal map predicts every concept right.</p>")
    items: list = []
    for line in audit.fix_lines():
        if line.startswith("   ") and items:  # a continuation of the fix above
            items[-1][1].append(line.strip())
        else:
            name, _, what = line.strip().partition("  ")
            items.append((name, [what.strip()]))
    where = " on the concepts the labels read" if r.unread else ""
    out += [f"<{h}>Cheapest fixes</{h}>", f"<p class='muted'>each count computed by the counters{where}</p>",
            "<table class='design'>" + "".join(f"<tr><th>{_e(name)}</th><td>{'<br>'.join(_e(x) for x in what)}"
                                               f"</td></tr>" for name, what in items) + "</table>"]
    if audit.curve is not None:
        out += [f"<{h}>How much data</{h}>", f"<pre>{_e(str(audit.curve))}</pre>"]
    if r.notes or audit.notes or audit.relation.notes:
        notes = list(audit.notes) + list(audit.relation.notes) + list(r.notes)
        out += [f"<{h}>Notes</{h}>", "<ul>" + "".join(f"<li>{_e(n)}</li>" for n in notes) + "</ul>"]
    out.append(f"<p class='muted'>audit time {audit.seconds:.2f} s</p>")
    return "".join(out)


def _figure(audit) -> str:
    """The heat maps (and curve) as inline SVG, where matplotlib is installed; else nothing (the tables stand)."""
    try:
        from ..files.writing import pyplot
        plt = pyplot(to_file=True)
    except Exception:  # the plot extra is optional: the tables above carry the same numbers
        return ""
    fig = audit.plot()
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg")
    plt.close(fig)
    svg = buffer.getvalue()
    svg = re.sub(r"<metadata>.*?</metadata>", "", svg[svg.index("<svg"):], flags=re.S)  # the page is HTML
    return f"<figure>{svg}<figcaption class='muted'>the same relation drawn on one scale</figcaption></figure>"


def _rows(pairs) -> str:
    return "<table class='design'>" + "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in pairs) + \
        "</table>"


def _page(title: str, body: str) -> str:
    return (f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><meta name='viewport' "
            f"content='width=device-width, initial-scale=1'><title>{_e(title)}</title><style>{STYLE}</style>"
            f"</head><body>{body}</body></html>\n")


def _e(text) -> str:
    return html.escape(str(text))


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
