import numpy as np
import pytest

import ms_ops as ops
from ms_ops.defs import linalg
from ms_ops.defs.linalg import BatchMatMul, MatMul
from ms_ops.testing import check_bprop
from ms_tensor import Tensor, float16, float32, int32

FLAGS = [(False, False), (False, True), (True, False), (True, True)]


def _t(a, flag):
    return np.swapaxes(a, -1, -2) if flag else a


@pytest.mark.parametrize("ta,tb", FLAGS)
def test_matmul_matches_numpy_for_every_transpose(ta, tb):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 3) if ta else (3, 4)).astype(np.float32)
    y = rng.standard_normal((5, 4) if tb else (4, 5)).astype(np.float32)
    out = ops.MatMul(transpose_a=ta, transpose_b=tb)(Tensor(x), Tensor(y))
    np.testing.assert_allclose(out.asnumpy(), _t(x, ta) @ _t(y, tb), rtol=1e-5)


@pytest.mark.parametrize("ta,tb", FLAGS)
def test_matmul_gradients(ta, tb):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 3) if ta else (3, 4))
    y = rng.standard_normal((5, 4) if tb else (4, 5))
    check_bprop(MatMul, x, y, attrs={"transpose_a": ta, "transpose_b": tb})


@pytest.mark.parametrize("ta,tb", FLAGS)
def test_batch_matmul_broadcasts_batch_dims_and_gradients_sum_back(ta, tb):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 1, 4, 3) if ta else (2, 1, 3, 4))
    y = rng.standard_normal((3, 5, 4) if tb else (3, 4, 5))
    out = BatchMatMul(Tensor(x), Tensor(y), transpose_a=ta, transpose_b=tb)
    np.testing.assert_allclose(out.asnumpy(), np.matmul(_t(x, ta), _t(y, tb)), rtol=1e-6)
    check_bprop(BatchMatMul, x, y, attrs={"transpose_a": ta, "transpose_b": tb})


@pytest.mark.parametrize("sa,sb", [((3,), (3,)), ((3,), (3, 4)), ((2, 3), (3,)),
                                   ((5, 2, 3), (3, 4)), ((2, 3), (4, 3, 2))])
def test_functional_matmul_follows_numpy_rules(sa, sb):
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal(sa).astype(np.float32), rng.standard_normal(sb).astype(np.float32)
    out = ops.matmul(Tensor(a), Tensor(b))
    np.testing.assert_allclose(out.asnumpy(), np.matmul(a, b), rtol=1e-5)
    assert (Tensor(a) @ Tensor(b)).shape == np.matmul(a, b).shape


def test_matmul_promotes_mixed_dtypes():
    out = ops.MatMul()(Tensor(np.ones((2, 2)), int32), Tensor(np.ones((2, 2)), float16))
    assert out.dtype == float16


def test_matmul_rejects_mismatched_inner_dim():
    with pytest.raises(ValueError, match=r"MatMul: x shape \(2, 3\) and y shape \(4, 5\) "
                                         r"cannot be multiplied: 3 != 4"):
        ops.MatMul()(Tensor(np.ones((2, 3)), float32), Tensor(np.ones((4, 5)), float32))


def test_matmul_rejects_non_matrices_and_bool():
    with pytest.raises(ValueError, match="MatMul: x and y must be 2-d"):
        ops.MatMul()(Tensor(np.ones(3)), Tensor(np.ones((3, 2))))
    with pytest.raises(TypeError, match="MatMul: input 'x' has dtype Bool"):
        ops.MatMul()(Tensor(np.ones((2, 2), bool)), Tensor(np.ones((2, 2), bool)))


def test_batch_matmul_rejects_unbroadcastable_batches():
    with pytest.raises(ValueError, match=r"BatchMatMul: x batch shape \(2,\) and y batch shape "
                                         r"\(3,\) cannot be broadcast"):
        BatchMatMul(Tensor(np.ones((2, 2, 2))), Tensor(np.ones((3, 2, 2))))


def test_matmul_rule_skips_input_gradients_the_caller_does_not_want():
    from ms_ops import needing
    from ms_ops.defs.linalg import matmul_bprop

    x, y = Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((3, 4), np.float32))
    dout = Tensor(np.ones((2, 4), np.float32))
    with needing((False, True)):
        dx, dy = matmul_bprop(x, y, out=None, dout=dout)
    assert dx is None and dy.shape == (3, 4)
    dx, dy = matmul_bprop(x, y, out=None, dout=dout)  # outside: every gradient
    assert dx.shape == (2, 3) and dy.shape == (3, 4)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
@pytest.mark.parametrize("x_shape", [(6, 40), (40,), (2, 3, 40)])
@pytest.mark.parametrize("bias", [True, False])
def test_dense_matches_numpy(dtype, x_shape, bias):
    rng = np.random.default_rng(1)
    x = (rng.standard_normal(x_shape) * 3).astype(dtype)
    w = (rng.standard_normal((70, 40)) * 3).astype(dtype)
    b = (rng.standard_normal(70) * 3).astype(dtype) if bias else None
    got = ops.dense(Tensor(x), Tensor(w), None if b is None else Tensor(b))
    want = x @ w.T + (0 if b is None else b)
    assert got.shape == want.shape and got.asnumpy().dtype == dtype
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-4)


def test_dense_promotes_like_matmul():
    x = Tensor(np.ones((2, 3), np.int32))
    w = Tensor(np.ones((4, 3), np.float32))
    assert ops.dense(x, w, Tensor(np.ones(4, np.float32))).dtype == float32


@pytest.mark.parametrize("x_shape,w_shape,b_shape,match", [
    ((2, 3), (4, 5), None, r"Dense: x shape \(2, 3\) and w shape \(4, 5\) cannot be multiplied"),
    ((2, 3), (4, 3), (3,), r"Dense: b must have shape \(4,\)"),
    ((2, 3), (4, 3, 1), None, r"Dense: x must be at least 1-d and w 2-d"),
])
def test_dense_errors_name_the_op_and_shapes(x_shape, w_shape, b_shape, match):
    args = [Tensor(np.ones(x_shape, np.float32)), Tensor(np.ones(w_shape, np.float32))]
    if b_shape is not None:
        args.append(Tensor(np.ones(b_shape, np.float32)))
    with pytest.raises(ValueError, match=match):
        ops.dense(*args)


def test_dense_without_mkl_gives_the_same_values(monkeypatch):
    rng = np.random.default_rng(2)
    x, w, b = (rng.standard_normal(s).astype(np.float32) for s in ((64, 100), (50, 100), (50,)))
    with_blas = linalg.dense_cpu(x, w, b)
    monkeypatch.setattr(linalg, "blas_matmul", lambda *a, **k: None)
    np.testing.assert_allclose(linalg.dense_cpu(x, w, b), with_blas, rtol=1e-5, atol=1e-5)
