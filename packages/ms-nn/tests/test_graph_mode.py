"""PYNATIVE_MODE and GRAPH_MODE train alike: the same training from identical weights
gives the same losses and Parameters in both, and GRAPH_MODE really ran compiled graphs."""

import numpy as np
import pytest
from ms_graph import GraphSyntaxError

from ms_autodiff import value_and_grad
from ms_nn import Cell, SequentialCell
from ms_nn.layers import BatchNorm1d, Dense, Dropout, ReLU
from ms_nn.loss import SoftmaxCrossEntropyWithLogits
from ms_nn.optim import SGD, Adam, Momentum
from ms_nn.train import Callback, Model
from ms_nn.wrap import (
    DynamicLossScaleUpdateCell,
    TrainOneStepCell,
    TrainOneStepWithLossScaleCell,
    WithLossCell,
)
from ms_tensor import Tensor
from ms_tensor.context import GRAPH_MODE, PYNATIVE_MODE, get_context, set_context
from ms_tensor.seed import set_seed

_rng = np.random.default_rng(7)
BATCHES = [(Tensor(_rng.standard_normal((8, 4)).astype(np.float32)),
            Tensor(_rng.integers(0, 3, 8).astype(np.int32))) for _ in range(4)]

OPTIMIZERS = {
    "momentum": lambda ps: Momentum(ps, 0.1, 0.9),
    "adam_weight_decay": lambda ps: Adam(ps, 0.01, weight_decay=0.01),
    "sgd_lr_list": lambda ps: SGD(ps, [0.1, 0.05, 0.02, 0.01]),  # reads global_step
}


def make_net(weights=None):
    """Dense -> BatchNorm -> ReLU -> Dropout -> Dense, all Parameters from ``weights``."""
    net = SequentialCell([Dense(4, 8), BatchNorm1d(8), ReLU(), Dropout(p=0.25), Dense(8, 3)])
    if weights is not None:
        for p in net.get_parameters():
            p.set_data(Tensor(weights[p.name].copy()))
    return net


def initial_weights():
    set_seed(3)
    return {p.name: p.asnumpy().copy() for p in make_net().get_parameters()}


def in_mode(mode, fn):
    """``fn()`` in ``mode`` with the random streams reset (the context restored)."""
    previous = get_context("mode")
    set_context(mode=mode)
    set_seed(11)
    try:
        return fn()
    finally:
        set_context(mode=previous)


def compiled_graphs(cell):
    """The graphs GRAPH_MODE compiled for ``cell``: one JitFunction per phase."""
    return list(cell.__dict__.get("_graph_constructs", {}).values())


def state(cell):
    return {p.name: p.asnumpy().copy() for p in cell.get_parameters()}


def assert_same_state(a, b):
    assert a.keys() == b.keys()
    for name in a:
        np.testing.assert_allclose(a[name], b[name], rtol=1e-6, atol=1e-7, err_msg=name)


@pytest.mark.parametrize("optimizer", list(OPTIMIZERS), ids=list(OPTIMIZERS))
def test_train_one_step_gives_the_same_losses_and_parameters_in_both_modes(optimizer):
    weights = initial_weights()

    def train():
        net = make_net(weights)
        step = TrainOneStepCell(WithLossCell(net, SoftmaxCrossEntropyWithLogits(
            sparse=True, reduction="mean")), OPTIMIZERS[optimizer](net.trainable_params()))
        step.set_train()
        losses = [float(step(x, y).asnumpy()) for x, y in BATCHES]
        return losses, state(step), step

    eager_losses, eager_state, eager_step = in_mode(PYNATIVE_MODE, train)
    graph_losses, graph_state, graph_step = in_mode(GRAPH_MODE, train)

    np.testing.assert_allclose(graph_losses, eager_losses, rtol=1e-6)
    assert_same_state(graph_state, eager_state)  # weights, moving stats, optimizer state
    for name in ("0.weight", "1.moving_mean", "4.bias"):  # the steps did train
        assert not np.allclose(eager_state[name], weights[name]), name
    assert compiled_graphs(eager_step) == []
    (compiled,) = compiled_graphs(graph_step)
    assert (compiled.misses, compiled.hits) == (1, len(BATCHES) - 1)


class StepLosses(Callback):
    def __init__(self):
        self.values = []

    def on_train_step_end(self, rc):
        self.values.append(float(rc.original_args().net_outputs.asnumpy()))


class Batches:
    """The iterator protocol Model.train accepts, over ``BATCHES``."""

    def get_dataset_size(self):
        return len(BATCHES)

    def create_tuple_iterator(self, num_epochs=-1, **kwargs):
        return self

    def __iter__(self):
        return iter([list(b) for b in BATCHES])


def test_model_train_then_eval_gives_the_same_results_in_both_modes():
    weights = initial_weights()

    def run():
        net = make_net(weights)
        model = Model(net, SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                      Momentum(net.trainable_params(), 0.1, 0.9), metrics={"loss"})
        losses = StepLosses()
        model.train(2, Batches(), callbacks=losses)
        metrics = model.eval(Batches())
        model.train(1, Batches(), callbacks=losses)  # back to the training graph
        return losses.values, metrics, state(net), model

    eager_losses, eager_metrics, eager_state, _ = in_mode(PYNATIVE_MODE, run)
    graph_losses, graph_metrics, graph_state, model = in_mode(GRAPH_MODE, run)

    np.testing.assert_allclose(graph_losses, eager_losses, rtol=1e-6)
    assert graph_metrics["loss"] == pytest.approx(eager_metrics["loss"], rel=1e-6)
    assert_same_state(graph_state, eager_state)
    (train_graph,) = compiled_graphs(model.train_network)
    assert (train_graph.misses, train_graph.hits) == (1, 3 * len(BATCHES) - 1)
    (eval_graph,) = compiled_graphs(model.eval_network)
    assert (eval_graph.misses, eval_graph.hits) == (1, len(BATCHES) - 1)


@pytest.mark.parametrize("switch", ["set_train", "attribute"])
def test_set_train_on_an_inner_cell_selects_another_graph(switch):
    x = Tensor(np.ones((4, 4), np.float32))

    def train(cell, flag):
        if switch == "set_train":
            cell.set_train(flag)
        else:
            cell.training = flag

    def run():
        net = make_net(initial_weights())
        before = net(x).asnumpy()
        train(net[3], True)  # Dropout alone trains: its graph must not be the eval one
        after = net(x).asnumpy()
        train(net[3], False)
        return before, after, net(x).asnumpy(), net

    eager = in_mode(PYNATIVE_MODE, run)
    graph = in_mode(GRAPH_MODE, run)
    for e, g in zip(eager[:3], graph[:3]):
        np.testing.assert_allclose(g, e, rtol=1e-6)
    assert not np.allclose(eager[1], eager[0])
    np.testing.assert_array_equal(eager[2], eager[0])
    assert sorted((j.misses, j.hits) for j in compiled_graphs(graph[3])) == [(1, 0), (1, 1)]


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")
def test_loss_scale_step_compiles_once_and_skips_overflowing_updates():
    """Whether the update runs depends on each step's gradients: one compiled graph must
    skip the overflowing step and apply the others, with PyNative's scale schedule."""
    weights = initial_weights()
    broken = (BATCHES[0][0] * np.float32(np.nan), BATCHES[0][1])  # NaN gradients
    batches = [BATCHES[0], broken, BATCHES[1], BATCHES[2], broken, BATCHES[3]]

    def train():
        net = make_net(weights)
        step = TrainOneStepWithLossScaleCell(
            WithLossCell(net, SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")),
            Momentum(net.trainable_params(), 0.1, 0.9),
            scale_sense=DynamicLossScaleUpdateCell(2.0 ** 10, 2, 2))
        step.set_train()
        out, states = [], []
        for x, y in batches:
            out.append(tuple(float(v.asnumpy()) for v in step(x, y)))
            states.append({p.name: p.asnumpy().copy() for p in net.trainable_params()})
        return out, states, state(step), step

    eager_out, eager_states, eager_state, _ = in_mode(PYNATIVE_MODE, train)
    graph_out, graph_states, graph_state, step = in_mode(GRAPH_MODE, train)
    np.testing.assert_allclose(graph_out, eager_out, rtol=1e-6)
    assert_same_state(graph_state, eager_state)
    assert [o[1] for o in eager_out] == [0.0, 1.0, 0.0, 0.0, 1.0, 0.0]
    assert [o[2] for o in eager_out] == [1024.0, 512.0, 512.0, 1024.0, 512.0, 512.0]
    for k in (1, 4):  # the overflowing steps left the weights as they were
        assert_same_state(graph_states[k], graph_states[k - 1])
    assert not all(np.allclose(graph_states[2][n], graph_states[1][n]) for n in graph_states[2])
    ((graph,),) = [compiled_graphs(step)]
    assert (graph.misses, graph.hits) == (1, len(batches) - 1)


class BatchNormInABranch(Cell):
    def __init__(self):
        super().__init__()
        self.bn = BatchNorm1d(3)

    def construct(self, x):
        if x.sum() > 0:
            x = self.bn(x)
        return x


def test_batchnorm_training_inside_a_tensor_branch_is_refused():
    net = BatchNormInABranch().set_train()
    x = Tensor(-np.arange(6, dtype=np.float32).reshape(2, 3))
    previous = get_context("mode")
    set_context(mode=GRAPH_MODE)
    try:
        with pytest.raises(GraphSyntaxError, match="BatchNorm"):
            net(x)
    finally:
        set_context(mode=previous)


def test_value_and_grad_of_a_function_calling_the_net_runs_its_compiled_graphs():
    """MindSpore 2.x's functional loop (value_and_grad over a function that calls the net,
    then optimizer(grads)) in GRAPH_MODE: the net runs a compiled forward graph and its
    gradient a compiled backward graph, with PyNative's losses and weights."""
    weights = initial_weights()

    def train():
        net = make_net(weights)
        loss_fn = SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        opt = Momentum(net.trainable_params(), 0.1, 0.9)

        def forward_fn(x, y):
            logits = net(x)
            return loss_fn(logits, y), logits

        grad_fn = value_and_grad(forward_fn, None, opt.parameters, has_aux=True)
        losses = []
        for x, y in BATCHES:
            (loss, _), grads = grad_fn(x, y)
            opt(grads)
            losses.append(float(loss.asnumpy()))
        return losses, state(net), net

    eager_losses, eager_state, _ = in_mode(PYNATIVE_MODE, train)
    graph_losses, graph_state, net = in_mode(GRAPH_MODE, train)
    np.testing.assert_allclose(graph_losses, eager_losses, rtol=1e-6)
    assert_same_state(graph_state, eager_state)
    (graph,) = compiled_graphs(net)
    assert (graph.misses, graph.hits) == (1, len(BATCHES) - 1)
