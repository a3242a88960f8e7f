"""MindSpore's return structures for grad / value_and_grad / GradOperation / vjp / jvp.

Every expected value here was printed by MindSpore 2.10 for the same call.
"""

import numpy as np
import pytest

import ms_autodiff as ad
import ms_ops as ops
from ms_tensor import Parameter, ParameterTuple, Tensor
from ms_tensor import dtype as mstype


def f32(*v):
    return Tensor(np.array(v, np.float32))


def same(got, want, dtype=np.float32):
    """``got`` has ``want``'s nesting (tuples) and values; leaves are Tensors of dtype."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple), f"expected a tuple, got {type(got).__name__}"
        assert len(got) == len(want), f"expected {len(want)} entries, got {len(got)}"
        for g, w in zip(got, want):
            same(g, w, dtype)
        return
    assert isinstance(got, Tensor), f"expected a Tensor, got {type(got).__name__}"
    assert got.asnumpy().dtype == dtype
    np.testing.assert_allclose(got.asnumpy(), np.asarray(want, dtype), rtol=1e-6)


@pytest.fixture
def xy():
    return f32(1, 2), f32(3, 4)


@pytest.fixture
def w():
    return Parameter(f32(2, 2), name="w")


def mul_sum(a, b):
    return (a * b).sum()


def with_aux(a, b):
    return (a * b).sum(), a + 1


def test_grad_default_position(xy):
    same(ad.grad(mul_sum)(*xy), [3, 4])


def test_grad_position_tuple(xy):
    same(ad.grad(mul_sum, grad_position=(0, 1))(*xy), ([3, 4], [1, 2]))


def test_grad_position_tuple_of_one_is_a_tuple(xy):
    same(ad.grad(mul_sum, grad_position=(1,))(*xy), ([1, 2],))


def test_grad_negative_position(xy):
    same(ad.grad(mul_sum, grad_position=-1)(*xy), [1, 2])


def test_grad_has_aux(xy):
    same(ad.grad(with_aux, has_aux=True)(*xy), ([3, 4], ([2, 3],)))


def test_value_and_grad_has_aux(xy):
    same(ad.value_and_grad(with_aux, has_aux=True)(*xy), ((11, [2, 3]), [3, 4]))


def test_value_and_grad_plain(xy):
    same(ad.value_and_grad(mul_sum, grad_position=(0, 1))(*xy), (11, ([3, 4], [1, 2])))


def test_weights_only_list(xy, w):
    same(ad.grad(lambda a: (a * w).sum(), grad_position=None, weights=[w])(xy[0]), ([1, 2],))


def test_weights_parameter_tuple(xy, w):
    fn = ad.grad(lambda a: (a * w).sum(), grad_position=None, weights=ParameterTuple([w]))
    same(fn(xy[0]), ([1, 2],))


def test_weights_single_parameter(xy, w):
    same(ad.grad(lambda a: (a * w).sum(), grad_position=None, weights=w)(xy[0]), [1, 2])


def test_position_and_weights(xy, w):
    same(ad.grad(lambda a: (a * w).sum(), grad_position=0, weights=[w])(xy[0]),
         ([2, 2], ([1, 2],)))


def test_value_and_grad_position_and_weights(xy, w):
    same(ad.value_and_grad(lambda a: (a * w).sum(), grad_position=0, weights=[w])(xy[0]),
         (6, ([2, 2], ([1, 2],))))


def test_position_tuple_and_single_weight(xy, w):
    fn = ad.grad(lambda a, b: (a * b * w).sum(), grad_position=(0, 1), weights=w)
    same(fn(*xy), (([6, 8], [2, 4]), [3, 8]))


def test_weights_with_has_aux(xy, w):
    fn = ad.grad(lambda a: ((a * w).sum(), a * 3), grad_position=None, weights=[w], has_aux=True)
    same(fn(xy[0]), (([1, 2],), ([3, 6],)))


def test_return_ids(xy, w):
    pos, ws = ad.grad(lambda a, b: (a * b * w).sum(), grad_position=(0, 1), weights=[w],
                      return_ids=True)(*xy)
    assert [p for p, _ in pos] == [0, 1]
    same(tuple(g for _, g in pos), ([6, 8], [2, 4]))
    assert [n for n, _ in ws] == ["w"]
    same(ws[0][1], [3, 8])


def test_int_input_gets_int_gradient(xy):
    i = Tensor(np.array([1, 2], np.int32))
    gx, gi = ad.grad(mul_sum, grad_position=(0, 1))(xy[0], i)
    same(gx, [1, 2])
    same(gi, [1, 2], np.int32)


def test_int_gradient_is_the_float_gradient_cast():
    x = f32(1.7, -2.6)
    i = Tensor(np.array([3, 5], np.int32))
    gi = ad.grad(lambda a, b: (a * b).sum(), grad_position=1)(x, i)
    same(gi, np.array([1.7, -2.6], np.float32).astype(np.int32), np.int32)


def test_output_independent_of_input(xy):
    gx, gy = ad.grad(lambda a, b: a.sum(), grad_position=(0, 1))(*xy)
    same(gx, [1, 1])
    same(gy, [0, 0])


def test_independent_input_zeros_keep_shape_and_dtype():
    x = f32(1, 2)
    y = Tensor(np.ones((2, 3), np.float64))
    gy = ad.grad(lambda a, b: (a * a).sum(), grad_position=1)(x, y)
    assert gy.shape == (2, 3) and gy.dtype == mstype.float64
    assert not gy.asnumpy().any()


def test_tuple_output_sums_every_output(xy):
    same(ad.grad(lambda a: (a * 2, a * 3))(xy[0]), [5, 5])


def test_vjp_returns_a_tuple(xy):
    out, fn = ad.vjp(lambda a, b: a * b, *xy)
    same(out, [3, 8])
    same(fn(f32(1, 1)), ([3, 4], [1, 2]))


def test_vjp_of_one_input_is_a_tuple_of_one(xy):
    _, fn = ad.vjp(lambda a: a * 2, xy[0])
    same(fn(f32(1, 1)), ([2, 2],))


def test_vjp_function_can_be_called_twice(xy):
    _, fn = ad.vjp(lambda a, b: a * b, *xy)
    same(fn(f32(1, 1)), ([3, 4], [1, 2]))
    same(fn(f32(2, 0)), ([6, 0], [2, 0]))


def test_vjp_has_aux(xy):
    out, fn, aux = ad.vjp(lambda a: (a * a, a + 1), xy[0], has_aux=True)
    same(out, [1, 4])
    same(aux, ([2, 3],))
    same(fn(f32(1, 1)), ([2, 4],))


def test_jvp_single_input(xy):
    same(ad.jvp(lambda a: a ** 2, xy[0], f32(1, 1)), ([1, 4], [2, 4]))


def test_jvp_two_inputs(xy):
    same(ad.jvp(lambda a, b: a * b, xy, (f32(1, 1), f32(1, 1))), ([3, 8], [4, 6]))


def test_jvp_tuple_output(xy):
    same(ad.jvp(lambda a: (a * 2, a * a), xy[0], f32(1, 0)), (([2, 4], [1, 4]), ([2, 0], [2, 0])))


def test_grad_operation_default(xy):
    same(ad.GradOperation()(mul_sum)(*xy), [3, 4])


def test_grad_operation_get_all(xy):
    same(ad.GradOperation(get_all=True)(mul_sum)(*xy), ([3, 4], [1, 2]))


def test_grad_operation_sens_param(xy):
    same(ad.GradOperation(sens_param=True)(lambda a: a * 2)(xy[0], f32(1, 10)), [2, 20])


def test_grad_operation_by_list(xy, w):
    same(ad.GradOperation(get_by_list=True)(lambda a: (a * w).sum(), [w])(xy[0]), ([1, 2],))


def test_grad_operation_all_and_by_list(xy, w):
    go = ad.GradOperation(get_all=True, get_by_list=True)
    same(go(lambda a: (a * w).sum(), ParameterTuple([w]))(xy[0]), (([2, 2],), ([1, 2],)))


def test_ops_namespace_has_the_functions(xy):
    same(ops.grad(mul_sum)(*xy), [3, 4])
    same(ops.GradOperation()(mul_sum)(*xy), [3, 4])
    same(ops.value_and_grad(mul_sum)(*xy), (11, [3, 4]))


# -- errors ---------------------------------------------------------------------


def test_grad_position_out_of_range(xy):
    with pytest.raises(ValueError, match=r"grad_position 2 is out of range .* 2 positional"):
        ad.grad(mul_sum, grad_position=2)(*xy)


def test_grad_position_wrong_type(xy):
    with pytest.raises(TypeError, match="grad_position must be an int"):
        ad.grad(mul_sum, grad_position=1.0)(*xy)


def test_positions_and_weights_both_none():
    with pytest.raises(ValueError, match="cannot both be None"):
        ad.grad(mul_sum, grad_position=None)


def test_non_tensor_output(xy):
    with pytest.raises(TypeError, match="must return Tensors, got float"):
        ad.grad(lambda a: 1.0)(xy[0])


def test_non_tensor_differentiated_argument():
    with pytest.raises(TypeError, match="argument 0 is differentiated but is a float"):
        ad.grad(lambda a: a)(1.0)


def test_has_aux_without_tuple(xy):
    with pytest.raises(ValueError, match="has_aux=True the function must return a tuple"):
        ad.grad(lambda a: a.sum(), has_aux=True)(xy[0])


@pytest.mark.parametrize("weights", [3, [1.0], "w"])
def test_weights_of_the_wrong_type(xy, weights):
    with pytest.raises(TypeError, match="weight"):
        ad.grad(lambda a: a.sum(), grad_position=None, weights=weights)(xy[0])


def test_grad_operation_by_list_without_weights():
    with pytest.raises(ValueError, match="needs weights"):
        ad.GradOperation(get_by_list=True)(mul_sum)


def test_sens_count_mismatch(xy):
    with pytest.raises(ValueError, match="2 sens values for 1 outputs"):
        ad.GradOperation(sens_param=True)(lambda a: a * 2)(xy[0], (f32(1, 1), f32(1, 1)))


def test_vjp_cotangent_of_wrong_shape(xy):
    _, fn = ad.vjp(lambda a: a * 2, xy[0])
    with pytest.raises(ValueError, match=r"cotangent must be a Tensor of its output's shape"):
        fn(f32(1, 1, 1))


def test_jvp_tangent_count(xy):
    with pytest.raises(ValueError, match="2 tangents for 1 inputs"):
        ad.jvp(lambda a: a, xy[0], (f32(1, 1), f32(1, 1)))


def test_vjp_with_weights_returns_input_and_weight_gradients_like_mindspore():
    # MindSpore 2.10: ((dx,), (dw,)) = ((w,), (x,)) for x * w with a ones cotangent
    w = Parameter(Tensor(np.array([2.0, 3.0], np.float32)), name="w")
    x = Tensor(np.array([1.0, 4.0], np.float32))
    out, fn = ad.vjp(lambda a: a * w, x, weights=[w])
    (dx,), (dw,) = fn(Tensor(np.ones(2, np.float32)))
    np.testing.assert_allclose(out.asnumpy(), [2.0, 12.0])
    np.testing.assert_allclose(dx.asnumpy(), [2.0, 3.0])
    np.testing.assert_allclose(dw.asnumpy(), [1.0, 4.0])
