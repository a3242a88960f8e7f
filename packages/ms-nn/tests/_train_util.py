"""Small datasets and networks shared by the Model / callback tests."""

import numpy as np

from ms_nn.layers import Dense
from ms_nn.loss import SoftmaxCrossEntropyWithLogits
from ms_nn.optim import Momentum
from ms_tensor import Tensor


class ArrayDataset:
    """The dataset protocol Model accepts: each pass over the iterator is one epoch."""

    def __init__(self, n_batches=10, batch=4, seed=0):
        rng = np.random.default_rng(seed)
        self.x = rng.standard_normal((n_batches, batch, 4)).astype(np.float32)
        self.y = rng.integers(0, 3, (n_batches, batch)).astype(np.int32)
        self.served = []  # batch indices in the order they were handed out

    def get_dataset_size(self):
        return len(self.x)

    def create_tuple_iterator(self, num_epochs=-1, **kwargs):
        return _Iterator(self, num_epochs)


class _Iterator:
    def __init__(self, ds, num_epochs):
        self.ds, self.left = ds, num_epochs

    def __iter__(self):
        if self.left == 0:
            raise RuntimeError("EOF: fetched data beyond the specified number of epochs")
        self.left -= 1
        for i in range(len(self.ds.x)):
            self.ds.served.append(i)
            yield [Tensor(self.ds.x[i]), Tensor(self.ds.y[i])]


def make_net(seed=0):
    net = Dense(4, 3)
    rng = np.random.default_rng(seed)
    net.weight.set_data(Tensor(rng.standard_normal((3, 4)).astype(np.float32) * 0.5))
    net.bias.set_data(Tensor(np.zeros(3, np.float32)))
    return net


def make_parts(seed=0):
    net = make_net(seed)
    loss = SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = Momentum(net.trainable_params(), 0.1, 0.9)
    return net, loss, opt
