# ruff: noqa: F401 -- a setup imports the names its examples use
"""What docs/auto_parallel.md's examples assume: the launcher's ranks initialised (``n`` of
them), a batch (``x`` with one-hot ``labels``, ``features`` with integer ``targets``), a
network written with sharded Primitives whose call returns the loss (``loss_net``), and a
Dense network with a layer named ``fc`` (``net``, with ``loss_fn``)."""

import numpy as np

import microspore as ms
from microspore import nn
from microspore.communication import get_group_size, get_rank, init
from microspore.dataset import NumpySlicesDataset
from microspore.nn import Adam
from microspore.train import Model
from ms_autodiff import value_and_grad
from ms_ops import MatMul, ReduceMean, ReLU, SoftmaxCrossEntropyWithLogits
from ms_parallel.auto import Topology
from ms_tensor import Parameter, Tensor

init()
n = get_group_size()
set_auto_parallel_context = ms.set_auto_parallel_context
ParallelMode = ms.ParallelMode
rng = np.random.default_rng(0)
batch, epochs = 8, 1
features = rng.standard_normal((32, 16)).astype(np.float32)
targets = (features[:, :8].argmax(axis=1)).astype(np.int32)
x = Tensor(features[:batch])
labels = Tensor(np.eye(8, dtype=np.float32)[targets[:batch]])


class LossNet(nn.Cell):
    """Column- then row-parallel MatMuls (Megatron's cut) and the loss."""

    def __init__(self):
        super().__init__()
        self.w1 = Parameter(Tensor((rng.standard_normal((16, 32)) * 0.3).astype(np.float32)),
                            name="w1")
        self.w2 = Parameter(Tensor((rng.standard_normal((32, 8)) * 0.3).astype(np.float32)),
                            name="w2")
        self.mm1 = MatMul().shard(((1, 1), (1, n)))
        self.mm2 = MatMul().shard(((1, n), (n, 1)))
        self.relu, self.loss, self.mean = ReLU(), SoftmaxCrossEntropyWithLogits(), ReduceMean()

    def construct(self, x, labels):
        logits = self.mm2(self.relu(self.mm1(x, self.w1)), self.w2)
        return self.mean(self.loss(logits, labels)[0])


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(16, 32)
        self.relu = nn.ReLU()
        self.out = nn.Dense(32, 8)

    def construct(self, x):
        return self.out(self.relu(self.fc(x)))


loss_net = LossNet()
net = Net()
loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
