"""A network a CPU runs happily and Ascend cannot: a float64 Conv2D, a random operator
(AI CPU) and a last batch of another size (a dynamic shape). Written against the packages
ms-device-ascend depends on (``import microspore as ms`` gives the same names)."""

import numpy as np

from ms_nn.cell import Cell
from ms_nn.layers import Conv2d, Dense
from ms_ops import functional as ops
from ms_tensor import Tensor
from ms_tensor import dtype as mstype


class Net(Cell):
    def __init__(self):
        super().__init__()
        self.conv = Conv2d(1, 4, 3, pad_mode="valid", dtype=mstype.float64)
        self.dense = Dense(4 * 6 * 6, 3)

    def construct(self, x):
        y = self.conv(x)
        y = ops.cast(y, mstype.float32).reshape(x.shape[0], -1)
        return self.dense(y + ops.standard_normal(y.shape) * 0.01)


net = Net()
for n in (4, 4, 3):  # the last batch is smaller
    x = Tensor(np.random.default_rng(n).standard_normal((n, 1, 8, 8)))
    net(x)
