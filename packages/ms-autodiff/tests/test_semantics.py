"""What the tape must get right: control flow, reuse, views, slice assignment, mutation,
integer inputs, custom gradients and stop_gradient."""

import numpy as np
import pytest

import ms_autodiff as ad
import ms_ops as ops
from ms_autodiff.testing import check_grad
from ms_tensor import Tensor
from ms_tensor import dtype as mstype

A = np.array([[0.5, -1.2, 2.0], [1.5, 0.3, -0.7]])
C = np.array([[1.0, 2.0, -1.0], [0.5, -3.0, 4.0]])


def g(fn, *arrays, pos=0):
    out = ad.grad(fn, grad_position=pos)(*[Tensor(a) for a in arrays])
    return tuple(o.asnumpy() for o in out) if isinstance(out, tuple) else out.asnumpy()


# -- control flow on values ------------------------------------------------------


def branchy(x):
    if x.sum() > 0:
        return (x * x).sum()
    return (-3 * x).sum()


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_if_on_a_value(sign):
    x = sign * np.abs(A)
    want = 2 * x if sign > 0 else np.full_like(x, -3.0)
    np.testing.assert_allclose(g(branchy, x), want)


def test_for_loop():
    def power4(x):
        y = x
        for _ in range(3):
            y = y * x
        return y.sum()

    np.testing.assert_allclose(g(power4, A), 4 * A ** 3)


def test_while_on_a_value():
    def doubling(x):
        y = x
        while y.sum() < 50:
            y = y * 2
        return y.sum()

    x = np.array([1.0, 2.0])  # 3 -> 6 -> 12 -> 24 -> 48 -> 96: five doublings
    np.testing.assert_allclose(g(doubling, x), [32.0, 32.0])


def test_early_return_in_a_loop():
    def first_big(x):
        for i in range(x.shape[0]):
            row = x[i]
            if row.sum() > 1:
                return (row * row).sum()
        return x.sum()

    want = np.zeros_like(A)
    want[0] = 2 * A[0]  # row 0 sums to 1.3 > 1: the loop returns there
    np.testing.assert_allclose(g(first_big, A), want)
    small = A - 5
    np.testing.assert_allclose(g(first_big, small), np.ones_like(A))


# -- reuse, views, slice assignment ----------------------------------------------


def test_a_tensor_used_several_times_accumulates():
    np.testing.assert_allclose(g(lambda x: (x * x + x + ops.exp(x) * x).sum(), A),
                               2 * A + 1 + np.exp(A) * (A + 1))


def test_same_tensor_at_two_positions():
    x = Tensor(A)
    gx1, gx2 = ad.grad(lambda a, b: (a * b * b).sum(), grad_position=(0, 1))(x, x)
    np.testing.assert_allclose(gx1.asnumpy(), A ** 2)
    np.testing.assert_allclose(gx2.asnumpy(), 2 * A * A)


def test_views_reshape_transpose_getitem():
    def f(x):
        r = x.reshape(3, 2).T  # (2, 3)
        return (r * Tensor(C)).sum() + (x[0] * 5).sum() + x[1, 2] * 7

    want = C.T.reshape(2, 3)  # d/dx of <x.reshape(3, 2).T, C> is C.T reshaped back
    want[0] += 5
    want[1, 2] += 7
    np.testing.assert_allclose(g(f, A), want)
    check_grad(f, A)


def test_slice_assignment():
    def f(x, z):
        y = x * 1
        y[0] = z * 2
        return (y * Tensor(C)).sum()

    z = np.array([0.1, 0.2, 0.3])
    gx, gz = g(f, A, z, pos=(0, 1))
    np.testing.assert_allclose(gx, np.vstack([np.zeros(3), C[1]]))
    np.testing.assert_allclose(gz, 2 * C[0])
    check_grad(f, A, z)


def test_overwritten_tensor_keeps_its_old_value_for_earlier_uses():
    def f(x):
        a = x * 2
        b = a * a  # uses the old a
        a[0] = 0.0  # overwrites row 0 of a afterwards
        return b.sum() + (a * a * a).sum()

    want = 8 * A + np.vstack([np.zeros(3), 24 * A[1] ** 2])
    np.testing.assert_allclose(g(f, A), want)
    check_grad(f, A)


def test_setitem_on_the_differentiated_input_itself():
    def f(x):
        y = x * x
        x[1] = 3.0
        return (y + x).sum()

    got = ad.grad(f)(Tensor(A.copy())).asnumpy()
    np.testing.assert_allclose(got, 2 * A + np.vstack([np.ones(3), np.zeros(3)]))


# -- dtypes --------------------------------------------------------------------


def test_int_input_gradient_is_cast_to_its_dtype():
    x = Tensor(np.array([1.7, -2.6, 0.4], np.float32))
    i = Tensor(np.array([1, 2, 3], np.int32))
    gi = ad.grad(lambda a, b: (a * b).sum(), grad_position=1)(x, i)
    assert gi.dtype == mstype.int32
    np.testing.assert_array_equal(gi.asnumpy(), x.asnumpy().astype(np.int32))


def test_int64_input_unused_gives_int64_zeros():
    i = Tensor(np.array([[1, 2]], np.int64))
    gi = ad.grad(lambda a, b: a.sum(), grad_position=1)(Tensor(A), i)
    assert gi.dtype == mstype.int64 and gi.shape == (1, 2)
    assert not gi.asnumpy().any()


def test_gradient_keeps_float32_dtype():
    gx = ad.grad(lambda a: (a * a).sum())(Tensor(A.astype(np.float32)))
    assert gx.dtype == mstype.float32


def test_broadcast_inputs_get_their_own_shape():
    b = np.array([0.5, -1.0, 2.0])
    gx, gb = g(lambda x, y: (x * y).sum(), A, b, pos=(0, 1))
    assert gb.shape == (3,)
    np.testing.assert_allclose(gb, A.sum(axis=0))
    np.testing.assert_allclose(gx, np.broadcast_to(b, A.shape))


# -- custom gradients and stop_gradient -------------------------------------------


def test_call_with_bprop_replaces_the_inner_gradient():
    def rule(x, out, dout):
        return (dout * 10,)

    got = ad.grad(lambda x: ad.call_with_bprop(lambda a: a * a, rule, x).sum())(Tensor(A))
    np.testing.assert_allclose(got.asnumpy(), np.full_like(A, 10.0))


def test_check_bprop_rejects_a_gradient_of_another_dtype():
    from ms_tensor import reset_context, set_context

    def rule(x, out, dout):
        return (ops.cast(dout, mstype.float64),)  # float64 for a float32 input

    def loss(x):
        return ad.call_with_bprop(lambda a: a * 2, rule, x, name="Double").sum()

    x = Tensor(A.astype(np.float32))
    assert ad.grad(loss)(x).dtype == mstype.float32  # unchecked: cast back, as in MindSpore
    set_context(check_bprop=True)
    try:
        with pytest.raises(ValueError, match=r"Double: bprop's gradient 0 is Float64 \(2, 3\), "
                                             r"but input 0 is Float32 \(2, 3\)"):
            ad.grad(loss)(x)
    finally:
        reset_context()


def test_custom_bprop_decorator_two_inputs():
    @ad.custom_bprop(lambda x, y, out, dout: (dout * y * 2, dout * 0))
    def mul(x, y):
        return x * y

    gx, gy = g(lambda a, b: mul(a, b).sum(), A, C, pos=(0, 1))
    np.testing.assert_allclose(gx, 2 * C)
    np.testing.assert_allclose(gy, np.zeros_like(C))


def test_custom_bprop_value_is_the_forward():
    @ad.custom_bprop(lambda x, out, dout: (dout,))
    def cube(x):
        return x * x * x

    np.testing.assert_allclose(cube(Tensor(A)).asnumpy(), A ** 3)
    value, _ = ad.value_and_grad(lambda a: cube(a).sum())(Tensor(A))
    np.testing.assert_allclose(value.asnumpy(), (A ** 3).sum())


def test_custom_bprop_under_higher_order():
    # forward computed any way; the rule (written with ops) is what differentiates again
    @ad.custom_bprop(lambda x, out, dout: (dout * 3 * x * x,))
    def cube(x):
        return Tensor(x.asnumpy() ** 3)

    x = np.array([1.0, 2.0, -0.5])
    d2 = ad.grad(lambda t: ad.grad(lambda a: cube(a).sum())(t).sum())(Tensor(x))
    np.testing.assert_allclose(d2.asnumpy(), 6 * x)


def test_custom_bprop_wrong_gradient_count():
    fn = ad.custom_bprop(lambda x, y, out, dout: (dout,))(lambda x, y: x * y)
    with pytest.raises(ValueError, match="bprop returned 1 gradients for 2 inputs"):
        ad.grad(lambda a, b: fn(a, b).sum())(Tensor(A), Tensor(C))


def test_stop_gradient_matches_mindspore():
    x = Tensor(np.array([1.0, 2.0], np.float32))
    np.testing.assert_allclose(ad.grad(lambda a: (ad.stop_gradient(a) * a).sum())(x).asnumpy(),
                               [1.0, 2.0])
    np.testing.assert_allclose(ad.grad(lambda a: (ops.stop_gradient(a) * a).sum())(x).asnumpy(),
                               [1.0, 2.0])


def test_stop_gradient_of_everything_gives_zeros():
    got = ad.grad(lambda a: ops.exp(ad.stop_gradient(a)).sum())(Tensor(A))
    np.testing.assert_array_equal(got.asnumpy(), np.zeros_like(A))
