"""``jit(grad(cell))`` compiles the gradient of a Cell (its ``construct`` converted when
called inside the capture), and each call equals the uncompiled gradient, including a
Tensor ``if`` whose branch changes from call to call."""

import numpy as np
from ms_graph import jit

from ms_autodiff import grad
from ms_nn import Cell
from ms_nn.layers import Dense
from ms_tensor import Tensor
from ms_tensor.seed import set_seed


class Branchy(Cell):
    def __init__(self):
        super().__init__()
        self.dense = Dense(3, 2)

    def construct(self, x):
        y = self.dense(x)
        if y.sum() > 0:
            y = y * 2
        else:
            y = y * 3
        return y.sum()


def test_jit_of_grad_of_a_cell_equals_grad_on_every_call():
    set_seed(3)
    net = Branchy()
    compiled = jit(grad(net, grad_position=0))
    for fill in (1.0, -1.0, 2.0, -0.5):
        x = Tensor(np.full((4, 3), fill, np.float32))
        np.testing.assert_allclose(compiled(x).asnumpy(),
                                   grad(net, grad_position=0)(x).asnumpy(), rtol=1e-6)
    assert compiled.misses >= 1 and compiled.hits >= 1
