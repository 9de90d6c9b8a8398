"""Exact counts on any support by a search over the entries of the value maps.

A map of class complete (= permutation), disentangled or shared is a choice
of source concept for every predicted concept plus a table of entries
(source value -> predicted value). A support vector reads one entry per
predicted concept, so the search assigns entries one at a time, the one that
completes the most support vectors first. Each vector keeps, per label part
(labels reading disjoint concepts), the index of its partial prediction in a
*star table*: every concept's domain plus one "not yet known" slot, holding
the set of labels some completion still reaches. A vector whose true label
drops out of that set prunes the branch, and so do two vectors bound to end
with the same prediction (same partial prediction, same values on every
source still to be read) that want different labels: a map that loses
information a label needs dies at once. Entries that no undecided vector
reads, values no vector shows, and everything left once every label is
fixed are counted in closed form; equal states are counted once (a cache
keyed by the labelling function each vector has left, not by how it got
there). Once every predicted concept has its source, a vector with two or
three open entries narrows their values to those some completion supports
(arc consistency, to a fixpoint). Value permutations of the predicted
concepts that keep every label (Kand-Logic: a color and a shape permutation
per figure) map optimal maps to optimal maps, so an entry tries one value
per orbit of the permutations that fix the entries set so far and counts
it once per member of the orbit. Likewise, for complete maps, predicted
concepts the knowledge can swap read sources in increasing order, and the
count is multiplied by the blocks' factorials.

The parts: :mod:`.tables` (star tables), :mod:`.state` (the state as plain
data), :mod:`.propagate` (pruning), :mod:`.symmetries` (orbits), :mod:`.memo`
(equal states), :mod:`.branch` (the search), :mod:`.sources` (a sum over
source sets) and :mod:`.listing` (a source set's maps listed by SAT). A
complete problem whose labels read every concept is one source set: a quick
search, then SAT's list, then the whole search (ConCon task 3's read
concepts at 4 objects: 12,144 maps, 1.2 million partial maps in 202 s).
"""
from __future__ import annotations

import os

from ...errors import BackendError, CountTimeout
from ...results.count import Tally
from ...runtime.lazy import Recent
from ..base import Counter, Deadline, Options, briefly, run_isolated, run_isolated_all
from .branch import Search
from ...problems.sources import whole_rectangle
from .sources import count_rectangles, rectangle_count, rectangle_key
from .tables import MAX_STAR, largest_star

__all__ = ["SearchCounter", "BACKEND"]

CLASSES = ("complete", "permutation", "disentangled", "shared")
QUICK_ROWS, QUICK_STAR, QUICK_SECONDS = 256, 1 << 14, 0.05  # small problems are first tried in-process, briefly
WHOLE_LISTED = 1024  # maps SAT lists of a whole problem before the search goes on (a second at most lost)
_COUNTED = Recent(1 << 14)  # rectangle (and core) counts by rectangle_key: an audit recounts the same ones


class SearchCounter(Counter):
    """Exact counts on sampled supports (any support), with concept supervision."""

    name = "search"

    def applies(self, problem) -> bool:
        task = problem.task
        if problem.map_class not in CLASSES or not problem.support.listed:
            return False
        return largest_star(task) <= MAX_STAR

    def count(self, problem, encoding, options: Options) -> Tally:
        if problem.map_class not in CLASSES:
            raise BackendError(f"search counts classes {', '.join(CLASSES)}, not {problem.map_class}")
        if not problem.support.listed:
            raise BackendError("search needs the support's vectors listed; this exhaustive support is too large")
        if not self.applies(problem):
            raise BackendError(f"search keeps a table of (domain + 1) cells per label part, over {MAX_STAR} "
                               f"here; use backend=ganak")

        def work():
            deadline = options.deadline(self.name)
            try:
                whole = whole_rectangle(problem)
                if whole is not None:
                    return rectangle_count(whole, deadline, search_first=True, list_limit=WHOLE_LISTED)
                search = Search(problem, deadline)
            except ValueError as exc:
                raise BackendError(f"search cannot run here: {exc}") from None
            return search.total(), search.nodes, False

        total, nodes, listed = run_isolated(work, self.name, options.timeout, options.memory_mb, options.progress,
                                            options.cancel)
        return Tally(total, notes=(f"search: {nodes} partial maps visited" + (
            ", then SAT listed the maps (the search proved little per node)" if listed else ""),))

    def count_sum(self, split, options: Options) -> tuple:
        """(sum of weight x count over a source split's rectangles, nodes visited, rectangles whose maps SAT
        listed): see :meth:`rectangle_counts`."""
        counts, nodes, listed = self.rectangle_counts(split, options)
        return sum(w * c for w, c in zip(split.weights, counts)), nodes, listed

    def rectangle_counts(self, split, options: Options) -> tuple:
        """(each rectangle's count of a source split, nodes visited, rectangles whose maps SAT listed): those not
        counted before in this process shared out between child processes, one per core (see
        :func:`rscount.problems.sources.source_split` and :func:`.sources.count_rectangles`)."""
        if any(not self.applies(r) for r in split.rectangles):
            raise BackendError(f"search keeps a table of (domain + 1) cells per label part, over {MAX_STAR} here")
        cores = split.cores or (None,) * len(split.rectangles)
        keys = [rectangle_key(r) for r in split.rectangles]
        core_keys = [None if c is None else rectangle_key(c) for c in cores]
        known = {k: _COUNTED.get(k) for k in keys + core_keys if k is not None and k in _COUNTED}
        todo = [n for n, r in enumerate(split.rectangles) if keys[n] not in known]
        groups = _shares(todo, [split.rectangles[n].support.length for n in todo], os.cpu_count() or 1)
        parts = run_isolated_all(
            [lambda group=group: count_rectangles(split, options.deadline(self.name), known=known, only=group)
             for group in groups], self.name, options.timeout, options.memory_mb, options.progress,
            options.cancel) if groups else []
        new = {k: v for part in parts for k, v in part[2].items()}
        _COUNTED.update(new)
        known.update(new)
        out = _per_rectangle(keys, core_keys, known)
        if None in out:
            raise BackendError(f"search: rectangle {out.index(None)} of the source split was not counted; please "
                               f"report this")
        return out, sum(p[0] for p in parts), sum(p[1] for p in parts)

    def kept_counts(self, split) -> list | None:
        """Each rectangle's count of ``split`` as an earlier :meth:`rectangle_counts` in this process kept it (0 where
        only its core was counted, without maps), or None where one was not kept: nothing is counted here."""
        cores = split.cores or (None,) * len(split.rectangles)
        out = _per_rectangle([rectangle_key(r) for r in split.rectangles],
                             [None if c is None else rectangle_key(c) for c in cores], _COUNTED)
        return None if None in out else out

    def quick(self, problem) -> Tally | None:
        """The count of a small problem if this process finds it within QUICK_SECONDS, else None.

        Forking a child and racing Ganak costs more than counting a problem
        of a few dozen vectors, so those are tried here first, unforked.
        """
        if not self.applies(problem) or problem.support.length > QUICK_ROWS or largest_star(problem.task) > QUICK_STAR:
            return None
        def go(deadline: Deadline) -> tuple:
            search = Search(problem, deadline, every=8)
            return search.total(), search.nodes
        done = briefly(go, QUICK_SECONDS, self.name, catch=(CountTimeout, ValueError))
        if done is None:
            return None
        return Tally(done[0], notes=(f"search: {done[1]} partial maps visited, in this process "
                                     f"(a small problem: no child process, no race)",))


BACKEND = SearchCounter()


def _per_rectangle(keys: list, core_keys: list, known) -> list:
    """Each rectangle's count from ``known`` (by key), 0 where only its core was counted without maps (a core
    without maps skips its own rectangle), None where neither is known."""
    return [known.get(key) if key in known else 0 if core is not None and known.get(core) == 0 else None
            for key, core in zip(keys, core_keys)]


def _shares(items: list, costs: list, n: int) -> list:
    """``items`` in at most ``n`` groups of about equal cost (largest first, each to the lightest group)."""
    groups: list = [[] for _ in range(max(min(n, len(items)), 1))]
    loads = [0] * len(groups)
    for cost, item in sorted(zip(costs, items), reverse=True):
        g = loads.index(min(loads))
        groups[g].append(item)
        loads[g] += cost
    return [sorted(g) for g in groups if g]
