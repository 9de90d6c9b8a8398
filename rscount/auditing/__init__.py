"""Audit a task design before any data is collected: what a model may confuse, and the cheapest fix.

>>> a = audit("mnadd-half", map_class="shared", curve=False)
>>> a.count, a.identifiable, a.supervise_values.items
(3, [], ('d1=4',))
"""
from __future__ import annotations

import time
from typing import Callable, Optional, Sequence

from ..errors import BackendError, CountTimeout, EncodingError, RscountError, TaskError, reason
from ..problems.problem import Problem, free_is_complete
from ..results.count import format_count, headline_count, unread_maps_words
from ..runtime.limits import check_megabytes, check_seconds, check_seed, memory_limit, time_limit
from .curve import Curve, data_curve, draw_count
from .fixes import DataFix, _same_as_complete, class_counts, data_fix, label_subsets
from .supervision import SupervisionFix, supervision_fix
from .maps import list_maps
from .relation import LIST_LIMIT, ConceptRelation, Relation, confusion, independent_parts
from .report import Audit, Comparison

__all__ = ["draw_count", "audit", "audit_problem", "audit_tasks", "compare", "Audit", "Comparison", "Relation", "ConceptRelation", "Curve",
           "SupervisionFix", "DataFix", "confusion", "data_curve"]


CLASS_SHARE = 0.15  # of the audit's time, for the class table of the whole design beside a read-concepts audit
FREE_AS_COMPLETE = ("on an exhaustive support every free map is a complete map (each value meets every value of "
                    "the other concepts, so no predicted concept can mix two of them): audited as the complete class")
FREE_AS_COMPLETE_LISTED = ("on this support every free map is a complete map (it shows every value of every concept "
                           "and ties each concept's values together, so no predicted concept can mix two concepts): "
                           "audited as the complete class")


def audit_problem(problem: Problem, *, curve: bool = False, sizes: Sequence[int] | None = None,
                  seeds: Sequence[int] = range(5), draw: str = "space", workers: int | None = None,
                  timeout: float | None = 60.0, progress: Optional[Callable[[str], None]] = None,
                  all_concepts: bool = False) -> Audit:
    """Audit one problem: its relation, the supervision, data, class and label fixes, and (``curve``) the data
    curve. ``timeout`` is shared out between the steps; a step out of time says what it could decide.

    Concepts no label reads are free under ``disentangled`` and ``shared``: by default the audit ranks and fixes
    the concepts the labels read and names the others apart (``all_concepts=True`` audits every concept)."""
    from ..planning.execute import count_problem
    from ..problems.split import without_unread
    listed_complete = problem.map_class == "free" and problem.support.listed and problem.inference == "knowledge" \
        and not problem.parts and not problem.supervision and free_is_complete(problem)
    if problem.map_class == "free" and ("free" in _same_as_complete(problem) or listed_complete):
        import dataclasses
        inner = audit_problem(dataclasses.replace(problem, map_class="complete"), curve=curve, sizes=sizes,
                              seeds=seeds, draw=draw, workers=workers, timeout=timeout, progress=progress,
                              all_concepts=all_concepts)
        return dataclasses.replace(inner, result=dataclasses.replace(inner.result, map_class="free"),
                                   notes=(FREE_AS_COMPLETE if problem.support.exhaustive else
                                          FREE_AS_COMPLETE_LISTED,) + inner.notes)
    free = None if all_concepts else without_unread(problem)
    if free is not None:
        inner = audit_problem(free[0], curve=curve, sizes=sizes, seeds=seeds, draw=draw, workers=workers,
                              timeout=None if timeout is None else timeout * 0.9, progress=progress,
                              all_concepts=True)
        return _read_only(problem, *free, inner, None if timeout is None else
                          max(min(timeout - inner.seconds, CLASS_SHARE * timeout), 1.0))
    if problem.inference == "learned:linear" and problem.map_class == "joint":
        raise EncodingError("the audit of a linear head covers the classes with value maps, not joint (count it: "
                            "countrss --map-class joint --inference learned:linear); audit the joint class with "
                            "inference learned")
    if curve:
        seeds = [check_seed(s, "seeds=") for s in seeds]
    start = time.monotonic()

    def left(share: float) -> float | None:
        return None if timeout is None else max((timeout - (time.monotonic() - start)) * share, 1.0)

    def say(msg: str) -> None:
        if progress:
            progress(f"{msg} ({time.monotonic() - start:.1f} s)")
    try:  # the count comes first and everything else reads it: it may use most of the time
        result = count_problem(problem, timeout=left(0.8))
    except CountTimeout:
        from ..planning.dispatch import bounds_apply
        bounded = "; counting with approx=True bounds it" if bounds_apply(problem) else ""
        raise CountTimeout(f"the audit of {problem.task.name} stopped after {time.monotonic() - start:.0f} s: its "
                           f"count did not finish in its share of timeout={bounded}; raise "
                           f"timeout= or audit a smaller support") from None
    except BackendError as exc:
        from ..planning.dispatch import narrower_classes
        narrow = [c for c in narrower_classes(problem) if c != "complete" or problem.map_class != "free"]
        if type(exc) is not BackendError or not narrow:
            raise
        why = reason(exc)
        raise BackendError(f"the audit of {problem.task.name} reads its {problem.map_class} count, which no counter "
                           f"reaches: approx=True bounds the count from a narrower class's, and "
                           f"map_class={narrow[0]} audits that class's maps (a part of these); why: {why}") from None
    apart = None if all_concepts or not result.exact else _read_sources_only(problem, result, left(0.2))
    if apart is not None:
        sub, factor, names = apart
        say(f"audit: every optimal map gives the read concepts their own sources; auditing those {sub.task.k}")
        inner = audit_problem(sub, curve=curve, sizes=sizes, seeds=seeds, draw=draw, workers=workers,
                              timeout=left(0.9), progress=progress, all_concepts=True)
        return _read_only(problem, sub, factor, names, inner, None if timeout is None else
                          max(min(timeout - (time.monotonic() - start), CLASS_SHARE * timeout), 1.0), known=result)
    say(f"audit: {headline_count(result.count)} optimal maps; listing them")
    maps = None if independent_parts(problem) else list_maps(problem, result, LIST_LIMIT, left(0.3))
    relation = confusion(problem, result, maps=maps, seconds=left(0.4))  # what a designer comes for
    say("audit: relation done; looking for the cheapest supervision")
    values = supervision_fix(problem, result.count, maps, by="value", seconds=left(0.25))
    concepts = supervision_fix(problem, result.count, maps, by="concept", seconds=left(0.25))
    say("audit: supervision done; looking for data")
    several = bool(problem.parts)  # rows of several tasks: new data and fewer labels belong to one task
    # new data and a linear head: whether a map survives asks a linear program, not a rule per vector
    linear = problem.inference == "learned:linear"
    data = None if several or linear else data_fix(problem, result.count, maps, seconds=left(0.3))
    say("audit: counting the other map classes and label subsets")
    classes = class_counts(problem, left(0.3), known=result, maps=maps)
    labels = [] if several else label_subsets(problem, left(0.2))
    drawn = data_curve(problem, sizes, seeds, draw=draw, workers=workers, progress=progress) if curve else None
    other = _other_reading(problem, left(0.5)) if problem.inference != "knowledge" else None
    return Audit(result, relation, values, concepts, data, classes, labels, drawn, time.monotonic() - start,
                 other=other)


def _read_sources_only(problem: Problem, result, seconds: float | None) -> tuple | None:
    """(the read concepts' problem, the unread concepts' maps, their names) where a complete problem's exact
    count proves that every optimal map gives the read concepts the read sources: it equals the read concepts'
    count on their projected rows times the unread concepts' bijections with any value maps, which counts
    exactly those maps (ConCon's tasks alone at 2 and 3 objects: other source sets leave the labels a function
    of their columns but hold no map). None elsewhere, or where the read concepts' count does not come."""
    from ..problems.split import unread_if_apart
    from .readpart import proven_read_part
    found = unread_if_apart(problem)
    proven = None if found is None else proven_read_part(problem, found, result.count, seconds)
    return None if proven is None else (proven[0], found[1], proven[2])


def _read_only(problem: Problem, sub: Problem, factor: int, names: list, inner: Audit,
               seconds: float | None, known=None) -> Audit:
    """The audit of the read concepts, shown for the whole design: its count times the unread concepts' free
    maps, those concepts named apart; the class table counts the whole design (as --map-class would; ``known``:
    its count, where already had)."""
    import dataclasses
    start = time.monotonic()
    r = inner.result
    scaled = {k: None if getattr(r, k) is None else getattr(r, k) * factor for k in ("lower", "upper")}
    result = dataclasses.replace(r, task=problem.task.name, support=problem.support.kind,
                                 support_size=problem.support.length, count=r.count * factor, unread=tuple(names),
                                 free_maps=factor, **scaled)
    if known is not None:
        result = dataclasses.replace(result, seconds=known.seconds + r.seconds, backend=f"{known.backend}; read "
                                     f"concepts: {r.backend}")
    note = (f"the audit ranks and fixes the {sub.task.k} concepts the labels read; {len(names)} no label reads "
            f"({', '.join(names[:6])}{' ...' if len(names) > 6 else ''}) may take any of {format_count(factor, True)}"
            f" {unread_maps_words(problem.map_class)} whatever the fix (supervise them to pin them; --all-concepts / "
            f"all_concepts=True audits "
            f"every concept); fix counts are on the read concepts" + (
                "; the whole count is the read concepts' count times those maps, so no optimal map gives a read "
                "concept an unread concept's source" if known is not None else ""))
    classes = class_counts(problem, seconds, known=result)
    return dataclasses.replace(inner, result=result, notes=(note,) + inner.notes, classes=classes,
                               seconds=inner.seconds + time.monotonic() - start)


def _other_reading(problem: Problem, seconds: float | None) -> dict:
    """The count and cheapest supervision of the same design under K itself (a model that reasons with K),
    to set beside a learned head's: advice for one is not advice for the other."""
    import dataclasses

    from ..planning.execute import count_problem
    with_k = dataclasses.replace(problem, inference="knowledge")
    out: dict = {"inference": "knowledge"}
    try:
        r = count_problem(with_k, timeout=seconds)
        out["count"] = r.count if r.exact else None
        maps = list_maps(with_k, r, LIST_LIMIT, seconds)
        for by in ("value", "concept"):
            f = supervision_fix(with_k, r.count, maps, by=by, seconds=seconds)
            out[f"supervise_{by}s"] = list(f.items) if f.count is not None else None
            out[f"supervise_{by}s_count"] = f.count
    except RscountError as exc:
        out["error"] = str(exc)
    return out


def audit(task, *, map_class: str = "complete", support=None, subsample=None, seed: int = 0, support_file=None,
          concept_sup=None, supervise: Sequence[str] = (), params: dict | None = None, groups=None, concepts=None,
          curve: bool = False,
          sizes: Sequence[int] | None = None, seeds: Sequence[int] = range(5), draw: str = "space",
          workers: int | None = None, timeout: float | None = 60.0,
          progress: Optional[Callable[[str], None]] = None, inference: str = "knowledge",
          all_concepts: bool = False, memory_mb: int | None = None) -> Audit:
    """Audit ``task`` (a name, a Task, sympy expressions or a Problem) with the support, class, supervision,
    ``groups``, ``concepts`` and ``inference`` options of ``count``; under ``inference="learned"`` the audit
    also gives the count and fixes under K itself, side by side. ``all_concepts``: rank and fix the concepts no
    label reads too (by default they are named apart). ``memory_mb`` caps the memory of the whole audit
    (BackendError naming the limit when it runs out)."""
    from ..api import expand_file, make_problem, make_problems
    from ..planning.multitask import is_several
    timeout = check_seconds(timeout)
    task = expand_file(task, params)
    with memory_limit(check_megabytes(memory_mb), "the audit"):
        if is_several(task):
            problems = make_problems(task, map_class=map_class, support=support, subsample=subsample, seed=seed,
                                     support_file=support_file, concept_sup=concept_sup, supervise=supervise,
                                     params=params, groups=groups, concepts=concepts, inference=inference)
            return audit_tasks(problems, timeout=timeout, progress=progress, all_concepts=all_concepts)
        with time_limit(timeout, "the audit"):
            problem = task if isinstance(task, Problem) else make_problem(
                task, map_class=map_class, support=support, subsample=subsample, seed=seed,
                support_file=support_file, concept_sup=concept_sup, supervise=supervise, params=params,
                groups=groups, concepts=concepts, inference=inference)
            return audit_problem(problem, curve=curve, sizes=sizes, seeds=seeds, draw=draw, workers=workers,
                                 timeout=timeout, progress=progress, all_concepts=all_concepts)


def audit_tasks(problems: Sequence[Problem], candidates: Sequence[Problem] = (), *, timeout: float | None = 60.0,
                progress: Optional[Callable[[str], None]] = None, all_concepts: bool = False) -> Audit:
    """Audit several tasks over shared concepts (one problem each, one map class): the joint count, each task
    alone and the sequence; what a model may confuse and the cheapest supervision (tasks over the same concepts);
    and which one of the ``candidates`` (tasks to add) removes the most shortcuts, each with its joint count."""
    import dataclasses

    from ..planning.multitask import count_tasks
    from ..problems.union import as_single, join, union_concepts
    timeout = check_seconds(timeout)
    start = time.monotonic()

    def left(share: float) -> float | None:
        return None if timeout is None else max((timeout - (time.monotonic() - start)) * share, 1.0)
    with time_limit(timeout, "the audit"):
        problems, candidates = list(problems), list(candidates)
        known = {c.name for c in union_concepts([p.task for p in problems])}
        for cand in candidates:
            unknown = sorted({c.name for c in cand.task.concepts} - known)
            if unknown:
                raise TaskError(f"candidate task {cand.task.name} reads {unknown[0]!r}, which no task has; a "
                                f"candidate adds labels over the tasks' concepts")
        result = count_tasks(problems, timeout=left(0.3), progress=progress)
        joint = join(problems)
        single = (problems[0], None) if len(problems) == 1 else as_single(joint)
        every = tuple(range(joint.task.k))
        if single is not None or all(part.concepts == every for part in joint.parts):
            inner = audit_problem(single[0] if single else joint, timeout=left(0.6), progress=progress,
                                  all_concepts=all_concepts)
            notes = inner.notes + ((single[1],) if single and single[1] else ())
        else:
            why = ("not decided: the tasks read different concepts, and the relation and supervision fixes are "
                   "audited for tasks over the same concepts (count them, or give each task every concept)")
            inner = Audit(result, Relation((), why, False, False), None, None, None,
                          class_counts(joint, left(0.2), known=result), [])
            notes = ()
        added = []
        for n, cand in enumerate(candidates):
            if progress:
                progress(f"audit: adding candidate task {cand.task.name}")
            try:
                r = count_tasks(problems + [cand], timeout=left(1 / (len(candidates) - n)))
                added.append({"task": cand.task.name, "count": r.count, "exact": r.exact})
            except RscountError as exc:
                added.append({"task": cand.task.name, "count": None, "exact": False, "why": str(exc)})
        added.sort(key=lambda a: (a["count"] is None, a["count"] or 0))
        several = len(problems) > 1  # new data and fewer labels belong to one task: not proposed for several
        if inner.result.unread:  # the joint count with the same concepts named apart
            result = dataclasses.replace(result, unread=inner.result.unread, free_maps=inner.result.free_maps)
        return dataclasses.replace(inner, result=result, tasks=tuple(added), notes=notes,
                                   data=None if several else inner.data, labels=[] if several else inner.labels,
                                   seconds=time.monotonic() - start)


def compare(designs: Sequence, **options) -> Comparison:
    """Audit several designs (names, Tasks or Problems) with the same options and set them side by side."""
    return Comparison(tuple(audit(d, **options) for d in designs))
