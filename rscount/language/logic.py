"""Knowledge language: a safe parser from text to a small expression tree.

The language is sympy-like: ``And Or Not Xor Implies Equivalent ITE Eq Ne``
(and ``Lt Le Gt Ge Sum Min Max Abs``), the operators ``& | ~ ^ >>``, integer
arithmetic ``+ - * // %``, comparisons, integer and boolean constants and
named values (``color1 == red``). Text is parsed with :mod:`ast` and every
node is checked against a whitelist; nothing is ever evaluated as code.

>>> parse("a ^ b", names={"a", "b"})
Op(op='xor', args=(Var(name='a'), Var(name='b')))
"""
from __future__ import annotations

import ast
import io
import keyword
import tokenize
from dataclasses import dataclass
from typing import Iterable, Mapping, Union

from ..errors import KnowledgeError

__all__ = ["Const", "Var", "Op", "Expr", "parse", "free_names", "variables", "LOGICAL", "ARITHMETIC", "COMPARISON"]

MAX_TEXT = 100_000


@dataclass(frozen=True)
class Const:
    """An integer (booleans are 0/1) or a named value such as ``'red'``."""

    value: Union[int, str]


@dataclass(frozen=True)
class Var:
    """A concept, by name."""

    name: str


@dataclass(frozen=True)
class Op:
    """An operator applied to sub-expressions."""

    op: str
    args: tuple


Expr = Union[Const, Var, Op]

LOGICAL = {"and", "or", "not", "xor", "implies", "equiv"}
ARITHMETIC = {"add", "sub", "mul", "neg", "mod", "floordiv", "min", "max", "abs"}
COMPARISON = {"eq", "ne", "lt", "le", "gt", "ge"}

# Function names accepted in calls, with (op, min args, max args).
_CALLS = {
    "And": ("and", 0, None), "Or": ("or", 0, None), "Not": ("not", 1, 1),
    "Xor": ("xor", 0, None), "Implies": ("implies", 2, 2),
    "Equivalent": ("equiv", 1, None), "ITE": ("ite", 3, 3),
    "Eq": ("eq", 2, 2), "Ne": ("ne", 2, 2), "Lt": ("lt", 2, 2),
    "Le": ("le", 2, 2), "Gt": ("gt", 2, 2), "Ge": ("ge", 2, 2),
    "Sum": ("add", 1, None), "Min": ("min", 1, None), "Max": ("max", 1, None),
    "Abs": ("abs", 1, 1),
}
_BINOPS = {
    ast.BitAnd: "and", ast.BitOr: "or", ast.BitXor: "xor", ast.RShift: "implies",
    ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Mod: "mod",
    ast.FloorDiv: "floordiv",
}
_CMPOPS = {
    ast.Eq: "eq", ast.NotEq: "ne", ast.Lt: "lt", ast.LtE: "le",
    ast.Gt: "gt", ast.GtE: "ge",
}
_ASSOCIATIVE = {"and", "or", "xor", "add"}
_BOOL_NAMES = {"True": 1, "False": 0, "true": 1, "false": 0}


def parse(
    text: str,
    names: Iterable[str],
    values: Iterable[str] = (),
    definitions: Mapping[str, Expr] | None = None,
) -> Expr:
    """Parse knowledge ``text`` into an expression tree.

    ``names`` are the concepts, ``values`` the named domain values that may
    appear as constants, ``definitions`` named sub-expressions substituted
    where their name appears. Raise :class:`KnowledgeError` on anything else.
    """
    if not isinstance(text, str):
        raise KnowledgeError(f"knowledge must be text, got {type(text).__name__} {text!r}")
    if len(text) > MAX_TEXT:
        raise KnowledgeError(f"knowledge text is {len(text)} characters; the limit is {MAX_TEXT}")
    source = " ".join(text.split())
    if not source:
        raise KnowledgeError("knowledge text is empty; write an expression such as 'a ^ b'")
    tree = _syntax_tree(source)
    return _Builder(source, set(names), set(values), dict(definitions or {})).build(tree.body)


def _syntax_tree(source: str) -> ast.Expression:
    """Python's syntax tree of ``source`` (long operator chains flattened first); never evaluated."""
    try:
        return ast.parse(flatten_chains(source), mode="eval")
    except SyntaxError as exc:
        col = (exc.offset or 0)
        raise KnowledgeError(f"syntax error in knowledge {source!r} at column {col}: {exc.msg}") from None
    except (RecursionError, MemoryError):
        raise KnowledgeError(f"knowledge {source[:60]!r}... has too many operators in a row for the parser (one "
                             f"level each); write long sums, ands, ors and xors as Sum(a, b, ...), And(...), Or(...), "
                             f"Xor(...), and a long difference as a - Sum(b, c, ...)") from None


_CHAINS = {"|": "Or", "^": "Xor", "&": "And", "+": "Sum"}  # lowest precedence first, as Python binds them
_TIGHTER = {"*", "//", "%", "~"}
_COMPARE = {"==", "!=", "<", ">", "<=", ">="}  # operators that bind tighter than every chain operator
_OPEN, _CLOSE = "([{", ")]}"
LONG_CHAIN = 32  # operands of one operator at one level; longer chains become one n-ary call


def flatten_chains(source: str) -> str:
    """Rewrite long chains ``a ^ b ^ ...`` as ``Xor(a, b, ...)`` (likewise | & +), so that thousands of terms
    parse without one level of nesting per term; the rewrite never changes what the text means.

    A chain is split only where nothing at its level binds looser than its operator (a keyword such as
    ``not``, a comparison, a comma, a minus): there precedence is Python's to decide, and the text is left as
    it is, though the groups in brackets inside it are still rewritten. Text that does not tokenize is left
    to the parser to report.
    """
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(source).readline)
                  if t.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER, tokenize.INDENT,
                                    tokenize.DEDENT, tokenize.COMMENT)]
    except (tokenize.TokenError, SyntaxError):
        return source
    if any(t.start[0] != 1 for t in tokens):
        return source  # one line only (parse() joins lines); anything else is the parser's to judge
    text, changed = _Chains(source, tokens).items(0, len(tokens))
    return text if changed else source


class _Chains:
    """Token ranges of one line of text, rewritten bracket group by bracket group (see flatten_chains)."""

    def __init__(self, source: str, tokens: list):
        self.source, self.tokens = source, tokens
        self.match, stack = {}, []
        for n, t in enumerate(tokens):
            if t.string in _OPEN:
                stack.append(n)
            elif t.string in _CLOSE and stack:
                self.match[stack.pop()] = n

    def text(self, lo: int, hi: int) -> str:
        return self.source[self.tokens[lo].start[1]:self.tokens[hi - 1].end[1]] if lo < hi else ""

    def level(self, lo: int, hi: int):
        """Yield the indices of the tokens of [lo, hi) outside brackets (a bracket's opening token included)."""
        n = lo
        while n < hi:
            yield n
            n = self.match.get(n, n) + 1

    def items(self, lo: int, hi: int) -> tuple:
        """Comma-separated items of [lo, hi), each rewritten: (text, whether anything changed)."""
        cuts = [n for n in self.level(lo, hi) if self.tokens[n].string == ","]
        if not cuts:
            return self.item(lo, hi)
        bounds = [lo] + [c + 1 for c in cuts]
        ends = cuts + [hi]
        parts = [self.item(a, b) for a, b in zip(bounds, ends)]
        if not any(changed for _, changed in parts):
            return self.text(lo, hi), False
        return ", ".join(t for t, _ in parts) + ("," if bounds[-1] == hi else ""), True

    def item(self, lo: int, hi: int) -> tuple:
        cmp = [n for n in self.level(lo, hi) if self.tokens[n].string in _COMPARE]
        if cmp and not any(self.tokens[n].type == tokenize.NAME and keyword.iskeyword(self.tokens[n].string)
                           and self.tokens[n].string not in ("True", "False", "None") for n in self.level(lo, hi)):
            # comparisons bind looser than every chain operator: rewrite the operands between them
            bounds, ends = [lo] + [c + 1 for c in cmp], cmp + [hi]
            parts = [self.item(a, b) for a, b in zip(bounds, ends)]
            if not any(changed for _, changed in parts):
                return self.text(lo, hi), False
            return "".join(t + (f" {self.tokens[c].string} " if c < hi else "")
                           for (t, _), c in zip(parts, ends)), True
        ops: dict = {op: [] for op in _CHAINS}
        loose = False
        for n in self.level(lo, hi):
            t = self.tokens[n]
            if t.string in _CHAINS:
                ops[t.string].append(n)
            elif not (t.string in _TIGHTER or t.string in _OPEN or t.type == tokenize.NUMBER
                      or t.type == tokenize.STRING
                      or t.type == tokenize.NAME and (not keyword.iskeyword(t.string)
                                                      or t.string in ("True", "False", "None"))):
                loose = True
        chain = next((op for op in _CHAINS if ops[op]), None)
        bounds = [lo] + [c + 1 for c in ops[chain]] if chain else []
        if loose or chain is None or any(a == b for a, b in zip(bounds, ops[chain] + [hi])):  # a unary + or -
            return self.groups(lo, hi)
        parts = [self.item(a, b) for a, b in zip(bounds, ops[chain] + [hi])]
        if len(parts) > LONG_CHAIN:
            return f"{_CHAINS[chain]}(" + ", ".join(t for t, _ in parts) + ")", True
        if not any(changed for _, changed in parts):
            return self.text(lo, hi), False
        return f" {chain} ".join(t for t, _ in parts), True

    def groups(self, lo: int, hi: int) -> tuple:
        """[lo, hi) with the inside of each bracket group at its level rewritten."""
        out, changed, at = [], False, lo
        for n in self.level(lo, hi):
            close = self.match.get(n)
            if close is None or close == n:
                continue
            inner, did = self.items(n + 1, close)
            if did:
                out += [self.text(at, n + 1), inner]
                at, changed = close, True
        if not changed:
            return self.text(lo, hi), False
        out.append(self.text(at, hi))
        return "".join(out), True


class _Builder:
    def __init__(self, source: str, names: set, values: set, definitions: dict):
        self.source, self.names, self.values, self.definitions = source, names, values, definitions

    def fail(self, node: ast.AST, what: str) -> KnowledgeError:
        col = getattr(node, "col_offset", 0) + 1
        return KnowledgeError(f"{what} in knowledge {self.source!r} at column {col}")

    def build(self, node: ast.AST) -> Expr:
        method = getattr(self, "_" + type(node).__name__, None)
        if method is None:
            raise self.fail(node, f"unsupported syntax {type(node).__name__!r}")
        return method(node)

    def _Name(self, node: ast.Name) -> Expr:
        name = node.id
        if name in self.names:
            return Var(name)
        if name in self.definitions:
            return self.definitions[name]
        if name in self.values:
            return Const(name)
        if name in _BOOL_NAMES:
            return Const(_BOOL_NAMES[name])
        known = ", ".join(sorted(self.names)[:20]) or "none"
        raise self.fail(node, f"unknown symbol {name!r} (concepts: {known})")

    def _Constant(self, node: ast.Constant) -> Expr:
        value = node.value
        if isinstance(value, bool):
            return Const(int(value))
        if isinstance(value, int):
            return Const(value)
        if isinstance(value, str) and value in self.values:
            return Const(value)
        if isinstance(value, str):
            raise self.fail(node, f"unknown named value {value!r}")
        raise self.fail(node, f"unsupported constant {value!r}")

    def _BoolOp(self, node: ast.BoolOp) -> Expr:
        op = "and" if isinstance(node.op, ast.And) else "or"
        return Op(op, tuple(self.build(v) for v in node.values))

    def _BinOp(self, node: ast.BinOp) -> Expr:
        op = _BINOPS.get(type(node.op))
        if op is None:
            raise self.fail(node, f"unsupported operator {type(node.op).__name__!r}")
        left = node.left
        rights = [node.right]
        while op in _ASSOCIATIVE and isinstance(left, ast.BinOp) and _BINOPS.get(type(left.op)) == op:
            rights.append(left.right)  # a ^ b ^ c is one n-ary xor, as Xor(a, b, c): the same value
            left = left.left
        return Op(op, (self.build(left),) + tuple(self.build(r) for r in reversed(rights)))

    def _UnaryOp(self, node: ast.UnaryOp) -> Expr:
        arg = self.build(node.operand)
        if isinstance(node.op, (ast.Invert, ast.Not)):
            return Op("not", (arg,))
        if isinstance(node.op, ast.USub):
            if isinstance(arg, Const) and isinstance(arg.value, int):
                return Const(-arg.value)
            return Op("neg", (arg,))
        if isinstance(node.op, ast.UAdd):
            return arg
        raise self.fail(node, f"unsupported unary operator {type(node.op).__name__!r}")

    def _Compare(self, node: ast.Compare) -> Expr:
        parts, left = [], self.build(node.left)
        for op_node, right_node in zip(node.ops, node.comparators):
            op = _CMPOPS.get(type(op_node))
            if op is None:
                raise self.fail(node, f"unsupported comparison {type(op_node).__name__!r}")
            right = self.build(right_node)
            parts.append(Op(op, (left, right)))
            left = right
        return parts[0] if len(parts) == 1 else Op("and", tuple(parts))

    def _Call(self, node: ast.Call) -> Expr:
        if not isinstance(node.func, ast.Name):
            raise self.fail(node, f"only named functions can be called, not {type(node.func).__name__.lower()} "
                                  f"expressions (known: {', '.join(sorted(_CALLS))})")
        if node.func.id not in _CALLS:
            raise self.fail(node, f"unknown function {node.func.id!r} (known: {', '.join(sorted(_CALLS))})")
        if node.keywords:
            raise self.fail(node, f"keyword arguments are not allowed in {node.func.id}()")
        op, lo, hi = _CALLS[node.func.id]
        args = tuple(self.build(a) for a in node.args)
        if len(args) < lo or (hi is not None and len(args) > hi):
            want = f"{lo}" if lo == hi else f"at least {lo}" if hi is None else f"{lo} to {hi}"
            raise self.fail(node, f"{node.func.id}() takes {want} arguments, got {len(args)}")
        return Op(op, args)

    def _Starred(self, node: ast.Starred) -> Expr:
        raise self.fail(node, "star arguments are not allowed")


def free_names(text: str) -> list:
    """Return the identifiers of ``text`` that are not functions or constants, in order."""
    tree = _syntax_tree(" ".join(str(text).split()))
    calls = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    out: list = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and id(node) not in calls and node.id not in _BOOL_NAMES:
            if node.id not in out:
                out.append(node.id)
    return sorted(out, key=_natural)


def _natural(name: str):
    import re
    return [int(t) if t.isdigit() else t for t in re.split(r"([0-9]+)", name)]


def variables(expr: Expr) -> set:
    """Return the concept names an expression reads."""
    out, stack, seen = set(), [expr], set()
    while stack:
        node = stack.pop()
        if isinstance(node, Var):
            out.add(node.name)
        elif isinstance(node, Op) and id(node) not in seen:  # shared sub-expressions are read once
            seen.add(id(node))
            stack.extend(node.args)
    return out
