"""Tensor conversion/description methods and Tril/Triu/fliplr/flipud/unbind against numpy
and MindSpore 2.10's answers."""

import numpy as np
import pytest

import ms_ops as ops
from ms_autodiff import grad
from ms_tensor import (
    Tensor,
    bfloat16,
    bool_,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
)

X = np.array([[1.5, -2.0, 3.0]], np.float32)


@pytest.mark.parametrize("method,dtype", [("half", float16), ("float", float32),
                                          ("double", float64), ("bfloat16", bfloat16),
                                          ("int", int32), ("long", int64), ("short", int16),
                                          ("byte", uint8), ("bool", bool_)])
def test_cast_methods(method, dtype):
    out = getattr(Tensor(X), method)()
    assert out.dtype == dtype and out.shape == X.shape
    if dtype not in (bfloat16,):
        np.testing.assert_array_equal(out.asnumpy(), X.astype(dtype.np))


def test_cast_method_keeps_an_already_matching_tensor():
    x = Tensor(X)
    assert x.float() is x


def test_to_type_type_as():
    x = Tensor(X)
    assert x.to(int32).asnumpy().tolist() == [[1, -2, 3]]
    assert x.type() == "Float32"
    assert x.type(int8).dtype == int8
    assert x.type_as(Tensor(np.array([1], np.int16))).dtype == int16
    with pytest.raises(TypeError, match="Tensor.to: dtype must be a microspore dtype"):
        x.to("float32")


def test_predicates_and_counts():
    x = Tensor(X)
    assert x.is_floating_point() and not x.is_complex() and x.is_signed()
    assert not Tensor(np.array([1], np.uint8)).is_signed()
    assert ops.is_floating_point(x) and not ops.is_floating_point(Tensor(np.array([1])))
    assert x.ndimension() == 2 and x.nelement() == 3
    assert x.is_contiguous() and x.contiguous() is x


def test_shapes_from_another_tensor():
    x = Tensor(X)
    np.testing.assert_array_equal(x.expand_as(Tensor(np.zeros((2, 3)))).asnumpy(),
                                  np.broadcast_to(X, (2, 3)))
    assert x.reshape_as(Tensor(np.zeros((3, 1)))).shape == (3, 1)
    assert x.view_as(Tensor(np.zeros((3, 1)))).shape == (3, 1)
    with pytest.raises(ValueError):
        x.reshape_as(Tensor(np.zeros((2, 2))))


def test_new_tensors_take_the_dtype_unless_told():
    x = Tensor(X)
    z = x.new_zeros((2, 2))
    assert z.dtype == float32 and z.asnumpy().tolist() == [[0, 0], [0, 0]]
    assert x.new_ones(2, dtype=int32).asnumpy().tolist() == [1, 1]
    assert x.new_full((2,), 7).asnumpy().tolist() == [7, 7]
    assert x.new_empty((3,)).shape == (3,)
    assert x.fill(2.0).asnumpy().tolist() == [[2, 2, 2]]


def test_transposes():
    x = Tensor(X)
    np.testing.assert_array_equal(x.t().asnumpy(), X.T)
    np.testing.assert_array_equal(ops.t(x).asnumpy(), X.T)
    y = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    np.testing.assert_array_equal(Tensor(y).mT.asnumpy(), y.swapaxes(-1, -2))
    np.testing.assert_array_equal(Tensor(y).H.asnumpy(), y.swapaxes(-1, -2))
    with pytest.raises(ValueError, match="t: input must be at most 2-d"):
        ops.t(Tensor(y))
    with pytest.raises(ValueError, match="Tensor.mT: input must be at least 2-d"):
        _ = Tensor(np.ones(3)).mT


@pytest.mark.parametrize("diagonal", [-2, -1, 0, 1, 3])
def test_tril_triu_match_numpy(diagonal):
    x = np.random.default_rng(0).standard_normal((2, 4, 5))
    np.testing.assert_array_equal(ops.tril(Tensor(x), diagonal).asnumpy(), np.tril(x, diagonal))
    np.testing.assert_array_equal(Tensor(x).triu(diagonal).asnumpy(), np.triu(x, diagonal))


def test_tril_gradient_and_errors():
    g = grad(lambda v: (ops.tril(v) * 3).sum())(Tensor(np.ones((3, 3), np.float32)))
    np.testing.assert_array_equal(g.asnumpy(), np.tril(np.full((3, 3), 3)))
    with pytest.raises(ValueError, match="Tril: input must be at least 2-d"):
        ops.tril(Tensor(np.ones(3)))


def test_flips_and_unbind():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(ops.fliplr(Tensor(x)).asnumpy(), np.fliplr(x))
    np.testing.assert_array_equal(Tensor(x).flipud().asnumpy(), np.flipud(x))
    with pytest.raises(ValueError, match="fliplr: input must be at least 2-d"):
        ops.fliplr(Tensor(np.ones(3)))
    parts = Tensor(x).unbind(1)
    assert len(parts) == 3 and all(p.shape == (2,) for p in parts)
    np.testing.assert_array_equal(ops.unbind(Tensor(x), -2)[1].asnumpy(), x[1])
