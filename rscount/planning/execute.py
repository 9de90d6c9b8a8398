"""Execute a counting plan: each kind of step runs itself, and a problem goes down the floors once.

:func:`rscount.planning.dispatch.plan` decides the steps (a value, printed by ``--explain``); here each step kind has
its runner: ``as`` counts another problem (and scales by free factors), ``parts`` multiplies independent parts,
``try`` gives a structural counter its share of the time left (half, or
:data:`~rscount.planning.dispatch.TRY_SHARE`), and ``run`` / ``race`` run the generic counters. A runner returns a
result or raises :class:`GaveUp` to hand on to the next step.
"""
from __future__ import annotations

import dataclasses
import functools
import itertools
import math
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Optional

from ..counters import COUNTERS, Options, get_counter
from ..counters.base import Cancelled, Deadline, race
from ..counters.generic.enumerate import models
from ..errors import BackendError, CountTimeout, EncodingError, reason
from ..model import support as supports
from ..problems.encoding import encode
from ..problems.problem import Problem
from ..problems.sources import source_split
from ..problems.split import unread_concepts
from ..problems.union import as_single
from ..results.count import CountResult, Tally, format_count
from ..runtime.limits import check_confidence, check_megabytes, check_seconds
from .dispatch import HEAD_START, Step, check_mode, exact_first, generic_step, narrower_classes, plan, try_share

__all__ = ["count_problem", "GaveUp", "RUNNERS"]


BOUNDS_SHARE = 0.25  # of the time limit the generic counters leave a bounds step after them: where an estimate runs
# out of time (ApproxMC on MNMath-B.1 free by-label:100), the narrower classes still bound the count
UNTIMED_BOUNDS = 60.0  # seconds source-bounds spends counting source sets where no limit is given (each set is
# tried in turn until the time is spent: without a limit it would try them all, the exact count's work)


class GaveUp(Exception):
    """A step that could not count the problem; the next step of the plan runs."""


@dataclass
class Run:
    """What every step of one execution reads: the counting options and what the steps before it said."""

    backend: str | None
    exact: bool | None
    approx: bool
    epsilon: float
    delta: float
    seed: int
    timeout: float | None
    memory_mb: int | None
    progress: Optional[Callable[[str], None]]
    began: float = field(default_factory=time.perf_counter)
    notes: list = field(default_factory=list)
    gave_up: list = field(default_factory=list)
    timed_out: list = field(default_factory=list)  # what the try steps said when their share of the time ran out
    failed: Optional[BackendError] = None  # why the counting steps gave up, where a bounds step follows them
    ends: Optional[float] = None  # when the whole timeout ends (``timeout`` shrinks as try steps give up)

    def __post_init__(self) -> None:
        self.ends = None if self.timeout is None else self.began + self.timeout

    def again(self, problem: Problem, backend: str | None = None, **changes) -> CountResult:
        """Execute another problem (or this one with one named counter) with these options."""
        options = dict(exact=self.exact, approx=self.approx, epsilon=self.epsilon, delta=self.delta, seed=self.seed,
                       timeout=self.timeout, memory_mb=self.memory_mb, progress=self.progress)
        options.update(changes)
        return _execute(problem, backend, **options)


def count_problem(problem: Problem, backend: str | None = None, *, exact: bool | None = None,
                  approx: bool = False, epsilon: float = 0.8, delta: float = 0.2, seed: int = 1,
                  timeout: float | None = None, memory_mb: int | None = None,
                  progress: Optional[Callable[[str], None]] = None) -> CountResult:
    """Count the optimal maps of ``problem`` by executing its :class:`~rscount.planning.dispatch.Plan` (``backend``: the
    one counter to use, else each step is chosen)."""
    if not isinstance(problem, Problem):
        raise TypeError(f"count_problem() takes a Problem (rscount.make_problem(...)), not {type(problem).__name__}")
    timeout, memory_mb = check_seconds(timeout), check_megabytes(memory_mb)
    epsilon, delta = check_confidence(epsilon, delta)
    result = _execute(problem, backend, exact=exact, approx=approx, epsilon=epsilon, delta=delta, seed=seed,
                      timeout=timeout, memory_mb=memory_mb, progress=progress)
    from ..counters.generic.bruteforce import number_of_candidates
    result = dataclasses.replace(result, notes=problem.task.notes + result.notes, shown=problem.task.shown)
    return dataclasses.replace(result, **_unread(problem, result),
                               _class_size=functools.partial(number_of_candidates, problem))


def _unread(problem: Problem, result: CountResult) -> dict:
    """The concepts no label reads and their free value maps, which the headline shows apart from the rest."""
    if problem.inference != "knowledge" and problem.map_class in ("disentangled", "shared"):
        learned = dataclasses.replace(problem, inference="knowledge")
        found = unread_concepts(learned)
        if found is None:
            return {}
        names = ", ".join(problem.task.concepts[i].name for i in found[0][:6])
        return {"notes": result.notes + (f"no label's knowledge reads {names}{' ...' if len(found[0]) > 6 else ''}"
                                         f"; under a learned head they are not free (a head may read them), so "
                                         f"the count is not split into read and unread concepts",)}
    single = as_single(problem)  # several tasks that are one: its unread concepts are theirs
    found = unread_concepts(problem if single is None else single[0])
    if found is None or (result.exact and result.count % found[1]):
        return {}
    free, factor = found
    return {"unread": tuple(problem.task.concepts[i].name for i in free), "free_maps": factor}


def _execute(problem: Problem, backend: str | None = None, *, exact: bool | None = None, approx: bool = False,
             epsilon: float = 0.8, delta: float = 0.2, seed: int = 1, timeout: float | None = None,
             memory_mb: int | None = None, progress: Optional[Callable[[str], None]] = None) -> CountResult:
    check_mode(exact, approx)
    if backend is not None and approx and COUNTERS.get(backend, COUNTERS["ganak"]).exact:
        raise EncodingError(f"approx=True uses an estimating counter (approxmc, estimate, kernels-estimate); it "
                            f"cannot be combined with backend={backend}")
    if backend is not None and exact and not COUNTERS.get(backend, COUNTERS["ganak"]).exact:
        raise EncodingError(f"exact=True asks for an exact count but backend={backend} approximates")
    steps = plan(problem, backend, exact=exact, approx=approx, decide_generic=False)
    run = Run(backend, exact, approx, epsilon, delta, seed, timeout, memory_mb, progress)
    for n, step in enumerate(steps.steps):
        if step.kind == "generic":
            step = generic_step(problem, exact=exact, approx=approx)
            steps = dataclasses.replace(steps, steps=steps.steps[:n] + (step,) + steps.steps[n + 1:])
        if step.kind in ("run", "race") and run.ends is not None and any(s.kind == "bounds" for s in steps.steps):
            run.timeout = max(run.ends - time.perf_counter() - timeout * BOUNDS_SHARE, 0.001)  # the bounds' share
        try:
            result = RUNNERS[step.kind](problem, step, run)
        except GaveUp:
            continue
        except BackendError as exc:  # the last counting step: a bounds step after it still answers
            if step.kind != "bounds" and any(s.kind == "bounds" for s in steps.steps[n + 1:]):
                run.failed = exc
                continue
            if (type(exc) is BackendError and not approx and backend is None and narrower_classes(problem)
                    and "approx=True" not in str(exc)):
                raise BackendError(f"{exc}; approx=True gives guaranteed bounds instead") from None
            raise
        return dataclasses.replace(result, plan=steps, answered=n,  # the steps that gave up counted too
                                   seconds=max(result.seconds, time.perf_counter() - run.began))
    raise BackendError(f"no step of the plan counted {problem.describe()}")


def _run_as(problem: Problem, step: Step, run: Run) -> CountResult:
    """Count another problem with the same maps (times ``step.factor`` free value maps)."""
    same = run.again(step.problems[0])
    if step.factor is not None:  # the other problem lacks free concepts: scale, and list maps of this one
        same = dataclasses.replace(
            same, **_described(problem), count=same.count * step.factor,
            lower=None if same.lower is None else same.lower * step.factor,
            upper=None if same.upper is None else same.upper * step.factor,
            _enumerate=_enumerator(problem, None, same.count * step.factor if same.exact else None))
    return dataclasses.replace(same, map_class=problem.map_class, notes=same.notes + (step.reason,))


def _run_parts(problem: Problem, step: Step, run: Run) -> CountResult:
    return _count_parts(problem, list(step.problems), timeout=run.timeout, memory_mb=run.memory_mb,
                        progress=run.progress, approx=(run.epsilon, run.delta, run.seed) if run.approx else None,
                        backend=run.backend)


def _run_try(problem: Problem, step: Step, run: Run) -> CountResult:
    """A structural counter with its share of the time left; giving up hands on to the next step."""
    name, tried = step.counters[0], time.perf_counter()
    share = exact_first(None if run.ends is None else run.ends - tried) if name == "exact" else \
        None if run.timeout is None else run.timeout * try_share(name)
    try:
        if name == "exact":
            result = _exact_first(problem, run, share)
        elif name == "filter":  # several tasks: each alone, the fewest maps filtered
            result = _filter(problem, step, dataclasses.replace(run, timeout=share))
        elif name == "sources":
            result = _sources(problem, dataclasses.replace(run, timeout=share))
        elif name == "source-bounds":
            result = _source_bounds(problem, dataclasses.replace(run, timeout=share))
        elif step.problems:  # automorphism over the shared parts
            result = _count_shared_parts(problem, list(step.problems), timeout=share)
        else:
            light = name in ("weight", "valuemaps")  # in this process: no memory limit, no status
            result = run.again(problem, name, exact=None, approx=name == "estimate", timeout=share,
                               memory_mb=None if light else run.memory_mb, progress=None if light else run.progress)
        return dataclasses.replace(result, notes=tuple(run.notes) + result.notes)
    except BackendError as exc:  # too little structure or out of its share of time: the next step
        what = "automorphism on the shared parts" if step.problems and name != "filter" else \
            f"the exact plan (its {share:.3g} s)" if name == "exact" else name
        run.notes.append(f"{what} gave up ({reason(exc)}); estimated" if name == "exact" else
                         f"{what} gave up ({exc}); counted generically")
        run.gave_up.append(what)
        if isinstance(exc, CountTimeout):
            run.timed_out.append(reason(exc))
        if run.timeout is not None:
            run.timeout -= time.perf_counter() - tried
        raise GaveUp(what) from None


def _exact_first(problem: Problem, run: Run, seconds: float) -> CountResult:
    """approx=True: the plan approx=False takes, within ``seconds``; whatever stops it (out of time, no counter,
    no encoding for the exact counters) hands on to the estimate."""
    try:
        result = run.again(problem, approx=False, timeout=seconds)
    except EncodingError as exc:
        raise BackendError(str(exc)) from None
    return dataclasses.replace(result, notes=result.notes + (
        f"approx: counted exactly within the {seconds:.3g} s the exact plan gets first, so nothing is estimated",))


FILTER_MAPS = 20_000  # maps of the task with the fewest that a filter step lists and checks


def _filter(problem: Problem, step: Step, run: Run) -> CountResult:
    """Several tasks: count each alone, list the maps of the one with the fewest, keep those every task keeps."""
    from ..problems.union import keeps
    start = time.perf_counter()
    deadline = Deadline(run.timeout, "filtering the maps of the tasks", "raise timeout=")
    alone = [run.again(p, timeout=None if run.timeout is None else run.timeout / (2 * len(step.problems)))
             for p in step.problems]
    fewest = min(range(len(alone)), key=lambda t: alone[t].count)
    if not alone[fewest].exact or alone[fewest].count > FILTER_MAPS:
        raise BackendError(f"the task with the fewest maps alone has {format_count(alone[fewest].count)} "
                           f"(listing limit {FILTER_MAPS:,})")
    total = 0
    for n, m in enumerate(alone[fewest].maps(None, run.timeout)):
        if n % 256 == 0:
            deadline.check()
        total += keeps(problem, m)
    if total < 1:
        raise BackendError("filtering left no map, but the identity is always optimal; please report this")
    names = ", ".join(f"{p.task.name}: {format_count(r.count)}" for p, r in zip(step.problems, alone))
    return CountResult(**_described(problem), count=total, exact=True, backend=f"filter({alone[fewest].backend})",
                       seconds=time.perf_counter() - start, warnings=problem.task.warnings,
                       notes=(f"each task alone ({names}); the {format_count(alone[fewest].count)} maps of "
                              f"{step.problems[fewest].task.name} listed and checked on every task's rows",),
                       _enumerate=_enumerator(problem, None, total))


def _split_within(problem: Problem, run: Run, who: str) -> tuple:
    """(the problem's source split, the time left after finding it: None where there is no limit)."""
    start = time.perf_counter()
    split = source_split(problem, Deadline(run.timeout, who, "raise timeout="))
    if split is None:
        raise BackendError("no source split applies")
    left = None if run.timeout is None else run.timeout - (time.perf_counter() - start)
    if left is not None and left <= 0:
        raise CountTimeout(f"{who}: no time left after finding the source sets; raise timeout=")
    return split, left


def _sources(problem: Problem, run: Run) -> CountResult:
    """Complete maps as a sum over the source sets the read concepts may take (see
    :func:`rscount.problems.sources.source_split`), each counted by the search."""
    start = time.perf_counter()
    split, left = _split_within(problem, run, "sources")
    total, nodes, listed = COUNTERS["search"].count_sum(split, Options(timeout=left, memory_mb=run.memory_mb,
                                                               progress=run.progress))
    task = problem.task
    names = ", ".join(task.concepts[i].name for i in split.read[:6]) + (" ..." if len(split.read) > 6 else "")
    tables = (f", {len(split.rectangles)} tables up to renaming of columns and values"
              if len(split.rectangles) < split.orbits else "")
    by_sat = f"; {listed} where it did not finish quickly by SAT, listing their maps" if listed else ""
    unshown = ("" if split.unshown == 1 else f", times {format_count(split.unshown).split(' (')[0]} targets of the "
               f"values no support vector shows (a free map sends each anywhere)")
    note = (f"sources: a complete map is a bijection of concepts with any value maps, and only the read concepts "
            f"({names}) meet the labels; of the {split.candidates:,} sets of {len(split.read)} sources they may "
            f"read, {split.sets:,} {'leaves' if split.sets == 1 else 'leave'} the labels a function of them "
            f"({split.orbits} up to symmetry{tables}), each counted by the search ({nodes} partial maps{by_sat}) "
            f"times the unread concepts' bijections onto the sources left{unshown}")
    # the read concepts read themselves (and no value unshown on the support adds its targets to the weight)
    own = split.sets == 1 and split.rectangles[0].sources == split.read and split.unshown == 1
    return CountResult(**_described(problem), count=total, exact=True, backend="sources(search)",
                       seconds=time.perf_counter() - start, warnings=problem.task.warnings, notes=(note,),
                       _enumerate=_enumerator(problem, None, total),
                       **({"unread": tuple(task.concepts[i].name for i in split.unread), "free_maps": split.weights[0]}
                          if own else {}))


def _source_bounds(problem: Problem, run: Run) -> CountResult:
    """Guaranteed bounds from a source split (``approx=True``) where counting every source set is out of reach:
    the sets counted within the time exactly, the rest by their class size (:func:`.sources.split_bounds`)."""
    from ..counters.search.sources import split_bounds
    start = time.perf_counter()
    split, left = _split_within(problem, run, "source-bounds")
    lower, upper, counted = split_bounds(split, UNTIMED_BOUNDS if left is None else left)
    if not lower:  # the read concepts' own sources hold the intended map: counted, they bound the count below
        raise BackendError("the read concepts' own sources were not counted in the time")
    whole = len(split.rectangles)
    tables = f" ({whole} tables up to renaming)" if whole < split.sets else ""
    note = (f"source-bounds: of the {split.sets:,} source sets the read concepts may take{tables}, {counted} "
            f"counted exactly within the time (heaviest weight first: the read concepts' own sources lead), the "
            f"other {whole - counted} bounded by their class size (any bijection onto their sources, any value "
            f"maps): guaranteed bounds, not a sample")
    exact = counted == whole
    return CountResult(**_described(problem), count=lower, exact=exact, lower=None if exact else lower,
                       upper=None if exact else upper, epsilon=None if exact else _spread(lower, upper),
                       delta=None if exact else 0.0, backend="source-bounds", seconds=time.perf_counter() - start,
                       warnings=problem.task.warnings, notes=(note,),
                       _enumerate=_enumerator(problem, None, lower if exact else None))


def _run_bounds(problem: Problem, step: Step, run: Run) -> CountResult:
    """Guaranteed bounds where no step counted the problem: the first narrower class counted exactly (widest
    first, each given half the time left; the last all of it) below, the class's size above."""
    from ..counters.generic.bruteforce import number_of_candidates
    from ..problems.problem import for_class
    start, failed = time.perf_counter(), run.failed
    why = reason(failed) if failed is not None else "no step counted it"
    tried = []
    for n, cls in enumerate(step.counters):
        left = None if run.ends is None else run.ends - time.perf_counter()
        if left is not None and left <= 0.5:
            break
        share = None if left is None else left if n == len(step.counters) - 1 else left / 2
        try:
            inner = run.again(dataclasses.replace(problem, map_class=cls, task=for_class(problem.task, cls)),
                              exact=True, approx=False, timeout=share)
        except BackendError as exc:
            tried.append(f"{cls}: {reason(exc)}")
            continue
        upper, lower = number_of_candidates(problem), inner.count
        if lower == upper:  # every map of the class is optimal: the narrower class holds them all
            return dataclasses.replace(inner, **_described(problem), notes=inner.notes + (
                f"class-bounds: the {cls} maps ({lower}) are every {problem.map_class} map",))
        return CountResult(**_described(problem), count=lower, exact=False, lower=lower, upper=upper,
                           epsilon=_spread(lower, upper), delta=0.0, backend=f"class-bounds({cls}: {inner.backend})",
                           seconds=time.perf_counter() - start, warnings=problem.task.warnings,
                           notes=(f"class-bounds: {problem.map_class} was not counted ({why}); the {cls} maps "
                                  f"({format_count(lower).split(' (')[0]}, exact) are {problem.map_class} maps, "
                                  f"and the class holds {format_count(upper).split(' (')[0]} maps: guaranteed "
                                  f"bounds, not a sample",) + tuple(f"class-bounds: {t}" for t in tried))
    if failed is not None:
        raise failed
    raise BackendError(f"no step of the plan counted {problem.describe()}, nor a narrower class "
                       f"({'; '.join(tried) or 'no time left'})")


def _spread(lower: int, upper: int) -> float:
    """upper / lower - 1 of guaranteed bounds (their epsilon); infinite past what a float holds."""
    try:
        return upper / lower - 1
    except OverflowError:
        return math.inf


def _run_generic(problem: Problem, step: Step, run: Run) -> CountResult:
    """The generic counters, one or two side by side."""
    try:
        result = _count_generic(problem, step.counters, run.backend is None, timeout=run.timeout,
                                memory_mb=run.memory_mb, epsilon=run.epsilon, delta=run.delta, seed=run.seed,
                                progress=run.progress, gave_up=run.gave_up)
    except BackendError as exc:
        if not run.timed_out or isinstance(exc, CountTimeout):
            raise
        raise CountTimeout(f"{'; '.join(run.timed_out)} (their share of the time limit), and the generic counters "
                           f"cannot take this problem ({exc}); raise timeout=") from None
    return dataclasses.replace(result, seconds=time.perf_counter() - run.began,
                               notes=tuple(run.notes) + result.notes)


RUNNERS = {"as": _run_as, "parts": _run_parts, "try": _run_try, "run": _run_generic, "race": _run_generic,
           "generic": _run_generic, "bounds": _run_bounds}


def _count_generic(problem: Problem, names: tuple, chosen: bool, *, timeout, memory_mb, epsilon, delta, seed,
                   progress, gave_up: list) -> CountResult:
    """Run one generic counter, or race two (keeping the first answer); ``chosen``: not named by the user."""
    counters = [get_counter(name) for name in names]
    start = time.perf_counter()
    lock, built = threading.Lock(), {}

    def encoding_for(counter, cancel):
        if not _wants_cnf(counter, problem):
            return None
        with lock:
            if "cnf" not in built:
                built["cnf"] = encode(problem, _encoding_progress(progress, problem.support.length),
                                      deadline=Deadline(timeout, f"encoding {problem.support.length} support vectors",
                                                        "raise timeout= or count a smaller support "
                                                        "(subsample=N)", cancel))
            return built["cnf"]

    def attempt(counter):
        def go(cancel=None) -> Tally:
            enc = encoding_for(counter, cancel)
            left = None if timeout is None else max(timeout - (time.perf_counter() - start), 0.001)
            return counter.count(problem, enc, Options(timeout=left, memory_mb=memory_mb, epsilon=epsilon,
                                                       delta=delta, seed=seed, progress=progress, cancel=cancel))
        return go

    notes: list = []
    quick = getattr(counters[0], "quick", None) if chosen and len(names) > 1 else None
    tally = quick(problem) if quick is not None else None
    try:
        if tally is not None:
            name = names[0]
        elif len(names) == 1:
            name, tally = names[0], attempt(counters[0])()
        else:
            name, tally, lost = race([(n, attempt(c)) for n, c in zip(names, counters)],
                                     head_start=HEAD_START if names[-1] == "ganak" else 0.0)
            others = [n for n in names if n != name]
            failed = {n: e for n, e in lost.items() if not isinstance(e, Cancelled)}
            notes.append(f"{' and '.join(names)} ran side by side; {name} finished first"
                         + "".join(f"; {n} ran out of memory (the memory limit)" if isinstance(e, MemoryError)
                                   else f"; {n} gave up ({e})" for n, e in failed.items())
                         + ("" if failed else f" and {' and '.join(others)} "
                                              f"{'was' if len(others) == 1 else 'were'} stopped"))
    except CountTimeout as exc:
        if not gave_up:
            raise
        what, _, advice = str(exc).partition("; ")  # say where the rest of --timeout went
        raise CountTimeout(f"{' and '.join(gave_up)} gave up, then {what} (the rest of the time limit); "
                           f"{advice}") from None
    encoding = built.get("cnf")
    if tally.count < 1 and tally.intended:
        raise BackendError(f"{name} returned {tally.count}, but the identity map is always optimal; "
                           f"please report this with the task and options")
    return CountResult(
        **_described(problem),
        count=tally.count, exact=tally.exact, backend=name, seconds=time.perf_counter() - start,
        intended=tally.intended,
        lower=tally.lower, upper=tally.upper, epsilon=tally.epsilon, delta=tally.delta,
        encoding=encoding.size if encoding is not None and _wants_cnf(get_counter(name), problem) else tally.encoding,
        notes=tuple(notes) + tally.notes, warnings=problem.task.warnings,
        _enumerate=_enumerator(problem, encoding, tally.count if tally.exact else None),
        _renamed=_renamer(problem, tally.count) if problem.inference != "knowledge" and tally.exact else None,
        _heads=_heads(problem) if problem.inference != "knowledge" else None)


def _renamer(problem: Problem, count: int):
    def renamed(timeout=None) -> int:
        from ..heads.renaming import up_to_renaming
        return up_to_renaming(problem, count, timeout)
    return renamed


def _heads(problem: Problem):
    def heads(concept_map=None, timeout=None):
        from ..heads.space import head_space
        return head_space(problem, concept_map, timeout)
    return heads


def _described(problem: Problem) -> dict:
    """The fields of a CountResult that say what was counted."""
    return dict(task=problem.task.name, map_class=problem.map_class, support=problem.support.kind,
                support_size=problem.support.length, supervision=problem.supervision.describe(problem.task),
                inference=problem.inference)


def _count_parts(problem: Problem, parts: list, *, timeout, memory_mb, progress, approx=None,
                 backend: str | None = None) -> CountResult:
    """Count independent sub-problems one by one and multiply (see :mod:`rscount.problems.split`).

    With ``approx`` = (epsilon, delta, seed) each part is estimated; a part
    gets an equal share of what the parts before it left of the accuracy
    (factors 1 + epsilon multiply, deltas add), so exact parts cost nothing.
    ``backend`` counts every part (None: each part's own choice).
    """
    start = time.perf_counter()
    results = []
    factor, risk = 1 + approx[0] if approx else 1, approx[1] if approx else 0
    for n, part in enumerate(parts):
        left = None if timeout is None else max(timeout - (time.perf_counter() - start), 0.001)
        if approx is None:
            results.append(count_problem(part, backend, timeout=left, memory_mb=memory_mb, progress=progress))
            continue
        share = factor ** (1 / (len(parts) - n))
        r = count_problem(part, backend, approx=True, epsilon=share - 1, delta=risk / (len(parts) - n),
                          seed=approx[2], timeout=left, memory_mb=memory_mb, progress=progress)
        if not r.exact:
            factor, risk = factor / share, risk - r.delta
        results.append(r)
    total = 1
    for r in results:
        total *= r.count
    exact = all(r.exact for r in results)
    bounds = {}
    if not exact:
        lower = math.prod(r.count if r.exact else r.lower for r in results)
        upper = math.prod(r.count if r.exact else r.upper for r in results)
        bounds = dict(lower=lower, upper=upper, delta=approx[1] - risk,
                      epsilon=max(approx[0], upper / total - 1, total / lower - 1))
    names = " | ".join(f"{r.task}: {'' if r.exact else '~'}{format_count(r.count)} ({r.backend}"
                       f"{'' if approx is None else ', exact' if r.exact else ', estimated'})" for r in results)
    why = ("the support is exhaustive" if problem.support.exhaustive
           else "on this support no optimal map lets a part read another part's concepts"
           if problem.map_class in ("complete", "permutation")
           else f"each {problem.map_class} map reads each part's concepts alone")
    note = (f"split: the labels read {len(parts)} disjoint sets of concepts and {why}, so "
            f"the count is the product of the parts' counts ({names})")
    backends = "+".join(dict.fromkeys(r.backend for r in results))
    return CountResult(
        **_described(problem),
        count=total, exact=exact, **bounds, backend=f"split({backends})", seconds=time.perf_counter() - start,
        notes=(note,) + _part_notes(problem, results), warnings=problem.task.warnings,
        parts=tuple(results), _enumerate=_enumerator(problem, None))


def _part_notes(problem: Problem, results: list) -> tuple:
    """Each part's own notes once, named by the part (the task's notes come once, from the whole)."""
    return tuple(dict.fromkeys(f"{r.task}: {n}" for r in results for n in r.notes if n not in problem.task.notes))


def _count_shared_parts(problem: Problem, parts: list, *, timeout) -> CountResult:
    """Shared maps optimal on every label part at once (see
    :func:`rscount.counters.symmetry.automorphism.count_shared_parts`)."""
    from ..counters.symmetry.automorphism import count_shared_parts
    start = time.perf_counter()
    total, boxes = count_shared_parts(problem, parts, Deadline(timeout, "automorphism"))
    note = (f"shared parts: the labels read {len(parts)} disjoint sets of concepts but the concept groups cross "
            f"them, so the count intersects each part's optimal shared maps ({boxes} boxes of maps)")
    return CountResult(
        **_described(problem),
        count=total, exact=True, backend="automorphism", seconds=time.perf_counter() - start,
        notes=(note,), warnings=problem.task.warnings, _enumerate=_enumerator(problem, None))


def _wants_cnf(counter, problem: Problem) -> bool:
    """Whether ``counter`` needs the CNF encoding for this problem (some have other paths)."""
    wants = getattr(counter, "wants_cnf", None)
    return wants(problem) if wants is not None else counter.needs_cnf


def _enumerator(problem: Problem, encoding, count: int | None = None):
    def maps(limit, timeout=None):
        if problem.map_class == "joint":  # a linear head's joint maps: listed by brute force (tiny tasks)
            name = "bruteforce" if problem.inference == "learned:linear" else "closed-form"
            return COUNTERS[name].enumerate(problem, None, limit)
        if problem.inference == "learned:linear":
            enc = encoding if encoding is not None else encode(problem)
            return COUNTERS["separable"].enumerate(problem, enc, limit)
        if encoding is None and problem.inference == "knowledge" and COUNTERS["automorphism"].applies(problem):
            return COUNTERS["automorphism"].enumerate(problem, None, limit,
                                                      Deadline(timeout, "listing maps", "ask for fewer maps"))
        found = _optimal_everywhere(problem, limit)
        if len(found) == limit or len(found) == count:
            return iter(found)
        deadline = Deadline(timeout, "listing maps", "raise timeout= or ask for fewer maps")
        try:
            enc = encoding if encoding is not None else encode(problem, deadline=deadline)
        except BackendError:  # the CNF refused for its size (RAVEN's): a counter that lists its own maps, if any
            lister = next((c for c in (COUNTERS["valuemaps"], COUNTERS["agreement"]) if problem.inference in
                           c.inferences and (c.several or not problem.parts) and c.applies(problem)), None)
            if lister is None:
                raise
            more = (m for m in lister.enumerate(problem, None, None, deadline) if m not in found)
        else:
            more = (m for m in map(enc.decode, models(enc, None, deadline, interruptible=True)) if m not in found)
        return itertools.chain(found, itertools.islice(more, None if limit is None else limit - len(found)))
    return maps


def _optimal_everywhere(problem: Problem, limit) -> list:
    """Up to ``limit`` maps optimal on every concept vector, hence on any sample (none under supervision).

    SAT enumeration over a sample can take long to find even one map of a
    large complete problem (Kand-Logic by-label:1000); these come from the
    knowledge's symmetries at once, and often are all the maps there are.
    """
    if problem.support.exhaustive or problem.supervision or limit == 0 or problem.inference != "knowledge":
        return []
    every = supports.exhaustive(problem.task)  # read off the knowledge: its vectors are never listed
    full = Problem(problem.task, every, problem.map_class)
    if not COUNTERS["automorphism"].applies(full):
        return []
    return list(itertools.islice(COUNTERS["automorphism"].enumerate(full, None, limit), limit))


def _encoding_progress(progress, n: int):
    if progress is None or n < 2000:
        return None
    step = max(1, n // 10)

    def report(done: int, total: int) -> None:
        if done >= total:
            progress("encoding: ")  # done: the display drops the line
        elif done % step == 0:
            progress(f"encoding: {done}/{total} support vectors")
    return report
