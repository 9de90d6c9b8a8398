"""Union-find over hashable items: which items a set of links joins into one group."""
from __future__ import annotations

from typing import Hashable, Iterable

__all__ = ["Unions"]


class Unions:
    """Disjoint sets of ``items``: ``join`` links two, ``find`` names an item's group, ``groups`` lists them."""

    def __init__(self, items: Iterable[Hashable]):
        self.parent = {x: x for x in items}

    def find(self, x: Hashable) -> Hashable:
        parent = self.parent
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def join(self, a: Hashable, b: Hashable) -> None:
        self.parent[self.find(a)] = self.find(b)

    def groups(self) -> list:
        """The groups, each a list of items in the order they were given."""
        out: dict = {}
        for x in self.parent:
            out.setdefault(self.find(x), []).append(x)
        return list(out.values())
