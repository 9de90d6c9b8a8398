"""A complete problem's count as a sum over the source sets of its read concepts (see
:func:`rscount.problems.sources.source_split`): each set's rectangle counted by the search, after its core,
or by listing its maps with SAT where the search does not finish quickly.

Most source sets leave no map on a listed support (ConCon task 1: the colours cannot stand in for the
shapes), and proving that by search over thousands of rows costs far more than over the rectangle's core:
its rows with one value of each class the rows cannot tell apart (every map of the rectangle is one of the
core's, so a core without maps proves the rectangle has none). Where the search is still not done after
QUICK_NODES partial maps, SAT proves emptiness or lists the few maps far sooner (:mod:`.listing`); past
its MAX_MODELS maps the search counts the rectangle after all.
"""
from __future__ import annotations

import time

from ...errors import CountTimeout
from ...problems.split import bijection_weight
from ...runtime.lazy import digest
from ..base import Deadline
from .branch import CHECK_EVERY, Search
from .listing import MAX_MODELS, listed_count

QUICK_NODES = 2 * CHECK_EVERY  # partial maps a rectangle's search may visit before SAT lists its maps
LIST_FIRST = 512  # rows past which SAT lists a rectangle's maps first (each search node costs a pass over rows)


class _Spent(Exception):
    """A search used up its quick budget."""


class _Budget:
    """The deadline, and a stop after ``checks`` of its checks (one every CHECK_EVERY search nodes)."""

    def __init__(self, deadline, checks: int):
        self.deadline, self.left = deadline, checks

    def check(self) -> None:
        self.deadline.check()
        self.left -= 1
        if self.left < 0:
            raise _Spent


def count_rectangles(split, deadline, quick: int = QUICK_NODES, known: dict | None = None,
                     only: list | None = None) -> tuple:
    """(partial maps visited, rectangles SAT listed, {key: count} of the rectangles and cores counted here) for
    the rectangles of ``split`` numbered in ``only`` (default: all); ``known`` gives counts by
    :func:`rectangle_key` already had (an audit counts the same rectangles under supervision of unread concepts,
    or one row more). A rectangle whose core has no map is left out: it has none either."""
    nodes, listed, new = 0, 0, {}
    known = known or {}
    for n in range(len(split.rectangles)) if only is None else only:
        rect, core = split.rectangles[n], split.cores[n] if split.cores else None
        if core is not None:
            key = rectangle_key(core)
            empty = known.get(key, new.get(key))
            if empty is None:
                search = Search(core, deadline)
                empty = new[key] = search.total()
                nodes += search.nodes
            if empty == 0:
                continue
        key = rectangle_key(rect)
        if known.get(key, new.get(key)) is None:
            new[key], visited, by_sat = rectangle_count(rect, deadline, quick)
            nodes += visited
            listed += by_sat
    return nodes, listed, new


def rectangle_key(rect) -> tuple:
    """What a rectangle's count depends on: its read concepts and labels, its sources' sizes, and a digest of
    its rows, labels and supervision."""
    return rect.task, rect.map_class, rect.source_sizes, digest(rect.support.vectors, rect.labels, rect.truth,
                                                                rect.observed)


def rectangle_count(rect, deadline, quick: int = QUICK_NODES, search_first: bool = False,
                    list_limit: int = MAX_MODELS) -> tuple:
    """(the number of maps of one rectangle, partial maps visited, whether SAT listed them): a quick search
    (on rectangles of up to LIST_FIRST rows, or ``search_first``), then SAT's list (up to ``list_limit`` maps), then
    the whole search."""
    search = Search(rect, _Budget(deadline, quick // CHECK_EVERY))
    if search_first or rect.support.length <= LIST_FIRST:
        try:
            return search.total(), search.nodes, False
        except _Spent:
            pass
    found = listed_count(rect, search.state, deadline, list_limit)
    if found is not None:
        return found, search.nodes, True
    full = Search(rect, deadline)
    return full.total(), search.nodes + full.nodes, False


BOUND_SECONDS = 1.0  # a rectangle's own time in split_bounds before its class size stands in for its count
BOUND_MISSES = 8  # rectangles in a row not counted in their time, after which split_bounds tries no more


def split_bounds(split, seconds: float, each: float = BOUND_SECONDS) -> tuple:
    """(lower, upper, rectangles counted) for a source split's sum where counting every rectangle is out of
    reach: rectangles are tried heaviest weight first (the read concepts' own sources lead), each for ``each``
    seconds within ``seconds`` in all, until BOUND_MISSES in a row fail; a counted one adds weight x count to both
    bounds, any other weight x its class size (every bijection of its read concepts onto its sources with any
    value maps) to the upper one."""
    start, lower, slack, counted, misses = time.monotonic(), 0, 0, 0, 0
    cores = split.cores or (None,) * len(split.rectangles)
    for n in sorted(range(len(split.rectangles)), key=lambda n: -split.weights[n]):
        rect, weight = split.rectangles[n], split.weights[n]
        left = seconds - (time.monotonic() - start)
        found = None
        if left > 0 and misses < BOUND_MISSES:
            deadline = Deadline(min(each, left), "source-bounds")
            try:
                found = 0 if cores[n] is not None and Search(cores[n], deadline).total() == 0 else \
                    rectangle_count(rect, deadline)[0]
            except CountTimeout:
                pass
        if found is None:
            slack, misses = slack + weight * bijection_weight(rect.task.sizes, rect.source_sizes), misses + 1
        else:
            lower, counted, misses = lower + weight * found, counted + 1, 0
    return lower, lower + slack, counted
