"""Tensor redistribution: the cheapest sequence of collectives from one layout to another.

Both layouts are written on one device matrix (their coarsest common refinement). A state is a
tensor map plus the partial axes; the steps move one device axis at a time:

- ``AllReduce(a)``: sum the summands over axis ``a`` (partial -> replicated),
- ``ReduceScatter(a, d)``: sum over ``a`` and keep slice ``coord_a`` of dimension ``d``,
- ``AllGather(a, d)``: concatenate dimension ``d`` over axis ``a`` (its innermost cut),
- ``AlltoAll(a, d, d2)``: move the cut of axis ``a`` from dimension ``d`` to ``d2``,
- ``Split(a, d)``: keep slice ``coord_a`` of dimension ``d`` (local, no communication).

A* search (Dijkstra's algorithm with an admissible latency bound) over these states, with
each step priced by the topology, returns a
sequence whose cost is minimal among all sequences of these steps that cut an axis into a
dimension only where the target has it next (other cuts would have to be gathered again).
Layouts whose device matrices have no common refinement ((2, 3) and (3, 2)) go through the
replicated tensor: gather everything on the source matrix, then each rank slices the target
layout locally.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass

from ms_parallel.auto.layout import TensorLayout, common_refinement
from ms_parallel.auto.topology import Topology

__all__ = ["Step", "Redistribution", "plan_redistribution", "estimate_redistribution", "glued"]

_MAX_STATES = 50_000
_MAX_KNOWN = 200_000
# Plans (and estimates) already made: the searches ask for the same pairs again and again.
_known: dict = {}
_estimates: dict = {}
# (goal, device matrix, shape, itemsize, topology) -> ({state: rollout seconds},
#                                                     {state: priced moves})
_rollouts: dict = {}


@dataclass(frozen=True)
class Step:
    """One redistribution step; ``axis`` indexes the plan's device matrix."""

    kind: str
    axis: int = -1
    dim: int = -1
    dim_to: int = -1

    def __repr__(self) -> str:
        args = [str(v) for v in (self.axis, self.dim, self.dim_to) if v >= 0]
        return f"{self.kind}({', '.join(args)})"


@dataclass(frozen=True)
class Redistribution:
    """The chosen steps, on device matrix ``dev_matrix``, and their predicted seconds."""

    src: TensorLayout
    dst: TensorLayout
    shape: tuple
    dev_matrix: tuple
    steps: tuple
    cost: float
    final: TensorLayout | None = None  # set when the last step slices to another matrix

    def __str__(self) -> str:
        return " -> ".join(map(repr, self.steps)) or "(nothing to move)"


def _moves(state, goal, dev, shape):
    """Steps from ``state``; an axis is only ever cut into a dimension where ``goal`` has it
    next (so the dimension's cuts stay a prefix of the goal's), and a cut already where the
    goal has it (with all cuts outside it) is never gathered: this bounds the search."""
    tmap, partial = state
    gmap = goal[0]
    used = set(partial)
    want = {}  # axis -> the dimension that takes it next (a goal axis goes to one place)
    for d, axes in enumerate(tmap):
        used.update(axes)
        k = len(axes)
        if k < len(gmap[d]) and gmap[d][:k] == axes:
            cut = 1
            for a in axes:
                cut *= dev[a]
            a = gmap[d][k]
            if (shape[d] // cut) % dev[a] == 0:
                want[a] = d
    for a in sorted(partial):
        rest = partial - {a}
        yield Step("AllReduce", a), (tmap, rest)
        if a in want:
            yield Step("ReduceScatter", a, want[a]), (_push(tmap, want[a], a), rest)
    for d, axes in enumerate(tmap):
        if axes and gmap[d][:len(axes)] != axes:
            a = axes[-1]
            popped = _pop(tmap, d)
            yield Step("AllGather", a, d), (popped, partial)
            d2 = want.get(a)
            if d2 is not None and d2 != d:
                yield Step("AlltoAll", a, d, d2), (_push(popped, d2, a), partial)
    for a, d in want.items():
        if a not in used:
            yield Step("Split", a, d), (_push(tmap, d, a), partial)


def _push(tmap, d, a):
    return tmap[:d] + (tmap[d] + (a,),) + tmap[d + 1:]


def _pop(tmap, d):
    return tmap[:d] + (tmap[d][:-1],) + tmap[d + 1:]


def step_cost(step: Step, state, dev, shape, itemsize, topo: Topology, local=None) -> float:
    """Seconds for ``step`` taken from ``state`` (``local``: bytes per rank there)."""
    if local is None:
        local = _local_bytes(state, dev, shape, itemsize)
    p = dev[step.axis]
    stride = math.prod(dev[step.axis + 1:])
    if step.kind == "Split":
        return topo.copy(local / p)
    if step.kind == "AllGather":
        return topo.collective("AllGather", p, local * p, stride)
    return topo.collective(step.kind, p, local, stride)


def _local_bytes(state, dev, shape, itemsize) -> float:
    cut = 1
    for axes in state[0]:
        for a in axes:
            cut *= dev[a]
    return math.prod(shape) * itemsize / cut


def _lower_bound(state, goal, dev, latency) -> float:
    """Latency of the collectives still unavoidable: each cut outside its goal place must be
    gathered (or moved) once and each partial axis reduced once (A*'s admissible estimate)."""
    tmap, partial = state
    gmap = goal[0]
    h = sum((dev[a] - 1) * latency for a in partial)
    for axes, want in zip(tmap, gmap):
        k = 0
        while k < len(axes) and k < len(want) and axes[k] == want[k]:
            k += 1
        h += sum((dev[a] - 1) * latency for a in axes[k:])
    return h


def _search(start, goal, dev, shape, itemsize, topo):
    latency = min(topo.intra_latency, topo.inter_latency)
    counter = 0
    frontier = [(_lower_bound(start, goal, dev, latency), 0, counter, start, 0.0, ())]
    best = {start: 0.0}
    while frontier:
        _, n, _, state, cost, path = heapq.heappop(frontier)
        if state == goal:
            return path, cost
        if cost > best.get(state, math.inf) or len(best) > _MAX_STATES:
            continue
        local = _local_bytes(state, dev, shape, itemsize)
        for step, nxt in _moves(state, goal, dev, shape):
            c = cost + step_cost(step, state, dev, shape, itemsize, topo, local)
            if c < best.get(nxt, math.inf) - 1e-18:
                best[nxt] = c
                counter += 1
                f = c + _lower_bound(nxt, goal, dev, latency)
                heapq.heappush(frontier, (f, n + 1, counter, nxt, c, path + (step,)))
    raise RuntimeError(f"redistribution: no sequence found from {start} to {goal} on device "
                       f"matrix {dev} for shape {shape}")


def plan_redistribution(src: TensorLayout, dst: TensorLayout, shape, itemsize: int = 4,
                        topology: Topology | None = None) -> Redistribution:
    """The cheapest redistribution of a tensor of ``shape`` from ``src`` to ``dst``.

    >>> from ms_parallel.auto.layout import strategy_layout
    >>> r = plan_redistribution(strategy_layout((4, 1), 4), strategy_layout((1, 4), 4), (8, 8))
    >>> [s.kind for s in r.steps]
    ['AlltoAll']
    """
    shape = tuple(int(n) for n in shape)
    topo = topology or Topology(device_num=src.device_num)
    hit = _known.get((src, dst, shape, itemsize, topo))
    if hit is not None:
        return hit
    if src.device_num != dst.device_num:
        raise ValueError(f"redistribution: layouts on {src.device_num} and {dst.device_num} "
                         f"devices ({src} -> {dst})")
    if dst.partial:
        raise ValueError(f"redistribution: the target layout {dst} cannot be partial")
    src.slice_shape(shape)
    dst.slice_shape(shape)
    if len(_known) >= _MAX_KNOWN:
        _known.clear()
    plan = _known[(src, dst, shape, itemsize, topo)] = _plan(src.normalized(), dst.normalized(),
                                                             shape, itemsize, topo)
    return plan


def _plan(src, dst, shape, itemsize, topo) -> Redistribution:
    dev = common_refinement(src.dev_matrix, dst.dev_matrix)
    if dev is not None:
        best = None
        for a, b in filter(None, ((src.on(dev), dst.on(dev)), glued(src.on(dev), dst.on(dev)))):
            steps, cost = _search((a.tensor_map, a.partial), (b.tensor_map, b.partial),
                                  a.dev_matrix, shape, itemsize, topo)
            if best is None or cost < best.cost - 1e-18:
                best = Redistribution(src, dst, shape, a.dev_matrix, steps, cost)
        return best
    dev = src.dev_matrix
    empty = tuple(() for _ in shape)
    steps, cost = _search((src.tensor_map, src.partial), (empty, frozenset()), dev, shape,
                          itemsize, topo)
    cost += topo.copy(math.prod(dst.slice_shape(shape)) * itemsize)
    return Redistribution(src, dst, shape, dev, steps + (Step("Slice"),), cost, final=dst)


def glued(a: TensorLayout, b: TensorLayout):
    """``(a, b)`` on a coarser device matrix: adjacent axes that both layouts use together
    (one right after the other in one dimension, both partial, or both unused) made one,
    or None if no such pair is used by either (unused axes take part in no step). The steps
    then move both at once (one 4-way AlltoAll where the finer matrix needs a gather, a
    2-way AlltoAll and a slice); ``_plan`` searches both matrices and keeps the cheaper
    sequence.

    >>> a, b = TensorLayout((2, 2), ((0, 1), ())), TensorLayout((2, 2), ((), (0, 1)))
    >>> glued(a, b)
    (TensorLayout(dev_matrix=(4,), tensor_map=((0,), ())), \
TensorLayout(dev_matrix=(4,), tensor_map=((), (0,))))
    """
    def together(lay, k):
        if (k in lay.partial) != (k + 1 in lay.partial):
            return False
        for axes in lay.tensor_map:
            if (k in axes) != (k + 1 in axes):
                return False
            if k in axes and axes.index(k + 1) != axes.index(k) + 1:
                return False
        return True

    dev = a.dev_matrix
    used = {x for lay in (a, b) for axes in lay.tensor_map for x in axes} | a.partial
    new, fold, moved = [], {}, False
    for k, size in enumerate(dev):
        if k and together(a, k - 1) and together(b, k - 1):
            new[-1] *= size
            moved = moved or k in used  # axes used by neither appear in no step
        else:
            new.append(size)
        fold[k] = len(new) - 1
    if not moved:
        return None

    def on(lay):
        def squash(axes):
            return tuple(dict.fromkeys(fold[x] for x in axes))
        return TensorLayout(new, [squash(axes) for axes in lay.tensor_map],
                            squash(sorted(lay.partial)))
    return on(a), on(b)


def estimate_redistribution(src: TensorLayout, dst: TensorLayout, shape, itemsize: int = 4,
                            topology: Topology | None = None) -> float:
    """Seconds of one good sequence, found greedily (the cheapest next step each time)
    instead of by A*: an upper bound on ``plan_redistribution(...).cost``, usually equal,
    and a few steps' work instead of a search. The recursive search ranks its partial cuts
    with it and prices only its finished strategies exactly.

    >>> from ms_parallel.auto.layout import strategy_layout
    >>> estimate_redistribution(strategy_layout((4, 1), 4), strategy_layout((4, 1), 4), (8, 8))
    0.0
    """
    shape = tuple(int(n) for n in shape)
    topo = topology or Topology(device_num=src.device_num)
    key = (src, dst, shape, itemsize, topo)
    hit = _estimates.get(key)
    if hit is None:
        if len(_estimates) >= _MAX_KNOWN:
            _estimates.clear()
        hit = _estimates[key] = _estimate(src.normalized(), dst.normalized(), shape, itemsize,
                                          topo)
    return hit


def _estimate(src, dst, shape, itemsize, topo) -> float:
    if src == dst:
        return 0.0
    if dst.partial:
        raise ValueError(f"redistribution: the target layout {dst} cannot be partial")
    dev = common_refinement(src.dev_matrix, dst.dev_matrix)
    extra = 0.0
    if dev is None:
        dev, goal = src.dev_matrix, (tuple(() for _ in shape), frozenset())
        extra = topo.copy(math.prod(dst.slice_shape(shape)) * itemsize)
        state = (src.tensor_map, src.partial)
    else:
        a, b = src.on(dev), dst.on(dev)
        state, goal = (a.tensor_map, a.partial), (b.tensor_map, b.partial)
    if len(_rollouts) >= _MAX_KNOWN:
        _rollouts.clear()
    rollouts, priced = _rollouts.setdefault((goal, dev, shape, itemsize, topo), ({}, {}))
    # One step of lookahead: each first step is judged by its cost plus a greedy rollout's.
    best = min((c + _rollout(nxt, goal, dev, shape, itemsize, topo, rollouts, priced)
                for c, nxt in _priced_moves(state, goal, dev, shape, itemsize, topo, priced)),
               default=math.inf)
    if best < math.inf:
        return best + extra
    return plan_redistribution(src, dst, shape, itemsize, topo).cost


def _priced_moves(state, goal, dev, shape, itemsize, topo, known):
    hit = known.get(state)
    if hit is None:
        local = _local_bytes(state, dev, shape, itemsize)
        hit = known[state] = [(step_cost(step, state, dev, shape, itemsize, topo, local), nxt)
                              for step, nxt in _moves(state, goal, dev, shape)]
    return hit


def _rollout(state, goal, dev, shape, itemsize, topo, known, priced) -> float:
    """Seconds from ``state`` to ``goal`` taking the cheapest step each time (inf if stuck)."""
    path, cost = [], 0.0
    for _ in range(4 * len(dev) + 4):
        if state in known:
            cost += known[state]
            break
        if state == goal:
            break
        moves = _priced_moves(state, goal, dev, shape, itemsize, topo, priced)
        if not moves:
            cost = math.inf
            break
        c, nxt = min(moves, key=lambda m: m[0])
        path.append((state, cost))
        cost += c
        state = nxt
    else:
        cost = math.inf
    for s, before in path:
        known[s] = cost - before
    return cost
