"""Gradient hooks: InsertGradientOf transforms, HookBackward observes or replaces,
DumpGradient saves; all are the identity forward."""

import numpy as np

import ms_ops as ops
from ms_autodiff import grad
from ms_autodiff.grad_hooks import DumpGradient, HookBackward, InsertGradientOf
from ms_tensor import Tensor

X = np.array([1.0, 2.0], np.float32)


def test_insert_gradient_of_scales_the_gradient():
    g = grad(lambda v: (InsertGradientOf(lambda d: d * 3)(v) * v).sum())(Tensor(X))
    np.testing.assert_allclose(g.asnumpy(), X * 3 + X)  # the hooked path tripled
    np.testing.assert_array_equal(InsertGradientOf(lambda d: d)(Tensor(X)).asnumpy(), X)


def test_hook_backward_sees_and_may_replace(tmp_path):
    seen = []
    g = grad(lambda v: (HookBackward(lambda d: seen.append(d.asnumpy()))(v) * 2).sum())(
        Tensor(X))
    np.testing.assert_allclose(g.asnumpy(), [2.0, 2.0])
    np.testing.assert_allclose(seen[0], [2.0, 2.0])
    g = grad(lambda v: HookBackward(lambda d: d * 0)(v).sum())(Tensor(X))
    np.testing.assert_allclose(g.asnumpy(), [0.0, 0.0])
    path = tmp_path / "g"
    grad(lambda v: (DumpGradient()(str(path), v) * 5).sum())(Tensor(X))
    np.testing.assert_allclose(np.load(str(path) + ".npy"), [5.0, 5.0])
    assert ops.HookBackward is HookBackward
