"""RNNTLoss against a brute-force sum over every alignment, its gradient output against
finite differences, and its errors (MindSpore 2.10 has no CPU kernel to compare with)."""

import itertools

import numpy as np
import pytest

import ms_ops as ops
from ms_autodiff import grad
from ms_autodiff.testing import check_grad
from ms_tensor import Tensor

rng = np.random.default_rng(11)


def _brute_cost(logits, labels, blank):
    """-log of the summed probability of all paths: T blanks and U labels in some order,
    the last step a blank at (T - 1, U)."""
    lp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    t_len, u_len = lp.shape[0], len(labels)
    total = 0.0
    for moves in set(itertools.permutations("b" * (t_len - 1) + "l" * u_len)):
        t = u = 0
        logp = 0.0
        for m in moves:
            if m == "b":
                logp += lp[t, u, blank]
                t += 1
            else:
                logp += lp[t, u, labels[u]]
                u += 1
        total += np.exp(logp + lp[t, u, blank])
    return -np.log(total)


def test_rnnt_cost_is_the_sum_over_alignments_and_lengths_mask():
    acts = rng.standard_normal((2, 4, 3, 5))
    labels = np.array([[1, 3], [4, 0]], np.int32)
    costs, grads = ops.RNNTLoss(0)(Tensor(acts), Tensor(labels), Tensor([4, 3]), Tensor([2, 1]))
    want = [_brute_cost(acts[0], labels[0], 0), _brute_cost(acts[1, :3, :2], labels[1, :1], 0)]
    np.testing.assert_allclose(costs.asnumpy(), want, rtol=1e-5)
    g = grads.asnumpy()
    assert not g[1, 3:].any() and not g[1, :, 2:].any()  # past the sample's lengths
    np.testing.assert_allclose(g.sum(-1), 0, atol=1e-5)  # softmax gradients sum to zero
    other = ops.RNNTLoss(2)(Tensor(acts[:1]), Tensor(labels[:1]), Tensor([4]), Tensor([2]))[0]
    assert float(other[0]) == pytest.approx(_brute_cost(acts[0], labels[0], 2), rel=1e-5)


def test_rnnt_gradient_output_is_the_derivative():
    acts = rng.standard_normal((2, 3, 3, 4))
    args = (Tensor(np.array([[1, 2], [3, 3]], np.int32)), Tensor([3, 2]), Tensor([2, 2]))
    check_grad(lambda a: ops.RNNTLoss()(a, *args)[0], acts)
    taped = grad(lambda a: ops.sum(ops.RNNTLoss()(a, *args)[0]))(Tensor(acts))
    np.testing.assert_allclose(ops.RNNTLoss()(Tensor(acts), *args)[1].asnumpy(),
                               taped.asnumpy(), rtol=1e-6, atol=1e-9)


def test_rnnt_rejects_bad_shapes_and_values():
    acts = Tensor(np.zeros((1, 3, 3, 4), np.float32))
    with pytest.raises(ValueError, match=r"RNNTLoss: labels must be an int Tensor of shape"):
        ops.RNNTLoss()(acts, Tensor([[1, 2, 3]]), Tensor([3]), Tensor([2]))
    with pytest.raises(ValueError, match=r"labels must be in \[0, 4\)"):
        ops.RNNTLoss()(acts, Tensor([[1, 7]]), Tensor([3]), Tensor([2]))
    with pytest.raises(ValueError, match=r"input_lengths in \[1, 3\]"):
        ops.RNNTLoss()(acts, Tensor([[1, 2]]), Tensor([4]), Tensor([2]))
