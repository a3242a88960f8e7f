"""A float64 Conv2D that runs only inside a tensor-dependent ``if`` of a GRAPH_MODE Cell
(captured by a sub-trace; ``microspore ascend check`` must still see it)."""

import numpy as np

from ms_nn.cell import Cell
from ms_nn.layers import Conv2d
from ms_ops import functional as ops
from ms_tensor import Tensor, context
from ms_tensor import dtype as mstype


class Net(Cell):
    def __init__(self):
        super().__init__()
        self.conv = Conv2d(1, 4, 3, pad_mode="same", dtype=mstype.float64)

    def construct(self, x):
        if x.sum() > 0:
            y = self.conv(x)
        else:
            y = ops.tile(x, (1, 4, 1, 1)) * 2
        return ops.cast(y, mstype.float32)


context.set_context(mode=context.GRAPH_MODE)
net = Net()
x = Tensor(np.random.default_rng(0).standard_normal((2, 1, 6, 6)))
net(x)
