"""ms-graph on ms-nn: Cells trace and jit like functions, whole training steps (Momentum,
SGD, Adam) compile to one graph that equals PyNative, and a Cell that writes a Parameter
with numpy is refused. They live here because ms-graph's own tests may not import ms-nn,
a layer above it."""

import contextlib

import ms_graph
import numpy as np
import pytest

import ms_nn as nn
import ms_ops as ops
from ms_tensor import Parameter, Tensor
from ms_tensor.context import GRAPH_MODE, get_context, set_context


def _t(*shape, seed=0):
    return Tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def test_mlp_cell():
    net = nn.SequentialCell([nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 2)])
    g = ms_graph.trace(net, _t(3, 4))
    assert {p.name for _, p in g.params} == {"0.weight", "0.bias", "2.weight", "2.bias"}
    assert "ReLU" in [n.name for n in g.nodes]


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


class _Gated(nn.Cell):
    """A sub-Cell whose construct branches and loops on tensor values."""

    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(8, 8)

    def construct(self, x):
        h = self.dense(x)
        if h.mean() > 0:
            h = ops.relu(h) * 1.5
        else:
            h = ops.tanh(h)
        i = 0
        while (h * h).mean() > 0.05 and i < 4:
            h = h * 0.7
            i = i + 1
        return h


def _gated_step(seed):
    rng = np.random.default_rng(seed)
    net = nn.SequentialCell([_Gated(), nn.Dense(8, 4)])
    for p in net.trainable_params():
        p.set_data(Tensor(rng.standard_normal(p.shape).astype(np.float32) * 0.5))
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.05, momentum=0.9)
    return net, nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)


@pytest.fixture
def graph_mode():
    """A context manager that runs its block in GRAPH_MODE."""
    @contextlib.contextmanager
    def run():
        before = get_context("mode")
        set_context(mode=GRAPH_MODE)
        try:
            yield
        finally:
            set_context(mode=before)

    return run


def test_graph_mode_trains_through_control_flow_in_sub_cells_as_pynative(graph_mode):
    """GRAPH_MODE compiles the step once; the sub-Cell's if/while are graph control flow
    (inputs of both signs take both branches and different trip counts), and its
    gradients equal PyNative's."""
    rng = np.random.default_rng(7)
    batches = [(Tensor(rng.standard_normal((6, 8)).astype(np.float32) * s),
                Tensor(rng.integers(0, 4, 6).astype(np.int32))) for s in (1, -3, 2, -1, 4)]
    net_e, step_e = _gated_step(0)
    net_e.set_train()
    eager = [float(step_e(x, y).asnumpy()) for x, y in batches]
    net_g, step_g = _gated_step(0)
    net_g.set_train()
    with graph_mode():
        compiled = [float(step_g(x, y).asnumpy()) for x, y in batches]
    graphs = step_g.__dict__["_graph_constructs"]
    assert [(g.misses, g.hits) for g in graphs.values()] == [(1, 4)]
    np.testing.assert_allclose(compiled, eager, rtol=1e-5)
    for pe, pg in zip(net_e.trainable_params(), net_g.trainable_params()):
        np.testing.assert_allclose(pg.asnumpy(), pe.asnumpy(), rtol=1e-5, atol=1e-6)


def test_jit_function_converts_the_cells_it_calls():
    net = _Gated()
    compiled = ms_graph.jit(lambda x: net(x))
    for sign in (1, -1, 1):
        x = _t(3, 8, seed=2) * sign
        np.testing.assert_allclose(compiled(x).asnumpy(), net(x).asnumpy(), rtol=1e-6)
    assert (compiled.misses, compiled.hits) == (1, 2)
