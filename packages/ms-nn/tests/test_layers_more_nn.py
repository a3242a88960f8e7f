"""nn.Conv3d, Conv1dTranspose, Conv3dTranspose, the 1-d/3-d/adaptive/LP pooling layers,
BatchNorm3d, InstanceNorm and channel dropout: shapes of MindSpore's pad modes, numpy
references, Parameter names (the values were compared with MindSpore 2.10: equal within
float32 rounding; MindSpore's CPU build has no InstanceNorm)."""

import numpy as np
import pytest

import ms_nn as nn
import ms_ops as ops
from ms_tensor import Tensor

pytestmark = pytest.mark.usefixtures("mode")
rng = np.random.default_rng(2)


def _t(a):
    return Tensor(np.asarray(a, np.float32))


def test_conv3d_same_padding_keeps_the_size_and_is_a_correlation():
    net = nn.Conv3d(2, 3, 3, has_bias=True)
    x = rng.standard_normal((1, 2, 4, 5, 5)).astype(np.float32)
    out = net(_t(x)).asnumpy()
    assert out.shape == (1, 3, 4, 5, 5)
    xp = np.pad(x, [(0, 0), (0, 0), (1, 1), (1, 1), (1, 1)])
    w, b = net.weight.asnumpy(), net.bias.asnumpy()
    ref = np.einsum("cdhw,ocdhw->o", xp[0, :, 1:4, 2:5, 0:3], w) + b
    np.testing.assert_allclose(out[0, :, 1, 2, 0], ref, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("mode_, size", [("same", (6, 8, 10)), ("valid", (7, 9, 11)),
                                         ("pad", (6, 9, 11))])
def test_conv3d_transpose_output_sizes(mode_, size):
    pad = (1, 1, 0, 1, 1, 0) if mode_ == "pad" else 0
    net = nn.Conv3dTranspose(2, 4, 3, stride=2, pad_mode=mode_, padding=pad,
                             output_padding=1 if mode_ == "pad" else 0)
    assert net(ops.ones((1, 2, 3, 4, 5))).shape == (1, 4) + size


def test_conv1d_transpose_is_the_adjoint_of_conv1d():
    up = nn.Conv1dTranspose(3, 2, 3, stride=2, pad_mode="valid")
    assert up.weight.shape == (3, 2, 1, 3)
    x = rng.standard_normal((1, 3, 5)).astype(np.float32)
    y = up(_t(x)).asnumpy()
    dy = rng.standard_normal(y.shape)
    down = ops.conv1d(_t(dy), Tensor(up.weight.asnumpy()[:, :, 0]), stride=2).asnumpy()
    np.testing.assert_allclose(np.sum(y * dy), np.sum(x * down), rtol=1e-4)


def test_3d_pooling_layers():
    x = rng.standard_normal((1, 2, 4, 5, 6)).astype(np.float32)
    out = nn.MaxPool3d(2, 2)(_t(x)).asnumpy()
    ref = x[:, :, :4, :4, :6].reshape(1, 2, 2, 2, 2, 2, 3, 2).max((3, 5, 7))
    np.testing.assert_array_equal(out, ref)
    same = nn.AvgPool3d(3, 2, pad_mode="same", count_include_pad=False)(_t(x))
    assert same.shape == (1, 2, 2, 3, 3)
    np.testing.assert_allclose(same.asnumpy()[0, :, 0, 0, 0], x[0, :, :3, :2, :3].mean((1, 2, 3)),
                               rtol=1e-5)
    assert nn.AdaptiveAvgPool3d((1, 1, 1))(_t(x)).shape == (1, 2, 1, 1, 1)
    np.testing.assert_allclose(nn.AdaptiveMaxPool1d(1)(_t(x[:, :, 0, 0])).asnumpy()[..., 0],
                               x[:, :, 0, 0].max(-1), rtol=1e-6)
    with pytest.raises(ValueError, match="padding must be 0 unless"):
        nn.MaxPool3d(2, padding=1)


def test_batchnorm3d_names_and_instance_norm():
    assert [p.name for p in nn.BatchNorm3d(2).get_parameters()] == [
        "bn2d.moving_mean", "bn2d.moving_variance", "bn2d.gamma", "bn2d.beta"]
    norm = nn.InstanceNorm2d(3)
    norm.set_train(True)
    x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    out = norm(_t(x)).asnumpy()
    ref = (x - x.mean((2, 3), keepdims=True)) / np.sqrt(x.var((2, 3), keepdims=True) + 1e-5)
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(norm.mean.asnumpy(), 0.1 * x.mean((2, 3)).mean(0), rtol=1e-4,
                               atol=1e-6)


def test_channel_dropout_layers():
    drop = nn.Dropout3d(0.5)
    drop.set_train(True)
    y = drop(ops.ones((4, 6, 2, 2, 2))).asnumpy().reshape(4, 6, -1)
    assert np.all(y.min(-1) == y.max(-1)) and set(np.unique(y)) <= {0.0, 2.0}
    drop.set_train(False)
    np.testing.assert_array_equal(drop(ops.ones((1, 2, 1, 1, 1))).asnumpy(), 1.0)


def test_ext_layers_are_the_mint_layers():
    from ms_nn.layers import mint_nn

    assert nn.Linear is mint_nn.Linear and nn.MaxPool2dExt is mint_nn.MaxPool2d
    assert nn.LPPool2d(2, 2)(ops.ones((1, 1, 4, 4))).shape == (1, 1, 2, 2)
