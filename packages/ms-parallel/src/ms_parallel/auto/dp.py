"""Dynamic programming: the exact minimum of the cost model by eliminating operators.

The cost is a sum of per-operator terms and per-edge terms, so operators can be eliminated one
at a time as MindSpore's search does: a leaf folds into its neighbour's cost (MindSpore's
contraction/merge elimination), an operator between two others becomes one edge whose cost
is the best through it (chain elimination), parallel edges add up (edge elimination), and an
operator with more neighbours becomes one factor over all of them (star elimination). Each
step keeps, for every choice of the neighbours, the best choice of the eliminated operator,
and walking the steps backwards recovers the optimal strategy. The order (cheapest factor
first) keeps factors small on chain-and-branch graphs such as transformer layers.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ms_parallel.auto.cost import CostModel

__all__ = ["dynamic_programming", "brute_force"]

_MAX_FACTOR = 50_000_000


def _factors(model: CostModel, cands):
    factors = [((j,), model.unary(j, cands)) for j in range(len(cands))]
    factors += [((a, b), m) for (a, b), m in model.pair_costs(cands).items()]
    return factors


def dynamic_programming(model: CostModel, cands=None) -> list[tuple]:
    """The strategy per node that minimizes the cost model's total step time (over
    ``cands``, one list of strategies per node; all valid ones by default)."""
    cands = model.candidates() if cands is None else cands
    factors = _factors(model, cands)
    sizes = [len(c) for c in cands]
    remaining = set(range(len(cands)))
    trail = []
    while remaining:
        v, scope = _cheapest(remaining, factors, sizes)
        mine = [f for f in factors if v in f[0]]
        factors = [f for f in factors if v not in f[0]]
        best = np.full([sizes[u] for u in scope], np.inf)
        arg = np.zeros(best.shape, dtype=np.int32)
        for k in range(sizes[v]):
            total = np.zeros(best.shape)
            for vars_, table in mine:
                total = total + _slice(vars_, table, v, k, scope)
            better = total < best
            best = np.where(better, total, best)
            arg[better] = k
        factors.append((scope, best))
        trail.append((v, scope, arg))
        remaining.discard(v)
    choice: dict[int, int] = {}
    for v, scope, arg in reversed(trail):
        choice[v] = int(arg[tuple(choice[u] for u in scope)])
    return [cands[j][choice[j]] for j in range(len(cands))]


def _cheapest(remaining, factors, sizes):
    best = None
    for v in sorted(remaining):
        scope = sorted({u for vars_, _ in factors if v in vars_ for u in vars_} - {v})
        cells = math.prod(sizes[u] for u in scope) * sizes[v]
        if best is None or cells < best[0]:
            best = (cells, v, tuple(scope))
    if best[0] > _MAX_FACTOR:
        raise RuntimeError(f"dynamic programming: eliminating any operator needs a table of "
                           f"{best[0]:,} entries; use search_mode='recursive_programming'")
    return best[1], best[2]


def _slice(vars_, table, v, k, scope):
    """``table`` at ``v = k``, as an array broadcastable over ``scope``."""
    index = tuple(k if u == v else slice(None) for u in vars_)
    sub = table[index]
    rest = [u for u in vars_ if u != v]
    order = sorted(range(len(rest)), key=lambda i: scope.index(rest[i]))
    sub = np.transpose(sub, order) if len(rest) > 1 else sub
    shape = [1] * len(scope)
    for u in rest:
        shape[scope.index(u)] = table.shape[vars_.index(u)]
    return np.reshape(sub, shape) if scope else sub


def brute_force(model: CostModel, limit: int = 2_000_000) -> list[tuple]:
    """Every combination of candidates (small graphs only): the reference for tests."""
    cands = model.candidates()
    if math.prod(len(c) for c in cands) > limit:
        raise ValueError(f"brute force: {math.prod(len(c) for c in cands):,} combinations "
                         f"exceed {limit:,}")
    best, best_cost = None, math.inf
    for combo in itertools.product(*cands):
        cost = model.evaluate(list(combo))["objective"]
        if cost < best_cost - 1e-15:
            best, best_cost = list(combo), cost
    return best
