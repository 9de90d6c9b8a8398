"""Which counters a problem gets, in which order and why: a :class:`Plan`, decided before anything is counted.

:func:`rscount.api.count_problem` executes a plan and decides nothing
itself; ``countrss --explain`` prints it. Steps are tried in order:

- ``as``: the problem is counted as another one (shared maps without groups are the disentangled maps);
- ``parts``: the labels read disjoint concepts, so the count is the product of the parts' counts;
- ``try``: a counter that exploits some structure, given half the time left (``sources`` more: TRY_SHARE); if it
  gives up, the next step runs. Under ``approx=True`` the first is ``exact``: the plan ``approx=False`` takes,
  within EXACT_FIRST seconds (a third of the limit at most), since an exact count beats any estimate (not where
  ``source-bounds`` or ``estimate`` follow: they are exact where they finish);
- ``run`` / ``race``: the generic counters, one alone or two side by side (the first answer is kept);
- ``bounds`` (``approx=True`` only): where every step above gives up, guaranteed bounds from a narrower class's
  exact count (its maps are this class's) and the class's size.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from ..counters import COUNTERS
from ..errors import BackendError, EncodingError
from ..problems.problem import NARROWER, Problem, free_is_complete
from ..problems.sources import splits_by_sources
from ..problems.split import split_problem, split_shared, without_unread
from ..results.count import format_count, unread_maps_words

__all__ = ["Step", "Plan", "plan", "generic_step", "generic_counters", "bounds_apply", "narrower_classes",
           "WEIGHT_ABOVE", "HEAD_START"]

WEIGHT_ABOVE = 1 << 12  # concept vectors past which the weight closed form goes before the quotient's table
EXACT_FIRST = 20.0  # approx=True: seconds the exact plan gets before the estimate (a third of the limit at most;
# 0: none, every step estimates)
EXACT_WHERE_THEY_CAN = ("source-bounds", "estimate", "kernels-estimate")  # approx counters exact where they finish
# (kernels-estimate tries its own exact search first): no exact try before them, it would only take their time
# (ConCon t3's bounds in 60 s went from 9.8e39..9.1e46 to 7.3e39..2.5e48)
HEAD_START = 0.25  # seconds a structural counter runs alone before Ganak joins its race
TINY_CLASS = 2048  # several tasks: maps in the class below which brute force in this process is quickest
TRY_SHARE = {"sources": 0.8, "source-bounds": 0.8}  # of the time left, for a try step (else half): the sum
# over source sets is the whole search cut down to the sets that can hold maps, so where it runs out the search and Ganak after it
# rarely finish (ConCon t3 at 3 objects, 8 colours: 32 s of sources, none of them in the half-minute left)


def try_share(counter: str) -> float:
    """The share of the time left a ``try`` step of ``counter`` gets before the next step runs."""
    return TRY_SHARE.get(counter, 0.5)


def exact_first(timeout: float | None) -> float:
    """Seconds an ``approx=True`` plan gives its exact try (``timeout``: the time left, None without a limit)."""
    return EXACT_FIRST if timeout is None else min(EXACT_FIRST, timeout / 3)


@dataclass(frozen=True)
class Step:
    """One step of a plan: what it does (``kind``), with which counters, and why."""

    kind: str
    counters: tuple = ()
    reason: str = ""
    problems: tuple = field(default=(), repr=False, compare=False)  # the parts, or the problem counted instead
    factor: int | None = field(default=None, repr=False, compare=False)  # "as" a problem with fewer concepts:
    # the count is the other one's times this (its maps are not this problem's)

    def __str__(self) -> str:
        what = {"as": "count as", "parts": "split into parts", "try": "try", "run": "run", "race": "race",
                "generic": "then the generic counters", "bounds": "if all give up, bound by"}[self.kind]
        names = " and ".join(self.counters)
        part = try_share(self.counters[0]) if self.kind == "try" and self.counters else None
        share = "" if part is None else f" (for {EXACT_FIRST:g} s, a third of the time left at most)" \
            if self.counters == ("exact",) else " (half the time left)" if part == 0.5 else \
            f" ({part:.0%} of the time left)"
        return f"{what}{' ' + names if names else ''}{share}: {self.reason}"


@dataclass(frozen=True)
class Plan:
    """The steps :func:`rscount.api.count_problem` takes for a problem, in order."""

    problem: str
    steps: tuple

    @property
    def first_counter(self) -> str:
        """The first counter the plan runs ("split" or "as" when it hands the problem on)."""
        step = self.steps[0]
        return step.counters[0] if step.counters else ("split" if step.kind == "parts" else step.kind)

    def lines(self) -> list:
        return [f"{n}. {step}" for n, step in enumerate(self.steps, 1)]

    def __str__(self) -> str:
        return "\n".join([f"plan for {self.problem}"] + [f"  {line}" for line in self.lines()])


def plan(problem: Problem, backend: str | None = None, *, exact: bool | None = None, approx: bool = False,
         decide_generic: bool = True) -> Plan:
    """Decide how ``problem`` is counted (``backend`` names the one counter to use, else each step is chosen).

    Choosing the generic counters can cost more than the steps before them
    (finding the symmetry blocks of a large knowledge); with
    ``decide_generic=False`` the last step stays ``generic`` until
    :func:`generic_step` decides it, when the steps above have given up.
    """
    if not isinstance(problem, Problem):
        raise TypeError(f"plan() takes a Problem (rscount.make_problem(...)), not {type(problem).__name__}")
    check_mode(exact, approx)
    steps: list = []
    task = problem.task
    if backend is None and not approx and problem.map_class == "free" and free_is_complete(problem):
        return Plan(problem.describe(), (Step(
            "as", ("complete",), ("on every concept vector" if problem.support.exhaustive else
                                  "on this support, which shows every value and ties each concept's values together "
                                  "(every two values of different concepts meet in a vector, or vectors differing "
                                  "in one concept alone link its values),")
            + " a predicted concept that must come out one-hot reads all values of one concept, so the free maps "
            "are the complete ones", (dataclasses.replace(problem, map_class="complete"),)),))
    if problem.parts:
        return Plan(problem.describe(), _several(problem, backend, exact, approx))
    if problem.inference != "knowledge":  # no structure of K applies: the generic counters on the learned CNF
        last = generic_step(problem, backend, exact=exact, approx=approx)
        return Plan(problem.describe(), (*_exact_try(approx and backend is None, [last]), last))
    if backend is None and problem.map_class == "shared" and not any(len(g) > 1 for g in task.groups):
        steps.append(Step("as", ("disentangled",), "no two concepts share a classifier, so the shared maps are "
                                                  "the disentangled ones",
                          (dataclasses.replace(problem, map_class="disentangled"),)))
        return Plan(problem.describe(), tuple(steps))
    if backend is None:
        free = without_unread(problem)
        if free is not None:
            sub, factor, names = free
            steps.append(Step("as", (), f"no label reads {', '.join(names[:6])}{' ...' if len(names) > 6 else ''}: "
                              f"their {unread_maps_words(problem.map_class)} are free "
                              f"({format_count(factor).split(' (')[0]} of them); count the "
                              f"rest on its {sub.support.length} projected support vectors", (sub,), factor))
            return Plan(problem.describe(), tuple(steps))
    if backend is None or _fits_parts_only(problem, backend):
        parts = split_problem(problem) or []
        left_out = [p.task.name for p in parts if backend is not None and not COUNTERS[backend].applies(p)]
        if parts and left_out and len(left_out) < len(parts):
            raise BackendError(f"backend {backend} counts some label parts of this task but not "
                               f"{', '.join(left_out)}; name no backend, and each part gets a counter that fits it")
        if parts and not left_out:
            steps.append(Step("parts", (backend,) if backend else (),
                              f"the labels read {len(parts)} disjoint sets of concepts", tuple(parts)))
            return Plan(problem.describe(), tuple(steps))
    if backend is None:
        structured = _structured(problem, approx)
        steps += _exact_try(approx, structured) + structured
    if backend is None and not problem.support.listed:
        steps.append(Step("generic", (), "none: no generic counter works on a support too large to list"))
        return Plan(problem.describe(), tuple(steps))
    if not decide_generic and backend is None:
        steps.append(Step("generic", (), "decided when the steps above give up"))
    else:
        steps.append(generic_step(problem, backend, exact=exact, approx=approx))
    narrow = narrower_classes(problem) if approx and backend is None else ()
    if narrow:
        steps.append(Step("bounds", narrow, f"the first of these classes counted exactly is a lower bound (its maps "
                                            f"are {problem.map_class} maps), the class's size an upper one"))
    return Plan(problem.describe(), tuple(steps))


def _exact_try(approx: bool, then: list) -> list:
    """``approx=True`` (and no named backend): the exact plan first, for a short while (an exact count, where it
    comes quickly, beats any estimate: Kand-Logic by-label:100 takes 12 s exactly, where ApproxMC does not finish
    in a minute); none where a step of ``then`` is itself exact where it finishes (EXACT_WHERE_THEY_CAN)."""
    if not approx or EXACT_FIRST <= 0 or any(s.counters and s.counters[0] in EXACT_WHERE_THEY_CAN for s in then):
        return []
    return [Step("try", ("exact",), "the plan approx=False takes: where it finishes, the count is exact")]


def narrower_classes(problem: Problem) -> tuple:
    """:data:`~rscount.problems.problem.NARROWER` for ``problem``'s class, under K with one task (a learned head
    reads maps otherwise; several tasks lift them apart): their counts bound its count below."""
    if problem.inference != "knowledge" or problem.parts:
        return ()
    return NARROWER.get(problem.map_class, ())


def _several(problem: Problem, backend: str | None, exact: bool | None, approx: bool) -> tuple:
    """Several tasks: counted as one task where they are one (every structure then applies); else each task
    alone and the maps of the one with the fewest filtered by the others, where those are few; else the generic
    counters on the CNF where each row keeps its own task's labels."""
    from ..problems.union import as_single, part_problem
    single = as_single(problem) if backend is None else None
    if single is not None:
        return (Step("as", (), single[1], (single[0],)),)
    from ..counters.generic.bruteforce import number_of_candidates
    alone = [part_problem(problem, t) for t in range(len(problem.parts))]
    maps = None if backend is not None or approx else number_of_candidates(problem)
    tiny = () if maps is None or maps > TINY_CLASS else (
        Step("try", ("bruteforce",), f"the class holds {maps:,} maps: checking each is quickest"),)
    if backend is None and not approx and problem.map_class != "joint" and all(p is not None for p in alone):
        return tiny + (Step("try", ("filter",), f"count each of the {len(alone)} tasks alone (every structure applies), "
                                         f"list the maps of the one with the fewest and keep those every task "
                                         f"keeps", tuple(alone)),
                generic_step(problem, backend, exact=exact, approx=approx))
    last = generic_step(problem, backend, exact=exact, approx=approx)
    return tiny + (*_exact_try(approx and backend is None, [last]), last)


def generic_step(problem: Problem, backend: str | None = None, *, exact: bool | None = None,
                 approx: bool = False) -> Step:
    """The last step of a plan: the named backend, or the generic counters that fit (checked to be usable)."""
    unlisted = backend is None and not problem.support.listed
    joint = unlisted and problem.map_class == "joint"  # the closed form says how large the count is
    if unlisted and not joint and (approx or not COUNTERS["kernels"].applies(problem)):
        problem.support.vectors  # raises, saying what to count instead
    generic = (backend,) if backend else ("closed-form",) if joint else ("kernels",) if unlisted else \
        generic_counters(problem, exact, approx)
    if approx and backend is None:
        generic = generic[-1:]  # the estimate counter, where it applies, is a step above
    for name in generic:
        counter = COUNTERS.get(name)
        if counter is None:
            from ..counters import get_counter
            get_counter(name)  # raises, naming the valid backends
        reason = counter.unavailable()
        if reason:
            raise BackendError(f"backend {name}: {reason}")
        if problem.map_class == "joint" and counter.needs_cnf:
            raise EncodingError(f"class joint has no CNF encoding; use backend=closed-form (or bruteforce), "
                                f"not {name}")
        if problem.parts and not counter.several:
            able = [n for n, c in COUNTERS.items() if c.several]
            raise BackendError(f"backend {name} counts one task at a time; several tasks are counted by "
                               f"{', '.join(able)} (or name none)")
        if problem.inference not in counter.inferences:
            able = [n for n, c in COUNTERS.items() if problem.inference in c.inferences]
            raise BackendError(f"backend {name} counts with the knowledge K, not inference {problem.inference}; "
                               f"use one of {', '.join(able)} (or name none)")
    why = "named by the caller (backend=)" if backend else _generic_reason(problem, generic, approx)
    return Step("race" if len(generic) > 1 else "run", tuple(generic), why)


def _structured(problem: Problem, approx: bool) -> list:
    """The ``try`` steps: counters that apply only to some problems, cheapest first."""
    steps = []
    sampled = not problem.support.exhaustive
    if problem.task.space_size > WEIGHT_ABOVE and COUNTERS["weight"].applies(problem):
        steps.append(Step("try", ("weight",), "every label reads only how many boolean concepts are true"))
    if not approx:
        if sampled and COUNTERS["valuemaps"].applies(problem):
            steps.append(Step("try", ("valuemaps",), "few enough value maps to check each on the sample"))
        shared_parts = split_shared(problem) if not problem.supervision else None
        if shared_parts and all(COUNTERS["automorphism"].applies(p) for p in shared_parts):
            steps.append(Step("try", ("automorphism",), f"the labels read {len(shared_parts)} disjoint sets of "
                              f"concepts but the groups cross them: intersect each part's symmetries",
                              tuple(shared_parts)))
    if not approx and COUNTERS["agreement"].applies(problem):
        steps.append(Step("try", ("agreement",), "RAVEN: each attribute's value maps meet the others only through "
                                                "their rule agreements; group them by those and join"))
    if not approx and problem.map_class == "free" and COUNTERS["vector-join"].applies(problem):
        steps.append(Step("try", ("vector-join",), f"free maps on {problem.support.length} support vector(s): each "
                                                  f"one's maps (a bijection of concepts) joined over the source "
                                                  f"values they share"))
    if (not approx and bounds_apply(problem) and not COUNTERS["clauses"].applies(problem)
            and not COUNTERS["modules"].applies(problem)):
        steps.append(Step("try", ("sources",), "some concepts no label reads: a complete map is a bijection of "
                                              "concepts, so sum over the sources the read concepts take" + (
                                                  " (the free maps are complete ones on the values the support "
                                                  "shows)" if problem.map_class == "free" else "")))
    if approx and bounds_apply(problem):
        steps.append(Step("try", ("source-bounds",), "some concepts no label reads: the source sets the read concepts "
                                                     "may take, counted within the time, the rest bounded by their "
                                                     "class size (guaranteed bounds)"))
    if COUNTERS["automorphism"].applies(problem):
        steps.append(Step("try", ("automorphism",), "exhaustive support: count the label-keeping symmetries of the "
                                                    "knowledge"))
    if not approx:
        for name, why in (("linear", "labels linear in integer concepts"),
                          ("product", "labels products of integer concepts"),
                          ("arithmetic", "arithmetic labels solved by elimination, concept assignment by "
                                         "assignment")):
            if COUNTERS[name].applies(problem):
                steps.append(Step("try", (name,), why))
                break
    if approx and COUNTERS["estimate"].applies(problem):
        steps.append(Step("try", ("estimate",), "arithmetic labels: exact elimination plus sampling"))
    return steps


def bounds_apply(problem: Problem) -> bool:
    """Whether the search counts this problem as a sum over source sets (a sampled support, concepts no label
    reads, classes whose maps are bijections of concepts): ``sources`` counts it, ``source-bounds`` bounds it."""
    as_complete = dataclasses.replace(problem, map_class="complete") if problem.map_class == "free" else problem
    return (not problem.support.exhaustive and splits_by_sources(problem)
            and COUNTERS["search"].applies(as_complete))


def check_mode(exact: bool | None, approx: bool) -> None:
    if exact and approx:
        raise EncodingError("exact=True and approx=True exclude each other; pick one")


def generic_counters(problem: Problem, exact: bool | None = None, approx: bool = False) -> tuple:
    """The generic counters for ``problem``, in order: two of them race side by side.

    The joint class has its closed form (for approx too: it is exact); for
    approx the estimate counter where it applies, then ApproxMC; a listed sampled support gets the
    clauses counter against Ganak where the knowledge is one CNF over
    booleans, else the entry search against Ganak (or against the modules
    counter where the knowledge has modules; a disentangled problem with
    modules races modules against Ganak); else the structural counter (or
    SDD compilation) against Ganak.
    """
    check_mode(exact, approx)
    if problem.map_class == "joint":  # exact and quick where it answers: no estimate needed, none is better
        from ..counters.generic.bruteforce import LIMIT, number_of_candidates
        values = problem.supervision.vectors or any(u is not None for _, u in problem.supervision.concepts)
        if problem.inference == "learned" and values and number_of_candidates(problem) <= LIMIT:
            return ("bruteforce",)  # the closed form takes whole concepts only; a tiny class is checked map by map
        return ("closed-form",)
    if approx and COUNTERS["kernels"].applies(problem):  # learned heads only
        return ("kernels-estimate",)
    if approx:
        return ("estimate", "approxmc") if problem.inference == "knowledge" and not problem.parts and COUNTERS["estimate"].applies(
            problem) else ("approxmc",)
    if problem.inference == "learned:linear":
        return ("separable",)
    if COUNTERS["kernels"].applies(problem):  # learned heads only
        return ("kernels", "ganak") if COUNTERS["ganak"].unavailable() is None else ("kernels",)
    if problem.inference != "knowledge" or problem.parts:  # SDD compiles the pairs of a class that moves concepts slowly
        order = ("sdd", "ganak", "enumerate") if problem.map_class in ("disentangled", "shared") else \
            ("ganak", "enumerate", "sdd")
        names = tuple(n for n in order if COUNTERS[n].unavailable() is None)
        if not names:
            raise BackendError("no exact backend is installed; pip install pysdd or pyganak or python-sat")
        return names[:2]
    if not problem.support.exhaustive and COUNTERS["clauses"].applies(problem):
        return tuple(n for n in ("clauses", "ganak") if COUNTERS[n].unavailable() is None)
    if not problem.support.exhaustive and COUNTERS["search"].applies(problem):
        names = ("search", "ganak")
        if COUNTERS["modules"].applies(problem):
            names = ("modules", "ganak") if problem.map_class == "disentangled" else ("search", "modules")
        return tuple(n for n in names if COUNTERS[n].unavailable() is None)
    if COUNTERS["structural"].unavailable() is None and COUNTERS["structural"].applies(problem):
        return ("structural", "ganak") if COUNTERS["ganak"].unavailable() is None else ("structural",)
    names = tuple(n for n in ("sdd", "ganak", "enumerate") if COUNTERS[n].unavailable() is None)
    if not names:
        raise BackendError("no exact backend is installed; pip install pysdd or pyganak or python-sat")
    return names[:2]


def _generic_reason(problem: Problem, names: tuple, approx: bool) -> str:
    generic = names[0] in ("sdd", "ganak", "enumerate")
    first = "learned" if problem.inference == "learned" and generic else "several" if problem.parts and generic \
        else names[0]
    why = {
        "approxmc": "an (epsilon, delta) estimate by hashing",
        "kernels-estimate": "a learned head: the kernels search, states that only unread concepts can split "
                            "estimated by sampling",
        "estimate": "arithmetic labels: exact elimination plus sampling",
        "closed-form": "the joint class has a closed form",
        "separable": "a learned linear head: the maps some head completes, each labelled image checked by a "
                     "linear program",
        "several": "several tasks: the generic counters on the CNF where each row keeps its own task's labels",
        "learned": "a learned head: the generic counters on the CNF of 'no two labels share a prediction'",
        "kernels": "a learned head under a disentangled class: a search over which values each value map merges",
        "clauses": "a sampled support and knowledge that is one CNF over booleans",
        "search": "a sampled support: a search over the entries of the maps",
        "modules": "a sampled support and knowledge with modules",
        "structural": "few enough blocks of interchangeable concepts to count one by one",
        "sdd": "no structure found: SDD compilation",
        "ganak": "no structure found: projected model counting",
        "enumerate": "no structure found: SAT enumeration",
    }.get(first, "")
    if len(names) > 1:
        why += f"; {' and '.join(names[1:])} side by side, the first answer kept"
    return why


def _fits_parts_only(problem: Problem, backend: str) -> bool:
    """Whether a named structural counter does not take the whole problem but may take each label part.

    Counters without ``applies`` (brute force, the rsbench reference) stay literal: they are never split.
    """
    applies = getattr(COUNTERS.get(backend), "applies", None)
    return applies is not None and not COUNTERS[backend].needs_cnf and not applies(problem)
