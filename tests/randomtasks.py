"""Random small problems for checking every backend against brute force."""
from __future__ import annotations

import random

import numpy as np

import rscount
from rscount.counters.generic.bruteforce import LIMIT, number_of_candidates

CLASSES = ["free", "complete", "permutation", "disentangled", "shared", "joint"]


def _int_expr(rng, names, depth):
    if depth == 0 or rng.random() < 0.3:
        return rng.choice(names + [str(rng.randint(0, 2))])
    op = rng.choice(["+", "-", "*", "Max", "Min", "ITE", "%"])
    a, b = _int_expr(rng, names, depth - 1), _int_expr(rng, names, depth - 1)
    if op in ("Max", "Min"):
        return f"{op}({a}, {b})"
    if op == "ITE":
        return f"ITE({_bool_expr(rng, names, [], depth - 1)}, {a}, {b})"
    if op == "%":
        return f"({a}) % {rng.randint(2, 3)}"
    return f"({a} {op} {b})"


def _bool_expr(rng, ints, bools, depth):
    if depth == 0 or rng.random() < 0.25:
        if bools and rng.random() < 0.6:
            return rng.choice(bools)
        if ints:
            a, b = rng.choice(ints), rng.choice(ints + [str(rng.randint(0, 2))])
            return f"({a} {rng.choice(['==', '!=', '<', '>=', '<='])} {b})"
        return rng.choice(bools)
    op = rng.choice(["&", "|", "^", "~", "Implies", "Equivalent", "cmp", "Xor3"])
    sub = lambda: _bool_expr(rng, ints, bools, depth - 1)
    if op == "~":
        return f"~({sub()})"
    if op in ("Implies", "Equivalent"):
        return f"{op}({sub()}, {sub()})"
    if op == "Xor3":
        return f"Xor({sub()}, {sub()}, {sub()})"
    if op == "cmp" and ints:
        return f"({_int_expr(rng, ints, depth - 1)} {rng.choice(['==', '!=', '<', '>'])} {_int_expr(rng, ints, depth - 1)})"
    return f"({sub()} {op if op in '&|^' else '&'} {sub()})"


def random_cnf_task(rng, k):
    names = [f"x{i}" for i in range(1, k + 1)]
    clauses = []
    for _ in range(rng.randint(1, 4)):
        vs = rng.sample(names, rng.randint(1, min(3, k)))
        clauses.append("(" + " | ".join(v if rng.random() < 0.5 else f"~{v}" for v in vs) + ")")
    return rscount.task_from_spec({"name": "rcnf", "concepts": names, "labels": [" & ".join(clauses)],
                                   "groups": [names]})


def random_categorical_task(rng):
    k = rng.randint(2, 3)
    concepts, ints, bools = {}, [], []
    for i in range(k):
        size = rng.randint(2, 3)
        name = f"c{i + 1}"
        if size == 2 and rng.random() < 0.5:
            concepts[name] = "bool"
            bools.append(name)
        else:
            concepts[name] = f"0..{size - 1}"
            ints.append(name)
    labels = [_bool_expr(rng, ints, bools, 2) if rng.random() < 0.5 or not ints else _int_expr(rng, ints, 2)
              for _ in range(rng.randint(1, 2))]
    groups = []
    same = [n for n in ints if concepts[n] == concepts[ints[0]]] if ints else []
    if len(same) >= 2:
        groups.append(same)
    elif len(bools) >= 2:
        groups.append(bools)
    return rscount.task_from_spec({"name": "rcat", "concepts": concepts, "labels": labels, "groups": groups})


def random_problem(seed: int, map_class: str):
    """A random task (CNF or categorical), support and supervision small enough for brute force."""
    rng = random.Random(seed)
    for _ in range(100):
        if rng.random() < 0.5:
            task = random_cnf_task(rng, rng.randint(2, 3 if map_class in ("free", "joint") else 4))
        else:
            task = random_categorical_task(rng)
        if map_class == "joint" and task.space_size > 6:
            continue
        size = task.space_size
        if rng.random() < 0.35:
            support = "exhaustive"
        else:
            rows = rng.sample(range(size), rng.randint(1, size))
            support = rows
        concept_sup = rng.choice([None, None, 1, 2]) if support == "exhaustive" else rng.choice([None, None, 1])
        supervise = []
        if rng.random() < 0.25:
            c = rng.choice(task.concepts)
            supervise = [c.name if rng.random() < 0.5 else f"{c.name}={rng.choice(c.domain)}"]
        problem = rscount.make_problem(task, map_class=map_class, support=support if support == "exhaustive"
                                       else _rows(task, rows), concept_sup=concept_sup, supervise=supervise,
                                       seed=seed)
        if number_of_candidates(problem) <= LIMIT // 60:
            return problem
    raise RuntimeError("no small problem found")


def _rows(task, indices):
    from rscount.model.support import grid
    return [list(r) for r in grid(task.sizes, indices).tolist()]


def random_exhaustive_problem(seed: int, map_class: str):
    """A random task on its exhaustive support, without supervision, small enough for brute force."""
    rng = random.Random(seed)
    for _ in range(100):
        task = random_cnf_task(rng, rng.randint(2, 4)) if rng.random() < 0.4 else random_categorical_task(rng)
        problem = rscount.make_problem(task, map_class=map_class, support="exhaustive")
        if number_of_candidates(problem) <= LIMIT // 60:
            return problem
    raise RuntimeError("no small problem found")


def random_crossing_shared_problem(seed: int):
    """Labels over disjoint concepts, with concept groups that cross them, under ``shared``."""
    rng = random.Random(seed)
    size = rng.randint(2, 3)
    names = [f"c{i}" for i in range(1, 5)]
    cut = rng.randint(1, 3)
    sides = [names[:cut], names[cut:]]
    for _ in range(100):  # labels that mention every concept, so that the parts cover them
        labels = [_bool_expr(rng, side, [], 2) if rng.random() < 0.5 else _int_expr(rng, side, 2) for side in sides]
        if all(n in " ".join(labels) for n in names):
            break
    grouped = rng.sample(names, rng.randint(2, 4))
    if all(set(grouped) <= set(side) for side in sides):
        grouped = [sides[0][0], sides[1][0]]
    groups = [grouped] + ([[n for n in names if n not in grouped]] if len(grouped) == 2 and rng.random() < 0.5
                          else [])
    task = rscount.task_from_spec({"name": "rcross", "concepts": {n: f"0..{size - 1}" for n in names},
                                   "labels": labels, "groups": groups})
    return rscount.make_problem(task, map_class="shared")


def random_linear_problem(seed: int, map_class: str):
    """A random task whose labels are linear in integer concepts (sums, comparisons of sums, negations)."""
    rng = random.Random(seed)
    for _ in range(100):
        k = rng.randint(2, 4)
        domains = [rng.choice([[0, 1], [0, 1, 2], [-1, 0, 2], [0, 2, 3], [1, 2, 3]]) for _ in range(k)]
        if rng.random() < 0.5:
            domains = [domains[0]] * k
        names = [f"c{i + 1}" for i in range(k)]
        concepts = {n: list(d) for n, d in zip(names, domains)}
        labels = []
        for _ in range(rng.randint(1, 2)):
            terms = [f"{rng.choice([1, 1, 2, -1, -2])} * {n}" for n in rng.sample(names, rng.randint(1, k))]
            side = " + ".join(terms) + f" + {rng.randint(-2, 2)}"
            kind = rng.random()
            if kind < 0.3:
                labels.append(side)
            else:
                other = " + ".join(rng.sample(names, rng.randint(0, 2)) or ["0"])
                label = f"({side}) {rng.choice(['==', '==', '!=', '<', '<=', '>', '>='])} ({other})"
                labels.append(f"~({label})" if rng.random() < 0.2 else label)
        groups = [[n for n, d in zip(names, domains) if d == domains[0]]]
        task = rscount.task_from_spec({"name": "rlin", "concepts": concepts, "labels": labels,
                                       "groups": groups if len(groups[0]) > 1 else []})
        problem = _sampled(rng, task, map_class, seed)
        if problem is not None:
            return problem
    raise RuntimeError("no small problem found")


def _sampled(rng, task, map_class: str, seed: int):
    """``task`` on up to 12 random vectors, sometimes supervised; None when too large for brute force."""
    size = task.space_size
    rows = rng.sample(range(size), rng.randint(1, min(size, 12)))
    supervise = []
    if rng.random() < 0.2:
        c = rng.choice(task.concepts)
        supervise = [c.name if rng.random() < 0.5 else f"{c.name}={rng.choice(c.domain)}"]
    vectors = [[c.domain[u] for c, u in zip(task.concepts, row)] for row in _rows(task, rows)]
    problem = rscount.make_problem(task, map_class=map_class, support=vectors, supervise=supervise,
                                   concept_sup=rng.choice([None, None, 1]), seed=seed)
    return problem if number_of_candidates(problem) <= LIMIT // 60 else None


def random_product_problem(seed: int, map_class: str):
    """A random task whose labels compare products of nonnegative integer concepts (zeros, repeated factors,
    constants, negations)."""
    rng = random.Random(seed)
    for _ in range(100):
        k = rng.randint(2, 4)
        domains = [rng.choice([[0, 1, 2], [0, 2, 4], [1, 2, 3], [0, 1, 2, 3], [0, 2, 3, 6], [0, 1, 4]])
                   for _ in range(k)]
        if rng.random() < 0.5:
            domains = [domains[0]] * k
        names = [f"c{i + 1}" for i in range(k)]

        def side():
            factors = [rng.choice(names) for _ in range(rng.randint(1, 2))]
            if rng.random() < 0.25:
                factors.append(str(rng.choice([0, 1, 2, 3])))
            return " * ".join(factors)
        labels = []
        for _ in range(rng.randint(1, 2)):
            label = f"({side()}) {rng.choice(['==', '==', '!='])} ({side()})"
            labels.append(f"~({label})" if rng.random() < 0.2 else label)
        groups = [[n for n, d in zip(names, domains) if d == domains[0]]]
        task = rscount.task_from_spec({"name": "rprod", "concepts": dict(zip(names, domains)), "labels": labels,
                                       "groups": groups if len(groups[0]) > 1 else []})
        problem = _sampled(rng, task, map_class, seed)
        if problem is not None:
            return problem
    raise RuntimeError("no small problem found")


def _feature(rng, block: list) -> str:
    """A random symmetric feature of a block of concepts (sum, parity, all-equal, max; a lone concept itself)."""
    kind = rng.choice(["sum", "parity", "equal", "max"]) if len(block) > 1 else "one"
    if kind == "sum":
        return "(" + " + ".join(block) + ")"
    if kind == "parity":
        return "((" + " + ".join(block) + ") % 2)"
    if kind == "equal":
        return "ITE(" + " & ".join(f"({a} == {b})" for a, b in zip(block, block[1:])) + ", 1, 0)"
    if kind == "max":
        return "Max(" + ", ".join(block) + ")" if len(block) == 2 else f"Max({block[0]}, Max({block[1]}, {block[2]}))"
    return block[0]


def random_modular_problem(seed: int, map_class: str, twins: bool = False):
    """A random task whose labels read blocks of concepts only through symmetric features (sums, parities,
    all-equal, max), on a random unsupervised sample; ``twins``: two blocks the knowledge can swap."""
    rng = random.Random(seed)
    for _ in range(100):
        k = rng.randint(4 if twins else 3, 5 if map_class == "permutation" else 4)
        sizes = rng.choice([[2, 1], [2, 2], [3], [2, 1, 1], [3, 1], [3, 2], [2, 2, 1]])
        sizes = [s for s in sizes if s <= k]
        while sum(sizes) < k:
            sizes.append(1)
        while sum(sizes) > k:
            sizes[sizes.index(max(sizes))] -= 1
        names = [f"c{i + 1}" for i in range(k)]
        concepts, features, at = {}, [], 0
        for size in sizes:
            domain = "0..2" if rng.random() < 0.2 and size <= 2 else "0..1"
            block = names[at:at + size]
            at += size
            concepts.update({n: domain for n in block})
            features.append(_feature(rng, block))

        def atom():
            a = rng.choice(features)
            if rng.random() < 0.5 and len(features) > 1:
                b = rng.choice([f for f in features if f != a])
                return f"({a} {rng.choice(['==', '!=', '>', '<='])} {b})"
            return f"({a} {rng.choice(['==', '!=', '>='])} {rng.randint(0, 2)})"

        def expr(depth):
            if depth == 0 or rng.random() < 0.3:
                return atom()
            op = rng.choice(["&", "|", "^", "~"])
            return f"~({expr(depth - 1)})" if op == "~" else f"({expr(depth - 1)} {op} {expr(depth - 1)})"
        labels = [expr(2) for _ in range(rng.randint(1, 2))]
        if twins or (rng.random() < 0.4 and k >= 4):
            # twins: two blocks of one kind that the label treats alike, so the knowledge can swap them
            a, b = "(c1 + c2)", "(c3 + c4)"
            for n in names[:4]:
                concepts[n] = "0..1"
            if rng.random() < 0.5:
                a, b = f"(({a}) % 2)", f"(({b}) % 2)"
            v = rng.randint(0, 2)
            pred = rng.choice(["==", ">=", "!="])
            twin = rng.choice([f"({a} == {b})", f"(({a} {pred} {v}) & ({b} {pred} {v}))",
                               f"(({a} {pred} {v}) | ({b} {pred} {v}))", f"(({a} {pred} {v}) ^ ({b} {pred} {v}))"])
            rest = names[4:]
            labels = [f"({twin} {rng.choice(['&', '|', '^'])} ({rest[0]} >= 1))" if rest and rng.random() < 0.6
                      else twin]
        task = rscount.task_from_spec({"name": "rmod", "concepts": concepts, "labels": labels})
        rows = rng.sample(range(task.space_size), rng.randint(1, min(task.space_size, 16)))
        problem = rscount.make_problem(task, map_class=map_class, support=_rows(task, rows))
        if number_of_candidates(problem) <= LIMIT // 60:
            return problem
    raise RuntimeError("no small problem found")


def random_clauses_problem(seed: int, map_class: str):
    """A random CNF over 2-6 boolean concepts (repeated and opposite literals allowed) on a listed sample of
    its vectors, small enough for brute force."""
    rng = random.Random(seed)
    for _ in range(100):
        k = rng.randint(2, 4 if map_class in ("complete", "permutation") else 6)
        names = [f"x{i}" for i in range(1, k + 1)]
        clauses = []
        for _ in range(rng.randint(1, 5)):
            lits = [rng.choice(names) for _ in range(rng.randint(1, 3))]
            clauses.append("(" + " | ".join(v if rng.random() < 0.5 else f"~{v}" for v in lits) + ")")
        task = rscount.task_from_spec({"name": "rcnf", "concepts": names, "labels": [" & ".join(clauses)]})
        size = task.space_size
        rows = rng.sample(range(size), rng.randint(1, size))
        problem = rscount.make_problem(task, map_class=map_class, support=_rows(task, rows))
        if number_of_candidates(problem) <= LIMIT // 20:
            return problem
    raise RuntimeError("no small problem found")


def random_module_tree_problem(seed: int, map_class: str = "complete"):
    """Knowledge shaped like Kand-Logic: four blocks read through symmetric features, combined in pairs, then
    at the top; on a random sample. Its module tree is usually two levels deep."""
    rng = random.Random(seed)
    sizes = [rng.choice([1, 2, 2, 3]) for _ in range(4)]
    while sum(sizes) > 7:
        sizes[sizes.index(max(sizes))] -= 1
    names, concepts, features, at = [], {}, [], 0
    for size in sizes:
        block = [f"c{at + i + 1}" for i in range(size)]
        at += size
        names += block
        domain = rng.choice(["0..1", "0..2"]) if size <= 2 else "0..1"
        concepts.update({n: domain for n in block})
        features.append(_feature(rng, block))

    def pair(f, g):
        v = rng.randint(0, 1)
        return rng.choice([f"({f} == {g})", f"({f} != {g})", f"(({f} >= {v + 1}) & ({g} >= {v + 1}))",
                           f"(({f} >= {v + 1}) | ({g} <= {v}))", f"(({f} >= {v + 1}) ^ ({g} >= {v + 1}))"])
    left, right = pair(features[0], features[1]), pair(features[2], features[3])
    labels = [f"({left} {rng.choice(['|', '&', '^'])} {right})"]
    if rng.random() < 0.3:
        labels.append(left)
    task = rscount.task_from_spec({"name": "rtree", "concepts": concepts, "labels": labels})
    rows = rng.sample(range(task.space_size), rng.randint(min(task.space_size, 12), min(task.space_size, 40)))
    return rscount.make_problem(task, map_class=map_class, support=_rows(task, rows))


def confounded(seed: int, n: int = 2, shapes: int = 2, colours: int = 3):
    """A ConCon-like design: objects with a read shape s and an unread colour c; the label reads shapes only, and
    the support keeps the scenes where it agrees with "some object has colour 0" (a confounder), thinned at
    random but closed under swapping objects and under swapping colours 1 and 2 of any one object."""
    from rscount.model.support import grid
    rng = random.Random(seed)
    x, y = rng.randrange(shapes), rng.randrange(shapes)
    objects = range(1, n + 1)
    if seed % 3 == 0:
        text = " | ".join(f"((s{o} == {x}) & (s{q} == {y}))" for o in objects for q in objects if o != q)
    elif seed % 3 == 1:
        text = " ^ ".join(f"(s{o} == {x})" for o in objects)
    else:
        text = " + ".join(f"(s{o} == {x})" for o in objects)
    task = rscount.task_from_spec({
        "name": f"confounded{seed}", "labels": {"y": text},
        "concepts": {f"{a}{o}": list(range(shapes if a == "s" else colours)) for o in objects for a in "sc"},
        "groups": {a: [f"{a}{o}" for o in objects] for a in "sc"}})
    space = grid(task.sizes)
    label = task.evaluate(space)[:, 0]
    zeros = (space[:, 1::2] == 0).sum(axis=1)
    confounder = zeros % 2 == 1 if seed % 5 == 2 else zeros > 0
    keep = (label != 0) == confounder if seed % 4 != 3 else np.ones(len(space), dtype=bool)
    if seed % 4 != 0:  # thin out, keeping the symmetries: drop whole orbits
        orbit_key = np.sort(np.minimum(space[:, 1::2], 1) * 10 + space[:, ::2], axis=1)
        codes = orbit_key @ (100 ** np.arange(n))
        drop = rng.choice([0.2, 0.5, 0.7])
        dropped = {int(c) for c in np.unique(codes) if rng.random() < drop}
        keep &= ~np.isin(codes, list(dropped))
    if not keep.any():
        keep[0] = True
    rows = [[task.concepts[i].domain[u] for i, u in enumerate(r)] for r in space[keep].tolist()]
    return task, rows
