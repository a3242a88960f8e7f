"""The cost model: a training step's seconds and per-device bytes under a strategy.

A step's time is a sum of per-operator terms and per-edge terms, which is what lets the
dynamic-programming search be exact:

- per operator: compute (forward + backward = 3x the forward flops of one slice), the
  AllReduce of each Parameter gradient over the ranks that replicate it, the redistribution
  from a pinned input or Parameter layout, and the AllReduce of a partial graph output;
- per edge: the cheapest redistribution from the producer's output layout to the consumer's
  input layout, twice (the backward pass moves the gradient back the same way).

Memory per device counts each operator's Parameter slices (weights, gradients and
``optimizer_states`` more copies, 2 for Adam) and its output slices (kept for the backward
pass). A strategy whose own memory exceeds the device's is rejected outright.
"""

from __future__ import annotations

import math

import numpy as np

from ms_parallel.auto.graph import OpGraph
from ms_parallel.auto.layout import TensorLayout, strategy_layout
from ms_parallel.auto.redistribution import estimate_redistribution, plan_redistribution
from ms_parallel.auto.strategy import candidates, from_strategy, layouts
from ms_parallel.auto.topology import Topology

__all__ = ["CostModel"]


def _layout_of(strategy, device_num):
    return strategy if isinstance(strategy, TensorLayout) else strategy_layout(strategy, device_num)


class CostModel:
    """Costs of any strategy of any operator of one graph (cached per cuts), and the
    enumerated candidates, per-candidate arrays and per-edge matrices the searches use."""

    def __init__(self, graph: OpGraph, topology: Topology, optimizer_states: int = 2,
                 fully_use_devices: bool = True, pinned: dict | None = None):
        self.graph = graph
        self.topo = topology
        self.n = topology.device_num
        self.optimizer_states = optimizer_states
        self.fully_use_devices = fully_use_devices
        self.pinned: dict[int, tuple] = {}
        pinned = pinned or {}
        for j, node in enumerate(graph.nodes):
            strat = pinned.get(node.name, node.strategy)
            if strat is not None:
                strat = tuple(_cuts_of(s) for s in strat)
                self.pinned[j] = from_strategy(node.spec, strat, self.n, node.name)
        self.memory_weight = 0.0  # seconds per byte, set by the planner when memory is short
        self._lay: dict = {}
        self._unary: dict = {}
        self._sig: list | None = None
        self._edges: dict = {}
        self._cands: list | None = None

    # -- any strategy ---------------------------------------------------------------------
    def layouts(self, j, cuts):
        key = (self.signature(j), cuts)
        hit = self._lay.get(key)
        if hit is None:
            hit = self._lay[key] = layouts(self.graph.nodes[j].spec, cuts, self.n)
        return hit

    def costs(self, j, cuts) -> tuple[float, float, float]:
        """(compute seconds, communication seconds, bytes per device) of node ``j``."""
        key = (self.signature(j), cuts)
        hit = self._unary.get(key)
        if hit is None:
            hit = self._unary[key] = (self._compute(j, cuts), self._node_comm(j, cuts),
                                      self._memory(j, cuts))
        return hit

    def unary_of(self, j, cuts) -> float:
        c = self.costs(j, cuts)
        return c[0] + c[1] + self.memory_weight * c[2]

    def edge_of(self, src, out, dst, inp, cuts_src, cuts_dst) -> float:
        a = self.layouts(src, cuts_src)[1][out]
        b = self.layouts(dst, cuts_dst)[0][inp]
        node = self.graph.nodes[src]
        return 2 * self._redist(a, b, node.spec.out_shapes[out], node.itemsize)

    def edge_estimate(self, src, out, dst, inp, cuts_src, cuts_dst) -> float:
        """``edge_of`` priced by the greedy sequence (an upper bound, see redistribution)."""
        a = self.layouts(src, cuts_src)[1][out]
        b = self.layouts(dst, cuts_dst)[0][inp]
        node = self.graph.nodes[src]
        return 2 * estimate_redistribution(a, b, node.spec.out_shapes[out], node.itemsize,
                                           self.topo)

    def signature(self, j) -> int:
        """A number for what node ``j``'s costs depend on: its operator and shapes, where its
        inputs come from (a pinned Parameter or input strategy included) and which outputs
        leave the graph. Nodes with one signature (the same op in repeated layers) cost
        alike, so costs are cached per signature."""
        if self._sig is None:
            classes: dict = {}
            self._sig = [classes.setdefault(self._describe(j), len(classes))
                         for j in range(len(self.graph.nodes))]
        return self._sig[j]

    def _describe(self, j):
        node = self.graph.nodes[j]
        spec = node.spec
        sources = tuple(
            None if s is None else
            ("param", _key(self.graph.param_strategies.get(s[1]))) if s[0] == "param" else
            ("input", _key(self.graph.input_strategies.get(s[1]))) if s[0] == "input" else
            (s[0],) for s in node.sources)
        return (
            spec.op, spec.inputs, spec.outputs, spec.in_shapes, spec.out_shapes, spec.fixed,
            spec.flops_per_element, spec.mean_letters, spec.layout, node.itemsize, sources,
            tuple(o for jj, o in self.graph.outputs if jj == j), self.pinned.get(j))

    def fits(self, j, cuts) -> bool:
        return self.costs(j, cuts)[2] <= self.topo.memory

    def _compute(self, j, cuts) -> float:
        return 3 * self.graph.nodes[j].spec.flops() / math.prod(cuts) / self.topo.flops

    def _redist(self, src, dst, shape, itemsize) -> float:
        return plan_redistribution(src, dst, shape, itemsize, self.topo).cost

    def _node_comm(self, j, cuts) -> float:
        node = self.graph.nodes[j]
        ins, outs = self.layouts(j, cuts)
        total = 0.0
        for i, (s, lay) in enumerate(zip(node.sources, ins)):
            if s is None or lay is None:
                continue
            shape = node.spec.in_shapes[i]
            if s[0] == "param":
                local = math.prod(lay.slice_shape(shape)) * node.itemsize
                group = self.n // math.prod(lay.shards)
                total += self.topo.collective("AllReduce", group, local, _stride(lay, group))
                pinned = self.graph.param_strategies.get(s[1])
                if pinned is not None:
                    total += 2 * self._redist(_layout_of(pinned, self.n), lay, shape,
                                              node.itemsize)
            elif s[0] == "input" and s[1] in self.graph.input_strategies:
                total += self._redist(_layout_of(self.graph.input_strategies[s[1]], self.n), lay,
                                      shape, node.itemsize)
        for jj, out in self.graph.outputs:
            if jj == j and outs[out].partial:
                full = TensorLayout(outs[out].dev_matrix, outs[out].tensor_map)
                total += self._redist(outs[out], full, node.spec.out_shapes[out], node.itemsize)
        return total

    def _memory(self, j, cuts) -> float:
        node = self.graph.nodes[j]
        ins, outs = self.layouts(j, cuts)
        total = 0.0
        for i, (s, lay) in enumerate(zip(node.sources, ins)):
            if s is not None and lay is not None and s[0] in ("param", "input"):
                copies = 2 + self.optimizer_states if s[0] == "param" else 1
                total += copies * math.prod(lay.slice_shape(node.spec.in_shapes[i])) * node.itemsize
        for lay, shape in zip(outs, node.spec.out_shapes):
            total += math.prod(lay.slice_shape(shape)) * node.itemsize
        return total

    # -- enumerated candidates (dynamic programming, brute force, propagation) -------------
    def candidates(self) -> list[list[tuple]]:
        """Per node, the strategies that fit in memory (only the pinned one if pinned)."""
        if self._cands is None:
            out = []
            for j, node in enumerate(self.graph.nodes):
                cs = [self.pinned[j]] if j in self.pinned else \
                    candidates(node.spec, self.n, self.fully_use_devices)
                fit = [c for c in cs if self.fits(j, c)]
                if not fit:
                    mem = min(self.costs(j, c)[2] for c in cs)
                    raise MemoryError(
                        f"parallel planning: {node.name} ({node.spec.op}, inputs "
                        f"{node.spec.in_shapes}) needs at least {mem / 2**30:.3f} GiB per device "
                        f"under every strategy on {self.n} devices; each has "
                        f"{self.topo.memory / 2**30:.3f} GiB")
                out.append(fit)
            self._cands = out
        return self._cands

    def unary(self, j, cands=None) -> np.ndarray:
        cands = self.candidates() if cands is None else cands
        return np.array([self.unary_of(j, c) for c in cands[j]])

    def edge(self, src: int, out: int, dst: int, inp: int, cands=None,
             estimate: bool = False) -> np.ndarray:
        """``[producer candidate, consumer candidate]`` seconds of the redistribution
        (``estimate``: of the greedy sequence, see ``edge_estimate``)."""
        cands = self.candidates() if cands is None else cands
        key = (self.signature(src), out, self.signature(dst), inp, tuple(cands[src]),
               tuple(cands[dst]), estimate)
        hit = self._edges.get(key)
        if hit is None:
            hit = self._edges[key] = self._edge(src, out, dst, inp, cands, estimate)
        return hit

    def _edge(self, src, out, dst, inp, cands, estimate):
        node = self.graph.nodes[src]
        shape = node.spec.out_shapes[out]
        ua, ia = _unique([self.layouts(src, c)[1][out] for c in cands[src]])
        ub, ib = _unique([self.layouts(dst, c)[0][inp] for c in cands[dst]])
        price = estimate_redistribution if estimate else plan_redistribution
        small = np.array([[2 * _seconds(price(x, y, shape, node.itemsize, self.topo))
                           for y in ub] for x in ua])
        return small[np.ix_(ia, ib)]

    def pair_costs(self, cands=None, estimate: bool = False) -> dict:
        """``(j, k) -> matrix`` with j < k: all edges between two nodes summed."""
        out: dict = {}
        for src, o, dst, i in self.graph.edges():
            m = self.edge(src, o, dst, i, cands, estimate)
            key = (src, dst) if src < dst else (dst, src)
            m = m if src < dst else m.T
            out[key] = out[key] + m if key in out else m
        return out

    def evaluate(self, cuts: list[tuple]) -> dict:
        """Seconds (compute, communication, total) and per-device bytes of a whole plan;
        ``objective`` is what the searches minimize (total, plus memory when priced)."""
        compute = comm = memory = 0.0
        for j, c in enumerate(cuts):
            a, b, m = self.costs(j, c)
            compute, comm, memory = compute + a, comm + b, memory + m
        for src, o, dst, i in self.graph.edges():
            comm += self.edge_of(src, o, dst, i, cuts[src], cuts[dst])
        penalty = self.memory_weight * memory
        return {"compute": compute, "communication": comm, "total": compute + comm,
                "memory": memory, "objective": compute + comm + penalty}


def _cuts_of(s):
    if isinstance(s, TensorLayout):
        return s.shards
    return tuple(s)


def _seconds(priced):
    return priced if isinstance(priced, float) else priced.cost


def _key(strategy):
    return strategy.key() if isinstance(strategy, TensorLayout) else strategy


def _stride(lay: TensorLayout, group: int) -> int:
    """A stride whose span covers the replicated axes of ``lay`` (for the node check)."""
    if group <= 1:
        return 1
    dev = lay.dev_matrix
    used = {a for axes in lay.tensor_map for a in axes}
    span = max((math.prod(dev[a:]) for a in range(len(dev)) if a not in used), default=group)
    return max(1, span // group)


def _unique(items):
    keys: dict = {}
    index = [keys.setdefault(x, len(keys)) for x in items]
    return list(keys), np.array(index, dtype=np.intp)
