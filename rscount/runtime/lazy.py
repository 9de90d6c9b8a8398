"""``cached_property`` without a lock.

Python 3.11's ``functools.cached_property`` holds one lock for every
instance of a class while it computes. Backends race in threads and fork
their children; a child forked while another thread computes a task's
property inherits that lock held and waits on it forever. This version
keeps the value in the instance dict the same way, without a lock (two
threads may compute a value twice; both get an equal one).
"""
from __future__ import annotations

from typing import Any, Callable

_MISSING = object()


class cached_property:  # noqa: N801 - a drop-in for functools.cached_property
    """Compute once per instance on first access, then read from the instance's ``__dict__``."""

    def __init__(self, func: Callable[[Any], Any]):
        self.func = func
        self.name = func.__name__
        self.__doc__ = func.__doc__

    def __set_name__(self, owner, name: str) -> None:
        self.name = name

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        value = instance.__dict__.get(self.name, _MISSING)
        if value is _MISSING:
            value = self.func(instance)
            instance.__dict__[self.name] = value
        return value


class ByIdentity:
    """Values computed once per object, for the last ``size`` objects asked about: each kept with its object, so
    the object's id is not reused while cached (tasks are frozen but hash their whole knowledge)."""

    def __init__(self, size: int = 8):
        self.size, self._held = size, {}

    def get(self, key: Any, make: Callable[[Any], Any]) -> Any:
        held = self._held.get(id(key))
        if held is None or held[0] is not key:
            while len(self._held) >= self.size:
                self._held.pop(next(iter(self._held)))
            held = self._held[id(key)] = (key, make(key))
        return held[1]


def digest(*arrays) -> bytes:
    """A digest of arrays (their dtypes, shapes and bytes; None stands for itself): what a kept count depends on,
    without holding the arrays."""
    import hashlib

    import numpy as np
    h = hashlib.blake2b(digest_size=20)
    for a in arrays:
        a = None if a is None else np.ascontiguousarray(a)
        h.update(b"-" if a is None else f"{a.dtype}{a.shape}".encode() + a.tobytes())
    return h.digest()


class Recent:
    """A dict of the last ``size`` keys stored (equal keys, not identical objects): counts worth keeping between
    the calls of one audit, bounded so a long session does not grow it without end."""

    def __init__(self, size: int = 4096):
        self.size, self._held = size, {}

    def get(self, key: Any, default: Any = None) -> Any:
        return self._held.get(key, default)

    def __contains__(self, key: Any) -> bool:
        return key in self._held

    def items(self) -> list:
        return list(self._held.items())

    def update(self, items: dict) -> None:
        for key, value in items.items():
            self._held.pop(key, None)
            while len(self._held) >= self.size:
                self._held.pop(next(iter(self._held)))
            self._held[key] = value
