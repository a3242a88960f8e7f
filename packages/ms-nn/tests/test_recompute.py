"""``Cell.recompute()`` wherever a Cell is trained: PyNative and GRAPH_MODE give the
unmarked gradients, the marked cell's activations leave the tape (PyNative) and the
compiled backward reruns it; MindSpore's keyword arguments are accepted or refused by name."""

import numpy as np
import pytest

import ms_autodiff as ad
from ms_autodiff.tape import Tape
from ms_nn import SGD, BatchNorm1d, Cell, Dense, Dropout, MSELoss, TrainOneStepCell, WithLossCell
from ms_nn.train import Model
from ms_ops import functional as F
from ms_tensor import Tensor, seed
from ms_tensor.context import GRAPH_MODE, get_context, set_context
from ms_tensor.tensor import array_of

RNG = np.random.default_rng(0)
X = Tensor(RNG.standard_normal((8, 6)).astype(np.float32))
Y = Tensor(RNG.standard_normal((8, 1)).astype(np.float32))


class Block(Cell):
    def __init__(self, extra=None):
        super().__init__()
        self.a, self.b = Dense(6, 48), Dense(48, 6)
        self.extra = extra
        self.calls = 0

    def construct(self, x, scale=1.0, squash=True):
        self.calls += 1
        h = F.relu(self.a(x)) * scale
        if self.extra is not None:
            h = self.extra(h)
        h = F.tanh(h) if squash else h
        return self.b(h * h)


class Net(Cell):
    def __init__(self, marked, extra=None, **kwargs):
        super().__init__()
        self.block, self.head = Block(extra), Dense(6, 1)
        if marked:
            self.block.recompute(**kwargs)

    def construct(self, x):
        return self.head(F.sin(self.block(x, 0.5, squash=True)))


def _pair(extra=None, mark=True):
    """An unmarked and a marked (``mark``) net with the same weights."""
    plain, marked = Net(False, extra and extra()), Net(mark, extra and extra())
    for p, q in zip(plain.get_parameters(), marked.get_parameters()):
        array_of(q)[...] = array_of(p)
    return plain, marked


def _close(a, b):
    for x, y in zip(a, b):
        np.testing.assert_allclose(x.asnumpy(), y.asnumpy(), rtol=2e-5, atol=1e-6)


@pytest.mark.usefixtures("mode")
def test_value_and_grad_equal_the_unmarked_net():
    plain, marked = _pair()
    got = [ad.value_and_grad(lambda x, n=n: n(x).sum(), 0, n.trainable_params())(X)
           for n in (plain, marked)]
    (v0, (gx0, gw0)), (v1, (gx1, gw1)) = got
    _close([v0, gx0, *gw0], [v1, gx1, *gw1])


def test_the_tape_does_not_keep_the_marked_cells_activations():
    held = []
    for net in _pair():
        with Tape() as tape:
            for p in net.trainable_params():
                tape.watch(p)
            net(X)
            arrays = {id(a): a.nbytes for n in tape.nodes for a in n.arrays if a is not None}
            held.append((len(tape.nodes), sum(arrays.values())))
    (n0, b0), (n1, b1) = held
    assert n1 < n0
    assert b0 - b1 >= 3 * 8 * 48 * 4  # the block's (8, 48) activations


def test_the_marked_cell_runs_again_in_the_backward_pass_only():
    _, net = _pair()
    net(X)
    assert net.block.calls == 1  # no tape: as written
    ad.grad(lambda x: net(x).sum())(X)
    assert net.block.calls == 3


@pytest.mark.parametrize("train", ["step", "model"])
def test_train_one_step_cell_and_model_train_equal_the_unmarked(mode, train):
    losses, weights = [], []
    for net in _pair():
        opt = SGD(net.trainable_params(), 0.05)
        if train == "step":
            step = TrainOneStepCell(WithLossCell(net, MSELoss()), opt)
            losses.append([step(X, Y).asnumpy() for _ in range(3)])
        else:
            data = [[X, Y]] * 3
            Model(net, MSELoss(), opt).train(1, _Data(data))
            losses.append([])
        weights.append([p.asnumpy() for p in net.trainable_params()])
    for a, b in zip(*losses):
        np.testing.assert_allclose(a, b, rtol=2e-5)
    for a, b in zip(*weights):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=1e-6)


class _Data:
    def __init__(self, batches):
        self.batches = batches

    def get_dataset_size(self):
        return len(self.batches)

    def create_tuple_iterator(self, num_epochs=-1, **kwargs):
        return self

    def __iter__(self):
        return iter(self.batches)


def test_graph_mode_step_reruns_the_cell_in_its_compiled_backward():
    previous = get_context("mode")
    set_context(mode=GRAPH_MODE)
    try:
        _graph_step()
    finally:
        set_context(mode=previous)


def _graph_step():
    _, net = _pair()
    step = TrainOneStepCell(WithLossCell(net, MSELoss()), SGD(net.trainable_params(), 0.05))
    step(X, Y)
    (graph,) = step.compiled_graphs()
    names = [n.name for n in graph.nodes if n.recompute == "Block"]
    assert names[:2] == ["Dense", "ReLU"] and "Fused" in names  # tanh(h) * tanh(h) fused


@pytest.mark.usefixtures("mode")
def test_batchnorm_statistics_update_once():
    plain, marked = _pair(lambda: BatchNorm1d(48))
    grads = []
    for net in (plain, marked):
        net.set_train()
        step = TrainOneStepCell(WithLossCell(net, MSELoss()), SGD(net.trainable_params(), 0.05))
        grads.append([step(X, Y) for _ in range(2)])
    _close(grads[0], grads[1])
    stats = [[Tensor(p.asnumpy()) for p in n.untrainable_params()] for n in (plain, marked)]
    _close(stats[0], stats[1])
    _close(plain.trainable_params(), marked.trainable_params())


@pytest.mark.usefixtures("mode")
def test_dropout_draws_the_same_mask_in_the_rerun():
    losses, weights = [], []
    for net in _pair(lambda: Dropout(p=0.5)):
        net.set_train()
        seed.set_seed(11)
        step = TrainOneStepCell(WithLossCell(net, MSELoss()), SGD(net.trainable_params(), 0.05))
        losses.append([step(X, Y) for _ in range(3)])
        weights.append(net.trainable_params())
    _close(losses[0], losses[1])
    _close(weights[0], weights[1])
    seed.set_rng_state(Tensor(np.array([-1, 0], np.int64)))


def test_keyword_arguments_are_accepted_or_refused_by_name():
    cell = Dense(2, 2)
    assert cell.recompute(mp_comm_recompute=True, parallel_optimizer_comm_recompute=True,
                          recompute_slice_activation=False) is cell
    cell.recompute(use_reentrant=False, context_fn=lambda: (_Null(), _Null()))
    with pytest.raises(ValueError, match="keyword 'bogus' is not recognized"):
        cell.recompute(bogus=True)
    with pytest.raises(TypeError, match="Dense.recompute: mp_comm_recompute must be a bool"):
        cell.recompute(mp_comm_recompute=1)
    for bad, why in [({"mp_comm_recompute": False}, "mp_comm_recompute=False"),
                     ({"recompute_slice_activation": True}, "recompute_slice_activation"),
                     ({"output_recompute": True}, "output_recompute=True"),
                     ({"context_fn": lambda: None}, "context_fn is only supported")]:
        with pytest.raises(ValueError, match=f"Dense.recompute: {why}"):
            cell.recompute(**bad)


class _Null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_a_cell_returning_a_non_tensor_is_named():
    class Pair(Cell):
        def construct(self, x):
            return [x * 2.0]

    class Outer(Cell):
        def __init__(self):
            super().__init__()
            self.inner = Pair().recompute()

        def construct(self, x):
            return self.inner(x)[0].sum()

    with pytest.raises(TypeError, match=r"Pair\.recompute\(\): a recomputed call must "
                                        r"return a Tensor or a tuple of Tensors, got list"):
        ad.grad(Outer())(X)


@pytest.mark.usefixtures("mode")
def test_the_functional_form_recomputes_one_call():
    from ms_nn.cell_recompute import recompute

    plain, other = _pair(mark=False)

    class Functional(Cell):
        def __init__(self, net):
            super().__init__()
            self.net = net

        def construct(self, x):
            return self.net.head(F.sin(recompute(self.net.block, x, 0.5, squash=True)))

    wrapped = Functional(other)
    got = ad.grad(lambda x: wrapped(x).sum(), 0, other.trainable_params())(X)
    want = ad.grad(lambda x: plain(x).sum(), 0, plain.trainable_params())(X)
    _close([got[0], *got[1]], [want[0], *want[1]])
    with pytest.raises(TypeError, match="recompute: block must be a Cell, got function"):
        recompute(lambda x: x, X)


def test_a_marked_graph_mode_network_differentiated_eagerly():
    previous = get_context("mode")
    set_context(mode=GRAPH_MODE)
    try:
        plain, marked = _pair(mark=False)
        marked.recompute()  # the compiled (outermost) Cell itself
        got = [ad.grad(n, 0, n.trainable_params())(X) for n in (plain, marked)]
    finally:
        set_context(mode=previous)
    _close([got[0][0], *got[0][1]], [got[1][0], *got[1][1]])
