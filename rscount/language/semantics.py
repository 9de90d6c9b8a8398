"""What each operator of the knowledge language means, on values and on arrays.

Values are integers (booleans are 0/1) or named values (strings). One table
serves value-set propagation (pairs of values) and one serves vectorised
evaluation over numpy arrays; both follow Python's integer semantics.
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["SCALAR", "ARRAY", "evaluate", "apply_scalar"]


def _truth(x):
    return x if x.dtype == bool else x != 0


def _num(x):
    """Booleans as 0/1 integers before arithmetic (numpy adds two bool arrays as a logical or)."""
    return x.astype(np.int64) if x.dtype == bool else x


def _arith(fn):
    return lambda *args: fn(*map(_num, args))


SCALAR = {
    "and": lambda x, y: int(bool(x) and bool(y)),
    "or": lambda x, y: int(bool(x) or bool(y)),
    "xor": lambda x, y: int(bool(x) != bool(y)),
    "not": lambda x: int(not x),
    "add": lambda x, y: x + y,
    "sub": lambda x, y: x - y,
    "mul": lambda x, y: x * y,
    "mod": lambda x, y: x % y,
    "floordiv": lambda x, y: x // y,
    "min": min,
    "max": max,
    "neg": lambda x: -x,
    "abs": abs,
    "eq": lambda x, y: int(x == y),
    "ne": lambda x, y: int(x != y),
    "lt": lambda x, y: int(x < y),
    "le": lambda x, y: int(x <= y),
    "gt": lambda x, y: int(x > y),
    "ge": lambda x, y: int(x >= y),
}

_NARY = {"and": lambda v: int(all(map(bool, v))), "or": lambda v: int(any(map(bool, v))),
         "xor": lambda v: sum(map(bool, v)) % 2, "add": sum, "mul": math.prod, "min": min, "max": max}


def apply_scalar(op: str, values: list):
    """Apply any operator of the language to plain values (as value-by-value readings of K need); the n-ary ones
    (``a ^ b ^ c`` is one xor of three) take any number of arguments."""
    if op == "ite":
        return values[1] if values[0] else values[2]
    if op == "implies":
        return int(not values[0] or bool(values[1]))
    if op == "equiv":
        return int(len({bool(v) for v in values}) == 1)
    if op in _NARY:
        return _NARY[op](values)
    return SCALAR[op](*values)


# Truth values stay numpy bools (no int64 copy per operator); arithmetic reads them as 0/1.
ARRAY = {
    "and": lambda x, y: _truth(x) & _truth(y),
    "or": lambda x, y: _truth(x) | _truth(y),
    "xor": lambda x, y: _truth(x) ^ _truth(y),
    "not": lambda x: ~_truth(x),
    "add": _arith(np.add),
    "sub": _arith(np.subtract),
    "mul": _arith(np.multiply),
    "mod": _arith(np.mod),
    "floordiv": _arith(np.floor_divide),
    "min": _arith(np.minimum),
    "max": _arith(np.maximum),
    "neg": _arith(np.negative),
    "abs": _arith(np.abs),
    "eq": lambda x, y: x == y,
    "ne": lambda x, y: x != y,
    "lt": lambda x, y: x < y,
    "le": lambda x, y: x <= y,
    "gt": lambda x, y: x > y,
    "ge": lambda x, y: x >= y,
}


def evaluate(expr, env: dict, codes: dict, n: int, dtype=np.int64) -> np.ndarray:
    """Evaluate ``expr`` on ``n`` concept vectors at once.

    ``env`` maps concept names to int64 (or bool) arrays of values; named
    values are represented by the integer ``codes`` the task assigns them.
    ``n`` may be a shape instead: the arrays then broadcast, and constants
    take that shape. ``dtype`` is ``object`` where values may leave 64 bits (Python integers throughout).
    """
    from .logic import Const, Var  # local: logic imports nothing from here

    memo: dict = {}

    def ev(node):
        found = memo.get(id(node))
        if found is not None:
            return found[1]
        if isinstance(node, Const):
            value = codes[node.value] if isinstance(node.value, str) else node.value
            out = np.full(n, value, dtype=dtype)
        elif isinstance(node, Var):
            out = env[node.name]
        else:
            args = [ev(a) for a in node.args]
            out = _apply(node.op, args, n, dtype)
        memo[id(node)] = (node, out)
        return out

    return ev(expr)


def _apply(op: str, args: list, n: int, dtype=np.int64) -> np.ndarray:
    if op == "ite":
        return np.where(_truth(args[0]), args[1], args[2])
    if op == "implies":
        return ~_truth(args[0]) | _truth(args[1])
    if op == "equiv":
        first = _truth(args[0])
        same = np.ones(first.shape, dtype=bool)
        for a in args[1:]:
            same = same & (_truth(a) == first)  # not in place: the shapes may broadcast
        return same
    fn = ARRAY[op]
    if len(args) == 1 and op in ("not", "neg", "abs"):
        return fn(args[0])
    if not args:
        return np.full(n, 1 if op == "and" else 0, dtype=dtype)
    out = args[0] if op not in ("and", "or", "xor") else _truth(args[0])
    for a in args[1:]:
        out = fn(out, a)
    return out
