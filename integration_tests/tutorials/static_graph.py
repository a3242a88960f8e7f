"""The static-graph tutorial's patterns: GRAPH_MODE, jit functions with tensor control flow,
jit on a Cell's construct, a Parameter updated inside a compiled Cell."""

import mindspore
import numpy as np
from _common import report
from mindspore import Parameter, Tensor, nn, ops

mindspore.set_context(mode=mindspore.GRAPH_MODE)


@mindspore.jit
def branchy(x, y):
    if x.sum() > y.sum():
        out = x * 2
    else:
        out = y - 1
    for _ in range(3):
        out = out + 1
    while out.max() < 20:
        out = out * 2
    return out


class Accumulate(nn.Cell):
    def __init__(self):
        super().__init__()
        self.total = Parameter(Tensor(np.zeros(2, np.float32)), name="total")

    def construct(self, x):
        ops.assign(self.total, self.total + x)
        return self.total * 1


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(3, 2)
        for p, v in zip(self.dense.trainable_params(), (np.eye(2, 3), np.ones(2))):
            p.set_data(Tensor(v.astype(np.float32)))

    def construct(self, x):
        return ops.relu(self.dense(x)) if x.shape[0] > 1 else self.dense(x)


a = Tensor(np.array([1.0, 2.0], np.float32))
b = Tensor(np.array([3.0, 4.0], np.float32))
acc = Accumulate()
first, second = acc(a), acc(b)
net = Net()
x = Tensor(np.array([[1.0, -2.0, 3.0], [-1.0, 0.5, 0.0]], np.float32))


def loss_of(t):
    return branchy(t, b).sum()


grad = mindspore.grad(loss_of)(a)
report(branch=[branchy(a, b), branchy(b, a)], acc=[first, second], net=net(x),
       single=net(x[:1]), grad=grad)
