"""MatMul through MKL (when installed) agrees with numpy's product, whatever the layout."""

import os
import subprocess
import sys

import numpy as np
import pytest

from ms_ops import blas
from ms_ops.defs import linalg

HAVE_MKL = blas.backend().startswith("mkl")
needs_mkl = pytest.mark.skipif(not HAVE_MKL, reason="the mkl package is not installed")
RNG = np.random.default_rng(0)


def _operand(shape, dtype, layout):
    a = RNG.standard_normal(shape).astype(dtype)
    if layout == "f":  # a transposed view: F-contiguous
        return np.ascontiguousarray(a.T).T
    if layout == "strided":
        return np.repeat(a, 2, axis=1)[:, ::2]
    return a


@needs_mkl
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
@pytest.mark.parametrize("layout", ["c", "f", "strided"])
def test_mkl_product_matches_numpy(dtype, ta, tb, layout):
    m, k, n = 48, 70, 33
    x = _operand((k, m) if ta else (m, k), dtype, layout)
    y = _operand((n, k) if tb else (k, n), dtype, layout)
    got = blas.matmul(x, y, ta, tb)
    assert got is not None and got.dtype == dtype and got.shape == (m, n)
    want = (x.T if ta else x) @ (y.T if tb else y)
    tol = 1e-4 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


@needs_mkl
def test_bits_do_not_depend_on_the_output_buffers_alignment():
    x, y = RNG.standard_normal((64, 300)).astype(np.float32), \
        RNG.standard_normal((300, 200)).astype(np.float32)
    fresh = blas.matmul(x, y)
    raw = np.empty(64 * 200 * 4 + 4, np.uint8)
    shifted = raw[4:].view(np.float32).reshape(64, 200)  # 4-byte, not 64-byte, aligned
    np.testing.assert_array_equal(blas.matmul(x, y, out=shifted), fresh)


@needs_mkl
def test_the_kernel_writes_into_a_given_out():
    x, y = RNG.standard_normal((40, 50)), RNG.standard_normal((50, 60))
    out = np.empty((40, 60))
    assert linalg.matmul_cpu(x, y, out=out) is out
    np.testing.assert_allclose(out, x @ y, rtol=1e-12)


@pytest.mark.parametrize("x,y", [
    (np.ones((4, 4), np.float32), np.ones((4, 4), np.float32)),  # too small to pay
    (np.ones((64, 64), np.int32), np.ones((64, 64), np.int32)),  # not a float
    (np.ones((64, 64), np.float32), np.ones((64, 64), np.float64)),  # mixed dtypes
], ids=["small", "int", "mixed"])
def test_what_mkl_does_not_take_is_left_to_numpy(x, y):
    assert blas.matmul(x, y) is None
    np.testing.assert_array_equal(linalg.matmul_cpu(x, y), np.dot(x, y))


def test_ms_ops_blas_numpy_turns_mkl_off():
    env = dict(os.environ, MS_OPS_BLAS="numpy")
    out = subprocess.run([sys.executable, "-c", "from ms_ops import blas; print(blas.backend())"],
                         env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "numpy"
