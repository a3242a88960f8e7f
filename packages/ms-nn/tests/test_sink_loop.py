"""Sink loops of training steps: equal to the step-by-step run, recompiled when the
network's state changes, diagnosing a starved queue from inside the graph."""

import threading

import numpy as np
import pytest
from ms_graph.sink import DataChannel, DataStarvedError
from ms_graph.sink.loop import SinkLoop, state_key

from ms_nn.containers import SequentialCell
from ms_nn.layers import Dense, Dropout, ReLU
from ms_nn.loss import SoftmaxCrossEntropyWithLogits
from ms_nn.optim import Momentum
from ms_nn.wrap import TrainOneStepCell, WithLossCell
from ms_tensor import Tensor
from ms_tensor import dtype as mstype
from ms_tensor.context import GRAPH_MODE, PYNATIVE_MODE, set_context
from ms_tensor.seed import set_seed

SPECS = [((8, 4), mstype.float32), ((8,), mstype.int32)]


def batches(n, seed=0):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal((8, 4)).astype(np.float32),
             rng.integers(0, 3, 8).astype(np.int32)) for _ in range(n)]


def feeders():
    return [t for t in threading.enumerate() if t.name.startswith("ms-sink-feeder")]


@pytest.fixture
def graph_mode():
    set_context(mode=GRAPH_MODE)
    yield
    set_context(mode=PYNATIVE_MODE)


def train_cell(dropout=False):
    set_seed(3)
    layers = [Dense(4, 16), ReLU()] + ([Dropout(p=0.3)] if dropout else []) + [Dense(16, 3)]
    net = SequentialCell(layers)
    loss = SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    cell = TrainOneStepCell(WithLossCell(net, loss), Momentum(net.trainable_params(), 0.1, 0.9))
    cell.set_train(True)
    return cell


def _plain_losses(cell, data):
    return [float(cell(Tensor(x), Tensor(y)).asnumpy()) for x, y in data]


@pytest.mark.parametrize("dropout", [False, True])
def test_sink_loop_equals_the_step_by_step_run(graph_mode, dropout):
    data = batches(23)
    want = _plain_losses(train_cell(dropout), data)
    cell = train_cell(dropout)
    with DataChannel("t_loop", iter(data)):
        loop = SinkLoop(cell, "t_loop", SPECS)
        got = [float(loop.run(n, state_key(cell)).asnumpy()) for n in (1, 10, 5, 7)]
    assert loop.captures == 1
    assert got == [want[0], want[10], want[15], want[22]]


def test_sink_loop_is_one_while_graph_over_get_next(graph_mode):
    cell = train_cell()
    with DataChannel("t_ir", iter(batches(3))):
        loop = SinkLoop(cell, "t_ir", SPECS)
        loop.run(2, state_key(cell))
    (node,) = loop.executable.graph.nodes
    assert node.op == "While"
    body = node.subgraphs[1]
    (call,) = [n for n in body.nodes if n.op == "Call"]
    ops = [n.op.name for n in call.subgraphs[0].nodes if not isinstance(n.op, str)]
    assert ops[0] == "GetNext" and "ApplyMomentum" in ops


def test_sink_loop_recompiles_when_the_cells_state_changes(graph_mode):
    data = batches(8)
    ref = train_cell(dropout=True)
    want = _plain_losses(ref, data[:4])
    ref.set_train(False)
    want += [float(ref(Tensor(x), Tensor(y)).asnumpy()) for x, y in data[4:]]
    cell = train_cell(dropout=True)
    with DataChannel("t_stale", iter(data)):
        loop = SinkLoop(cell, "t_stale", SPECS)
        first = float(loop.run(4, state_key(cell)).asnumpy())
        cell.set_train(False)  # Dropout off: the compiled loop must not be reused
        second = float(loop.run(4, state_key(cell)).asnumpy())
    assert loop.captures == 2
    assert [first, second] == [want[3], want[7]]


def test_sink_loop_raises_the_starved_diagnosis_from_inside_the_graph(graph_mode):
    cell = train_cell()
    release = threading.Event()

    def two_then_stall():
        yield from batches(2)
        release.wait(10)

    with DataChannel("t_gstarve", two_then_stall(), timeout=0.3):
        loop = SinkLoop(cell, "t_gstarve", SPECS)
        with pytest.raises(DataStarvedError, match="too slow.*two_then_stall"):
            loop.run(5, state_key(cell))
        release.set()
    assert not feeders()
