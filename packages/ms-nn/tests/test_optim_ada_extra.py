"""Adadelta and AdaMax: three steps on fixed gradients give the parameters real MindSpore
2.10 gives (printed to 6 decimals by the same script run on both)."""

import numpy as np
import pytest

import ms_nn as nn
from ms_tensor import Parameter, Tensor

W0 = np.array([[0.5, -1.0], [2.0, 0.3]], np.float32)
B0 = np.array([0.1, -0.2], np.float32)
GRADS = [(np.array([[0.1, -0.3], [0.2, 0.05]], np.float32), np.array([0.4, -0.1], np.float32)),
         (np.array([[-0.2, 0.1], [0.3, -0.05]], np.float32), np.array([-0.1, 0.2], np.float32)),
         (np.array([[0.05, 0.2], [-0.1, 0.4]], np.float32), np.array([0.3, 0.3], np.float32))]
MINDSPORE = {
    "Adadelta": ([[0.497000, -1.012246], [1.944161, 0.256726]], [0.045933, -0.259302]),
    "AdaMax": ([[0.437997, -0.875938], [1.774912, 0.168778]], [-0.083605, -0.178025]),
    "AdaMaxWD": ([[0.434243, -0.870688], [1.770301, 0.163423]], [-0.083558, -0.177171]),
}
MAKERS = {
    "Adadelta": lambda p: nn.Adadelta(p, learning_rate=0.5, rho=0.8, epsilon=1e-3),
    "AdaMax": lambda p: nn.AdaMax(p, learning_rate=0.1),
    "AdaMaxWD": lambda p: nn.AdaMax(p, learning_rate=0.1, weight_decay=0.01),
}


@pytest.mark.parametrize("name", MINDSPORE)
def test_three_steps_match_mindspore(name):
    w, b = Parameter(Tensor(W0.copy()), name="w"), Parameter(Tensor(B0.copy()), name="b")
    opt = MAKERS[name]([w, b])
    for gw, gb in GRADS:
        opt((Tensor(gw), Tensor(gb)))
    want_w, want_b = MINDSPORE[name]
    np.testing.assert_allclose(w.asnumpy(), want_w, atol=2e-6)
    np.testing.assert_allclose(b.asnumpy(), want_b, atol=2e-6)


def test_arguments_are_checked():
    w = Parameter(Tensor(W0.copy()), name="w")
    with pytest.raises(ValueError, match="Adadelta: rho must be in"):
        nn.Adadelta([w], rho=1.5)
    with pytest.raises(TypeError, match="AdaMax: beta1 must be a float"):
        nn.AdaMax([w], beta1=1)
    with pytest.raises(ValueError, match="AdaMax: eps must be > 0.0"):
        nn.AdaMax([w], eps=0.0)
