# ruff: noqa: F401 -- a setup imports the names its examples use
"""A LeNet5 (the main job's, ``examples/lenet.py``, untrained) with a loss, an optimizer and
``Model``, the bundled digits' path and training split as ``ds``, one batch as ``x``/``y``,
and ``train_step(x, y)`` (one optimizer step, returning the loss)."""

import sys
from pathlib import Path

import numpy as np

import microspore as ms
from microspore import nn

sys.path.insert(0, str(Path(__import__("os").environ["MS_REPO"]) / "examples"))
from lenet import LeNet5, create_dataset  # noqa: E402 -- examples/ is put on the path above

from ms_data.bundled import digits_dir  # noqa: E402

path = digits_dir()
ds = ds_train = create_dataset(path, "train")
net = LeNet5()
loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
model = ms.Model(net, loss, opt, metrics={"accuracy"})
batch = next(ds.create_tuple_iterator())
x, y = batch[0].asnumpy(), batch[1].asnumpy()
epochs = 1
train_net = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)


def train_step(data, label):
    """One optimizer step on a batch; returns the loss."""
    return train_net(ms.Tensor(data), ms.Tensor(label))


train = train_step
