"""The Audit value: what a model may confuse and what fixes it, as text, JSON, HTML and a figure."""
from __future__ import annotations

import html
from dataclasses import dataclass, field

import numpy as np

from ..files.writing import show_or_save
from ..results.count import CountResult, format_count, json_int
from .cells import SCALE_HTML, cell_text, matrix_html, matrix_text, rounded, shares_of
from .curve import Curve, plot_curve
from .fixes import DataFix, smallest_sufficient
from .supervision import SupervisionFix
from .relation import Relation

__all__ = ["Audit", "Comparison"]


@dataclass(frozen=True)
class Audit:
    """Everything ``rscount.audit`` found for one design."""

    result: CountResult
    relation: Relation
    supervise_values: SupervisionFix | None
    supervise_concepts: SupervisionFix | None
    data: DataFix | None
    classes: dict  # class -> (count or None, exact, why not)
    labels: list  # (label names, count, exact, why not) per proper subset
    curve: Curve | None = None
    seconds: float = 0.0
    notes: tuple = field(default=())
    other: dict | None = None  # under a learned head: the same design's count and fixes under K itself
    tasks: tuple = ()  # several tasks: each candidate task added, with the joint count it leads to

    def __repr__(self) -> str:
        r = self.result
        return (f"<Audit {r.task} {r.map_class}: {format_count(r.read_count, short=True)} optimal maps, identifiable "
                f"{', '.join(self.identifiable) or 'none'}>")

    @property
    def count(self) -> int:
        return self.result.count

    @property
    def identifiable(self) -> list:
        """Names of the concepts no optimal map confuses."""
        if self.result.exact and self.result.count == 0:  # no map fits (a restricted head): nothing to identify
            return []
        return [c.name for c in self.relation.concepts if c.identifiable]

    def to_dict(self) -> dict:
        fix: dict = {}
        for key, f in (("values", self.supervise_values), ("concepts", self.supervise_concepts)):
            if f is not None:
                fix[f"supervise_{key}"] = list(f.items)
                fix[f"supervise_{key}_minimal"] = f.minimal
                fix[f"supervise_{key}_count"] = json_int(f.count)
                fix[f"supervise_{key}_method"] = f.method
                fix[f"supervise_{key}_reaches_one"] = f.reaches_one
        if self.data is not None:
            fix.update(add_vectors=[[_text(x) for x in v] for v in self.data.vectors],
                       add_vectors_counts=[json_int(n) for n in self.data.counts],
                       add_vectors_reaches_one=self.data.reaches_one, add_vectors_floor=json_int(self.data.floor),
                       add_vectors_note=self.data.note)
        concepts = []
        for c in self.relation.concepts:
            values = []
            for v, value in enumerate(c.values):
                predicted = {_text(c.values[u]): json_int(c.weight(v, u)) for u in range(len(c.values))
                             if c.possible[v, u]}
                entry = {"value": _text(value), "fixed": c.fixed(v), "predicted": predicted}
                if c.log10_weights is not None:  # counts of millions of digits: their log10 instead
                    entry["predicted_log10"] = {_text(c.values[u]): round(float(c.log10_weights[v, u]), 6)
                                                for u in range(len(c.values)) if c.possible[v, u]}
                if not c.seen[v]:
                    entry["in_support"] = False
                undecided = [_text(c.values[u]) for u in range(len(c.values)) if c.undecided[v, u]]
                if undecided:
                    entry["undecided"] = undecided
                values.append(entry)
            concepts.append({"name": c.name, "identifiable": c.identifiable, "values": values})
        out = {
            "task": self.result.task, "count": json_int(self.result.count), "exact": self.result.exact,
            "read_count": json_int(self.result.read_count), "unread_concepts": list(self.result.unread),
            "free_maps": json_int(self.result.free_maps),
            "map_class": self.result.map_class, "support": self.result.support,
            "support_size": self.result.support_size, "supervision": self.result.supervision,
            "relation": {"method": self.relation.method, "weighted": self.relation.weighted,
                         "rounded": self.relation.rounded,
                         "complete": self.relation.complete, "notes": list(self.relation.notes)},
            "concepts": concepts, "identifiable": self.identifiable, "fix": fix,
            "classes": {k: json_int(v[0]) for k, v in self.classes.items()},
            "label_subsets": [{"labels": list(s), "count": json_int(c)} | ({"why": why} if why else {})
                              for s, c, _, why in self.labels],
            "labels_sufficient": [list(s) for s in smallest_sufficient(self.labels)],
            "seconds": round(self.seconds, 3), "notes": list(self.notes), "inference": self.result.inference,
        }
        if self.result.per_task:
            out.update(per_task=[t.to_dict() for t in self.result.per_task],
                       cumulative=[json_int(c) for c in self.result.cumulative],
                       forgets=[json_int(f) for f in self.result.forgets])
        if self.tasks:
            fix["add_task"] = list(self.tasks)
        if self.other is not None:
            out["under_knowledge"] = self.other
        if self.curve is not None:
            out["curve"] = self.curve.to_dict()
        return out

    # --- text ------------------------------------------------------------------------------------------------
    def __str__(self) -> str:
        r = self.result
        lines = [f"task          {r.task}", f"support       {r.support} ({r.support_size} vectors)",
                 f"map class     {r.map_class}", f"supervision   {r.supervision}"]
        if r.inference == "learned:linear":
            lines.append(f"inference     {r.inference} (a linear head over the one-hot concepts, as a CBM's)")
        elif r.inference != "knowledge":
            lines.append(f"inference     {r.inference} (a model that learns its label head: CBM, Semantic Loss)")
        lines += r._headline()
        lines += r._several_lines()
        only = "every concept (the intended map is the only optimal one)" if r.exact and r.count == 1 and \
            r.intended else "none"
        lines += [
                 f"identifiable  {', '.join(self.identifiable) or only}"
                 + (" (no map of the class fits these labels with this head)" if r.exact and r.count == 0 else ""),
                 f"relation      {self.relation.method}" + ("" if self.relation.weighted or self.relation.rounded
                                                            else " (existence only: cells show 'x', not map counts)")]
        lines += [f"note          {n}" for n in self.relation.notes]
        lines.append("")
        lines.append("What a model may confuse (rows: true value, columns: predicted; cells: optimal maps doing it)")
        for c in self.relation.concepts:
            if c.identifiable:
                continue
            lines += ["", f"  {c.name}"] + ["    " + line for line in matrix_text(c)]
        if any(rounded(c) for c in self.relation.concepts if not c.identifiable):
            lines += ["", "  (cells of 10^6 maps or more to four digits; --json gives " +
                      ("each cell's log10)" if self.relation.rounded else "every digit)")]
        safe = self.identifiable
        if safe:
            lines += ["", f"  identifiable (every optimal map predicts them right): {', '.join(safe)}"]
        lines += ["", "Cheapest fixes (each count computed by the counters" +
                  (", on the concepts the labels read)" if r.unread else ")")]
        lines += self.fix_lines()
        if self.other is not None:
            lines += ["", "The same design for a model that reasons with K (--inference knowledge: DeepProbLog, LTN)"]
            o = self.other
            if "error" in o:
                lines.append(f"  not counted: {o['error']}")
            else:
                lines.append(f"  optimal maps       {format_count(o['count']) if o['count'] is not None else 'n/a'}")
                for by in ("values", "concepts"):
                    items, n = o.get(f"supervise_{by}"), o.get(f"supervise_{by}_count")
                    shown = (" ".join(f"--supervise {i}" for i in items) or "(nothing)") if items is not None \
                        else "n/a"
                    lines.append(f"  supervise {by:<9}{shown}" + (f"  -> count {format_count(n)}" if n else ""))
                lines.append("  advice for one reading is not advice for the other: train the model you audit")
        if self.curve is not None:
            lines += ["", "How much data (random supports)", str(self.curve)]
        lines += [f"note          {n}" for n in self.notes]
        lines.append(f"time          {self.seconds:.2f} s")
        return self.result.show("\n".join(lines))

    def fix_lines(self) -> list:
        """The cheapest fixes, one line each (continuations indented), as the text report prints them."""
        r, lines = self.result, []
        for label, f in (("supervise values", self.supervise_values), ("supervise concepts", self.supervise_concepts)):
            if f is None:
                continue
            if f.count is None:
                lines.append(f"  {label:<19} {f.method}")
                continue
            what = " ".join(f"--supervise {i}" for i in f.items) or "(nothing)"
            proof = "proven smallest" if f.minimal else "not proven smallest"
            lines.append(f"  {label:<19} {what}  -> count {format_count(f.count)} ({proof}; {f.method})")
            if label == "supervise values" and f.items:
                lines.append(" " * 22 + "(in training, labels on single values recovered the intended map on some "
                             "tasks only; whole concepts on every one we ran: docs/harness.md)")
        if self.data is not None:
            d = self.data
            shown = "; ".join(f"+({','.join(map(str, v))}) -> {format_count(c)}" for v, c in zip(d.vectors, d.counts))
            lines.append(f"  add data           {shown or '(nothing to add)'}")
            lines.append(f"                     {d.note}")
        elif r.inference == "learned:linear":
            lines.append("  add data           not proposed under a linear head (whether a map survives a new vector "
                         "asks a linear program; count a candidate support with --support)")
        classes = ", ".join(f"{k} {format_count(v[0]) if v[0] is not None else 'n/a'}"
                            for k, v in self.classes.items())
        lines.append(f"  extractor / class  {classes}")
        lines += [f"                     {k} n/a: {v[2] or 'not counted'}" for k, v in self.classes.items()
                  if v[0] is None]
        if self.tasks:
            shown = "; ".join(f"+{a['task']} -> " + (format_count(a['count']) if a['count'] is not None else
                                                     f"not counted ({a.get('why') or 'no count'})")
                              for a in self.tasks)
            lines.append(f"  add a task         {shown}")
        if self.labels:
            best = smallest_sufficient(self.labels)
            subsets = "; ".join(f"{'+'.join(s)}: {format_count(c) if c is not None else why or 'not counted'}"
                                for s, c, _, why in self.labels)
            lines.append(f"  labels             {subsets}")
            lines.append("                     " + (f"count 1 already with {' or '.join('+'.join(s) for s in best)}"
                                                 if best else "no proper subset of the labels leaves count 1"))
        return lines

    # --- notebook --------------------------------------------------------------------------------------------
    def _repr_html_(self) -> str:
        r = self.result
        unread = (f" on the concepts the labels read; {len(r.unread)} unread concepts free "
                  f"({format_count(r.free_maps, short=True)} maps)" if r.unread else "")
        head = (f"<b>{html.escape(r.task)}</b>: {'' if r.exact else '~'}{format_count(r.read_count)} optimal maps"
                f"{html.escape(unread)} ({r.map_class}, {html.escape(r.support)}, {r.support_size} vectors); "
                f"identifiable: {html.escape(', '.join(self.identifiable) or 'none')}")
        tables = "".join(matrix_html(c, r.read_count) for c in self.relation.concepts if not c.identifiable)
        fixes = "".join(f"<li>{html.escape(line.strip())}</li>" for line in str(self).split("Cheapest fixes")[1]
                        .split("\n")[1:] if line.strip() and not line.startswith("time"))
        return (f"<div>{head}{SCALE_HTML if tables else ''}<div style='display:flex;flex-wrap:wrap;gap:1em'>"
                f"{tables}</div><ul>{fixes}</ul></div>")

    def to_html(self, path=None, title: str | None = None) -> str:
        """The audit as one self-contained HTML page (figures inline, no network); written to ``path`` if given
        (all or nothing), and returned."""
        from .page import audit_page
        return _written(audit_page(self, title), path)

    def plot(self, path=None):
        """Draw each confusable concept's relation (and the data curve, if any); save to ``path`` (PNG or SVG).

        Colour is a cell's share of all optimal maps (one scale for every panel, with its colour bar); counts are
        written in the cells where they fit, fixed values marked; where only existence is known cells are grey.
        """
        from ..files.writing import pyplot
        plt = pyplot(to_file=path is not None)
        shown = [c for c in self.relation.concepts if not c.identifiable][:12] or list(self.relation.concepts[:1])
        panels = len(shown) + (self.curve is not None)
        fig, axes = plt.subplots(1, panels, figsize=(3.6 * panels + 1.4, 3.8), squeeze=False, layout="constrained")
        image = None
        for ax, c in zip(axes[0], shown):
            image = self._heat_map(ax, c, plt)
        if self.curve is not None:
            plot_curve(self.curve, axes[0][-1])
        if image is not None:
            bar = fig.colorbar(image, ax=list(axes[0][:len(shown)]), fraction=0.04)
            bar.set_label("share of the optimal maps" if self.relation.weighted or self.relation.rounded
                          else "possible (existence only)")
        fig.suptitle(f"{self.result.task}: {format_count(self.result.read_count)} optimal maps "
                     f"({self.result.map_class})" + (f"; {len(self.result.unread)} unread concepts not shown"
                                                     if self.result.unread else ""), fontsize=10)
        return show_or_save(fig, path)

    def _heat_map(self, ax, c, plt):
        """One concept's panel: the shares drawn on the absolute 0..1 scale."""
        import matplotlib.colors as mcolors
        shares = shares_of(c, self.result.read_count)
        cmap = plt.get_cmap("Blues").with_extremes(bad="#bbbbbb")
        image = ax.imshow(np.ma.masked_invalid(shares), norm=mcolors.Normalize(0, 1), cmap=cmap)
        d = len(c.values)
        if d <= 10:
            for v in range(d):
                for u in range(d):
                    text = cell_text(c, v, u)
                    if text != ".":
                        dark = np.isfinite(shares[v, u]) and shares[v, u] > 0.6
                        if len(text) > 6:  # 1.234e56 -> 1.2e56 (cutting the text would change the number)
                            mantissa, _, power = text.partition("e")
                            text = f"{mantissa[:3]}e{power}"
                        ax.text(u, v, text, ha="center",
                                va="center", fontsize=7, color="white" if dark else "black")
        ax.set_title(c.name)
        ax.set_xticks(range(d), [str(x) for x in c.values], rotation=90)
        ax.set_yticks(range(d), [f"{x} (fixed)" if c.fixed(v) else str(x) for v, x in enumerate(c.values)])
        ax.set_xlabel("predicted")
        ax.set_ylabel("true")
        return image


def _written(page: str, path) -> str:
    if path is not None:
        from ..files.writing import check_output_path, write_atomic
        check_output_path(path, ("html", "htm"))
        write_atomic(path, page)
    return page


def _text(value) -> str:
    return str(value)


@dataclass(frozen=True)
class Comparison:
    """Several audited designs side by side."""

    audits: tuple

    def rows(self) -> list:
        out = []
        for a in self.audits:
            f = a.supervise_values
            out.append({"task": a.result.task, "support": f"{a.result.support} ({a.result.support_size})",
                        "map_class": a.result.map_class, "supervision": a.result.supervision,
                        "inference": a.result.inference,
                        "count": a.count, "read_count": a.result.read_count, "identifiable": a.identifiable,
                        "fix": list(f.items) if f is not None else None,
                        "fix_count": f.count if f is not None else None,
                        "fix_minimal": f.minimal if f is not None else None})
        return out

    def to_dict(self) -> dict:
        return {"designs": [a.to_dict() for a in self.audits], "table": self.rows(), "differ_in": self.differing()}

    SETTINGS = ("task", "support", "map_class", "supervision", "inference")

    def differing(self) -> list:
        """The settings in which the designs differ (task, support, map class, supervision, inference)."""
        rows = self.rows()
        return [k for k in self.SETTINGS if len({str(r[k]) for r in rows}) > 1]

    def __str__(self) -> str:
        differ = self.differing()
        lines = [f"the designs differ in: {', '.join(k.replace('_', ' ') for k in differ) or 'nothing'}"]
        for n, row in enumerate(self.rows(), 1):
            fix = " ".join(f"--supervise {i}" for i in row["fix"] or []) or "(none needed)"
            lines += [f"design {n}: {row['task']}, support {row['support']}, class {row['map_class']}, "
                      f"supervision {row['supervision']}" + ("" if row["inference"] == "knowledge" else
                                                             f", inference {row['inference']}"),
                      f"  optimal maps   {format_count(row['count'])}",
                      f"  identifiable   {', '.join(row['identifiable']) or 'none'}",
                      f"  cheapest fix   {fix} -> count {format_count(row['fix_count'])}"
                      + (" (proven smallest)" if row["fix_minimal"] else "")]
        return "\n".join(lines)

    def to_html(self, path=None, title: str = "rscount: designs compared") -> str:
        """Every design on one self-contained HTML page; written to ``path`` if given, and returned."""
        from .page import comparison_page
        return _written(comparison_page(self, title), path)

    def _repr_html_(self) -> str:
        head = ("<tr><th>design</th><th>class</th><th>support</th><th>supervision</th><th>optimal maps</th>"
                "<th>identifiable</th><th>cheapest supervision</th></tr>")
        body = "".join(f"<tr><td>{html.escape(r['task'])}</td><td>{html.escape(r['map_class'])}</td>"
                       f"<td>{html.escape(r['support'])}</td><td>{html.escape(r['supervision'])}</td>"
                       f"<td>{format_count(r['count'])}</td>"
                       f"<td>{html.escape(', '.join(r['identifiable']) or 'none')}</td>"
                       f"<td>{html.escape(' '.join(r['fix'] or []))} &rarr; {format_count(r['fix_count'])}</td></tr>"
                       for r in self.rows())
        return f"<table>{head}{body}</table>"
