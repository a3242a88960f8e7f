"""jit: caching by signature, equality with eager (a whole training step included),
save_graphs."""

import os

import ms_graph
import numpy as np
import pytest

import ms_nn as nn
import ms_ops as ops
from ms_autodiff import value_and_grad
from ms_tensor import Parameter, Tensor, context


def _t(*shape, seed=0):
    return Tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def test_cache_hits_and_misses():
    @ms_graph.jit(capture_mode="trace")
    def f(x, y, k):
        return ops.tanh(x) * y + k

    x, y = _t(2, 3), _t(2, 3, seed=1)
    for seed in range(3):
        x = _t(2, 3, seed=seed)
        np.testing.assert_allclose(f(x, y, 1.0).asnumpy(),
                                   (np.tanh(x.asnumpy()) * y.asnumpy() + 1.0), rtol=1e-6)
    assert (f.misses, f.hits) == (1, 2)
    f(_t(4, 3), _t(4, 3), 1.0)  # new shape
    f(x, y, 2.0)  # new Python constant
    f(x, x, 1.0)  # the same array twice is a different graph
    assert f.misses == 4
    np.testing.assert_allclose(f(y, y, 1.0).asnumpy(), np.tanh(y.asnumpy()) * y.asnumpy() + 1,
                               rtol=1e-6)
    assert f.hits == 3


def test_functional_jit_and_jit_on_construct():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.dense = nn.Dense(4, 3)

        @ms_graph.jit(capture_mode="trace")
        def construct(self, x):
            return ops.relu(self.dense(x))

    net = Net()
    x = _t(2, 4)
    want = ops.relu(net.dense(x)).asnumpy()
    for _ in range(2):
        np.testing.assert_allclose(net(x).asnumpy(), want, rtol=1e-6)
    assert Net.construct.hits == 1
    mlp = nn.SequentialCell([nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 2)])
    compiled = ms_graph.jit(mlp, capture_mode="trace")
    for _ in range(2):
        np.testing.assert_allclose(compiled(x).asnumpy(), mlp(x).asnumpy(), rtol=1e-6)


def test_replacing_a_parameter_recompiles():
    net = nn.Dense(3, 2)
    f = ms_graph.jit(net, capture_mode="trace")
    x = _t(1, 3)
    f(x)
    net.weight = Parameter(Tensor(np.zeros((2, 3), np.float32)), name="weight")
    np.testing.assert_allclose(f(x).asnumpy(), net.bias.asnumpy()[None], atol=1e-7)


def _train_step(make_opt):
    rng = np.random.default_rng(0)
    net = nn.SequentialCell([nn.Dense(8, 16), nn.ReLU(), nn.Dense(16, 4)])
    for p in net.trainable_params():
        p.set_data(Tensor(rng.standard_normal(p.shape).astype(np.float32) * 0.3))
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    return net, nn.TrainOneStepCell(nn.WithLossCell(net, loss), make_opt(net.trainable_params()))


@pytest.mark.parametrize("make_opt", [
    lambda ps: nn.Momentum(ps, learning_rate=0.1, momentum=0.9),
    lambda ps: nn.SGD(ps, learning_rate=0.1, momentum=0.9, dampening=0.1),
    lambda ps: nn.Adam(ps, learning_rate=0.01),
], ids=["Momentum", "SGD", "Adam"])
def test_training_step_as_one_graph_equals_eager(make_opt):
    x = _t(6, 8, seed=3)
    y = Tensor(np.array([0, 1, 2, 3, 1, 0], np.int32))
    net_e, step_e = _train_step(make_opt)
    eager = [float(step_e(x, y).asnumpy()) for _ in range(5)]
    net_g, step_g = _train_step(make_opt)
    compiled = ms_graph.jit(step_g, capture_mode="trace")
    graph = [float(compiled(x, y).asnumpy()) for _ in range(5)]
    np.testing.assert_allclose(graph, eager, rtol=1e-5)
    assert eager[-1] < eager[0]
    for pe, pg in zip(net_e.trainable_params(), net_g.trainable_params()):
        np.testing.assert_allclose(pg.asnumpy(), pe.asnumpy(), rtol=1e-5, atol=1e-6)


def test_value_and_grad_with_fused_update_traces_into_one_graph():
    w = Parameter(_t(4, 2), name="w")
    m = Parameter(Tensor(np.zeros((4, 2), np.float32)), name="m")
    vg = value_and_grad(lambda x: (ops.matmul(x, w) ** 2).mean(), grad_position=None,
                        weights=[w])
    apply = ops.ApplyMomentum()

    def step(x):
        loss, (g,) = vg(x)
        apply(w, m, 0.05, g, 0.9)
        return loss

    g = ms_graph.trace(step, _t(3, 4))
    names = [n.name for n in g.nodes]
    assert names[0] == "MatMul" and names[-1] == "ApplyMomentum"
    assert {p.name for _, p in g.params} == {"w", "m"}


class _NumpyStepCounter(nn.Cell):
    """Writes a Parameter with numpy, behind the operators' back: not traceable."""

    def __init__(self):
        super().__init__()
        self.count = Parameter(Tensor(np.zeros(1, np.float32)), name="count")

    def construct(self, x):
        self.count._data += 1
        return x * 2


def test_a_parameter_written_outside_operators_is_refused_by_jit():
    with pytest.raises(ms_graph.TraceError, match="count"):
        ms_graph.jit(_NumpyStepCounter(), capture_mode="trace")(_t(4, 3))


def test_compile_checks_arguments():
    c = ms_graph.compile(lambda x: x * 2, _t(2, 2))
    np.testing.assert_allclose(c(_t(2, 2, seed=4)).asnumpy(), _t(2, 2, seed=4).asnumpy() * 2)
    with pytest.raises(TypeError, match=r"compiled for \(2, 2\)"):
        c(_t(3, 2))


def test_save_graphs_writes_text_and_dot(tmp_path):
    context.set_context(save_graphs=True, save_graphs_path=str(tmp_path))
    try:
        f = ms_graph.jit(lambda x: ops.relu(x * 2 + 1).sum(), capture_mode="trace")
        f(_t(3, 3))
    finally:
        context.set_context(save_graphs=False)
    files = sorted(os.listdir(tmp_path))
    assert any(n.endswith("_00_captured.ir") for n in files)
    assert any(n.endswith("_00_captured.dot") for n in files)
    assert len([n for n in files if n.endswith(".ir")]) >= 2  # after each pass too
    text = (tmp_path / [n for n in files if n.endswith("_00_captured.ir")][0]).read_text()
    assert "Mul(" in text and "ReLU(" in text
    dot = (tmp_path / [n for n in files if n.endswith("_00_captured.dot")][0]).read_text()
    assert dot.startswith("digraph")
