"""The small math, image-quality and loss layers against numpy (compared with MindSpore
2.10 too: equal within 2e-6 where its CPU build has the kernel; SSIM/MSSSIM/PSNR only run
there in GRAPH_MODE, MatDet/MatInverse/MultilabelMarginLoss not at all)."""

import math

import numpy as np
import pytest

import ms_nn as nn
from ms_tensor import Tensor

rng = np.random.default_rng(8)


def _t(a):
    return Tensor(np.asarray(a, np.float32))


def test_math_layers():
    x = rng.standard_normal((3, 4)).astype(np.float32)
    mean, var = nn.Moments(1, keep_dims=True)(_t(x))
    np.testing.assert_allclose(mean.asnumpy(), x.mean(1, keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(var.asnumpy(), x.var(1, keepdims=True), rtol=1e-5)
    spd = x[:, :3].T @ x[:, :3] + 3 * np.eye(3, dtype=np.float32)
    np.testing.assert_allclose(nn.MatDet()(_t(spd)).asnumpy(), np.linalg.det(spd), rtol=1e-4)
    np.testing.assert_allclose(nn.MatInverse()(_t(spd)).asnumpy(), np.linalg.inv(spd),
                               rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(nn.LBeta()(_t([2.0]), _t([3.0])).asnumpy(),
                               [math.log(1 / 12)], rtol=1e-5)
    assert nn.Range(0.5, 2.0, 0.5)().asnumpy().tolist() == [0.5, 1.0, 1.5]
    with pytest.raises(ValueError, match="delta must not be zero"):
        nn.Range(0, 3, 0)


def test_bidense_channel_shuffle_lrn():
    net = nn.BiDense(3, 4, 2)
    x1, x2 = rng.standard_normal((5, 3)), rng.standard_normal((5, 4))
    ref = np.einsum("ni,oij,nj->no", x1, net.weight.asnumpy(), x2) + net.bias.asnumpy()
    np.testing.assert_allclose(net(_t(x1), _t(x2)).asnumpy(), ref, rtol=1e-4, atol=1e-5)
    x = np.arange(12, dtype=np.float32).reshape(1, 6, 1, 2)
    out = nn.ChannelShuffle(2)(_t(x)).asnumpy()
    np.testing.assert_array_equal(out[0, :, 0, 0], x[0, [0, 3, 1, 4, 2, 5], 0, 0])
    x = rng.standard_normal((1, 5, 2, 2)).astype(np.float32)
    sq = np.pad(x ** 2, [(0, 0), (1, 1), (0, 0), (0, 0)])
    total = sq[:, :5] + sq[:, 1:6] + sq[:, 2:7]
    np.testing.assert_allclose(nn.LRN(1, 2.0, 0.5, 0.75)(_t(x)).asnumpy(),
                               x / (2.0 + 0.5 * total) ** 0.75, rtol=1e-5)


def test_image_quality():
    a = rng.random((2, 1, 16, 16)).astype(np.float32)
    b = np.clip(a + 0.05 * rng.standard_normal(a.shape), 0, 1).astype(np.float32)
    psnr = nn.PSNR()(_t(a), _t(b)).asnumpy()
    np.testing.assert_allclose(psnr, 10 * np.log10(1 / ((a - b) ** 2).mean((1, 2, 3))),
                               rtol=1e-5)
    assert nn.SSIM()(_t(a), _t(a)).asnumpy() == pytest.approx([1.0, 1.0], abs=1e-5)
    ssim = nn.SSIM()(_t(a), _t(b)).asnumpy()
    assert np.all((ssim > 0) & (ssim < 1))
    assert nn.CentralCrop(0.5)(_t(a)).shape == (2, 1, 8, 8)
    with pytest.raises(ValueError, match="smaller than filter_size"):
        nn.SSIM()(_t(a[..., :8, :8]), _t(b[..., :8, :8]))


def test_multilabel_margin_and_triplet_losses():
    x = rng.standard_normal((2, 4)).astype(np.float32)
    target = np.array([[3, 0, -1, 1], [2, -1, 0, 0]])
    ref = []
    for row, t in zip(x, target):
        ts = list(t[:list(t).index(-1)])
        ref.append(sum(max(0, 1 - row[j] + row[i]) for j in ts for i in range(4)
                       if i not in ts) / 4)
    out = nn.MultilabelMarginLoss("none")(_t(x), Tensor(target))
    np.testing.assert_allclose(out.asnumpy(), ref, rtol=1e-5)
    a, p, n = (rng.standard_normal((3, 5)) for _ in range(3))
    d = lambda u, v: np.linalg.norm(u - v + 1e-6, axis=-1)  # noqa: E731
    ref = np.maximum(d(a, p) - np.minimum(d(a, n), d(p, n)) + 1.0, 0).mean()
    loss = nn.TripletMarginWithDistanceLoss(swap=True)(_t(a), _t(p), _t(n))
    assert float(loss.asnumpy()) == pytest.approx(ref, rel=1e-4)
