"""Networks shared by the explainer tests: LeNet5 with fixed random weights, a small CNN,
and a small CNN trained on digits pasted into noise (the task whose evidence is known)."""

import numpy as np
import pytest

from ms_insight.explainer.testing import (
    LeNet5,
    SmallCNN,
    digits_in_noise,
    load_weights,
    random_weights,
    train,
)


@pytest.fixture(scope="session")
def lenet():
    net = LeNet5()
    return load_weights(net, random_weights(net, 0))


@pytest.fixture(scope="session")
def small_cnn():
    net = SmallCNN(channels=3, num_class=4)
    return load_weights(net, random_weights(net, 1))


@pytest.fixture(scope="session")
def digits_task():
    """``(trained SmallCNN, images, labels, masks)``: 16 held-out samples of the task."""
    x, y, _ = digits_in_noise(320, seed=0)
    net = load_weights(SmallCNN(), random_weights(SmallCNN(), 0))
    accuracy = train(net, x, y, epochs=4)
    assert accuracy > 0.9, f"the synthetic task did not train ({accuracy:.2f})"
    xt, yt, mt = digits_in_noise(16, seed=1)
    return net, xt, yt, mt


@pytest.fixture
def rng():
    return np.random.default_rng(0)
