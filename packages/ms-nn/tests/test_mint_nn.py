"""``mint.nn`` layers and ``mint.nn.functional``: PyTorch's constructors, Parameter names
and numbers (numpy references here; the values were also compared with PyTorch 2.13 and,
where MindSpore 2.10's CPU build has the kernel, with MindSpore's mint)."""

import numpy as np
import pytest

import ms_ops as ops
from ms_nn.layers import mint_nn as N
from ms_ops import mint_nn_functional as F
from ms_tensor import Tensor

rng = np.random.default_rng(3)


def _t(a):
    return Tensor(np.asarray(a, np.float32))


def _names(net):
    return [p.name for p in net.get_parameters()]


def test_parameter_names_are_pytorchs():
    assert _names(N.Linear(3, 2)) == ["weight", "bias"]
    assert _names(N.Conv2d(3, 2, 3, bias=False)) == ["weight"]
    assert _names(N.BatchNorm2d(3)) == ["weight", "bias", "running_mean", "running_var",
                                        "num_batches_tracked"]
    assert N.ConvTranspose2d(4, 6, 3, groups=2).weight.shape == (4, 3, 3, 3)
    assert _names(N.Embedding(5, 2)) == ["weight"]


@pytest.mark.usefixtures("mode")
def test_linear_and_reflect_padded_conv_match_numpy():
    lin = N.Linear(5, 3)
    x = rng.standard_normal((4, 5)).astype(np.float32)
    ref = x @ lin.weight.asnumpy().T + lin.bias.asnumpy()
    np.testing.assert_allclose(lin(_t(x)).asnumpy(), ref, rtol=1e-5, atol=1e-6)
    conv = N.Conv2d(2, 3, 3, padding=1, padding_mode="reflect", bias=False)
    x = rng.standard_normal((1, 2, 5, 6)).astype(np.float32)
    xp = np.pad(x, [(0, 0), (0, 0), (1, 1), (1, 1)], mode="reflect")
    win = np.lib.stride_tricks.sliding_window_view(xp, (3, 3), axis=(2, 3))
    ref = np.einsum("nchwij,ocij->nohw", win, conv.weight.asnumpy())
    np.testing.assert_allclose(conv(_t(x)).asnumpy(), ref, rtol=1e-4, atol=1e-5)


@pytest.mark.usefixtures("mode")
def test_batchnorm_trains_with_pytorch_momentum_and_unbiased_running_variance():
    bn = N.BatchNorm3d(2, momentum=0.2)
    bn.set_train(True)
    x = rng.standard_normal((3, 2, 2, 3, 2)).astype(np.float32)
    out = bn(_t(x)).asnumpy()
    mean, var = x.mean((0, 2, 3, 4)), x.var((0, 2, 3, 4))
    ref = (x - mean[:, None, None, None]) / np.sqrt(var[:, None, None, None] + 1e-5)
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-5)
    n = x.size / 2
    np.testing.assert_allclose(bn.running_mean.asnumpy(), 0.2 * mean, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(bn.running_var.asnumpy(), 0.8 + 0.2 * var * n / (n - 1),
                               rtol=1e-5)
    assert int(bn.num_batches_tracked.asnumpy()) == 1
    bn.set_train(False)
    frozen = bn(_t(x)).asnumpy()
    np.testing.assert_allclose(frozen, (x - 0.2 * mean[:, None, None, None]) / np.sqrt(
        bn.running_var.asnumpy()[:, None, None, None] + 1e-5), rtol=1e-4, atol=1e-5)


def test_conv_layers_check_their_input():
    with pytest.raises(ValueError, match="Conv3d: input shape"):
        N.Conv3d(2, 3, 3)(ops.ones((1, 2, 4, 4)))
    with pytest.raises(ValueError, match="divisible by groups"):
        N.Conv1d(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match="padding_mode"):
        N.Conv2d(2, 2, 3, padding_mode="mirror")


def test_embedding_padding_row_starts_at_zero():
    emb = N.Embedding(6, 3, padding_idx=-1)
    assert emb.padding_idx == 5
    np.testing.assert_array_equal(emb.weight.asnumpy()[5], 0)
    out = emb(Tensor(np.array([[5, 0]], np.int64))).asnumpy()
    np.testing.assert_array_equal(out[0, 1], emb.weight.asnumpy()[0])


def test_losses_take_pytorch_reductions():
    p = 1 / (1 + np.exp(-rng.standard_normal((3, 4))))
    q = p[::-1].copy()
    kl = N.KLDivLoss("batchmean")(_t(np.log(p)), _t(q)).asnumpy()
    np.testing.assert_allclose(kl, (q * (np.log(q) - np.log(p))).sum() / 3, rtol=1e-5)
    kl = N.KLDivLoss("sum", log_target=True)(_t(np.log(p)), _t(np.log(q))).asnumpy()
    np.testing.assert_allclose(kl, (q * (np.log(q) - np.log(p))).sum(), rtol=1e-5)
    x, y = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    d = np.abs(x - y)
    ref = np.where(d < 0.5, 0.5 * d ** 2 / 0.5, d - 0.25).mean()
    np.testing.assert_allclose(N.SmoothL1Loss(beta=0.5)(_t(x), _t(y)).asnumpy(), ref,
                               rtol=1e-5)
    with pytest.raises(ValueError, match="MSELoss: reduction"):
        N.MSELoss("batchmean")


def test_functional_adapters():
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    np.testing.assert_allclose(F.normalize(_t(x), 1.0, 2).asnumpy(),
                               x / np.abs(x).sum(2, keepdims=True), rtol=1e-5)
    oh = F.one_hot(Tensor(np.array([2, 0], np.int64)))
    np.testing.assert_array_equal(oh.asnumpy(), [[0, 0, 1], [1, 0, 0]])
    assert oh.dtype == Tensor(np.array([0], np.int64)).dtype
    np.testing.assert_allclose(F.leaky_relu(_t(x), 0.2).asnumpy(), np.where(x > 0, x, 0.2 * x),
                               rtol=1e-6)
    assert F.flatten(_t(x)).shape == (24,)
    np.testing.assert_allclose(F.softmax(_t(x)).asnumpy().sum(-1), 1, rtol=1e-5)


def test_inplace_functions_write_into_their_input():
    x = _t([-1.0, 2.0, 0.5])
    assert F.relu_(x) is x
    np.testing.assert_array_equal(x.asnumpy(), [0.0, 2.0, 0.5])
    F.threshold_(x, 1.0, -3.0)
    np.testing.assert_array_equal(x.asnumpy(), [-3.0, 2.0, -3.0])


def test_channel_dropout_zeroes_whole_channels():
    x = ops.ones((4, 8, 3, 3))
    out = N.Dropout2d(0.5)
    out.set_train(True)
    y = out(x).asnumpy()
    per_channel = y.reshape(4, 8, 9)
    assert np.all(per_channel.min(-1) == per_channel.max(-1))
    assert set(np.unique(y)) <= {0.0, 2.0}
    out.set_train(False)
    assert out(x) is x


def test_max_unpool_puts_the_maxima_back():
    x = rng.standard_normal((1, 2, 4, 6)).astype(np.float32)
    values, idx = N.MaxPool2d(2, return_indices=True)(_t(x))
    back = N.MaxUnpool2d(2)(values, idx).asnumpy()
    kept = back != 0
    np.testing.assert_array_equal(back[kept], x[kept])
    assert kept.sum() == 12


@pytest.mark.usefixtures("mode")
def test_upsampling_layers():
    x = rng.standard_normal((1, 1, 2, 3)).astype(np.float32)
    near = N.UpsamplingNearest2d(scale_factor=2.0)(_t(x)).asnumpy()
    np.testing.assert_array_equal(near, x.repeat(2, 2).repeat(2, 3))
    corners = N.UpsamplingBilinear2d(size=(3, 5))(_t(x)).asnumpy()
    np.testing.assert_allclose(corners[..., ::2, ::2], x, rtol=1e-6)  # aligned corners
