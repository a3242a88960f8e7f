"""Tracing: functions, Parameters and a backward pass become graphs; writes outside
operators are refused. (Cells: integration_tests/test_graph_with_nn.py.)"""

import ms_graph
import numpy as np
import pytest
from ms_graph.trace import TraceError

import ms_ops as ops
from ms_ops import dispatch
from ms_tensor import Parameter, Tensor


def _t(*shape, seed=0):
    return Tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def test_simple_function_inputs_constants_and_structure():
    k = _t(3, seed=5)

    def f(x, y, scale):
        return (ops.relu(x * y) + k) * scale, [x.sum()]

    x, y = _t(2, 3), _t(2, 3, seed=1)
    g = ms_graph.trace(f, x, y, 2.0)
    assert len(g.inputs) == 2 and not g.params
    assert [n.name for n in g.nodes] == ["Mul", "ReLU", "Add", "Mul", "ReduceSum"]
    assert g.nodes[2].args[1].is_const and g.nodes[2].args[1].const is k._data
    assert g.nodes[3].args[1] == 2.0  # a Python number stays a Python value
    assert g.out_tree == (0, [1])
    assert dispatch.get_recorder() is None


def test_parameters_become_graph_params_read_at_run_time():
    w = Parameter(_t(3, 4), name="w")

    def f(x):
        return ops.matmul(x, w)

    g = ms_graph.trace(f, _t(2, 3))
    assert [(v.name, p) for v, p in g.params] == [("w", w)]
    assert "param 'w'" in g.text()


def test_backward_pass_is_traced():
    w = Parameter(_t(3,), name="w")
    grad_fn = ops.grad(lambda x: (x * w).sum(), grad_position=None, weights=[w])
    g = ms_graph.trace(grad_fn, _t(3, seed=2))
    assert len(g.nodes) > 2  # forward and the gradient rules' operators
    (out,) = g.outputs
    assert out.producer is not None


def test_numpy_write_to_a_parameter_is_refused():
    w = Parameter(_t(3, 2), name="w")
    count = Parameter(Tensor(np.zeros(1, np.int32)), name="count")

    def step(x):
        count._data += 1
        return ops.matmul(x, w)

    with pytest.raises(TraceError, match=r"'count' \(its values were written with numpy\)"):
        ms_graph.trace(step, _t(2, 3))
    assert dispatch.get_recorder() is None


def test_batchnorm_statistics_written_by_the_operator_are_kept_in_the_graph():
    """BatchNorm updates its moving statistics inside the kernel (``OpDef.writes``): the
    trace accepts that, and the passes keep the node although its outputs go unread."""
    def stats():
        return [Parameter(Tensor(np.full(3, v, np.float32)), name=n)
                for v, n in ((1.0, "gamma"), (0.0, "beta"), (0.0, "mean"), (1.0, "var"))]

    def make_step(params):
        def step(x):
            ops.BatchNorm(is_training=True, momentum=0.1)(x, *params)  # outputs unread
            return x * 2
        return step

    eager, compiled = stats(), stats()
    jitted = ms_graph.jit(make_step(compiled), capture_mode="trace")
    for seed in range(3):
        x = _t(4, 3, seed=seed)
        make_step(eager)(x)
        jitted(x)
    assert (jitted.misses, jitted.hits) == (1, 2)
    for e, c in zip(eager, compiled):
        np.testing.assert_array_equal(c.asnumpy(), e.asnumpy())
    assert not np.allclose(compiled[2].asnumpy(), 0.0)
