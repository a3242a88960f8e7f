import numpy as np
import pytest

import ms_ops as ops
from ms_ops.defs import optim as O
from ms_ops.testing import check_against_reference
from ms_tensor import Tensor, float16, float32, registry

B1, B2, EPS, LR = 0.9, 0.999, 1e-8, 0.01


def _state(n=7, dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    var, accum, grad = (rng.standard_normal(n).astype(dtype) for _ in range(3))
    return var, accum, np.abs(rng.standard_normal(n)).astype(dtype), grad


def _copies(kernel, n_state):
    """Run an in-place kernel on copies of its first ``n_state`` inputs; return them."""
    def run(*args, **kwargs):
        state = [a.copy() for a in args[:n_state]]
        kernel(*state, *args[n_state:], **kwargs)
        return tuple(state)
    return run


@pytest.mark.parametrize("dtype,tol", [(np.float64, 1e-12), (np.float32, 1e-5)])
@pytest.mark.parametrize("nesterov", [False, True])
def test_cython_kernels_match_numpy_reference(dtype, tol, nesterov):
    var, m, v, g = _state(1000, dtype)
    check_against_reference(_copies(O.gradient_descent_cpu, 1), _copies(O.gradient_descent_ref,
                                                                         1), var, 0.1, g,
                            rtol=tol, atol=tol)
    check_against_reference(_copies(O.momentum_cpu, 2), _copies(O.momentum_ref, 2), var, m,
                            0.1, g, 0.9, use_nesterov=nesterov, rtol=tol, atol=tol)
    check_against_reference(_copies(O.adam_cpu, 3), _copies(O.adam_ref, 3), var, m, v,
                            B1 ** 3, B2 ** 3, LR, B1, B2, EPS, g, use_nesterov=nesterov,
                            rtol=tol, atol=tol)


def test_gradient_descent_steps_in_place():
    var, _, _, g = _state()
    t, want = Tensor(var.copy()), var.copy()
    for step in range(3):
        assert ops.ApplyGradientDescent()(t, Tensor(np.float64(0.5)), Tensor(g * step)) is t
        want -= 0.5 * g * step
    np.testing.assert_allclose(t.asnumpy(), want, rtol=1e-12)


@pytest.mark.parametrize("nesterov", [False, True])
def test_momentum_over_several_steps_matches_mindspore_formula(nesterov):
    var, acc, _, g = _state()
    tv, ta = Tensor(var.copy()), Tensor(acc.copy())
    lr, mom = Tensor(np.array([0.1])), Tensor(np.array(0.9))
    op = ops.ApplyMomentum(use_nesterov=nesterov)
    for step in range(4):
        grad = g * (step + 1)
        assert op(tv, ta, lr, Tensor(grad), mom) is tv
        acc = acc * 0.9 + grad
        var = var - (grad * 0.1 + acc * 0.9 * 0.1 if nesterov else 0.1 * acc)
    np.testing.assert_allclose(tv.asnumpy(), var, rtol=1e-12)
    np.testing.assert_allclose(ta.asnumpy(), acc, rtol=1e-12)


@pytest.mark.parametrize("nesterov", [False, True])
def test_adam_over_several_steps_matches_mindspore_formula(nesterov):
    var, m, v, g = _state()
    tv, tm, tvv = Tensor(var.copy()), Tensor(m.copy()), Tensor(v.copy())
    op = ops.Adam(use_nesterov=nesterov)
    for t in range(1, 5):
        grad = g * t - 0.3
        scalars = [Tensor(np.float64(s)) for s in (B1 ** t, B2 ** t, LR, B1, B2, EPS)]
        out = op(tv, tm, tvv, *scalars, Tensor(grad))
        assert out[0] is tv and out[1] is tm and out[2] is tvv  # MindSpore returns (var, m, v)
        m = m + (grad - m) * (1 - B1)
        v = v + (grad * grad - v) * (1 - B2)
        step = LR * np.sqrt(1 - B2 ** t) / (1 - B1 ** t)
        direction = m * B1 + grad * (1 - B1) if nesterov else m
        var = var - step * direction / (np.sqrt(v) + EPS)
    for got, want in ((tv, var), (tm, m), (tvv, v)):
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-12)


def test_float32_values_match_mindspore():
    g = Tensor(np.array([0.3, -0.2], np.float32))
    var, acc = Tensor(np.array([1.0, 2.0], np.float32)), Tensor(np.array([0.5, 0.1], np.float32))
    ops.ApplyMomentum()(var, acc, 0.1, g, 0.9)
    assert var.dtype == float32
    np.testing.assert_allclose(var.asnumpy(), [0.925, 2.011], rtol=1e-6)
    np.testing.assert_allclose(acc.asnumpy(), [0.75, -0.11], rtol=1e-6)
    var, m, v = (Tensor(np.array(a, np.float32)) for a in ([1.0, 2.0], [0.1, 0.2], [0.01, 0.02]))
    ops.Adam()(var, m, v, 0.9, 0.999, 0.01, 0.9, 0.999, 1e-8, g)
    np.testing.assert_allclose(var.asnumpy(), [0.9962204, 1.9964241], rtol=1e-6)
    np.testing.assert_allclose(m.asnumpy(), [0.12, 0.16], rtol=1e-6)
    np.testing.assert_allclose(v.asnumpy(), [0.01008, 0.02002], rtol=1e-6)


def test_half_precision_and_non_contiguous_use_the_reference_in_place():
    var, acc, _, g = _state(8, np.float16)
    tv, ta = Tensor(var.copy()), Tensor(acc.copy())
    ops.ApplyMomentum()(tv, ta, 0.5, Tensor(g), 0.5)
    assert tv.dtype == float16
    np.testing.assert_allclose(ta.asnumpy(), acc * 0.5 + g, rtol=1e-3)
    base = np.arange(12.0).reshape(3, 4)
    view = base[:, ::2]  # not contiguous: the numpy reference updates it where it lies
    O.gradient_descent_cpu(view, 1.0, np.ones((3, 2)))
    np.testing.assert_array_equal(base[:, ::2], np.arange(12.0).reshape(3, 4)[:, ::2] - 1)


def test_optimizers_take_no_gradient():
    reg = registry.load()
    for op in (O.ApplyGradientDescent, O.ApplyMomentum, O.Adam):
        assert not op.differentiable and reg.bprop(op) is None
    assert O.ApplyMomentum.inplace == 0 and O.Adam.inplace == (0, 1, 2)


@pytest.mark.parametrize("call,err,match", [
    (lambda v: ops.ApplyMomentum()(v, Tensor(np.zeros(3, np.float32)), 0.1, v, 0.9),
     ValueError, r"ApplyMomentum: accumulation shape \(3,\) must equal variable shape \(2,\)"),
    (lambda v: ops.ApplyMomentum()(v, Tensor(np.zeros(2)), 0.1, v, 0.9),
     TypeError, r"ApplyMomentum: accumulation has dtype Float64 but variable has Float32"),
    (lambda v: ops.ApplyGradientDescent()(v, Tensor(np.ones(2, np.float32)), v),
     ValueError, r"ApplyGradientDescent: alpha must be a number or a tensor of one value, "
                 r"got shape \(2,\)"),
    (lambda v: ops.Adam()(v, v, Tensor(np.zeros(2, np.float16)), 0.9, 0.9, 0.1, 0.9, 0.9, 1e-8,
                          v),
     TypeError, r"Adam: v has dtype Float16 but var has Float32"),
    (lambda v: ops.ApplyGradientDescent()(Tensor(np.ones(2, np.int32)), 0.1,
                                          Tensor(np.ones(2, np.int32))),
     TypeError, r"ApplyGradientDescent: input 'var' has dtype Int32"),
])
def test_errors_name_the_op_shapes_and_dtypes(call, err, match):
    with pytest.raises(err, match=match):
        call(Tensor(np.ones(2, np.float32)))
