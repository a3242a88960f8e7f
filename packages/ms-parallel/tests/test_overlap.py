"""The compiled step's overlap: AllReduceStart/AllReduceWait, and the schedule pass that
moves each start up to where its input is ready (never past a node with effects) and
lets MPI progress between the kernels while a start is in flight."""

import numpy as np
import pytest
from ms_graph.executor import Executable
from ms_graph.trace import trace

from ms_parallel import overlap_pass
from ms_parallel.overlap import compiled_overlap, set_compiled_overlap
from ms_parallel.overlap_ops import AllReduceStart, AllReduceWait, in_flight
from ms_parallel.reduce_ops import AllReduce
from ms_tensor import Tensor
from ms_tensor.registry import load


def _names(graph):
    return [n.op if isinstance(n.op, str) else n.op.name for n in graph.nodes]


def step(x):
    early = (x * 3.0).exp()            # a bucket's gradient, ready early
    late = x
    for _ in range(4):                 # the rest of the "backward pass"
        late = (late * 1.5).sin()
    started = AllReduceStart(early.reshape((-1,)))  # traced late, as the reducer is
    return late.sum() + AllReduceWait(started).sum()


def test_start_moves_up_to_its_input_and_progress_runs_while_in_flight():
    x = Tensor(np.arange(4.0))
    graph = trace(step, x)
    before = _names(graph)
    assert before.index("AllReduceStart") > before.index("Sin")
    after = _names(overlap_pass.run(graph))
    assert sorted(n for n in after if n != "CommProgress") == sorted(before)
    start, wait = after.index("AllReduceStart"), after.index("AllReduceWait")
    assert after[start - 2:start] == ["Exp", "Reshape"]  # its pure feeder moved with it
    assert start < after.index("Sin") < wait
    between = after[start + 1:wait]
    assert between.count("CommProgress") == len(between) // 2  # one after each kernel
    assert "CommProgress" not in after[:start] + after[wait:]
    np.testing.assert_allclose(Executable(graph)(x).asnumpy(), step(x).asnumpy())
    assert in_flight() == 0


def test_start_never_passes_a_node_with_effects():
    def with_collective(x):
        early = (x * 3.0).exp()
        other = AllReduce(x * 2.0)     # a collective traced before the start
        return (AllReduceWait(AllReduceStart(early)) + other).sum()

    graph = overlap_pass.run(trace(with_collective, Tensor(np.arange(4.0))))
    names = _names(graph)
    assert names.index("AllReduce") < names.index("AllReduceStart")


def test_a_graph_without_starts_is_left_alone():
    graph = trace(lambda x: (x * 2.0).sin(), Tensor(np.arange(3.0)))
    nodes = list(graph.nodes)
    assert overlap_pass.run(graph).nodes == nodes


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.float16])
def test_values_on_one_rank(dtype):
    x = Tensor(np.arange(6).reshape(2, 3).astype(dtype))
    y = AllReduceWait(AllReduceStart(x))
    assert y.dtype == x.dtype and y.shape == (2, 3)
    np.testing.assert_array_equal(y.asnumpy(), x.asnumpy())
    assert in_flight() == 0


def test_bad_input_names_the_operator():
    with pytest.raises(TypeError, match="AllReduceStart"):
        AllReduceStart(Tensor(np.array([True, False])))
    with pytest.raises((TypeError, ValueError), match="group"):
        AllReduceStart(Tensor(np.ones(2)), 3)


def test_registered():
    reg = load()
    assert "overlap_collectives" in reg.names("pass")
    assert reg.primitive("AllReduceStart") is AllReduceStart


def test_setting():
    assert compiled_overlap() is False  # off by default (ms_parallel.overlap)
    with pytest.raises(TypeError, match="bool"):
        set_compiled_overlap("yes")


def test_compiling_runs_the_pass_after_every_optimize_pass():
    from ms_graph.jit import optimize

    x = Tensor(np.arange(4.0))
    names = _names(optimize(trace(step, x)))  # dce would drop CommProgress nodes
    assert "CommProgress" in names
    assert names.index("AllReduceStart") < names.index("Sin")


def test_a_feeder_never_moves_past_an_update_of_what_it_reads():
    from ms_ops.defs import optim
    from ms_tensor import Parameter

    w = Parameter(Tensor(np.ones(3)), name="w")

    def update_then_reduce(x):
        g = w * 2.0                                   # reads w before its update
        optim.ApplyGradientDescent(w, 0.5, x)         # an effect: w changes
        return AllReduceWait(AllReduceStart(g)).sum()

    x = Tensor(np.arange(3.0))
    graph = overlap_pass.run(trace(update_then_reduce, x))
    names = _names(graph)
    assert names.index("Mul") < names.index("ApplyGradientDescent")
    w.set_data(Tensor(np.ones(3)))
    assert float(Executable(graph)(x).asnumpy()) == 6.0  # the old w, doubled
