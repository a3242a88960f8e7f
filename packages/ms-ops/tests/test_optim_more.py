"""The extra fused optimizer updates against numpy formulas (MindSpore 2.10's CPU kernels
gave the same variables and accumulators on these inputs)."""

import numpy as np
import pytest

import ms_ops as ops
from ms_tensor import Parameter, Tensor

RNG = np.random.default_rng(0)
A, B, C, D = (RNG.random((2, 3)).astype(np.float32) + 0.1 for _ in range(4))


def _p(a, name):
    return Parameter(Tensor(a.copy()), name=name)


def test_adagrad_rmsprop_adadelta_update_in_place():
    var, acc = _p(A, "v"), _p(B, "acc")
    ops.ApplyAdagrad()(var, acc, Tensor(np.float32(0.1)), Tensor(C))
    np.testing.assert_allclose(acc.asnumpy(), B + C * C, rtol=1e-6)
    np.testing.assert_allclose(var.asnumpy(), A - 0.1 * C / np.sqrt(B + C * C), rtol=1e-6)
    var, ms, mom = _p(A, "v"), _p(B, "ms"), _p(C, "mom")
    ops.ApplyRMSProp()(var, ms, mom, Tensor(np.float32(0.01)), Tensor(D), 0.9, 0.5, 1e-6)
    want_ms = 0.9 * B + 0.1 * D * D
    want_mom = 0.5 * C + 0.01 * D / np.sqrt(want_ms + 1e-6)
    np.testing.assert_allclose(ms.asnumpy(), want_ms, rtol=1e-6)
    np.testing.assert_allclose(var.asnumpy(), A - want_mom, rtol=1e-6)
    var, acc, upd = _p(A, "v"), _p(B, "a"), _p(C, "u")
    ops.ApplyAdadelta()(var, acc, upd, 1.0, 0.9, 1e-6, Tensor(D))
    new_acc = 0.9 * B + 0.1 * D * D
    step = np.sqrt(C + 1e-6) * D / np.sqrt(new_acc + 1e-6)
    np.testing.assert_allclose(var.asnumpy(), A - step, rtol=1e-5)


def test_amsgrad_keeps_the_running_maximum_and_sgd_first_step():
    var, m, v, vhat = _p(A, "v"), _p(B, "m"), _p(C, "vv"), _p(np.full_like(D, 10.0), "vh")
    ops.ApplyAdamWithAmsgrad()(var, m, v, vhat, 0.9, 0.999, 0.01, Tensor(D))
    np.testing.assert_array_equal(vhat.asnumpy(), np.full_like(D, 10.0))
    param, acc, stat = _p(A, "p"), _p(B, "acc"), _p(np.ones_like(A), "stat")
    ops.SGD(0.0, 0.0, False)(param, Tensor(C), 0.1, acc, 0.9, stat)
    np.testing.assert_allclose(acc.asnumpy(), C)  # first step: the accumulator is the grad
    np.testing.assert_array_equal(stat.asnumpy(), 0)
    np.testing.assert_allclose(param.asnumpy(), A - 0.1 * C, rtol=1e-6)
    with pytest.raises(ValueError, match="SGD: dampening must be 0 with nesterov=True"):
        ops.SGD(0.1, 0.0, True)(_p(A, "p"), Tensor(C), 0.1, _p(B, "a"), 0.9, _p(A, "s"))


def test_accumulators_must_have_the_variable_dtype():
    with pytest.raises(TypeError, match="accum has dtype Float64 but var has Float32"):
        ops.ApplyAdagrad()(_p(A, "v"), Parameter(Tensor(B.astype(np.float64)), name="a"),
                           0.1, Tensor(C))
