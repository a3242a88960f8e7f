"""PipelineCell takes any network whose construct is a chain of its children (MindSpore's
tutorial networks), and refuses, naming the cell, a construct the stages cannot cut."""

import numpy as np
import pytest

from ms_nn import Cell, SequentialCell
from ms_nn.layers import Dense, ReLU
from ms_nn.loss import MSELoss
from ms_parallel.auto.pipeline import PipelineCell
from ms_tensor import Tensor
from ms_tensor.seed import set_seed


class Chain(Cell):
    """As in MindSpore's pipeline tutorial: children called in order, one after another."""

    def __init__(self):
        super().__init__()
        self.layer1 = Dense(4, 8)
        self.relu = ReLU()
        self.layer2 = Dense(8, 2)

    def construct(self, x):
        x = self.layer1(x)
        x = self.relu(x)
        return self.layer2(x)


class Residual(Chain):
    def construct(self, x):
        h = self.relu(self.layer1(x))
        return self.layer2(h) + x[:, :2]


class Reordered(Chain):
    def construct(self, x):
        return self.layer2(self.relu(self.layer1(x * 2.0)))


class Skips(Chain):
    def construct(self, x):
        return self.layer2(self.layer1(x))


def _data():
    rng = np.random.default_rng(0)
    return (Tensor(rng.standard_normal((4, 4)).astype(np.float32)),
            Tensor(rng.standard_normal((4, 2)).astype(np.float32)))


def test_a_chain_network_trains_as_its_sequential_equivalent():
    x, y = _data()
    set_seed(1)
    chain = Chain()
    seq = SequentialCell([chain.layer1, chain.relu, chain.layer2])
    loss_c, grads_c = PipelineCell(chain, MSELoss(), 2, 0, 1).step(x, y)
    loss_s, grads_s = PipelineCell(seq, MSELoss(), 2, 0, 1).step(x, y)
    np.testing.assert_allclose(loss_c.asnumpy(), loss_s.asnumpy(), rtol=1e-6)
    for a, b in zip(grads_c, grads_s):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-6)


@pytest.mark.parametrize("net, message", [
    (Residual, r"does not return its last cell's output \(Dense\)"),
    (Reordered, r"cell 0 \(Dense\) is not called on the network's input alone"),
    (Skips, r"calls its cells as \['Dense', 'Dense'\]"),
])
def test_a_construct_the_stages_cannot_cut_is_refused_by_name(net, message):
    x, y = _data()
    with pytest.raises(ValueError, match=message):
        PipelineCell(net(), MSELoss(), 2, 0, 1).step(x, y)
