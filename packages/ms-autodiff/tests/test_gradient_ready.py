"""on_gradient_ready: each differentiated tensor's gradient is reported once, complete,
as soon as the backward pass no longer adds to it (the last layer's first)."""

import numpy as np

from ms_autodiff import grad, on_gradient_ready, value_and_grad
from ms_tensor import Parameter, Tensor


def test_reports_each_gradient_once_last_layer_first():
    w1 = Parameter(Tensor(np.full((3, 3), 0.5)), name="w1")
    w2 = Parameter(Tensor(np.full((3, 3), 0.25)), name="w2")
    x = Tensor(np.arange(3.0).reshape(1, 3))

    def loss(x):
        h = (x @ w1) * 2.0
        return ((h @ w2) * (h @ w2)).sum() + (w1 * w1).sum()  # w1 read twice

    seen = []
    with on_gradient_ready(lambda t, g: seen.append((t.name, g.asnumpy().copy()))):
        _, (g1, g2) = value_and_grad(loss, grad_position=None, weights=[w1, w2])(x)
    assert [name for name, _ in seen] == ["w2", "w1"]
    np.testing.assert_array_equal(seen[0][1], g2.asnumpy())
    np.testing.assert_array_equal(seen[1][1], g1.asnumpy())  # complete: both uses added


def test_nothing_is_called_outside_the_block():
    calls = []
    with on_gradient_ready(lambda t, g: calls.append(t)):
        pass
    grad(lambda x: (x * x).sum())(Tensor(np.ones(3)))
    assert calls == []
