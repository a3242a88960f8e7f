# ruff: noqa: F401 -- a setup imports the names its examples use
"""A small MLP classifier with its loss, optimizer and ``Model``, a dataset of 20 batches
(``ds``, ``ds_train``), one batch as ``x``/``y``, and ``train_step(x, y)`` (one optimizer
step, returning the loss)."""

import numpy as np

import microspore as ms
from microspore import nn

rng = np.random.default_rng(0)
features = rng.standard_normal((320, 16)).astype(np.float32)
labels = (features[:, :4].argmax(axis=1)).astype(np.int32)
ds = ds_train = ms.dataset.NumpySlicesDataset((features, labels), ["x", "y"],
                                              shuffle=False).batch(16)
net = nn.SequentialCell(nn.Dense(16, 32), nn.ReLU(), nn.Dense(32, 4))
loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
opt = nn.Momentum(net.trainable_params(), 0.05, 0.9)
model = ms.Model(net, loss, opt, metrics={"accuracy"})
train_net = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
x, y = ms.Tensor(features[:16]), ms.Tensor(labels[:16])
epochs = 2


def train_step(data, label):
    """One optimizer step on a batch; returns the loss."""
    return train_net(data, label)


train = train_step
