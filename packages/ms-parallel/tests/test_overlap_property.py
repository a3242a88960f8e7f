"""The overlap pass on random programs: several "layers" computed in turn, each
bucket's start traced late with its wait (as the reducer traces them), random
collectives and in-place updates of a Parameter between them. After optimize and the
pass, every node still follows its producers, the collectives and effects keep their
order (a start may only pass a wait), progress nodes run only while a start is in
flight, and the graph computes what the traced program computed."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from ms_graph.executor import Executable
from ms_graph.jit import optimize
from ms_graph.trace import trace

from ms_ops.defs import optim
from ms_parallel.overlap_ops import AllReduceStart, AllReduceWait, in_flight
from ms_parallel.reduce_ops import AllReduce
from ms_tensor import Parameter, Tensor

LAYER = st.lists(st.sampled_from(["sin", "exp", "mul", "allreduce", "matmul", "update"]),
                 min_size=1, max_size=4)
W0 = np.linspace(0.5, 1.0, 6)


def _program(layers, late, w):
    def fn(x):
        v, ready = x, []
        for ops in layers:
            for op in ops:
                if op == "sin":
                    v = v.sin()
                elif op == "exp":
                    v = (v * 0.1).exp()
                elif op == "mul":
                    v = v * 1.5
                elif op == "allreduce":
                    v = AllReduce(v)
                elif op == "update":  # a bucket reads w, then w is updated in place
                    ready.append(w * 3.0)
                    optim.ApplyGradientDescent(w, 0.1, v)
                    v = v * w
                else:
                    v = (v.reshape((6, 1)) @ v.reshape((1, 6))).sum(0) * 0.01 + v
            ready.append(v * 2.0)  # this layer's "gradient"
        out = v.sum()
        for k, g in enumerate(ready):  # traced late, start and wait together
            s = AllReduceWait(AllReduceStart(g.reshape((-1,))))
            out = out + s.sum() * (k + 1) if late else out + s.sum()
        return out
    return fn


def _names(graph):
    return [n.op if isinstance(n.op, str) else n.op.name for n in graph.nodes]


@settings(max_examples=40, deadline=None)
@given(st.lists(LAYER, min_size=1, max_size=4), st.booleans())
def test_schedule_is_valid_and_keeps_the_values(layers, late):
    w = Parameter(Tensor(W0), name="w")
    fn = _program(layers, late, w)
    x = Tensor(np.linspace(-1.0, 1.0, 6))
    want, w_want = fn(x).asnumpy(), w.asnumpy()
    w.set_data(Tensor(W0))
    graph = optimize(trace(fn, x))
    seen = set()
    for node in graph.nodes:  # every argument produced earlier
        for a in node.inputs():
            assert a.producer is None or id(a.producer) in seen
        seen.add(id(node))
    names = [n for n in _names(graph) if n != "CommProgress"]
    effects = [n for n in names if n in ("AllReduce", "AllReduceStart",
                                         "ApplyGradientDescent")]
    traced = [{"allreduce": "AllReduce", "update": "ApplyGradientDescent"}[op]
              for ops in layers for op in ops if op in ("allreduce", "update")] + \
        ["AllReduceStart"] * (len(layers) + sum(ops.count("update") for ops in layers))
    assert effects == traced  # collectives start in the traced order
    in_flight_now = 0
    for n in _names(graph):
        in_flight_now += (n == "AllReduceStart") - (n == "AllReduceWait")
        if n == "CommProgress":
            assert in_flight_now > 0
    w.set_data(Tensor(W0))
    np.testing.assert_allclose(Executable(graph)(x).asnumpy(), want, rtol=1e-12)
    np.testing.assert_allclose(w.asnumpy(), w_want, rtol=1e-12)
    assert in_flight() == 0
