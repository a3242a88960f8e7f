"""Cell.recompute() on single cells inside a pipeline stage (one stage, in one process):
the gradients equal the plain pass's, the marked cells run twice per micro-batch (forward,
then again in the backward pass) and the others once, and the tape keeps fewer values."""

import numpy as np
import pytest

from ms_autodiff import value_and_grad
from ms_nn import Dense, MSELoss, ReLU, SequentialCell
from ms_parallel.auto.pipeline import PipelineCell
from ms_parallel.auto.recompute import marked, recomputing
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
    assert len(marked(net.cells())) == len(marks)
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


def test_the_tape_holds_fewer_values_and_the_cells_are_restored():
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
    with recomputing(net.cells()) as patched:
        assert patched == [block]
        fewer = recorded(net)
    assert "construct" not in vars(block)  # outside, the cells run as written
    # the block's two operators (and the activation between them) are one recorded call
    assert (plain, fewer) == (7, 6), (plain, fewer)


def test_a_marked_cell_given_a_non_tensor_says_so():
    class Scale(Dense):
        def construct(self, x, k):
            return super().construct(x) * k

    d = Scale(2, 2).recompute()
    with recomputing([d]), pytest.raises(TypeError, match=r"Scale.recompute\(\): the cell's"):
        vjp_input = Tensor(np.ones((1, 2), np.float32))
        from ms_autodiff import vjp

        vjp(lambda a: d(a, 2.0), vjp_input, weights=d.trainable_params())
