"""Reading the text files users hand in (knowledge specs, generator configs, DIMACS, supports), one way.

A file that cannot be opened, is not UTF-8 or holds binary data becomes the
caller's error type with the file named, never a decoder traceback. YAML and
JSON are read as data only: no tags that build objects, no duplicate keys
(where the last value would silently win), no aliases that expand beyond
what a spec can hold, and no nesting deeper than a parser's stack.
"""
from __future__ import annotations

import json
from pathlib import Path

__all__ = ["read_text", "load_data", "MAX_NODES", "MAX_DEPTH"]

MAX_NODES = 2_000_000  # values of a YAML document once its aliases are expanded
MAX_DEPTH = 200  # nesting of lists and mappings (a spec needs a handful)


def read_text(path: str | Path, what: str, error: type) -> str:
    """The UTF-8 text of ``path``; ``error(message)`` names ``what`` and the file when it cannot be read as text."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise error(f"cannot read {what} {str(path)!r}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise error(f"{what} {str(path)!r} is not UTF-8 text (byte {exc.start}); give a text file") from None
    if "\x00" in text:
        raise error(f"{what} {str(path)!r} holds binary data; give a text file")
    return text


def load_data(text: str, source: str, error: type, kind: str = "yaml"):
    """The data of YAML (``kind="yaml"``, a superset of JSON) or JSON text; ``error(message)`` names ``source``
    and the defect (syntax, a duplicate key, an alias bomb, too deep a nesting)."""
    if _depth_of_brackets(text) > MAX_DEPTH:
        raise error(f"{source} nests lists or mappings more than {MAX_DEPTH} deep; no spec, config or support needs that")
    if kind == "json":
        try:
            return json.loads(text, object_pairs_hook=_unique_pairs)
        except _Duplicate as exc:
            raise error(f"{source} repeats the key {exc.args[0]!r} in one object; keep one") from None
        except (json.JSONDecodeError, RecursionError) as exc:
            raise error(f"{source} is not valid JSON: {getattr(exc, 'msg', exc)} "
                        f"(line {getattr(exc, 'lineno', '?')})") from None
    return _load_yaml(text, source, error)


class _Duplicate(ValueError):
    pass


def _unique_pairs(pairs: list) -> dict:
    out = {}
    for key, value in pairs:
        if key in out:
            raise _Duplicate(key)
        out[key] = value
    return out


def _depth_of_brackets(text: str) -> int:
    """The deepest nesting of flow brackets ([ { of JSON and flow YAML), quotes ignored; a cheap bound that
    stops a deep document before a recursive parser meets it."""
    depth = deepest = 0
    quote = None
    escaped = False
    for ch in text:
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\" and quote == '"':
                escaped = True
            elif ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def _load_yaml(text: str, source: str, error: type):
    import yaml
    loader_type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml: ~8x faster
    loader = loader_type(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_nodes(node, source, error)
        return loader.construct_document(node)
    except yaml.YAMLError as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise error(f"{source} is not valid YAML/JSON: {first}") from None
    except RecursionError:
        raise error(f"{source} nests values too deeply to read; no spec, config or support needs that") from None
    finally:
        loader.dispose()


def _check_nodes(root, source: str, error: type) -> None:
    """Refuse duplicate keys, recursive aliases and documents whose aliases expand past MAX_NODES values,
    before any value is built."""
    import yaml
    size: dict = {}  # id(node) -> values below it, aliases expanded
    stack = [(root, False, 0)]
    open_: set = set()
    while stack:
        node, done, depth = stack.pop()
        key = id(node)
        if done:
            open_.discard(key)
            children = _children(node)
            size[key] = 1 + sum(size[id(c)] for c in children)
            if size[key] > MAX_NODES:
                raise error(f"{source} expands to more than {MAX_NODES:,} values through its aliases (&/*); "
                            f"write the values out or use fewer aliases")
            continue
        if key in size:
            continue
        if key in open_:
            raise error(f"{source} holds a recursive alias (a value that contains itself); remove it")
        if depth > MAX_DEPTH:
            raise error(f"{source} nests values more than {MAX_DEPTH} deep; no spec, config or support needs that")
        if isinstance(node, yaml.MappingNode):
            seen = set()
            for k, _ in node.value:
                if isinstance(k, yaml.ScalarNode) and k.tag != "tag:yaml.org,2002:merge":
                    if (k.tag, k.value) in seen:
                        raise error(f"{source} repeats the key {k.value!r:.40} in one mapping (line "
                                    f"{k.start_mark.line + 1}); keep one, or the last would silently win")
                    seen.add((k.tag, k.value))
        open_.add(key)
        stack.append((node, True, depth))
        stack.extend((c, False, depth + 1) for c in _children(node))


def _children(node) -> list:
    import yaml
    if isinstance(node, yaml.MappingNode):
        return [x for pair in node.value for x in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []
