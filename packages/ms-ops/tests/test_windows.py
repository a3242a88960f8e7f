"""Window functions against numpy's (symmetric) windows and their periodic forms."""

import numpy as np
import pytest

import ms_ops as ops
from ms_tensor import Tensor
from ms_tensor import dtype as mstype


def _n(k):
    return Tensor(np.int64(k))


@pytest.mark.parametrize("name,numpy_fn,arg", [
    ("bartlett_window", np.bartlett, _n), ("blackman_window", np.blackman, _n),
    ("hamming_window", np.hamming, int), ("hann_window", np.hanning, int),
    ("kaiser_window", lambda m: np.kaiser(m, 12.0), int),
])
@pytest.mark.parametrize("length", [1, 2, 5, 8])
def test_windows_match_numpy(name, numpy_fn, arg, length):
    fn = getattr(ops, name)
    symmetric = fn(arg(length), periodic=False, dtype=mstype.float64).asnumpy()
    np.testing.assert_allclose(symmetric, numpy_fn(length), atol=1e-12)
    periodic = fn(arg(length), dtype=mstype.float64).asnumpy()
    np.testing.assert_allclose(periodic, numpy_fn(length + 1)[:-1] if length > 1 else [1.0],
                               atol=1e-12)


def test_window_dtypes_and_options():
    assert ops.bartlett_window(_n(4)).dtype is mstype.float32
    assert ops.hann_window(4).dtype is mstype.float64  # MindSpore 2.10's default
    assert ops.kaiser_window(4, dtype=mstype.float16).dtype is mstype.float16
    np.testing.assert_allclose(
        ops.hamming_window(6, periodic=False, alpha=0.5, beta=0.5).asnumpy(), np.hanning(6),
        atol=1e-7)
    np.testing.assert_allclose(ops.kaiser_window(7, False, beta=5.0).asnumpy(),
                               np.kaiser(7, 5.0), atol=1e-12)
    assert ops.hann_window(0).shape == (0,)


def test_window_classes():
    np.testing.assert_allclose(ops.BartlettWindow()(Tensor(np.int32(5))).asnumpy(),
                               np.bartlett(6)[:-1], atol=1e-7)
    w = ops.BlackmanWindow(False, mstype.float64)(Tensor(np.array([5])))
    assert w.dtype is mstype.float64
    np.testing.assert_allclose(w.asnumpy(), np.blackman(5), atol=1e-12)
    np.testing.assert_allclose(
        ops.HammingWindow(periodic=False, alpha=0.6, beta=0.4)(Tensor(np.int32(4))).asnumpy(),
        0.6 - 0.4 * np.cos(2 * np.pi * np.arange(4) / 3), atol=1e-7)


@pytest.mark.parametrize("call,error", [
    (lambda: ops.bartlett_window(5), TypeError),
    (lambda: ops.bartlett_window(Tensor(np.float32(5))), TypeError),
    (lambda: ops.blackman_window(Tensor(np.int32([5, 6]))), TypeError),
    (lambda: ops.hann_window(-1), ValueError),
    (lambda: ops.hann_window(2.5), TypeError),
    (lambda: ops.hamming_window(4, dtype=mstype.int32), TypeError),
    (lambda: ops.kaiser_window(4, periodic=1), TypeError),
])
def test_windows_reject_bad_arguments(call, error):
    with pytest.raises(error):
        call()
