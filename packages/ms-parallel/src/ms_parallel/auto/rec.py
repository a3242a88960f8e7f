"""Recursive programming: strategies for thousands of devices without enumerating them.

As MindSpore's recursive search, each operator's strategy is built by cutting the device
count one prime factor at a time: every step cuts the one dimension (letter) that makes the
operator's own cost plus its redistribution with already-decided neighbours smallest. This
costs ``O(operators x log(devices) x dimensions)`` cost evaluations instead of enumerating
every strategy. A first pass decides operators in graph order; further passes re-decide each
operator with all its neighbours known, until nothing changes (at most ``sweeps`` passes).
"""

from __future__ import annotations

import math

from ms_parallel.auto.cost import CostModel

__all__ = ["recursive_programming", "prime_factors"]


def prime_factors(n: int) -> list[int]:
    """Largest first: ``prime_factors(12) == [3, 2, 2]``."""
    out, p = [], 2
    while n > 1:
        while n % p == 0:
            out.append(p)
            n //= p
        p += 1
    return sorted(out, reverse=True)


def _neighbours(model: CostModel):
    out = [[] for _ in model.graph.nodes]
    for src, o, dst, i in model.graph.edges():
        out[dst].append((src, o, dst, i))
        out[src].append((src, o, dst, i))
    return out


def _local(model, j, cuts, decided, edges) -> float:
    cost = model.unary_of(j, cuts)
    for src, o, dst, i in edges:
        other = src if dst == j else dst
        if other in decided and other != j:
            a, b = (cuts, decided[other]) if src == j else (decided[other], cuts)
            cost += model.edge_of(src, o, dst, i, a, b)
    return cost


def _halve(model, j, cuts, decided, edges, sizes, primes):
    """Cut the remaining prime factors one by one, each into the cheapest letter."""
    free = model.graph.nodes[j].spec.free
    cuts = list(cuts)
    for p in primes:
        best = None
        for li, c in enumerate(free):
            trial = list(cuts)
            trial[li] *= p
            if any(n % trial[li] for n in sizes[c]):
                continue
            t = tuple(trial)
            if not model.fits(j, t) and model.fits(j, tuple(cuts)):
                continue
            cost = _local(model, j, t, decided, edges)
            if best is None or cost < best[0] - 1e-15:
                best = (cost, t)
        if best is None:
            break
        cuts = list(best[1])
    return tuple(cuts)


def _seed(model, j, edge, decided, sizes):
    """The cuts of ``j`` that match a decided neighbour's slices of their shared tensor."""
    src, o, dst, i = edge
    spec = model.graph.nodes[j].spec
    if src == j:
        lay, dims = model.layouts(dst, decided[dst])[0][i], spec.outputs[o]
    else:
        lay, dims = model.layouts(src, decided[src])[1][o], spec.inputs[i]
    cut = {}
    for c, s in zip(dims, lay.shards):
        if s > 1 and c in spec.free and all(n % s == 0 for n in sizes[c]):
            cut[c] = s
    cuts = tuple(cut.get(c, 1) for c in spec.free)
    return cuts if model.n % math.prod(cuts) == 0 else None


def _decide(model, j, decided, edges, sizes, primes):
    """The cheapest of: recursive cuts from nothing, and from each decided neighbour's cuts."""
    starts = [tuple(1 for _ in model.graph.nodes[j].spec.free)]
    for e in edges:
        other = e[2] if e[0] == j else e[0]
        if other in decided and other != j:
            seed = _seed(model, j, e, decided, sizes)
            if seed is not None and seed not in starts:
                starts.append(seed)
    best = None
    for start in starts:
        cuts = _halve(model, j, start, decided, edges, sizes,
                      prime_factors(model.n // math.prod(start)))
        cost = _local(model, j, cuts, decided, edges)
        if best is None or cost < best[0] - 1e-15:
            best = (cost, cuts)
    return best[1]


def recursive_programming(model: CostModel, sweeps: int = 4) -> list[tuple]:
    """A strategy per node, found by recursive cuts (see module doc)."""
    nodes = model.graph.nodes
    neighbours = _neighbours(model)
    primes = prime_factors(model.n)
    sizes = [node.spec.sizes() for node in nodes]
    decided: dict[int, tuple] = dict(model.pinned)
    for j in range(len(nodes)):
        if j not in decided:
            decided[j] = _decide(model, j, decided, neighbours[j], sizes[j], primes)
    for _ in range(sweeps):
        changed = False
        for j in reversed(range(len(nodes))):
            if j in model.pinned:
                continue
            old = decided.pop(j)
            new = _decide(model, j, decided, neighbours[j], sizes[j], primes)
            if _local(model, j, new, decided, neighbours[j]) < \
                    _local(model, j, old, decided, neighbours[j]) - 1e-15:
                decided[j], changed = new, True
            else:
                decided[j] = old
        if not changed:
            break
    for j, cuts in decided.items():
        if not model.fits(j, cuts):
            node = nodes[j]
            raise MemoryError(f"parallel planning: {node.name} ({node.spec.op}) does not fit in "
                              f"{model.topo.memory / 2**30:.3f} GiB per device under the "
                              f"recursive search's strategy {cuts}")
    return [decided[j] for j in range(len(nodes))]
