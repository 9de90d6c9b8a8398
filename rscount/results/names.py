"""Concept identifiers written back as the user wrote them (a ProbLog atom ``digit(a)`` is ``digit_a`` inside)."""
from __future__ import annotations

import re

__all__ = ["show_names"]


def show_names(text: str, shown: tuple) -> str:
    """Replace each identifier of ``shown`` ((identifier, text) pairs) standing as a whole word in ``text``."""
    if not shown:
        return text
    table = dict(shown)
    pattern = re.compile(r"(?<![\w(])(" + "|".join(re.escape(k) for k in sorted(table, key=len, reverse=True))
                         + r")(?![\w(])")
    return pattern.sub(lambda m: table[m.group(1)], text)
