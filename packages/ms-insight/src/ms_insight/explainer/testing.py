"""Networks and data for testing explainers, reused by the tests, the benchmark and
the docs: the main job's LeNet5, a small CNN, weights drawn from numpy (so that another
framework can be given the very same ones) and a synthetic task whose evidence region is
known: a seven-segment digit pasted at a random place into noise."""

from __future__ import annotations

import numpy as np

import ms_nn as nn
from ms_ops import functional as F
from ms_tensor import Tensor

__all__ = ["LeNet5", "SmallCNN", "random_weights", "load_weights", "digits_in_noise",
           "train"]


class LeNet5(nn.Cell):
    """examples/lenet.py's LeNet5 (1x32x32 in): conv-relu-pool twice, three dense layers."""

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


class SmallCNN(nn.Cell):
    """Two 3x3 'same' convolutions, a global max pool (so any position counts), a dense layer."""

    def __init__(self, channels=1, num_class=4, width=8):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, width, 3, pad_mode="same", has_bias=True)
        self.relu1 = nn.ReLU()
        self.conv2 = nn.Conv2d(width, width, 3, pad_mode="same", has_bias=True)
        self.relu2 = nn.ReLU()
        self.fc = nn.Dense(width, num_class)

    def construct(self, x):
        x = self.relu2(self.conv2(self.relu1(self.conv1(x))))
        return self.fc(F.amax(x, (2, 3)))


def random_weights(net, seed: int) -> dict[str, np.ndarray]:
    """He-scaled normal weights (biases small) for every parameter, by parameter name."""
    rng = np.random.default_rng(seed)
    out = {}
    for p in net.get_parameters():
        shape = tuple(p.shape)
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
        scale = np.sqrt(2.0 / fan_in) if len(shape) > 1 else 0.05
        out[p.name] = (rng.standard_normal(shape) * scale).astype(np.float32)
    return out


def load_weights(net, weights: dict[str, np.ndarray]):
    """Set every parameter of ``net`` from ``weights`` (by name); returns ``net``."""
    for p in net.get_parameters():
        p.set_data(Tensor(weights[p.name]))
    return net


# Seven segments on a 5-wide, 9-tall glyph: (rows, cols) of each stroke.
_SEGMENTS = {
    "a": (slice(0, 1), slice(0, 5)), "b": (slice(0, 5), slice(4, 5)),
    "c": (slice(4, 9), slice(4, 5)), "d": (slice(8, 9), slice(0, 5)),
    "e": (slice(4, 9), slice(0, 1)), "f": (slice(0, 5), slice(0, 1)),
    "g": (slice(4, 5), slice(0, 5)),
}
_DIGITS = {0: "abcdef", 1: "bc", 2: "abdeg", 3: "abcdg", 4: "bcfg", 5: "acdfg", 6: "acdefg",
           7: "abc", 8: "abcdefg", 9: "abcdfg"}


def _glyph(digit: int) -> np.ndarray:
    g = np.zeros((9, 5), np.float32)
    for seg in _DIGITS[digit]:
        g[_SEGMENTS[seg]] = 1.0
    return g


def digits_in_noise(n: int, size: int = 32, classes=(0, 1, 4, 7), noise: float = 0.35,
                    seed: int = 0):
    """``(images (n, 1, size, size) float32, labels (n,) int32 in range(len(classes)),
    masks (n, 1, size, size) bool)``: a seven-segment digit (scaled 2x, 18x10 pixels) at a
    random place over uniform noise; ``masks`` marks the digit's box, the true evidence."""
    rng = np.random.default_rng(seed)
    images = rng.uniform(0, noise, (n, 1, size, size)).astype(np.float32)
    labels = rng.integers(0, len(classes), n).astype(np.int32)
    masks = np.zeros((n, 1, size, size), bool)
    for i, label in enumerate(labels):
        g = np.kron(_glyph(classes[label]), np.ones((2, 2), np.float32))
        top = rng.integers(0, size - g.shape[0] + 1)
        left = rng.integers(0, size - g.shape[1] + 1)
        box = (slice(top, top + g.shape[0]), slice(left, left + g.shape[1]))
        images[i, 0][box] = np.maximum(images[i, 0][box], g)
        masks[i, 0][box] = True
    return images, labels, masks


def train(net, images, labels, epochs: int = 5, batch: int = 32, lr: float = 0.05, seed=0):
    """Train ``net`` with softmax cross-entropy and momentum SGD; returns its accuracy."""
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=lr, momentum=0.9)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), opt)
    step.set_train(True)
    rng = np.random.default_rng(seed)
    for _ in range(epochs):
        order = rng.permutation(len(images))
        for i in range(0, len(order), batch):
            idx = order[i:i + batch]
            step(Tensor(images[idx]), Tensor(labels[idx]))
    net.set_train(False)
    pred = net(Tensor(images)).asnumpy().argmax(axis=1)
    return float((pred == labels).mean())
