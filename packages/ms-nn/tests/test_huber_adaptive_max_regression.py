"""HuberLoss, AdaptiveMaxPool2d and the MAE/MSE metrics against numpy and the values real
MindSpore 2.10 gives for the same inputs."""

import numpy as np
import pytest

import ms_nn as nn
from ms_autodiff import grad
from ms_tensor import Tensor, int64

A = np.array([[0., 3.], [1., -4.]], np.float32)
B = np.array([0.5, 0.], np.float32)


def _huber(d, delta):
    d = np.abs(d)
    return np.where(d < delta, 0.5 * d ** 2, delta * (d - 0.5 * delta))


@pytest.mark.parametrize("delta", [1.0, 2.0, 0.3])
@pytest.mark.parametrize("reduction,reduce", [("mean", np.mean), ("sum", np.sum),
                                              ("none", lambda v: v)])
def test_huber_loss_matches_numpy(delta, reduction, reduce):
    out = nn.HuberLoss(reduction=reduction, delta=delta)(Tensor(A), Tensor(B))
    np.testing.assert_allclose(out.asnumpy(), reduce(_huber(A - B, delta)), rtol=1e-6)


def test_huber_loss_mindspore_values_gradient_and_errors():
    assert float(nn.HuberLoss(delta=2.0)(Tensor(A), Tensor(B))) == pytest.approx(2.5625)
    g = grad(lambda x: nn.HuberLoss(reduction="sum")(x, Tensor(B)))(Tensor(A))
    np.testing.assert_allclose(g.asnumpy(), np.clip(A - B, -1, 1))
    with pytest.raises(ValueError, match="HuberLoss: delta must be a number > 0"):
        nn.HuberLoss(delta=0)
    with pytest.raises(ValueError, match="reduction must be"):
        nn.HuberLoss(reduction="avg")


def test_adaptive_max_pool2d_values_and_indices():
    x = np.arange(32, dtype=np.float32).reshape(1, 2, 4, 4)
    out, idx = nn.AdaptiveMaxPool2d((2, 2), return_indices=True)(Tensor(x))
    np.testing.assert_array_equal(out.asnumpy(), x.reshape(1, 2, 2, 2, 2, 2).max((3, 5)))
    assert idx.dtype == int64
    np.testing.assert_array_equal(idx.asnumpy()[0, 1], [[5, 7], [13, 15]])  # MindSpore's
    assert nn.AdaptiveMaxPool2d(1)(Tensor(x[0])).shape == (2, 1, 1)
    assert nn.AdaptiveMaxPool2d((None, 2))(Tensor(x)).shape == (1, 2, 4, 2)


def test_adaptive_max_pool2d_errors():
    with pytest.raises(ValueError, match="AdaptiveMaxPool2d: output_size"):
        nn.AdaptiveMaxPool2d(0)
    with pytest.raises(TypeError, match="return_indices must be a bool"):
        nn.AdaptiveMaxPool2d(2, return_indices=1)
    with pytest.raises(ValueError, match="AdaptiveMaxPool2d"):
        nn.AdaptiveMaxPool2d(2)(Tensor(np.ones((4, 4), np.float32)))


PRED = np.array([[0.1, 0.2], [0.6, 0.9]], np.float32)
TRUE = np.array([[0.1, 0.25], [0.7, 0.9]], np.float32)


@pytest.mark.parametrize("metric,error,mindspore_value", [
    (nn.MAE, np.abs, 0.07499998062849045), (nn.MSE, np.square, 0.006249996367841959)])
def test_regression_metrics_sum_errors_per_sample(metric, error, mindspore_value):
    m = metric()
    m.update(Tensor(PRED), Tensor(TRUE))
    assert m.eval() == pytest.approx(mindspore_value, rel=1e-6)
    m.update(Tensor(PRED[:1]), Tensor(TRUE[:1]))
    assert m.eval() == pytest.approx(
        (error(TRUE - PRED).sum() + error(TRUE[:1] - PRED[:1]).sum()) / 3, rel=1e-6)
    m.clear()
    with pytest.raises(RuntimeError, match=f"'{metric.__name__}' can not be calculated"):
        m.eval()
    with pytest.raises(ValueError, match="must have as many elements"):
        m.update(Tensor(PRED), Tensor(TRUE[0]))


def test_regression_metrics_by_name_and_reshaped_labels():
    from ms_nn.train.metrics import get_metric_fn

    m = get_metric_fn("mae")
    m.update(Tensor(np.array([1.0, 2.0], np.float32)), Tensor(np.array([[1.0], [3.0]], np.float32)))
    assert m.eval() == 0.5
    assert isinstance(get_metric_fn("mse"), nn.MSE)
