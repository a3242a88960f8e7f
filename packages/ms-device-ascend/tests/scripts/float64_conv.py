"""A network a CPU runs happily and Ascend cannot: a float64 Conv2D, a random operator
(AI CPU) and a last batch of another size (a dynamic shape)."""

import numpy as np

import microspore as ms
from microspore import nn, ops


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, pad_mode="valid", dtype=ms.float64)
        self.dense = nn.Dense(4 * 6 * 6, 3)

    def construct(self, x):
        y = self.conv(x)
        y = ops.cast(y, ms.float32).reshape(x.shape[0], -1)
        return self.dense(y + ops.standard_normal(y.shape) * 0.01)


net = Net()
for n in (4, 4, 3):  # the last batch is smaller
    x = ms.Tensor(np.random.default_rng(n).standard_normal((n, 1, 8, 8)))
    net(x)
