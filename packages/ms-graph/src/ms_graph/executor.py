"""Running a ``Graph``: precomputed kernel calls over a flat list of slots.

``Executable(graph)`` works out once, per node, what eager dispatch works out on its
first call with a signature (promotion casts, kernel, static keyword arguments, output
dtype: ms-ops' own plan logic), and numbers every value with a slot. A run then fills the
slots of the inputs and parameters, calls each kernel directly on the slot arrays and
drops every slot at its last use, so an intermediate's memory is freed as soon as it is
dead. In-place operators (optimizer updates) write straight into the Parameter arrays.

Kernels registered with ``out=True`` write into buffers planned once per ``Executable``
(``ms_graph.memory_plan``: intermediates whose lifetimes do not overlap share one),
allocated by the first run and kept from run to run, so a step allocates little beyond
what the other kernels return.
Graph outputs never live in a planned buffer. A run takes a set of buffers from a pool
and gives it back, so runs from several threads (or nested ones) each have their own.

Nodes whose ``op`` is a string are run by a runner registered for that name:
``register_runner(name, make)`` where ``make(node) -> run(arrays) -> tuple of arrays``
(``arrays``: one per ``Value`` argument of the node, in order, then one per value its
subgraphs capture, ``ir.captured``). ms-graph's control flow registers ``"Cond"`` and
``"While"``, the fusion pass ``"Fused"``; ``"Call"`` (a subgraph called with the node's
Value arguments) is built in.
"""

from __future__ import annotations

import copy
import importlib

import numpy as np

from ms_graph import ir
from ms_graph.memory_plan import plan_memory
from ms_graph.trace import unflatten
from ms_ops import TensorSpec, plan
from ms_ops.dispatch import kernel_observer
from ms_ops.opdef import TENSOR
from ms_ops.planning import WEAK_SCALARS
from ms_tensor import dtype as mstype
from ms_tensor.tensor import array_of, wrap

__all__ = ["Executable", "register_runner", "run_graph"]

_ndarray = np.ndarray
_RUNNERS: dict = {}
# numpy serves arrays below 1 KiB from its own cache of freed blocks, as fast as a planned
# buffer (measured: np.negative of 256 floats, 256 ns either way); those are not planned.
_NUMPY_CACHED_NBYTES = 1024


def register_runner(name: str, make) -> None:
    """Run nodes whose ``op`` is ``name`` with ``make(node)(arrays) -> tuple``."""
    _RUNNERS[name] = make


def _make_call(node):
    sub = Executable(node.subgraphs[0])
    return lambda arrays: sub.run_arrays(arrays)


def _make_fused(node):
    from ms_graph.passes.fuse_elementwise import fused_runner

    run = fused_runner(node)
    return lambda arrays: (run(arrays),)


_RUNNERS["Call"] = _make_call
_RUNNERS["Fused"] = _make_fused
# Modules that register runners for their node kinds when imported.
_PROVIDERS = {"Cond": "ms_graph.control_flow", "While": "ms_graph.control_flow",
              "WhileGrad": "ms_graph.control_flow_grad"}


def _runner(name: str):
    make = _RUNNERS.get(name)
    if make is None and name in _PROVIDERS:
        importlib.import_module(_PROVIDERS[name])
        make = _RUNNERS.get(name)
    return make


class _Step:
    __slots__ = ("op", "kernel", "ins", "casts", "kwargs", "outs", "out_dtypes", "multi",
                 "inplace", "free", "stateful", "attrs", "takes_out")


class Executable:
    """A graph prepared for running (see the module doc)."""

    def __init__(self, graph: ir.Graph):
        self.graph = graph
        slots: dict[int, int] = {}
        template: list = []

        def slot(v) -> int:
            s = slots.get(id(v))
            if s is None:
                s = slots[id(v)] = len(template)
                template.append(v.const if isinstance(v, ir.Value) and v.is_const else
                                None if isinstance(v, ir.Value) else v)
            return s

        self._input_slots = [slot(v) for v in graph.inputs]
        self._param_slots = [(slot(v), p) for v, p in graph.params]
        steps = []
        for node in graph.nodes:
            steps.append(self._step(node, slot))
        self._out_slots = [slot(v) for v in graph.outputs]
        self._free_dead(steps, graph, slots)
        self._steps = steps
        self._template = template
        takes_out = {id(n) for n, st in zip(graph.nodes, steps) if st.takes_out}
        self.memory_plan = plan_memory(graph, lambda node: id(node) in takes_out,
                                       _NUMPY_CACHED_NBYTES)
        step_of = {id(v): k for k, node in enumerate(graph.nodes) for v in node.outputs}
        self._planned = [(step_of[id(v)], v) for v in self.memory_plan.values]
        self._idle: list = []  # step lists whose buffers no run is using (made on demand)

    # -- preparing -------------------------------------------------------------------
    def _step(self, node: ir.Node, slot) -> _Step:
        st = _Step()
        st.op = node.op
        st.attrs = node.attrs
        st.outs = [slot(v) for v in node.outputs]
        st.free = ()
        st.takes_out = False
        if isinstance(node.op, str):
            make = _runner(node.op)
            if make is None:
                raise NotImplementedError(f"graph {self.graph.name}: no runner is registered "
                                          f"for {node.op!r} nodes")
            st.kernel = make(node)
            st.ins = [slot(a) for a in node.args if isinstance(a, ir.Value)]
            for sub in node.subgraphs:
                st.ins.extend(slot(v) for v in ir.captured(sub))
            st.casts = None
            st.stateful = False
            return st
        op = node.op
        args, ins = [], []
        for a, arg in zip(op.inputs, node.args):
            if a.kind == TENSOR:
                ins.append(slot(arg))
                args.append(_abstract(arg))
            else:
                args.append(arg)
        p = plan(op, args, node.attrs)  # what eager dispatch plans for these specs
        st.kernel = p.kernel
        st.ins = ins
        st.casts = p.casts if p.cast else None
        st.kwargs = p.kwargs
        st.multi = p.multi
        st.out_dtypes = p.out_dtypes
        st.stateful = op.stateful
        st.takes_out = p.takes_out
        if op.inplace is None:
            st.inplace = None
        else:
            written = (op.inplace,) if type(op.inplace) is int else op.inplace
            st.inplace = [ins[op.tensor_index.index(i)] for i in written]
        return st

    def _free_dead(self, steps, graph, slots) -> None:
        keep = set(self._out_slots)
        keep.update(s for s, _ in self._param_slots)
        keep.update(slots[id(v)] for v in graph.constants())
        last: dict[int, int] = {}
        for k, st in enumerate(steps):
            for s in st.ins:
                last[s] = k
            for s in st.outs:  # an output nobody reads dies where it is made
                last.setdefault(s, k)
        for k, st in enumerate(steps):
            st.free = tuple(s for s in set(st.ins) | set(st.outs)
                            if last.get(s) == k and s not in keep)

    def _with_buffers(self) -> list:
        """The steps, those with a planned output copied to pass a new buffer as out=."""
        plan = self.memory_plan
        buffers = plan.allocate()
        steps = list(self._steps)
        for k, value in self._planned:
            st = steps[k] = copy.copy(steps[k])
            st.kwargs = dict(st.kwargs, out=plan.view(buffers, value))
        return steps

    # -- running ---------------------------------------------------------------------
    def run_arrays(self, arrays) -> tuple:
        """Run on the input arrays (one per graph input); returns the output arrays."""
        idle = self._idle
        # None idle: the first run, or another run holds the buffers.
        steps = idle.pop() if idle else self._with_buffers()
        try:
            observer = kernel_observer()
            return self._run(steps if observer is None else _observed(steps, observer), arrays)
        finally:
            idle.append(steps)

    def _run(self, steps, arrays) -> tuple:
        env = list(self._template)
        for s, a in zip(self._input_slots, arrays):
            env[s] = a
        for s, p in self._param_slots:
            env[s] = array_of(p)
        for st in steps:
            xs = [env[s] for s in st.ins]
            if st.casts is None:
                if type(st.op) is str:
                    outs = st.kernel(xs)
                    for s, r in zip(st.outs, outs):
                        env[s] = r
                    for s in st.free:
                        env[s] = None
                    continue
            else:
                xs = [x if c is None else (x.astype(c) if type(x) is _ndarray else
                                           np.asarray(x, c)) for x, c in zip(xs, st.casts)]
            kwargs = st.kwargs
            if st.stateful:
                kwargs = dict(kwargs, state=st.op.new_generator(st.attrs))
            try:
                r = st.kernel(*xs, **kwargs)
            except (IndexError, ValueError) as e:
                raise type(e)(f"{st.op.name}: {e}") from None
            if st.inplace is not None:
                for s, w in zip(st.outs, st.inplace):
                    env[s] = env[w]
            elif st.multi:
                for s, x, d in zip(st.outs, r, st.out_dtypes):
                    env[s] = x if type(x) is _ndarray and x.dtype == d else np.asarray(x, d)
            else:
                d = st.out_dtypes
                env[st.outs[0]] = r if type(r) is _ndarray and r.dtype == d else \
                    np.asarray(r, d)
            for s in st.free:
                env[s] = None
        return tuple(env[s] for s in self._out_slots)

    def __call__(self, *tensors):
        """Run on Tensors (one per graph input); returns the result in its structure."""
        outs = self.run_arrays([array_of(t) for t in tensors])
        tree = self.graph.out_tree
        if type(tree) is int:  # one Tensor
            return wrap(outs[tree])
        if tree is None:  # a graph built by hand: its outputs as a tuple
            tree = tuple(range(len(outs)))
        return unflatten(tree, [wrap(a) for a in outs])

    def peak_live(self) -> int:
        """The most slots holding a node's value at once (for tests of freeing)."""
        live, peak = set(), 0
        for st in self._steps:
            live.update(st.outs)
            peak = max(peak, len(live))
            live.difference_update(st.free)
        return peak


def _observed(steps, observer) -> list:
    """The steps with each operator's (and fused group's) kernel given to ``observer``
    (``ms_ops.dispatch.set_kernel_observer``); control flow and calls are not wrapped,
    since the operators inside them are observed when their own graphs run."""
    out = []
    for st in steps:
        if type(st.op) is not str or st.op == "Fused":
            st = copy.copy(st)
            st.kernel = observer(st.op if type(st.op) is str else st.op.name, st.kernel)
        out.append(st)
    return out


def run_graph(graph: ir.Graph, *tensors):
    """Prepare and run ``graph`` once (see ``Executable`` to run it repeatedly)."""
    return Executable(graph)(*tensors)


def _abstract(arg):
    """What planning sees of a node's tensor argument: its spec (a constant's from its
    array), or the Python number or None given in its place."""
    if not isinstance(arg, ir.Value):
        return arg
    if arg.is_const:
        c = arg.const
        if type(c) in WEAK_SCALARS:
            return c
        return TensorSpec(np.shape(c), mstype.from_numpy(np.asarray(c).dtype))
    return arg.spec
