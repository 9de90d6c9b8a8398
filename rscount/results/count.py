"""Results: readable concept maps, what a counter reports, and the final CountResult."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Iterator

from ..errors import RscountError

__all__ = ["ConceptMap", "JointMap", "Tally", "TaskCount", "CountResult", "format_count", "headline_count", "log10_count"]


@dataclass(frozen=True)
class ConceptMap:
    """A value map alpha: ``assign[j][u] = (i, v)`` sends value u of gt concept j to value v of concept i."""

    assign: tuple
    names: tuple = field(compare=False)
    domains: tuple = field(compare=False)

    @property
    def is_identity(self) -> bool:
        return all(t == (j, u) for j, row in enumerate(self.assign) for u, t in enumerate(row))

    def __call__(self, vector) -> tuple:
        """Apply the map to an index vector (defined when predicted concepts come out one-hot)."""
        out = [None] * len(self.names)
        for j, u in enumerate(vector):
            i, v = self.assign[j][u]
            out[i] = v
        return tuple(out)

    def __str__(self) -> str:
        parts = []
        for j, row in enumerate(self.assign):
            targets = {i for i, _ in row}
            src = self.names[j]
            if len(targets) > 1:
                parts.append((j, ", ".join(f"{src}={self.domains[j][u]} -> {self.names[i]}={self.domains[i][v]}"
                                       for u, (i, v) in enumerate(row))))
                continue
            i = targets.pop()
            changed = [(u, v) for u, (_, v) in enumerate(row)
                       if self.domains[j][u] != self.domains[i][v]]
            head = self.names[i] if i == j else f"{self.names[i]} <- {src}"
            if not changed and i == j:
                continue
            values = ", ".join(f"{self.domains[j][u]}->{self.domains[i][v]}" for u, (_, v) in enumerate(row))
            parts.append((i, head if not changed and len(row) == len(self.domains[i]) else f"{head}: {values}"))
        return " | ".join(text for _, text in sorted(parts)) or "identity"


@dataclass(frozen=True)
class JointMap:
    """A map on whole concept vectors (class ``joint``); ``pairs`` lists (vector, image)."""

    pairs: tuple
    format_vector: Callable = field(compare=False, repr=False)

    @property
    def is_identity(self) -> bool:
        return all(a == b for a, b in self.pairs)

    def __str__(self) -> str:
        moved = [f"{self.format_vector(a)}->{self.format_vector(b)}" for a, b in self.pairs if a != b]
        return ", ".join(moved) or "identity"


@dataclass(frozen=True)
class Tally:
    """What a counter reports: the count and how sure it is."""

    count: int
    exact: bool = True
    lower: int | None = None
    upper: int | None = None
    epsilon: float | None = None
    delta: float | None = None
    notes: tuple = ()
    encoding: dict | None = None  # size of the CNF the backend built itself, if any
    intended: bool = True  # whether the intended map is among those counted (not so under a restricted head)


@dataclass(frozen=True)
class TaskCount:
    """One task of several: its optimal maps alone, over its own concepts and over the union of all concepts."""

    task: str
    count: int
    count_union: int
    exact: bool = True

    def to_dict(self) -> dict:
        return {"task": self.task, "count": json_int(self.count), "count_union": json_int(self.count_union),
                "exact": self.exact}


@dataclass(frozen=True)
class CountResult:
    """The number of optimal concept maps of a problem, and how it was obtained."""

    task: str
    map_class: str
    support: str
    support_size: int
    supervision: str
    count: int
    exact: bool
    backend: str
    seconds: float
    lower: int | None = None
    upper: int | None = None
    epsilon: float | None = None
    delta: float | None = None
    encoding: dict | None = None
    notes: tuple = ()
    warnings: tuple = ()
    plan: object = field(default=None, repr=False, compare=False)  # the dispatch.Plan that was executed
    answered: int | None = None  # index of the plan step that gave the count
    parts: tuple = field(default=(), repr=False, compare=False)  # the parts' results, where the count is split
    inference: str = "knowledge"  # who gives the labels: K, or a head the model learns (problem.INFERENCES)
    intended: bool = True  # the intended map is one of the counted ones (a restricted head may not fit K at all)
    per_task: tuple = ()  # several tasks: a TaskCount each, in the order given
    cumulative: tuple = ()  # several tasks: the count after tasks 1..t (over every task's concepts)
    forgets: tuple = ()  # several tasks: maps optimal for task t alone that break one of tasks 1..t-1
    cumulative_exact: tuple = ()  # several tasks: whether each cumulative count is exact
    unread: tuple = ()  # concepts no label reads (disentangled, shared): their value maps are free
    free_maps: int = 1  # the value maps the unread concepts may take; count = read_count * free_maps
    command_seconds: float | None = None  # the whole command's time, where a caller measured it (the CLI)
    shown: tuple = ()  # (identifier, how the user wrote the concept): a ProbLog atom digit(a) read as digit_a
    _class_size: Callable | None = field(default=None, repr=False, compare=False)  # maps in the class
    _enumerate: Callable | None = field(default=None, repr=False, compare=False)
    _renamed: Callable | None = field(default=None, repr=False, compare=False)
    _heads: Callable | None = field(default=None, repr=False, compare=False)

    @property
    def rs_count(self) -> int:
        """Reasoning shortcuts: optimal maps other than the identity."""
        return self.count - int(self.intended)

    def show(self, text: str) -> str:
        """``text`` with concept identifiers written as the user wrote them (``digit_a`` -> ``digit(a)``)."""
        from .names import show_names
        return show_names(text, self.shown)

    @property
    def bounded(self) -> bool:
        """Whether the count is the lower of guaranteed bounds (``delta`` 0), not exact and not a sample."""
        return not self.exact and self.delta == 0

    def __repr__(self) -> str:
        mark = "" if self.exact else ">=" if self.bounded else "~"
        unread = f" on read concepts (x {format_count(self.free_maps, short=True)} free)" if self.unread else ""
        kind = "exact" if self.exact else "bounds" if self.bounded else "estimate"
        return (f"<CountResult {self.task} {self.map_class}: {mark}{format_count(self.read_count, short=True)} "
                f"optimal maps{unread} ({kind}, {self.backend})>")

    @property
    def read_count(self) -> int:
        """Optimal maps of the concepts the labels read (the unread ones' free maps divided out)."""
        return self.count // self.free_maps

    @property
    def read_rs_count(self) -> int:
        """Reasoning shortcuts on the concepts the labels read: what a designer of the rule has to fix."""
        return self.read_count - int(self.intended)

    @property
    def has_shortcuts(self) -> bool:
        return self.count > 1 if self.exact else (self.lower or 0) > 1

    def up_to_renaming(self, timeout: float | None = None) -> int:
        """Under a learned head: the optimal maps up to renamings of predicted concept values (a head absorbs
        any such renaming), by Burnside's lemma (:mod:`rscount.heads.renaming`). BackendError where it is not defined
        (concept supervision) or too costly."""
        from ..errors import BackendError
        if self._renamed is None:
            raise BackendError("counts up to renaming are for an exact count under a learned head "
                               "(inference='learned' or 'learned:linear')")
        return self._renamed(timeout)

    def head_space(self, concept_map=None, timeout: float | None = None):
        """Under a learned head: the heads that complete ``concept_map`` (the identity by default), determined on
        the support's image, forced or free off it (:mod:`rscount.heads.space`)."""
        from ..errors import BackendError
        if self._heads is None:
            raise BackendError("head counts are for a count under a learned head (inference='learned' or "
                               "'learned:linear')")
        return self._heads(concept_map, timeout)

    def maps(self, limit: int | None = 10, timeout: float | None = None) -> Iterator:
        """Yield up to ``limit`` optimal maps (ConceptMap or JointMap); the identity is one.

        A SAT search for them stops with CountTimeout after ``timeout`` seconds.
        """
        if self._enumerate is None:
            raise NotImplementedError("this result carries no problem to enumerate maps from")
        return self._enumerate(limit, timeout)

    def to_dict(self) -> dict:
        return {
            "task": self.task, "map_class": self.map_class, "support": self.support,
            "support_size": self.support_size, "supervision": self.supervision, "inference": self.inference,
            "count": json_int(self.count), "rs_count": json_int(self.rs_count), "exact": self.exact,
            "intended_counted": self.intended, "read_count": json_int(self.read_count),
            "read_rs_count": json_int(self.read_rs_count), "unread_concepts": list(self.unread),
            "free_maps": json_int(self.free_maps),
            "count_log10": round(log10_count(self.count), 3) if self.count else None,
            "lower": json_int(self.lower if not self.exact else self.count),
            "upper": json_int(self.upper if not self.exact else self.count),
            "epsilon": self.epsilon if self.epsilon is None or math.isfinite(self.epsilon) else None,
            "delta": self.delta, "backend": self.backend,
            "seconds": round(self.seconds, 6), "command_seconds": None if self.command_seconds is None else
            round(self.command_seconds, 6), "encoding": self.encoding,
            "notes": list(self.notes), "warnings": list(self.warnings),
            "plan": self.plan.lines() if self.plan is not None else None,
            **({"concept_names": dict(self.shown)} if self.shown else {}),
            "answered_by_step": None if self.answered is None else self.answered + 1,
            **({"per_task": [t.to_dict() for t in self.per_task], "cumulative": [json_int(c) for c in self.cumulative],
                "cumulative_exact": list(self.cumulative_exact or (True,) * len(self.cumulative)),
                "forgets": [json_int(f) for f in self.forgets], "survive_every_step": json_int(self.rs_count)}
               if self.per_task else {}),
        }

    def explain(self) -> str:
        """The plan that was executed, the step that answered, and what the steps before it said."""
        if self.plan is None:
            return "no plan recorded"
        lines = [str(self.plan), f"answered by step {self.answered + 1}: {self.backend}"]
        if self.parts:
            for part in self.parts:
                lines += ["  " + line for line in part.explain().splitlines()]
        else:
            lines += [f"  said: {n}" for n in self.notes if " gave up (" in n]
        return "\n".join(lines)

    def __str__(self) -> str:
        kind = "exact" if self.exact else f"approximate, {self._within()}"
        lines = [
            f"task          {self.task}",
            f"support       {self.support} ({format_count(self.support_size).split(' (')[0]} vectors)",
            f"map class     {self.map_class}",
            f"supervision   {self.supervision}",
        ]
        if self.inference == "learned:linear":
            lines.append("inference     learned:linear (a map counts when some linear head over its one-hot "
                         "predictions gives every support label)")
        elif self.inference != "knowledge":
            lines.append(f"inference     {self.inference} (a map counts when some head gives every support "
                         f"label from its predictions; the head is then fixed on the support's image)")
        lines += self._headline()
        if not self.intended:
            lines.append("intended      not among them: no head of this class gives every support label from the "
                         "true concepts (the model cannot fit K here)")
        lines += self._several_lines()
        enc = ""
        if self.encoding:
            n = self.encoding.get("blocks")
            blocks = f" for the largest of {n} block{'s' if n != 1 else ''}" if n else ""
            if "quotient_vectors" in self.encoding:
                enc = f", {self.encoding['quotient_vectors']} quotient vectors"
            elif self.encoding.get("method") == "quantified SDD":
                enc = f", quantified SDD over {self.encoding['vars']} vars, {self.encoding['sdd_nodes']} nodes{blocks}"
            else:
                enc = f", encoding {self.encoding['vars']} vars / {self.encoding['clauses']} clauses{blocks}"
        lines += [f"backend       {self.backend} ({kind}{enc})", f"time          {self.time_text()}"]
        lines += [f"note          {n}" for n in self.notes]
        lines += [f"warning       {w}" for w in self.warnings]
        return self.show("\n".join(lines))


    def _within(self) -> str:
        """How far an inexact count may be off: an (epsilon, delta) estimate's factor, or guaranteed bounds."""
        if self.bounded:
            return "guaranteed bounds (not sampled)"
        return f"within factor 1+{self.epsilon} with probability >= {1 - self.delta:g}"

    def _headline(self) -> list:
        """Count and shortcuts on the concepts the labels read; the unread concepts' free maps on their own line;
        an estimate marked ``~`` with its bounds, guaranteed bounds by "at least" (the count given is the lower one)."""
        mark = "" if self.exact else "at least " if self.bounded else "~"
        estimate = not self.exact and not self.bounded
        shown = compact_count if estimate else headline_count  # an estimate's last digits mean nothing
        bounds = ""
        if not self.exact:
            sure = "guaranteed" if self.bounded else f"with probability >= {1 - self.delta:g}"
            bounds = (f"  ({'estimate' if estimate else 'bounds'}: {count_range(self.lower, self.upper, estimate)} "
                      f"{sure})")
        none = self.exact and self.read_rs_count == 0 and self.intended
        if not self.unread:
            return [f"optimal maps  {mark}{shown(self.count)}{bounds}",
                    f"shortcuts     {mark}{shown(self.rs_count)}"
                    + ("  (none: the task is free of reasoning shortcuts)" if none else "")]
        n = len(self.unread)
        names = ", ".join(self.unread[:6]) + (" ..." if n > 6 else "")
        return [
            f"optimal maps  {mark}{shown(self.read_count)}{bounds}  (on the concepts the labels read)",
            f"shortcuts     {mark}{shown(self.read_rs_count)}"
            + ("  (none on the concepts the labels read)" if none else ""),
            f"unread        {n} concept{'s' if n != 1 else ''} no label reads ({names}): "
            f"{headline_count(self.free_maps)} {unread_maps_words(self.map_class)}, any model may confuse "
            f"{'them' if n != 1 else 'it'} (supervise them to pin them)",
            f"in all        {mark}{shown(self.count)} optimal maps, {mark}"
            f"{shown(self.rs_count)} shortcuts counting the unread concepts",
        ]

    def time_text(self) -> str:
        """The whole command's time, with the count's part where they differ."""
        if self.command_seconds is None or abs(self.command_seconds - self.seconds) < 0.05:
            return f"{self.seconds:.3f} s"
        return f"{self.command_seconds:.3f} s (counting {self.seconds:.3f} s; the rest reads the task and support)"

    def _several_lines(self) -> list:
        """Several tasks: each task alone, and the sequence in the order given."""
        if not self.per_task:
            return []
        width = max(len(t.task) for t in self.per_task)
        lines = ["per task      (alone, over its own concepts / over every task's concepts"
                 + ("; unread concepts' maps included)" if self.unread else ")")]

        def shown(n: int | None, exact: bool) -> str:
            return "not counted in time" if n is None else f"{'' if exact else '~'}{format_count(n)}"
        lines += [f"  {t.task:<{width}}  {shown(t.count, t.exact)} / {shown(t.count_union, t.exact)}"
                  for t in self.per_task]
        lines.append("in this order (after each task: optimal for all so far; maps optimal for it alone that "
                     "break an earlier task)")
        exact = self.cumulative_exact or (True,) * len(self.cumulative)
        lost = None in self.cumulative or any(t.count is None or t.count_union is None for t in self.per_task)
        why = "n/a (a count not made in time)" if lost else "n/a (approximate counts)"
        lines += [f"  {n}. {t.task:<{width}}  {shown(c, e)}; forgets {format_count(f) if f is not None else why}"
                  for n, (t, c, f, e) in enumerate(zip(self.per_task, self.cumulative, self.forgets, exact), 1)]
        lines.append(f"  shortcuts that survive every step: {'' if self.exact else '~'}{format_count(self.rs_count)}")
        return lines

    # --- notebook --------------------------------------------------------------------------------------------
    def _repr_html_(self) -> str:
        from .notebook import escape, table
        kind = "exact" if self.exact else self._within()
        rows = [("task", self.task), ("support", f"{self.support} ({format_count(self.support_size)} vectors)"),
                ("map class", self.map_class), ("supervision", self.supervision), ("inference", self.inference)]
        rows += [(line[:14].strip(), line[14:].strip()) for line in self._headline()]
        rows += [("backend", f"{self.backend} ({kind})"), ("time", self.time_text())]
        maps = ""
        if self.exact and self.count <= 1000 and self._enumerate is not None:
            try:
                shown = [str(m) for m in self.maps(5, timeout=2)]
                maps = "<p>optimal maps (first 5)</p><ul>" + "".join(f"<li><code>{escape(m)}</code></li>"
                                                                     for m in shown) + "</ul>"
            except (RscountError, NotImplementedError):  # a courtesy here; the count stands without it
                maps = ""
        notes = "".join(f"<li>{escape(n)}</li>" for n in self.notes + self.warnings)
        return self.show(table(rows) + maps + (f"<ul>{notes}</ul>" if notes else ""))

    def plot(self, path=None):
        """Draw the count against the size of its map class (log scale); save to ``path`` (PNG or SVG).

        Without ``path`` the matplotlib figure is returned (a notebook shows it).
        """
        from ..files.writing import pyplot
        plt = pyplot(to_file=path is not None)
        bars = [("identity", 1, "#999")]
        if self.unread:
            bars += [("optimal maps,\nread concepts", self.read_count, "#c33"),
                     (f"free maps of {len(self.unread)}\nunread concepts", self.free_maps, "#e9a")]
        bars.append(("optimal maps" + (",\nall concepts" if self.unread else ""), self.count, "#c33"))
        if self._class_size is not None and self.map_class != "joint":
            bars.append((f"{self.map_class} maps", self._class_size(), "#39c"))
        fig, ax = plt.subplots(figsize=(5.5, 0.6 * len(bars) + 1.2), layout="constrained")
        sizes = [log10_count(n) for _, n, _ in bars]
        ax.barh([b[0] for b in bars], sizes, color=[b[2] for b in bars])
        for y, (_, n, _) in enumerate(bars):
            ax.text(sizes[y], y, f" {'~' if not self.exact and n == self.count else ''}"
                    f"{format_count(n, short=True)}", va="center", fontsize=8)
        ax.set_xlim(0, max(sizes) * 1.25 + 0.5)
        ax.invert_yaxis()
        ax.set_xlabel("log10 of the number of maps")
        ax.set_title(f"{self.task}\n{format_count(self.read_count, short=True)} optimal maps ({self.map_class})"
                     + (" on the concepts the labels read" if self.unread else ""), fontsize=9)
        from ..files.writing import show_or_save
        return show_or_save(fig, path)


def unread_maps_words(map_class: str) -> str:
    """What the maps of concepts no label reads are in ``map_class``: value maps alone, or under the classes where
    a predicted concept may read another concept, which reads which as well."""
    return "maps (which reads which, and value maps)" if map_class in ("free", "complete", "permutation") \
        else "value maps"


JSON_DIGITS = 100_000  # past this many digits a count goes to JSON as a string of its digits


def json_int(n: int | None):
    """``n`` for JSON: itself, or past JSON_DIGITS digits the string of its digits, written by python-flint
    where it is installed (Python's own int-to-text conversion takes minutes on millions of digits)."""
    if n is None or abs(n).bit_length() < JSON_DIGITS * 3.33:
        return n
    try:
        import flint
        return str(flint.fmpz(n))
    except ImportError:
        from ..errors import BackendError
        raise BackendError(f"the count has about {int(log10_count(abs(n))):,} digits, and writing every one "
                           f"takes Python minutes; install python-flint (pip install 'rscount[heads]') to write "
                           f"them, or leave out --json for its power of ten") from None


def short_count(n) -> str:
    """A count as JSON gives it (an int, or past JSON_DIGITS a string of digits), short: in full below 10^30 (as
    the headline prints it), else 1.234e56."""
    if isinstance(n, str):
        return f"{n[0]}.{n[1:4]}e{len(n) - 1}"
    return format_count(n, short=True)


def count_range(lower, upper, rough: bool = False) -> str:
    """Bounds as every table and headline words them: "between 6 and 1.766e152" (``rough``: an estimate's,
    four digits from 10^6, since their last digits mean nothing)."""
    show = compact_count if rough else short_count
    return f"between {show(lower)} and {show(upper)}"


def log10_count(n: int) -> float:
    """log10 of an integer of any size (past 10^300 from its top 64 bits: a relative error near 1e-16)."""
    if n < 10 ** 300:
        return math.log10(n)
    shift = n.bit_length() - 64
    return math.log10(n >> shift) + shift * math.log10(2)


EXACT_LEAD_BITS = 1 << 18  # past this (about 79,000 digits) the leading digits come from the top 64 bits


def _leading(m: int) -> tuple:
    """(decimal digits of m > 0, its first four digits as text). Exactly up to EXACT_LEAD_BITS; past it from the
    top 64 bits and a float log10 (a division of two numbers of millions of digits takes seconds), exactly again
    where the float lands within 1e-9 of a digit boundary."""
    bits = m.bit_length()
    if bits > EXACT_LEAD_BITS:
        shift = bits - 64
        lg = math.log10(m >> shift) + shift * math.log10(2)
        frac = lg - math.floor(lg)
        lead = int(10 ** (frac + 3))
        if 1e-9 < frac < 1 - 1e-9 and 1e-6 < 10 ** (frac + 3) - lead < 1 - 1e-6:
            return int(math.floor(lg)) + 1, str(lead)
    digits = int((bits - 1) * math.log10(2)) + 1
    if 10 ** digits <= m:
        digits += 1
    return digits, str(m // 10 ** (digits - 4))


def format_count(n: int | None, short: bool = False) -> str:
    """Print an integer in full, or as ~mantissa x 10^exp with its digit count when huge (``short``: the
    power of ten alone)."""
    if n is None:
        return "unknown"
    if abs(n) < 10 ** 30:
        return str(n)
    head = compact_count(n)  # no str(n): Python refuses to print integers of over 4,300 digits
    return head if short else f"{head} ({int(head.rpartition('e')[2]) + 1} digits; --json prints every digit)"


def compact_count(n: int) -> str:
    """A count for a table cell: in full below 10^6, else four digits and the power of ten (1.234e56)."""
    if abs(n) < 10 ** 6:
        return str(n)
    digits, lead = _leading(abs(n))
    return f"{'-' if n < 0 else ''}{lead[0]}.{lead[1:]}e{digits - 1}"


def compact_log10(x: float) -> str:
    """A count known by its log10 (a joint cell of millions of digits), as :func:`compact_count` shows it."""
    if x < 6:
        return str(round(10 ** x))
    exponent = math.floor(x)
    lead = math.floor(10 ** (x - exponent + 3) + 1e-6)  # four digits, cut as format_count cuts them
    if lead >= 10000:
        exponent, lead = exponent + 1, lead // 10
    text = str(lead)
    return f"{text[0]}.{text[1:]}e{exponent}"


def headline_count(n: int | None) -> str:
    """A count for a headline: in full, with its power of ten where it has over 6 digits."""
    if n is None or abs(n) < 10 ** 6:
        return format_count(n)
    if abs(n) < 10 ** 30:
        return f"{n} (~{float(n):.2e})".replace("e+", "e")
    return format_count(n)
