"""Several tasks over shared concepts, against an independent brute force: a map of the union's class is
optimal when, for every task, every row of its support (read with every value of the concepts the task lacks)
keeps that task's labels and supervision."""
from __future__ import annotations

import itertools
import random

import pytest

import rscount
from rscount.counters.generic.bruteforce import LIMIT, candidates, number_of_candidates
from rscount.errors import RscountError
from rscount.problems.union import join, union_concepts
from rscount.model.support import grid

from randomtasks import CLASSES, _bool_expr, _int_expr
from tiers import tiered

POOL = {"c1": "bool", "c2": "0..2", "c3": "bool"}


def random_tasks(seed: int, map_class: str) -> list:
    """Two or three small tasks over some of c1..c3, each with its own support and supervision."""
    rng = random.Random(seed)
    out = []
    for t in range(rng.randint(2, 3)):
        names = sorted(rng.sample(list(POOL), rng.randint(2, 3) if map_class != "joint" else 2))
        ints = [n for n in names if POOL[n] != "bool"]
        bools = [n for n in names if POOL[n] == "bool"]
        labels = [_bool_expr(rng, ints, bools, 2) if rng.random() < 0.5 or not ints else _int_expr(rng, ints, 2)]
        task = rscount.task_from_spec({"name": f"t{t}", "concepts": {n: POOL[n] for n in names}, "labels": labels})
        size = task.space_size
        rows = grid(task.sizes, rng.sample(range(size), rng.randint(1, size))).tolist()
        supervise = []
        if rng.random() < 0.3:
            c = rng.choice(task.concepts)
            supervise = [c.name if rng.random() < 0.5 else f"{c.name}={rng.choice(c.domain)}"]
        concept_sup = rng.choice([None, None, None, 1])
        out.append(rscount.make_problem(task, map_class=map_class, support=rows, supervise=supervise,
                                        concept_sup=concept_sup, seed=seed))
    return out


def brute_several(problems, concepts=None, groups=None) -> int:
    """Optimal maps of the union's class for every task, from the definitions (not the union problem);
    ``groups``: the union's concept groups under class shared (default: one per domain)."""
    tasks = [p.task for p in problems]
    union = list(concepts or union_concepts(tasks))
    names = [c.name for c in union]
    cls = problems[0].map_class
    spec = {"name": "u", "concepts": {c.name: list(c.domain) for c in union}, "labels": [names[0] + " == " + names[0]]}
    shape = rscount.task_from_spec(spec)
    if cls == "shared":
        by_domain: dict = {}
        for c in union:
            by_domain.setdefault(c.domain, []).append(c.name)
        shape = rscount.task_from_spec({**spec, "groups": groups or list(by_domain.values())})
    frame = rscount.make_problem(shape, map_class=cls, support="exhaustive")
    checks = []  # (task, own indices in the union, own row, full union vector, supervised own positions)
    for p in problems:
        own = [names.index(c.name) for c in p.task.concepts]
        missing = [i for i in range(len(union)) if i not in own]
        for r, g in enumerate(p.support.rows()):
            sup = p.supervised(r, g)
            for fill in itertools.product(*[range(len(union[i].domain)) for i in missing]):
                full = [0] * len(union)
                for i, u in zip(own, g):
                    full[i] = u
                for i, u in zip(missing, fill):
                    full[i] = u
                checks.append((p.task, own, g, tuple(full), sup))
    if cls == "joint":
        space = [tuple(v) for v in grid(shape.sizes).tolist()]
        total = 0
        for images in itertools.product(space, repeat=len(space)):
            alpha = dict(zip(space, images))
            total += all(_keeps(t, own, g, [alpha[full][i] for i in own], sup) for t, own, g, full, sup in checks)
        return total
    total = 0
    for assign in candidates(frame):
        ok = True
        for t, own, g, full, sup in checks:
            out = [None] * len(union)
            for j, u in enumerate(full):
                i, v = assign[j][u]
                if out[i] is not None and out[i] != v:
                    ok = False
                out[i] = v
            if not ok or None in out or not _keeps(t, own, g, [out[i] for i in own], sup):
                ok = False
                break
        total += ok
    return total


def _keeps(task, own, g, pred, sup) -> bool:
    return task.label_of(pred) == task.label_of(g) and all(pred[i] == g[i] for i in sup)


def _small(problems) -> bool:
    frame = join(problems)
    return number_of_candidates(frame) <= LIMIT // 20


@pytest.mark.parametrize("map_class", CLASSES)
@pytest.mark.parametrize("seed", tiered(range(12), 2))
def test_joint_count_matches_brute_force(map_class, seed, monkeypatch):
    problems = random_tasks(seed, map_class)
    if not _small(problems):
        pytest.skip("too many maps for brute force")
    expected = brute_several(problems)
    assert rscount.count_problem(join(problems)).count == expected
    assert rscount.count_problem(join(problems), "bruteforce").count == expected
    if map_class != "joint":  # the CNF where each row asserts its own labels
        assert rscount.count_problem(join(problems), "ganak").count == expected
    from rscount import dispatch
    monkeypatch.setattr(dispatch, "TINY_CLASS", 0)  # past brute force: each task alone, then the filter
    assert rscount.count_problem(join(problems)).count == expected


@pytest.mark.parametrize("map_class", CLASSES)
@pytest.mark.parametrize("seed", tiered(range(100, 106), 1))
def test_per_task_and_cumulative(map_class, seed):
    problems = random_tasks(seed, map_class)
    if not _small(problems):
        pytest.skip("too many maps for brute force")
    every = union_concepts([p.task for p in problems])
    r = rscount.planning.multitask.count_tasks(problems)
    assert r.count == r.cumulative[-1] == brute_several(problems)
    assert list(r.cumulative) == sorted(r.cumulative, reverse=True)  # never increases along the sequence
    for t, p in enumerate(problems):
        assert r.per_task[t].count == rscount.count_problem(p).count  # alone, over its own concepts
        assert r.per_task[t].count_union == brute_several([p], every)
        assert r.cumulative[t] == brute_several(problems[:t + 1], every)
        assert r.forgets[t] == r.per_task[t].count_union - r.cumulative[t]


def test_same_knowledge_is_one_task_on_the_union_of_supports():
    a = rscount.make_problem("xor3", support="0,0,0;1,1,0")
    b = rscount.make_problem("xor3", support="0,1,1;1,1,1")
    one = rscount.make_problem("xor3", support="0,0,0;1,1,0;0,1,1;1,1,1")
    r = rscount.count(["xor3", "xor3"], support=["0,0,0;1,1,0", "0,1,1;1,1,1"])
    assert r.count == rscount.count_problem(one).count == rscount.count_problem(join([a, b]), "bruteforce").count
    assert [t.task for t in r.per_task] == ["xor3", "xor3#2"]
    assert rscount.plan(join([a, b])).steps[0].kind == "as"


def test_json_carries_the_sequence(capsys):
    from rscount.cli import main
    import json
    assert main(["--task", "xor3", "--task", "and3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["count"] == 6 and out["cumulative"] == [24, 6] and [t["count"] for t in out["per_task"]] == [24, 6]


@pytest.mark.parametrize("call, fragment", [
    (lambda: rscount.count([rscount.task_from_spec({"concepts": {"a": "bool"}, "labels": ["a"]}),
                            rscount.task_from_spec({"concepts": {"a": "0..2"}, "labels": ["a == 1"]})]),
     "has domain bool in task"),
    (lambda: rscount.count(["xor3", "and3"], support=["exhaustive", "exhaustive", "exhaustive"]),
     "lists 3 values for 2 tasks"),
    (lambda: rscount.count(["xor3", "and3"], supervise=["zz"]), "no task has a concept 'zz'"),
    (lambda: rscount.make_problems([]), "no tasks given"),
    (lambda: rscount.count(["xor3", "and3"], inference="learned"), "learned heads over several tasks"),
])
def test_bad_input_says_what(call, fragment):
    with pytest.raises(RscountError, match=fragment) as info:
        call()
    assert info.value.exit_status == 2


def test_audit_of_several_tasks_adds_candidates_and_supervision():
    from rscount.auditing import audit_tasks
    from rscount.auditing.supervision import with_items
    a = rscount.make_problem("xor3", support="0,0,0;1,1,0;0,1,1", map_class="disentangled")
    b = rscount.make_problem("or3", support="0,0,1;1,0,0", map_class="disentangled")
    cand = rscount.make_problem("and3", map_class="disentangled")
    report = audit_tasks([a, b], [cand])
    assert report.count == brute_several([a, b])
    assert report.tasks[0]["count"] == brute_several([a, b, cand])
    fix = report.supervise_values
    items = [tuple(s.split("=")) for s in fix.items]
    supervised = [rscount.make_problem(p.task, map_class="disentangled", support=p.support,
                                       supervise=[f"{n}={v}" for n, v in items if n in p.task._index])
                  for p in (a, b)]
    assert fix.count == brute_several(supervised)  # a fix applies to every task that has the concept
    joint = join([a, b])
    idx = [(joint.task.index(n), joint.task.concept(n).index(v)) for n, v in items]
    assert rscount.count_problem(with_items(joint, idx)).count == fix.count
    assert set(report.to_dict()["fix"]["add_task"][0]) >= {"task", "count"}


def test_cli_audit_several_and_candidate(capsys):
    from rscount.cli import main
    import json
    assert main(["audit", "--task", "xor3", "--task", "or3", "--candidate-task", "and3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["count"] == 6 and out["cumulative"] == [24, 6] and out["fix"]["add_task"][0]["task"] == "and3"
    assert main(["audit", "--task", "xor3", "--candidate-task", "mnadd"]) == 2
    assert "which no task has" in capsys.readouterr().err


GROUPINGS = ([["c1", "c3"]], [["c1"], ["c3"]], [["c1"]], None)  # declared per task; None: none declared


def grouped_tasks(seed: int) -> list:
    """Random tasks over c1..c3 (class shared), some declaring concept groups and some not."""
    rng = random.Random(seed)
    out = []
    for p in random_tasks(seed, "shared"):
        names = {c.name for c in p.task.concepts}
        declared = rng.choice(GROUPINGS)
        declared = [g for g in declared or [] if set(g) <= names] or None
        task = rscount.task_from_spec({"name": p.task.name, "concepts": {c.name: POOL[c.name] for c in p.task.concepts},
                                       "labels": [lab.text for lab in p.task.labels],
                                       **({"groups": declared} if declared else {})})
        out.append(rscount.make_problem(task, map_class="shared", support=p.support.vectors.tolist(),
                                        supervise=[s for s in _items(p)], seed=seed))
    return out


def _items(p) -> list:
    return [c.name if u is None else f"{c.name}={c.domain[u]}" for c, u in
            ((p.task.concepts[i], u) for i, u in p.supervision.concepts)]


def union_grouping(tasks) -> list:
    """The union's groups, written from the rule: declared groups joined where they share a concept; where some
    task declares groups, every other concept keeps one classifier per domain; where none does, per domain."""
    declared = [set(g) for t in tasks if not any("no concept groups declared" in w for w in t.warnings)
                for g in t.groups]
    merged: list = []
    for g in declared:
        for h in [h for h in merged if h & g]:
            merged.remove(h)
            g = g | h
        merged.append(g)
    held = set().union(*merged) if merged else set()
    by_domain: dict = {}
    for c in union_concepts(tasks):
        if c.name not in held:
            by_domain.setdefault(c.domain, []).append(c.name)
    return [sorted(g) for g in merged] + list(by_domain.values())


@pytest.mark.parametrize("seed", tiered(range(200, 224), 4))
def test_declared_groups_give_one_grouping_to_every_count(seed):
    """Every figure of several tasks (joint, each task over every concept, each step) is counted under the
    union's grouping, so they agree: task 1 over every concept is the first step, which forgets nothing."""
    problems = grouped_tasks(seed)
    if not _small(problems):
        pytest.skip("too many maps for brute force")
    tasks = [p.task for p in problems]
    every, groups = union_concepts(tasks), union_grouping(tasks)
    r = rscount.planning.multitask.count_tasks(problems)
    assert r.count == r.cumulative[-1] == brute_several(problems, every, groups)
    assert r.forgets[0] == 0 and r.per_task[0].count_union == r.cumulative[0]
    for t, p in enumerate(problems):
        assert r.per_task[t].count == rscount.count_problem(p).count
        assert r.per_task[t].count_union == brute_several([p], every, groups)
        assert r.cumulative[t] == brute_several(problems[:t + 1], every, groups)


def test_task_names_are_data():
    """A task named with ' + ' keeps its name in every per-task row."""
    a = rscount.task_from_spec({"name": "first + second", "concepts": {"a": "0..2", "b": "0..2"},
                                "labels": ["a + b"]})
    b = rscount.task_from_spec({"name": "B", "concepts": {"a": "0..2", "b": "0..2"}, "labels": ["a * b"]})
    r = rscount.count([a, b], map_class="shared", support="0,1;1,2;2,2")
    assert [t.task for t in r.per_task] == ["first + second", "B"]


def test_a_count_that_missed_its_share_gets_what_the_others_left(monkeypatch):
    """With a time limit, a count of the sequence that runs out of its share is tried again with what the others
    left; it is said 'not counted' only where that fails too (the first try of task 2 alone fails here)."""
    import rscount.planning.multitask as multitask
    from rscount.errors import CountTimeout
    real, tries = multitask.count_problem, []

    def flaky(problem, *args, **kwargs):
        tries.append(problem.task.name)
        if problem.task.name == "xor3" and not problem.parts and tries.count("xor3") == 1:
            raise CountTimeout("counting timed out after 1 s")
        return real(problem, *args, **kwargs)
    monkeypatch.setattr(multitask, "count_problem", flaky)
    and3 = rscount.make_problem("and3", map_class="complete")
    xor3 = rscount.make_problem("xor3", map_class="complete")
    got = multitask.count_tasks([and3, xor3], timeout=120)
    assert [t.count for t in got.per_task] == [6, 24] and "not counted" not in got.notes[0]
    assert tries.count("xor3") == 2
    monkeypatch.setattr(multitask, "RETRY_SECONDS", 1e9)  # no time for a second try: said, not lost
    tries.clear()
    got = multitask.count_tasks([and3, xor3], timeout=120)
    assert got.per_task[1].count is None and "not counted" in got.notes[0] and got.count is not None


def test_without_a_time_limit_the_extras_share_a_budget(monkeypatch):
    """Without timeout= the joint count (the answer) no longer waits without end on the counts of each task
    alone and of the sequence: they share UNTIMED_EXTRAS seconds (ConCon's three tasks at 4 objects waited
    hours on task 1 alone, which no counter finishes). Past it they are said not counted, the joint count kept."""
    import rscount.planning.multitask as multitask
    and3 = rscount.make_problem("and3", map_class="complete")
    xor3 = rscount.make_problem("xor3", map_class="complete")
    whole = multitask.count_tasks([and3, xor3])
    assert [t.count for t in whole.per_task] == [6, 24] and "not counted" not in whole.notes[0]
    said = []
    monkeypatch.setattr(multitask, "UNTIMED_EXTRAS", 0.0)
    got = multitask.count_tasks([and3, xor3], progress=said.append)
    assert got.count == whole.count and got.exact and [t.count for t in got.per_task] == [None, None]
    assert "not counted in their share" in got.notes[0] and "without timeout= they share 0 s" in got.notes[0]
    assert any(f"together {whole.count}; now each task alone" in s for s in said), said
