"""Cell.recompute() inside a pipeline stage (one stage, in one process): on single cells the
gradients equal the plain pass's, the marked cells run twice per micro-batch (forward, then
again in the backward pass) and the others once, and the tape keeps fewer values; on every
cell the stage is one recomputed call."""

import numpy as np
import pytest

from ms_autodiff import value_and_grad
from ms_nn import Dense, MSELoss, ReLU, SequentialCell
from ms_parallel.auto.pipeline import PipelineCell
from ms_tensor import Tensor


class Counted(Dense):
    calls = 0

    def construct(self, x):
        type(self).calls += 1
        return super().construct(x)


class Counting(Counted):  # a second counter for the unmarked cells
    calls = 0


def network(marks):
    layers = []
    for i in range(4):
        kind = Counted if i in marks else Counting
        d = kind(6, 6)
        r = np.random.default_rng(i)
        d.weight.set_data(Tensor((r.standard_normal((6, 6)) * 0.5).astype(np.float32)))
        d.bias.set_data(Tensor((r.standard_normal(6) * 0.1).astype(np.float32)))
        if i in marks:
            d.recompute()
        layers.append(d)
    # a nested block: the marked Dense sits inside a SequentialCell child of the backbone
    return SequentialCell([layers[0], ReLU(), SequentialCell([layers[1], ReLU()]),
                           layers[2], ReLU(), layers[3]])


@pytest.mark.parametrize("marks", [{1}, {0, 2}, set()])
def test_marked_cells_recompute_and_the_gradients_stay(marks):
    rng = np.random.default_rng(3)
    x = Tensor(rng.standard_normal((8, 6)).astype(np.float32))
    y = Tensor(rng.standard_normal((8, 6)).astype(np.float32))
    net, ref_net = network(marks), network(set())
    assert sum("_recompute" in vars(c) for _, c in net.cells_and_names()) == len(marks)
    stage = PipelineCell(net, MSELoss(), 2, 0, 1)
    assert not stage.recompute  # not every cell is marked: per-cell recompute
    stage._boundary(x[:4])  # the first step's dry run of the shapes, done before counting
    Counted.calls = Counting.calls = 0
    loss, grads = stage.step(x, y)
    assert Counted.calls == 2 * 2 * len(marks)  # 2 micro-batches, forward and backward
    assert Counting.calls == 2 * (4 - len(marks))
    want_loss, want = value_and_grad(lambda a, b: MSELoss()(ref_net(a), b), None,
                                     ref_net.trainable_params())(x, y)
    np.testing.assert_allclose(float(loss.asnumpy()), float(want_loss.asnumpy()), rtol=1e-6)
    for g, w in zip(grads, want):
        np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-5, atol=1e-6)


def test_the_tape_holds_fewer_values():
    from ms_autodiff import vjp

    x = Tensor(np.ones((4, 6), np.float32))

    def recorded(net):
        out, pull = vjp(net, x, weights=net.trainable_params())
        tape = next(c.cell_contents for c in pull.__closure__
                    if type(c.cell_contents).__name__ == "Tape")
        return len(tape.nodes)

    net = network(set())
    plain = recorded(net)
    block = list(net.cells())[2]  # SequentialCell([Dense, ReLU]) inside the backbone
    block.recompute()
    # the block's two operators (and the activation between them) are one recorded call
    assert (plain, recorded(net)) == (7, 6)


def test_a_stage_of_marked_cells_is_one_recomputed_call():
    rng = np.random.default_rng(4)
    x = Tensor(rng.standard_normal((8, 6)).astype(np.float32))
    y = Tensor(rng.standard_normal((8, 6)).astype(np.float32))
    net, ref_net = network({0, 1, 2, 3}), network(set())
    for c in net.cells():
        c.recompute()
    stage = PipelineCell(net, MSELoss(), 2, 0, 1)
    assert stage.recompute
    stage._boundary(x[:4])
    Counted.calls = 0
    loss, grads = stage.step(x, y)
    assert Counted.calls == 2 * 2 * 4  # each Dense: once forward, once in the stage's rerun
    want_loss, want = value_and_grad(lambda a, b: MSELoss()(ref_net(a), b), None,
                                     ref_net.trainable_params())(x, y)
    np.testing.assert_allclose(float(loss.asnumpy()), float(want_loss.asnumpy()), rtol=1e-6)
    for g, w in zip(grads, want):
        np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-5, atol=1e-6)


def test_a_marked_cell_takes_non_tensor_arguments():
    from ms_autodiff import grad

    class Scale(Dense):
        def construct(self, x, k, twice=False):
            y = super().construct(x) * k
            return y * 2.0 if twice else y

    d = Scale(2, 2)
    x = Tensor(np.ones((1, 2), np.float32))
    want = grad(lambda a: d(a, 3.0, twice=True).sum(), None, d.trainable_params())(x)
    d.recompute()
    got = grad(lambda a: d(a, 3.0, twice=True).sum(), None, d.trainable_params())(x)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-6)
