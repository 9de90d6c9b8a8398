"""Knowledge to and from sympy expressions, by walking expression trees (never ``sympify`` of text).

>>> import sympy
>>> a, b = sympy.symbols("a b")
>>> from_sympy(sympy.Xor(a, b))
Op(op='xor', args=(Var(name='a'), Var(name='b')))
>>> to_sympy(from_sympy(sympy.Xor(a, b)))
a ^ b
"""
from __future__ import annotations

from ..errors import KnowledgeError, brief
from .logic import COMPARISON, LOGICAL, Const, Op, Var

__all__ = ["from_sympy", "to_sympy", "sympy_names", "is_sympy"]

MAX_EXPONENT = 256  # b**n for larger n leaves every domain's values far behind (9**256 has 245 digits)

_LOGICAL = {"And": "and", "Or": "or", "Not": "not", "Xor": "xor", "Implies": "implies", "Equivalent": "equiv"}
_RELATIONAL = {"Equality": "eq", "Unequality": "ne", "StrictLessThan": "lt", "LessThan": "le",
               "StrictGreaterThan": "gt", "GreaterThan": "ge"}
_ARITHMETIC = {"Add": "add", "Mul": "mul", "Mod": "mod", "Min": "min", "Max": "max", "Abs": "abs"}


def _sympy():
    try:
        import sympy
    except ImportError:  # pragma: no cover - sympy is a dependency
        raise KnowledgeError("sympy is not installed (pip install sympy)") from None
    return sympy


def is_sympy(value) -> bool:
    """Whether ``value`` is a sympy expression (sympy is imported only to answer)."""
    return isinstance(value, _sympy().Basic)


def _classes(sp, names: dict) -> dict:
    """sympy's own classes for the names, so that a user's ``Function('Min')`` is not read as ``sympy.Min``."""
    return {getattr(sp, name): op for name, op in names.items()}


def sympy_names(exprs) -> list:
    """The symbol names the expressions read, in order of first appearance."""
    out: list = []
    for e in exprs:
        for node in _sympy().preorder_traversal(e):
            if getattr(node, "is_Symbol", False) and node.name not in out:
                out.append(node.name)
    return out


def from_sympy(expr, values: frozenset = frozenset()):
    """Our expression tree for a sympy expression; symbols named in ``values`` are named values ('red').

    Anything sympy can say that a count cannot read is a KnowledgeError naming the construct.
    """
    sp = _sympy()
    memo: dict = {}
    logical, relational, arithmetic = _classes(sp, _LOGICAL), _classes(sp, _RELATIONAL), _classes(sp, _ARITHMETIC)

    def go(e):
        hit = memo.get(e)
        if hit is not None:
            return hit
        out = convert(e)
        memo[e] = out
        return out

    def convert(e):
        if isinstance(e, str):
            raise KnowledgeError(f"{brief(e, 60)} is text, not a sympy expression; text goes to task_from_text, which "
                                 f"parses it safely")
        if isinstance(e, bool):
            return Const(int(e))
        if e is sp.true or e is sp.false:
            return Const(int(e is sp.true))
        if getattr(e, "is_Symbol", False):
            return Const(e.name) if e.name in values else Var(e.name)
        if getattr(e, "is_Integer", False):
            return Const(int(e))
        if getattr(e, "is_Number", False):
            raise KnowledgeError(f"the number {e} is not an integer; knowledge reads integers only")
        kind, name, args = type(e), type(e).__name__, e.args
        if kind in logical:
            return Op(logical[kind], tuple(go(a) for a in args))
        if kind in relational:
            return Op(relational[kind], (go(args[0]), go(args[1])))
        if kind is sp.ITE:
            return Op("ite", tuple(go(a) for a in args))
        if kind is sp.Piecewise:
            return piecewise(args)
        if kind is sp.Pow:
            return power(e, *args)
        if kind is sp.floor and len(args) == 1 and type(args[0]) is sp.Mul:
            num, den = args[0].as_numer_denom()
            if not getattr(den, "is_Integer", False) or int(den) != 1:
                return Op("floordiv", (go(num), go(den)))
        if kind in arithmetic:
            return Op(arithmetic[kind], tuple(go(a) for a in args))
        if isinstance(e, sp.core.function.AppliedUndef):
            raise KnowledgeError(f"{name} in {brief(e, 60)} is an undefined sympy Function, not sympy's own; use "
                                 f"sympy.{name} if you mean it (knowledge reads sympy's Min, Max, Abs, Mod, ...)")
        raise KnowledgeError(f"sympy's {name} ({brief(e, 60)}) cannot be counted; knowledge reads And, Or, Not, Xor, Implies, "
                             f"Equivalent, ITE, Eq, Ne, Lt, Le, Gt, Ge, Add, Mul, Mod, Pow (integer exponent), Min, "
                             f"Max, Abs and Piecewise over symbols with finite domains")

    def power(e, base, exp):
        if not (getattr(exp, "is_Integer", False) and 0 <= int(exp) <= MAX_EXPONENT):
            raise KnowledgeError(f"the power {brief(e, 60)} needs an integer exponent from 0 to {MAX_EXPONENT}; "
                                 f"knowledge reads integers only (no division)")
        n, square, factors = int(exp), go(base), []
        while n:  # by squaring: the tree grows with the exponent's digits, not its size
            if n & 1:
                factors.append(square)
            n >>= 1
            if n:
                square = Op("mul", (square, square))
        return Const(1) if not factors else factors[0] if len(factors) == 1 else Op("mul", tuple(factors))

    def piecewise(pieces):
        *head, (last_value, last_cond) = pieces
        if last_cond is not sp.true:
            raise KnowledgeError("a Piecewise must end with an 'otherwise' piece (condition True): every "
                                 "concept vector needs a label")
        out = go(last_value)
        for value, cond in reversed(head):
            out = Op("ite", (go(cond), go(value), out))
        return out
    return go(expr)


def to_sympy(expr, boolean_names: frozenset = frozenset()):
    """The sympy expression of one of our expression trees (named values become symbols of that name).

    ``boolean_names`` are the boolean concepts: in arithmetic they count as 0/1 (sympy keeps them as symbols).
    """
    sp = _sympy()
    memo: dict = {}

    def truth(node, value):
        """A value where sympy wants a truth value: constants 0/1 become false/true, numbers ``!= 0``."""
        if isinstance(node, Const) and node.value in (0, 1):
            return sp.true if node.value else sp.false
        if isinstance(node, Var) or (isinstance(node, Op) and node.op in BOOLEAN_OPS):
            return value
        return sp.Ne(value, 0)

    def number(node, value):
        """A value where sympy wants a number: truth values become 0/1."""
        if isinstance(node, Op) and _boolean(node, boolean_names):  # an ITE of 0/1 is a truth value too
            return sp.Piecewise((1, value), (0, True))
        if value is sp.true or value is sp.false:
            return sp.Integer(int(value is sp.true))
        return value

    def go(node):
        key = id(node)
        if key in memo:
            return memo[key][1]
        out = convert(node)
        memo[key] = (node, out)
        return out

    def convert(node):
        if isinstance(node, Const):
            return sp.Symbol(node.value) if isinstance(node.value, str) else sp.Integer(node.value)
        if isinstance(node, Var):
            return sp.Symbol(node.name)
        op, args = node.op, node.args
        kids = [go(a) for a in args]
        if op in LOGICAL:
            fn = {"and": sp.And, "or": sp.Or, "xor": sp.Xor, "not": sp.Not, "implies": sp.Implies,
                  "equiv": sp.Equivalent}[op]
            return fn(*[truth(a, k) for a, k in zip(args, kids)])
        if op in COMPARISON:
            if op in ("eq", "ne") and all(_boolean(a, boolean_names) for a in args):
                same = sp.Equivalent(*[truth(a, k) for a, k in zip(args, kids)])
                return same if op == "eq" else sp.Not(same)
            fn = {"eq": sp.Eq, "ne": sp.Ne, "lt": sp.Lt, "le": sp.Le, "gt": sp.Gt, "ge": sp.Ge}[op]
            return fn(*[number(a, k) for a, k in zip(args, kids)])
        if op == "ite":
            cond = truth(args[0], kids[0])
            if _boolean(args[1], boolean_names) and _boolean(args[2], boolean_names):
                return sp.ITE(cond, truth(args[1], kids[1]), truth(args[2], kids[2]))
            return sp.Piecewise((number(args[1], kids[1]), cond), (number(args[2], kids[2]), True))
        nums = [number(a, k) for a, k in zip(args, kids)]
        if op == "add":
            return sp.Add(*nums)
        if op == "sub":
            return nums[0] - sp.Add(*nums[1:])
        if op == "mul":
            return sp.Mul(*nums)
        if op == "neg":
            return -nums[0]
        if op == "mod":
            return sp.Mod(*nums)
        if op == "floordiv":
            return sp.floor(nums[0] / nums[1])
        if op in ("min", "max", "abs"):
            return {"min": sp.Min, "max": sp.Max, "abs": sp.Abs}[op](*nums)
        raise KnowledgeError(f"operator {op!r} has no sympy form")
    return go(expr)


BOOLEAN_OPS = LOGICAL | COMPARISON


def _boolean(node, boolean_names) -> bool:
    """Whether ``node`` is a truth value (a boolean concept, a logical or relational operator, 0/1 constant)."""
    if isinstance(node, Var):
        return node.name in boolean_names
    if isinstance(node, Const):
        return node.value in (0, 1)
    if node.op == "ite":
        return _boolean(node.args[1], boolean_names) and _boolean(node.args[2], boolean_names)
    return node.op in BOOLEAN_OPS
