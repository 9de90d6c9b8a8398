"""Proper colourings of small graphs: how many ways ``m`` colours can be given to the vertices so that no
edge joins two of one colour (a chromatic polynomial at ``m``), by components, simplicial vertices and
deletion-contraction. The kernels counter sums over the partitions of a value map's values this way."""
from __future__ import annotations

from ...runtime.unions import Unions

__all__ = ["colour", "components"]


def components(values: list, edges: set) -> list:
    """The connected components of the conflict graph, each as (vertices, edges) relabelled 0..c-1 in order;
    isolated vertices as (1, ())."""
    unions = Unions(values)
    for a, b in edges:
        unions.join(a, b)
    out = []
    for vs in unions.groups():
        index = {v: i for i, v in enumerate(vs)}
        out.append((len(vs), frozenset((index[a], index[b]) for a, b in edges if a in index)))
    return out


def colour(component: tuple, m: int, memo: dict | None = None) -> int:
    """Proper colourings with ``m`` colours of a graph given as (vertices 0..n-1, edges)."""
    n, edges = component
    adj = [0] * n
    for a, b in edges:
        adj[a] |= 1 << b
        adj[b] |= 1 << a
    return _colourings(tuple(adj), m, {} if memo is None else memo)


def _colourings(adj: tuple, m: int, memo: dict) -> int:
    """Proper colourings of the graph with adjacency bitmasks ``adj``: a vertex whose neighbours form a clique
    takes any of the m - degree colours they leave (peeled off); else deletion and contraction of an edge."""
    n = len(adj)
    if n == 0:
        return 1
    if adj in memo:
        return memo[adj]
    for v in range(n):
        nv = adj[v]
        if all(nv & ~(1 << u) & ~adj[u] == 0 for u in _bits(nv)):  # simplicial
            out = (m - bin(nv).count("1")) * _colourings(_without(adj, v), m, memo) if m > 0 else 0
            break
    else:
        a = max(range(n), key=lambda x: bin(adj[x]).count("1"))
        b = max(_bits(adj[a]), key=lambda x: bin(adj[x]).count("1"))
        deleted = list(adj)
        deleted[a] &= ~(1 << b)
        deleted[b] &= ~(1 << a)
        out = _colourings(tuple(deleted), m, memo) - _colourings(_merge(deleted, a, b), m, memo)
    memo[adj] = out
    return out


def _bits(mask: int):
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def _drop_bit(mask: int, v: int) -> int:
    return ((mask >> (v + 1)) << v) | (mask & ((1 << v) - 1))


def _without(adj, v: int) -> tuple:
    """The graph without vertex ``v`` (the others renumbered)."""
    return tuple(_drop_bit(x, v) for u, x in enumerate(adj) if u != v)


def _merge(adj: list, a: int, b: int) -> tuple:
    """The graph with non-adjacent vertices ``a`` and ``b`` made one (``b`` removed)."""
    adj = list(adj)
    adj[a] |= adj[b]
    for u in _bits(adj[b]):
        adj[u] |= 1 << a
    return _without(adj, b)
