"""Fixtures of the summary, lineage and profiler tests: the main job's LeNet5
(examples/lenet.py's layers) with synthetic digit batches, and reading event files back
the way TensorBoard does (its EventAccumulator)."""


from __future__ import annotations

import numpy as np
import pytest

import ms_nn as nn
from ms_tensor import Tensor, int32


class LeNet5(nn.Cell):
    def __init__(self, num_class=10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid", has_bias=False)
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid", has_bias=False)
        self.fc1 = nn.Dense(16 * 5 * 5, 120)
        self.fc2 = nn.Dense(120, 84)
        self.fc3 = nn.Dense(84, num_class)
        self.relu = nn.ReLU()
        self.max_pool2d = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()

    def construct(self, x):
        x = self.max_pool2d(self.relu(self.conv1(x)))
        x = self.max_pool2d(self.relu(self.conv2(x)))
        x = self.flatten(x)
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        return self.fc3(x)


def batches(n: int, batch: int = 8, seed: int = 0) -> list:
    """``n`` batches of (images NCHW float32 in [0, 1], int32 labels)."""
    rng = np.random.default_rng(seed)
    return [(Tensor(rng.random((batch, 1, 32, 32), dtype=np.float32)),
             Tensor(rng.integers(0, 10, batch).astype(np.int32), int32)) for _ in range(n)]


def model(lr: float = 0.01, metrics=None):
    """A LeNet5 ``Model`` with softmax cross entropy and Momentum."""
    from ms_nn.train.model import Model

    net = LeNet5()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), lr, 0.9)
    return Model(net, loss, opt, metrics=metrics), net


@pytest.fixture
def lenet():
    """The module's helpers: ``lenet.LeNet5``, ``lenet.batches(n)``, ``lenet.model()``."""
    import types

    return types.SimpleNamespace(LeNet5=LeNet5, batches=batches, model=model)


@pytest.fixture
def read_events():
    """``read_events(run_dir)``: an EventAccumulator keeping every step of every kind."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    def load(run_dir):
        ea = EventAccumulator(str(run_dir), size_guidance={"images": 0, "histograms": 0,
                                                           "tensors": 0, "scalars": 0})
        ea.Reload()
        return ea
    return load
