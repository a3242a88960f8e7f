"""Loop sink: ``n`` steps of a function, fed by ``GetNext``, as one compiled graph.

``SinkLoop(step, channel_name, specs)`` captures ``step(*GetNext())`` once (that capture
is a real step, like every first call of a compiled function) and wraps the captured step
in a ``While`` node::

    While(i < n) { batch = GetNext(); outs = step(*batch); i = i + 1 }

so one host call runs ``n`` steps inside the executor, with no Python of the caller (no
Cell dispatch, signature checks, callbacks or dataset iteration) between them, and
returns the last step's outputs. The optimizer's in-place updates run inside the loop as
they run inside a one-step graph.

The loop is compiled for one state of the step: the caller's ``key`` (the Cells'
``graph_state`` and Parameter identities, ``state_key``) is checked on every call and a
changed key captures again, so the loop never runs a stale graph.
"""

from __future__ import annotations

import types

import numpy as np

from ms_graph import ir
from ms_graph.executor import Executable
from ms_graph.jit import JitFunction, _reached_cells, optimize
from ms_graph.sink.get_next import GetNext
from ms_graph.trace import flatten, trace, trace_and_run, unflatten, watched_parameters
from ms_tensor.context import get_context
from ms_tensor.tensor import Tensor, wrap

__all__ = ["SinkLoop", "state_key"]


def state_key(*owners) -> tuple:
    """What a compiled step depends on besides its inputs: the ``graph_state`` (flags,
    Python attributes, the training phase) and Parameter identities of each Cell given,
    or, for a function, of the Cells it reads from its closure and module globals."""
    out = [get_context("device_target")]  # it picks the kernels (ms_ops.planning)
    for o in owners:
        for cell in _cells(o):
            out.append(cell.graph_state())
            out.append(tuple(id(p) for p in watched_parameters(cell)))
    return tuple(out)


def _cells(o) -> list:
    o = o.fn if isinstance(o, JitFunction) else o
    if hasattr(type(o), "graph_state"):
        return [o]
    if type(o) is not types.FunctionType:
        return []
    closure, names = _reached_cells(o)
    return [o.__closure__[i].cell_contents for i in closure] + \
        [o.__globals__[n] for n in names]


class SinkLoop:
    """``n`` steps of ``step`` per call, compiled into one graph (see the module doc).

    Args:
        step: the step (a Cell or function) taking one batch's columns.
        channel_name: the data channel GetNext reads.
        specs: ``[(shape, dtype), ...]`` of the batch columns (microspore dtypes).
        name: the graph's name.
    """

    def __init__(self, step, channel_name: str, specs, name: str = "sink_loop"):
        self.step = step
        self.name = name
        self._attrs = {"types": [d for _, d in specs], "shapes": [tuple(s) for s, _ in specs],
                       "output_num": len(specs), "shared_name": channel_name}
        self.executable = None
        self.out_tree = None
        self.captures = 0  # how many times the loop was (re)compiled

    def _one_step(self):
        batch = GetNext(**self._attrs)
        return self.step(*batch)

    def run(self, n: int, key=None):
        """Run ``n`` steps; returns the last step's outputs (as ``step`` returns them)."""
        if not isinstance(n, int) or n < 1:
            raise ValueError(f"{self.name}: the number of steps must be a positive int, "
                             f"got {n!r}")
        if self.executable is None or key != self._key:
            result = self._capture(key)
            if n == 1:
                return result
            n -= 1
        outs = self.executable.run_arrays([np.asarray(n, np.int64)])
        return unflatten(self.out_tree, [wrap(a) for a in outs])

    def _capture(self, key):
        """Capture one step (it runs) and build the loop graph around it."""
        graph, result = trace_and_run(self._one_step, (), None, name=f"{self.name}_step",
                                      check_params=watched_parameters(self.step))
        leaves: list = []
        self.out_tree = flatten(result, leaves)
        for t in leaves:
            if not isinstance(t, Tensor):
                raise TypeError(f"{self.name}: the step must return Tensors, got "
                                f"{type(t).__name__}")
        step_graph = optimize(graph, name=f"{self.name}_step")
        self.executable = Executable(_loop_graph(step_graph, self.name))
        self._key = key
        self.captures += 1
        return result


def _loop_graph(step: ir.Graph, name: str) -> ir.Graph:
    """``While(i < n) { outs = Call(step); i += 1 }`` returning the last ``outs``."""
    i0, n0 = Tensor(np.asarray(0, np.int64)), Tensor(np.asarray(1, np.int64))
    less = trace(lambda i, n: i < n, i0, n0)
    inc = trace(lambda i: i + 1, i0)
    specs = [v.spec for v in step.outputs]

    def values():
        return [ir.Value(s) for s in specs]

    # the condition: (i, n, *outs) -> i < n
    cond = ir.Graph(inputs=[*less.inputs, *values()], nodes=less.nodes,
                    outputs=less.outputs, name=f"{name}_cond")
    # the body: (i, n, *outs) -> (i + 1, n, *step())
    bi, bn = inc.inputs[0], ir.Value(less.inputs[1].spec)
    call = ir.Node("Call", [], subgraphs=(step,))
    new = [call.add_output(s) for s in specs]
    body = ir.Graph(inputs=[bi, bn, *values()], nodes=[call, *inc.nodes],
                    outputs=[inc.outputs[0], bn, *new], name=f"{name}_body")
    # the loop: n -> last outs; the outputs start as zeros (the loop runs >= 1 time)
    n = ir.Value(less.inputs[1].spec)
    start = ir.Value(less.inputs[0].spec, const=np.asarray(0, np.int64))
    zeros = [ir.Value(s, const=np.zeros(s.shape, s.dtype.np)) for s in specs]
    loop = ir.Node("While", [start, n, *zeros], subgraphs=(cond, body))
    outs = [loop.add_output(v.spec) for v in (start, n, *zeros)]
    return ir.Graph(inputs=[n], nodes=[loop], outputs=outs[2:], name=name)
