import numpy as np
import pytest

import ms_ops as ops
from ms_ops.defs import arithmetic as A
from ms_ops.testing import check_bprop
from ms_tensor import Tensor, float16, float32, float64, int32, int64

BINARY = [(A.Add, np.add), (A.Sub, np.subtract), (A.Mul, np.multiply), (A.Div, np.true_divide)]
SHAPES = [((2, 3), (2, 3)), ((2, 3), (3,)), ((4, 1, 3), (2, 1)), ((), (2,))]


@pytest.mark.parametrize("op,ref", BINARY, ids=lambda v: getattr(v, "name", ""))
@pytest.mark.parametrize("sx,sy", SHAPES)
def test_binary_matches_numpy_with_broadcasting(op, ref, sx, sy):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(sx).astype(np.float32)
    y = rng.uniform(0.5, 2.0, sy).astype(np.float32)
    out = op(Tensor(x), Tensor(y))
    assert out.dtype == float32
    np.testing.assert_allclose(out.asnumpy(), ref(x, y), rtol=1e-6)


@pytest.mark.parametrize("op", [A.Add, A.Sub, A.Mul, A.Div], ids=lambda o: o.name)
@pytest.mark.parametrize("sx,sy", SHAPES)
def test_binary_gradients_match_finite_differences(op, sx, sy):
    rng = np.random.default_rng(1)
    check_bprop(op, rng.standard_normal(sx), rng.uniform(0.5, 2.0, sy))


def test_neg_gradient():
    check_bprop(A.Neg, np.random.default_rng(2).standard_normal((3, 2)))


@pytest.mark.parametrize("x_dtype,y,expected", [
    (int32, 2.5, float32),      # a float scalar lifts an int tensor to float32
    (int32, 2, int32),          # an int scalar keeps the tensor's int type
    (float16, 2.0, float16),    # and never widens a float tensor
    (float64, 1, float64),
])
def test_scalar_promotion_follows_mindspore(x_dtype, y, expected):
    assert (Tensor([1, 2], x_dtype) + y).dtype == expected


def test_tensor_promotion_and_true_division():
    assert (Tensor([1], int32) + Tensor([1.0], float16)).dtype == float16
    assert (Tensor([1], int32) / Tensor([2], int32)).dtype == float32
    np.testing.assert_allclose((Tensor([1], int64) / Tensor([2], int64)).asnumpy(), [0.5])


def test_reflected_operators_and_numpy_operands():
    x = Tensor(np.array([1.0, 2.0], np.float32))
    np.testing.assert_allclose((3 - x).asnumpy(), [2.0, 1.0])
    np.testing.assert_allclose((1 / x).asnumpy(), [1.0, 0.5])
    out = np.array([1.0, 1.0], np.float32) + x
    assert isinstance(out, Tensor)


def test_functional_class_and_method_reach_one_definition():
    x, y = Tensor(np.ones(3, np.float32)), Tensor(np.full(3, 2.0, np.float32))
    for out in (ops.add(x, y), ops.Add()(x, y), x.add(y), x + y):
        np.testing.assert_allclose(out.asnumpy(), 3.0)
    assert ops.Add.op is ops.add


def test_add_rejects_unbroadcastable_shapes_naming_both():
    with pytest.raises(ValueError, match=r"Add: x shape \(2, 3\) and y shape \(4,\)"):
        Tensor(np.ones((2, 3))) + Tensor(np.ones(4))


def test_add_rejects_non_tensor_input():
    with pytest.raises(TypeError, match="Add: input 'y'"):
        ops.add(Tensor([1.0]), object())
