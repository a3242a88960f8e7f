"""Recursive programming: strategies for thousands of devices without enumerating them.

As MindSpore's recursive search, each operator's strategy is built by cutting the device
count one prime factor at a time: every step cuts the one dimension (letter) that makes the
operator's own cost plus its redistribution with already-decided neighbours smallest. This
costs ``O(operators x log(devices) x dimensions)`` cost evaluations instead of enumerating
every strategy (a beam keeps the three cheapest partial cuts at each step); the partial cuts
are ranked with the greedy redistribution estimate, not the A* search. A decision depends
only on the operator and its neighbours' decisions, so it is made once per distinct context:
the same operator in 24 identical layers is decided once, and the search is linear in the
number of *distinct* operators. A first pass decides operators in graph order; then, for at
most ``rounds`` rounds, a pass re-decides each operator with all its neighbours known, and the
handful of strategies the cuts produced for each operator (plus all devices on one dimension,
and the cheapest dozen on their own for operators with few strategies) are combined by an
exact dynamic program over those small domains, which repairs choices that only pay off
together (a MatMul cut three ways at once).
"""

from __future__ import annotations

import math

from ms_parallel.auto.cost import CostModel
from ms_parallel.auto.dp import dynamic_programming
from ms_parallel.auto.layout import TensorLayout
from ms_parallel.auto.redistribution import estimate_redistribution, plan_redistribution
from ms_parallel.auto.strategy import candidates

__all__ = ["recursive_programming", "prime_factors"]

_FEW, _CHEAPEST = 100, 12


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


def _local(model, j, cuts, decided, edges, exact=False) -> float:
    """The op's own cost, its redistributions with decided neighbours, and (for undecided
    consumers) the least a partial output costs to reduce: a consumer never takes partials.
    Not ``exact``: redistributions priced by their greedy estimate (for partial cuts)."""
    cost = model.unary_of(j, cuts)
    edge = model.edge_of if exact else model.edge_estimate
    for src, o, dst, i in edges:
        other = src if dst == j else dst
        if other in decided and other != j:
            a, b = (cuts, decided[other]) if src == j else (decided[other], cuts)
            cost += edge(src, o, dst, i, a, b)
        elif src == j:
            out = model.layouts(j, cuts)[1][o]
            if out.partial:
                node = model.graph.nodes[j]
                args = (out, TensorLayout(out.dev_matrix, out.tensor_map),
                        node.spec.out_shapes[o], node.itemsize, model.topo)
                cost += 2 * (plan_redistribution(*args).cost if exact else
                             estimate_redistribution(*args))
    return cost


def _halve(model, j, cuts, decided, edges, sizes, primes, beam=3):
    """Cut the remaining prime factors one by one, each into the cheapest letters, keeping
    the ``beam`` cheapest partial strategies at every step; returns the finished ones. An op
    that cannot use every device (or with ``fully_use_devices`` off) may stop cutting."""
    free = model.graph.nodes[j].spec.free
    front = [tuple(cuts)]
    may_stop = not model.fully_use_devices or not _uses_all(model, j)
    for p in primes:
        trials = {}
        for base in front:
            if may_stop:
                trials[base] = _local(model, j, base, decided, edges, exact=False)
            for li, c in enumerate(free):
                trial = list(base)
                trial[li] *= p
                t = tuple(trial)
                if t in trials or any(n % trial[li] for n in sizes[c]):
                    continue
                if not model.fits(j, t) and model.fits(j, base):
                    continue
                trials[t] = _local(model, j, t, decided, edges, exact=False)
        if not trials:
            break
        front = sorted(trials, key=trials.get)[:beam]
    return front


def _uses_all(model, j) -> bool:
    hit = model.__dict__.setdefault("_rec_full", {})
    if j not in hit:
        spec = model.graph.nodes[j].spec
        hit[j] = any(math.prod(c) == model.n for c in candidates(spec, model.n, True))
    return hit[j]


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


def _decide(model, j, decided, edges, sizes):
    """The cheapest of: recursive cuts from nothing, and from each decided neighbour's cuts;
    and every strategy the cuts produced (the final pass's candidates)."""
    pool = set()
    starts = [tuple(1 for _ in model.graph.nodes[j].spec.free)]
    for e in edges:
        other = e[2] if e[0] == j else e[0]
        if other in decided and other != j:
            seed = _seed(model, j, e, decided, sizes)
            if seed is not None and seed not in starts:
                starts.append(seed)
    best = None
    for start in starts:
        for cuts in _halve(model, j, start, decided, edges, sizes,
                           prime_factors(model.n // math.prod(start))):
            pool.add(cuts)
            cost = _local(model, j, cuts, decided, edges)
            if best is None or cost < best[0] - 1e-15:
                best = (cost, cuts)
    return best[1], frozenset(pool)


def _context(model, j, decided, edges):
    """What ``_decide`` for ``j`` depends on: equal contexts (the same operator in repeated
    layers, between neighbours decided alike) give equal decisions, made once."""
    out = []
    for src, o, dst, i in edges:
        other = dst if src == j else src
        out.append((src == j, o, i, model.signature(other), decided.get(other)))
    return model.signature(j), tuple(out)


def _extremes(model, j, sizes):
    """All devices on one letter (pure data or pure model parallel), where that divides."""
    free = model.graph.nodes[j].spec.free
    for li, c in enumerate(free):
        if all(n % model.n == 0 for n in sizes[c]):
            yield tuple(model.n if k == li else 1 for k in range(len(free)))


def _few(model, j) -> set:
    """The operator's own cheapest strategies (compute, gradient reduction, memory), where
    it has few (a MatMul's 66 on 1024 devices): the final dynamic program then also sees
    cuts the recursive ones never reach, such as three letters at once."""
    hit = model.__dict__.setdefault("_rec_few", {})
    sig = model.signature(j)
    if sig not in hit:
        cs = candidates(model.graph.nodes[j].spec, model.n, model.fully_use_devices)
        best = sorted(cs, key=lambda c: model.unary_of(j, c))[:_CHEAPEST]
        hit[sig] = set(best) if len(cs) <= _FEW else set()
    return hit[sig]


def recursive_programming(model: CostModel, rounds: int = 3) -> list[tuple]:
    """A strategy per node, found by recursive cuts (see module doc)."""
    nodes = model.graph.nodes
    neighbours = _neighbours(model)
    sizes = [node.spec.sizes() for node in nodes]
    pools = [set() for _ in nodes]
    decided: dict[int, tuple] = dict(model.pinned)
    memo: dict = {}

    def decide(j):
        key = _context(model, j, decided, neighbours[j])
        if key not in memo:
            memo[key] = _decide(model, j, decided, neighbours[j], sizes[j])
        cuts, pool = memo[key]
        pools[j].update(pool)
        return cuts
    for j in range(len(nodes)):
        if j not in decided:
            decided[j] = decide(j)
    best = None
    for _ in range(rounds):
        for j in reversed(range(len(nodes))):
            if j not in model.pinned:
                old = decided.pop(j)
                new = decide(j)
                better = _local(model, j, new, decided, neighbours[j]) < \
                    _local(model, j, old, decided, neighbours[j]) - 1e-15
                decided[j] = new if better else old
        # The few strategies the cuts produced per operator, and the extremes, are then
        # combined exactly: a dynamic program over small domains. Its answer seeds the
        # next round's cuts.
        cands = []
        for j in range(len(nodes)):
            if j in model.pinned:
                cands.append([model.pinned[j]])
                continue
            pool = pools[j] | set(_extremes(model, j, sizes[j])) | {decided[j]} | \
                _few(model, j)
            cands.append(sorted(c for c in pool if model.fits(j, c)) or [decided[j]])
        cuts = dynamic_programming(model, cands, estimate=True)
        cost = model.evaluate(cuts)["objective"]
        if best is not None and cost >= best[0] - 1e-15:
            break
        best = (cost, cuts)
        decided = dict(enumerate(cuts))
    cuts = best[1]
    for j, c in enumerate(cuts):
        if not model.fits(j, c):
            node = nodes[j]
            raise MemoryError(f"parallel planning: {node.name} ({node.spec.op}) does not fit in "
                              f"{model.topo.memory / 2**30:.3f} GiB per device under the "
                              f"recursive search's strategy {c}")
    return cuts
