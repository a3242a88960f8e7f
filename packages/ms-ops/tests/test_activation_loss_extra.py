"""The extra activations, losses and distances against numpy formulas (MindSpore 2.10 gave
the same values wherever its CPU build has the kernel)."""

import numpy as np
import pytest

import ms_ops as ops
from ms_autodiff import grad
from ms_tensor import Tensor

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4)).astype(np.float32)
Y = RNG.standard_normal((3, 4)).astype(np.float32)
P = (np.abs(RNG.standard_normal((3, 4))) + 0.1).astype(np.float32)
SIGN = np.sign(Y).astype(np.float32)


def _eq(got, want, rtol=1e-5):
    np.testing.assert_allclose(got.asnumpy(), want, rtol=rtol, atol=1e-6)


def _softplus(v):
    return np.logaddexp(0, v)


@pytest.mark.parametrize("fn,ref", [
    (lambda t: ops.celu(t, 0.5),
     lambda v: np.maximum(v, 0) + np.minimum(0, 0.5 * np.expm1(v / 0.5))),
    (ops.selu, lambda v: 1.0507009873554805 * np.where(v > 0, v, 1.6732632423543772 * np.expm1(v))),
    (lambda t: ops.hardtanh(t, -0.5, 0.7), lambda v: np.clip(v, -0.5, 0.7)),
    (ops.logsigmoid, lambda v: -_softplus(-v)),
    (lambda t: ops.softmin(t, 1), lambda v: np.exp(-v) / np.exp(-v).sum(1, keepdims=True)),
    (lambda t: ops.glu(t, 1), lambda v: v[:, :2] / (1 + np.exp(-v[:, 2:]))),
    (lambda t: ops.threshold(t, 0.1, 9.0), lambda v: np.where(v > 0.1, v, 9.0)),
    (ops.tanhshrink, lambda v: v - np.tanh(v)),
])
def test_activations(fn, ref):
    _eq(fn(Tensor(X)), ref(X))


def test_activation_errors_and_rrelu():
    with pytest.raises(ValueError, match="glu: axis 0 of input shape"):
        ops.glu(Tensor(X), 0)
    with pytest.raises(ValueError, match="hardtanh: min_val"):
        ops.hardtanh(Tensor(X), 1.0, -1.0)
    out = ops.rrelu(Tensor(X)).asnumpy()
    neg = X < 0
    np.testing.assert_array_equal(out[~neg], X[~neg])
    slopes = out[neg] / X[neg]
    assert ((slopes >= 1 / 8 - 1e-6) & (slopes <= 1 / 3 + 1e-6)).all()


def test_pixel_shuffle_round_trip_and_layout():
    img = np.arange(2 * 8 * 2 * 3, dtype=np.float32).reshape(2, 8, 2, 3)
    up = ops.pixel_shuffle(Tensor(img), 2)
    want = img.reshape(2, 2, 2, 2, 2, 3).transpose(0, 1, 4, 2, 5, 3).reshape(2, 2, 4, 6)
    _eq(up, want)
    _eq(ops.pixel_unshuffle(up, 2), img)
    with pytest.raises(ValueError, match="pixel_shuffle: channels 8 must be divisible by"):
        ops.pixel_shuffle(Tensor(img), 3)


def test_losses():
    logp = X - np.log(np.exp(X).sum(1, keepdims=True))
    q = np.exp(Y) / np.exp(Y).sum(1, keepdims=True)
    kl = q * (np.log(q) - logp)
    _eq(ops.kl_div(Tensor(logp), Tensor(q)), kl.mean())
    _eq(ops.kl_div(Tensor(logp), Tensor(q), "batchmean"), kl.sum() / 3)
    t = np.array([1.0, -1.0, 1.0], np.float32)
    _eq(ops.margin_ranking_loss(Tensor(X[:, 0]), Tensor(Y[:, 0]), Tensor(t), 0.2),
        np.maximum(0, -t * (X[:, 0] - Y[:, 0]) + 0.2).mean())
    _eq(ops.hinge_embedding_loss(Tensor(X), Tensor(SIGN), 0.5),
        np.where(SIGN == 1, X, np.maximum(0, 0.5 - X)).mean())
    cos = (X * Y).sum(1) / np.sqrt((X * X).sum(1) * (Y * Y).sum(1))
    _eq(ops.cosine_similarity(Tensor(X), Tensor(Y)), cos)
    _eq(ops.cosine_embedding_loss(Tensor(X), Tensor(Y), Tensor(t), 0.1),
        np.where(t == 1, 1 - cos, np.maximum(0, cos - 0.1)).mean())
    _eq(ops.soft_margin_loss(Tensor(X), Tensor(SIGN)), _softplus(-SIGN * X).mean())
    b = (Y > 0).astype(np.float32)
    _eq(ops.multilabel_soft_margin_loss(Tensor(X), Tensor(b), reduction="none"),
        (b * _softplus(-X) + (1 - b) * _softplus(X)).mean(1))
    _eq(ops.poisson_nll_loss(Tensor(X), Tensor(P)), (np.exp(X) - P * X).mean())
    _eq(ops.gaussian_nll_loss(Tensor(X), Tensor(Y), Tensor(P), True, reduction="sum"),
        (0.5 * (np.log(P) + (X - Y) ** 2 / P) + 0.5 * np.log(2 * np.pi)).sum())


def test_distances_and_margin_losses():
    d = lambda a, b, p=2: (np.abs(a - b + 1e-6) ** p).sum(-1) ** (1 / p)  # noqa: E731
    _eq(ops.pairwise_distance(Tensor(X), Tensor(Y)), d(X, Y))
    _eq(ops.triplet_margin_loss(Tensor(X), Tensor(Y), Tensor(P)),
        np.maximum(d(X, Y) - d(X, P) + 1.0, 0).mean())
    _eq(ops.triplet_margin_loss(Tensor(X), Tensor(Y), Tensor(P), p=1, swap=True),
        np.maximum(d(X, Y, 1) - np.minimum(d(X, P, 1), d(Y, P, 1)) + 1.0, 0).mean())
    target = np.array([0, 3, 1])
    picked = X[np.arange(3), target][:, None]
    margins = np.maximum(0, 1 - picked + X)
    margins[np.arange(3), target] = 0
    _eq(ops.multi_margin_loss(Tensor(X), Tensor(target)), (margins.sum(1) / 4).mean())
    with pytest.raises(ValueError, match="multi_margin_loss: p must be 1 or 2"):
        ops.multi_margin_loss(Tensor(X), Tensor(target), p=3)
    with pytest.raises(ValueError, match="reduction must be"):
        ops.soft_margin_loss(Tensor(X), Tensor(SIGN), "avg")


def test_losses_differentiate():
    g = grad(lambda a: ops.soft_margin_loss(a, Tensor(SIGN), "sum"))(Tensor(X))
    _eq(g, -SIGN / (1 + np.exp(SIGN * X)), rtol=1e-4)
    g = grad(lambda a: ops.logsigmoid(a).sum())(Tensor(X))
    _eq(g, 1 / (1 + np.exp(X)), rtol=1e-4)
