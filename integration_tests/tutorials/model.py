"""The model-building tutorial's patterns: a Cell with layers, SequentialCell, CellList,
parameters by name, forward with known weights."""

import mindspore
import numpy as np
from _common import report
from mindspore import Parameter, Tensor, nn, ops


class Network(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, pad_mode="same", has_bias=True)
        self.bn = nn.BatchNorm2d(4)
        self.flatten = nn.Flatten()
        self.dense_relu_sequential = nn.SequentialCell(
            nn.Dense(4 * 8 * 8, 16), nn.ReLU(), nn.Dense(16, 10))
        self.heads = nn.CellList([nn.Dense(10, 2), nn.Dense(10, 3)])
        self.scale = Parameter(Tensor(np.float32(0.5)), name="scale")

    def construct(self, x):
        x = self.flatten(ops.relu(self.bn(self.conv(x))))
        logits = self.dense_relu_sequential(x) * self.scale
        return logits, self.heads[0](logits), self.heads[1](logits)


net = Network()
rng = np.random.default_rng(0)
for p in net.get_parameters():
    if p.name.endswith(("gamma", "moving_variance")):
        p.set_data(Tensor(np.ones(p.shape, np.float32)))
    elif p.name.endswith(("beta", "moving_mean")):
        p.set_data(Tensor(np.zeros(p.shape, np.float32)))
    elif p.name != "scale":
        p.set_data(Tensor((rng.standard_normal(p.shape) * 0.2).astype(np.float32)))
net.set_train(False)
x = Tensor(rng.standard_normal((2, 1, 8, 8)).astype(np.float32))
logits, a, b = net(x)
pred = nn.Softmax(axis=1)(logits).argmax(1)
report(names=[p.name for p in net.get_parameters()],
       trainable=[p.name for p in net.trainable_params()],
       shapes=[list(p.shape) for p in net.trainable_params()],
       logits=logits, heads=[a, b], pred=pred,
       cells=sorted(name for name, _ in net.cells_and_names()),
       dtype=str(mindspore.float32))
