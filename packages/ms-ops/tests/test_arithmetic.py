import numpy as np
import pytest

import ms_ops as ops
from ms_ops.defs import arithmetic as A
from ms_ops.defs import operators
from ms_ops.testing import check_bprop
from ms_tensor import Tensor, bool_, float16, float32, float64, int16, int32, int64, registry, uint8

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


# -- FloorDiv, FloorMod, Mod, Pow, Maximum, Minimum, SquaredDifference -----------------
# op, numpy reference, range of x, range of y. Random points land on a jump of floor/mod
# (or a tie of max/min) with probability ~1e-6, and the seeds are fixed.
MORE_BINARY = [
    (A.FloorDiv, np.floor_divide, (-5, 5), (0.5, 2.0)),
    (A.FloorMod, np.remainder, (-5, 5), (0.5, 2.0)),
    (A.Mod, np.fmod, (-5, 5), (0.5, 2.0)),
    (A.Pow, np.power, (0.5, 2.0), (-2, 2)),
    (A.Maximum, np.maximum, (-2, 2), (-2, 2)),
    (A.Minimum, np.minimum, (-2, 2), (-2, 2)),
    (A.SquaredDifference, lambda x, y: (x - y) ** 2, (-2, 2), (-2, 2)),
]


def _pair(xr, yr, sx, sy, seed=0):
    rng = np.random.default_rng(seed)
    return rng.uniform(*xr, sx), rng.uniform(*yr, sy)


@pytest.mark.parametrize("op,ref,xr,yr", MORE_BINARY, ids=lambda v: getattr(v, "name", ""))
@pytest.mark.parametrize("sx,sy", SHAPES)
def test_more_binary_match_numpy(op, ref, xr, yr, sx, sy):
    x, y = _pair(xr, yr, sx, sy)
    out = op(Tensor(x.astype(np.float32)), Tensor(y.astype(np.float32)))
    assert out.dtype == float32
    np.testing.assert_allclose(out.asnumpy(), ref(x.astype(np.float32), y.astype(np.float32)),
                               rtol=1e-6)
    out64 = op(Tensor(x), Tensor(y))
    assert out64.dtype == float64
    np.testing.assert_allclose(out64.asnumpy(), ref(x, y), rtol=1e-12)


@pytest.mark.parametrize("op", [A.FloorMod, A.Mod, A.Pow, A.Maximum, A.Minimum,
                                A.SquaredDifference], ids=lambda o: o.name)
@pytest.mark.parametrize("sx,sy", SHAPES)
def test_more_binary_gradients(op, sx, sy):
    rec = next(r for r in MORE_BINARY if r[0] is op)
    check_bprop(op, *_pair(rec[2], rec[3], sx, sy, seed=3))


def test_maximum_and_minimum_split_the_gradient_at_ties():
    # MindSpore 2.10: grad of maximum(x, y) at x == y gives 0.5 to each input.
    reg = registry.load()
    x, y = Tensor(np.array([1.0, 2.0, 3.0])), Tensor(np.array([1.0, 3.0, 2.0]))
    dout = Tensor(np.ones(3))
    dx, dy = reg.bprop(A.Maximum)(x, y, out=A.Maximum(x, y), dout=dout)
    np.testing.assert_allclose(dx.asnumpy(), [0.5, 0.0, 1.0])
    np.testing.assert_allclose(dy.asnumpy(), [0.5, 1.0, 0.0])
    dx, dy = reg.bprop(A.Minimum)(x, y, out=A.Minimum(x, y), dout=dout)
    np.testing.assert_allclose(dx.asnumpy(), [0.5, 1.0, 0.0])
    np.testing.assert_allclose(dy.asnumpy(), [0.5, 0.0, 1.0])


def test_maximum_and_minimum_propagate_nan():
    x = Tensor(np.array([np.nan, 1.0, 2.0], np.float32))
    y = Tensor(np.array([1.0, np.nan, 1.0], np.float32))
    np.testing.assert_array_equal(ops.maximum(x, y).asnumpy(), [np.nan, np.nan, 2.0])
    np.testing.assert_array_equal(ops.minimum(x, y).asnumpy(), [np.nan, np.nan, 1.0])


def test_division_family_signs_match_mindspore():
    # Values printed by MindSpore 2.10 on the CPU.
    a = Tensor(np.array([-7, 7, -7, 7], np.int32))
    b = Tensor(np.array([2, -2, -2, 2], np.int32))
    assert (a // b).tolist() == [-4, -4, 3, 3]
    assert (a % b).tolist() == [1, -1, -1, 1]
    assert ops.remainder(a, b).tolist() == [1, -1, -1, 1]
    assert ops.fmod(a, b).tolist() == [-1, 1, -1, 1]
    assert ops.Mod()(a, b).dtype == int32
    fa = Tensor(np.array([-7.5, 7.5, -7.5, 7.5], np.float32))
    fb = Tensor(np.array([2, -2, -2, 2], np.float32))
    assert ops.floor_mod(fa, fb).tolist() == [0.5, -0.5, -1.5, 1.5]
    assert ops.fmod(fa, fb).tolist() == [-1.5, 1.5, -1.5, 1.5]
    assert (7 // Tensor(np.array([2, -2], np.int32))).tolist() == [3, -4]
    assert (7.5 % Tensor(np.array([2.0, -2.0], np.float32))).tolist() == [1.5, -0.5]
    assert ops.floor_divide(Tensor([-1.0, 1.0]), Tensor([0.0, 0.0])).tolist() == [-np.inf, np.inf]


def test_floor_mod_and_mod_gradients_match_mindspore():
    # MindSpore 2.10: d/dy floor_mod = -floor(x / y), d/dy fmod = -trunc(x / y).
    reg = registry.load()
    x, y = Tensor(np.array([-1.5, 0.5, 5.0])), Tensor(np.array([2.0, 2.0, 2.0]))
    dout = Tensor(np.ones(3))
    _, dy = reg.bprop(A.FloorMod)(x, y, out=None, dout=dout)
    np.testing.assert_allclose(dy.asnumpy(), [1.0, 0.0, -2.0])
    _, dy = reg.bprop(A.Mod)(x, y, out=None, dout=dout)
    np.testing.assert_allclose(dy.asnumpy(), [0.0, 0.0, -2.0])


def test_integer_pow_with_negative_exponents_matches_mindspore():
    x = Tensor(np.array([1, -1, 0, 2, -1, 3], np.int32))
    y = Tensor(np.array([-1, -1, -1, -2, -2, 2], np.int32))
    out = ops.pow(x, y)
    assert out.dtype == int32
    assert out.tolist() == [1, -1, np.iinfo(np.int32).min, 0, 1, 9]
    assert (2 ** Tensor(np.array([-1, 3], np.int64))).tolist() == [0, 8]


def test_pow_gradient_at_zero_base_is_zero_for_the_exponent():
    # MindSpore 2.10 gives d/dy 0**2 = 0 (not 0 * log 0 = NaN) and NaN for a negative base.
    reg = registry.load()
    x, y = Tensor(np.array([0.0, 2.0, -2.0])), Tensor(np.array([2.0, 2.0, 2.0]))
    dx, dy = reg.bprop(A.Pow)(x, y, out=A.Pow(x, y), dout=Tensor(np.ones(3)))
    np.testing.assert_allclose(dx.asnumpy(), [0.0, 4.0, -4.0])
    np.testing.assert_allclose(dy.asnumpy(), [0.0, 4 * np.log(2.0), np.nan])


@pytest.mark.parametrize("base", [2.0, 0.5])
def test_pow_gradient_with_scalar_base_and_scalar_exponent(base):
    rng = np.random.default_rng(4)
    y = Tensor(rng.uniform(-1, 1, (2, 3)))
    x = Tensor(rng.uniform(0.5, 2, (2, 3)))
    reg = registry.load()
    dx, dy = reg.bprop(A.Pow)(base, y, out=A.Pow(base, y), dout=Tensor(np.ones((2, 3))))
    assert dx is None
    np.testing.assert_allclose(dy.asnumpy(), base ** y.asnumpy() * np.log(base), rtol=1e-12)
    dx, dy = reg.bprop(A.Pow)(x, 3, out=A.Pow(x, 3), dout=Tensor(np.ones((2, 3))))
    assert dy is None
    np.testing.assert_allclose(dx.asnumpy(), 3 * x.asnumpy() ** 2, rtol=1e-12)


# -- Square, Reciprocal, Abs, Sign -----------------------------------------------------
@pytest.mark.parametrize("op,ref", [(A.Square, np.square), (A.Reciprocal, np.reciprocal),
                                    (A.Abs, np.abs), (A.Sign, np.sign)],
                         ids=lambda v: getattr(v, "name", ""))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unary_arithmetic_matches_numpy(op, ref, dtype):
    x = np.random.default_rng(5).uniform(-3, 3, (3, 4)).astype(dtype)
    out = op(Tensor(x))
    assert out.dtype == Tensor(x).dtype
    np.testing.assert_allclose(out.asnumpy(), ref(x), rtol=1e-6)


@pytest.mark.parametrize("op", [A.Square, A.Reciprocal, A.Abs], ids=lambda o: o.name)
def test_unary_arithmetic_gradients(op):
    x = np.random.default_rng(6).uniform(0.5, 2.0, (2, 3)) * np.array([1, -1, 1])
    check_bprop(op, x)


def test_abs_gradient_at_zero_is_zero_and_sign_of_nan_is_zero():
    # Both as MindSpore 2.10 prints them.
    reg = registry.load()
    x = Tensor(np.array([-1.0, 0.0, 2.0]))
    (dx,) = reg.bprop(A.Abs)(x, out=A.Abs(x), dout=Tensor(np.ones(3)))
    np.testing.assert_allclose(dx.asnumpy(), [-1.0, 0.0, 1.0])
    assert ops.sign(Tensor(np.array([np.nan, -0.0, 3.0], np.float32))).tolist() == [0, 0, 1]


# -- Addcmul, Addcdiv, Lerp, clamp ---------------------------------------------------------
TERNARY = [
    (A.Addcmul, lambda a, b, c, v: a + v * b * c, ((2, 3), (3,), (2, 1), (1,))),
    (A.Addcdiv, lambda a, b, c, v: a + v * b / c, ((3,), (2, 3), (2, 1), ())),
    (A.Lerp, lambda a, b, w: a + w * (b - a), ((2, 3), (3,), (2, 1))),
    (A.ClampTensor, lambda x, lo, hi: np.minimum(np.maximum(x, lo), hi), ((2, 3), (3,), (2, 1))),
]


def _ternary_inputs(op, shapes, seed):
    rng = np.random.default_rng(seed)
    arrays = [rng.uniform(0.5, 2.0, s) for s in shapes]
    if op is A.ClampTensor:  # x spread over [-3, 3] against bounds around -1 and 1
        arrays = [rng.uniform(-3, 3, shapes[0]), rng.uniform(-1.5, -0.5, shapes[1]),
                  rng.uniform(0.5, 1.5, shapes[2])]
    return arrays


@pytest.mark.parametrize("op,ref,shapes", TERNARY, ids=lambda v: getattr(v, "name", ""))
def test_ternary_match_numpy_with_broadcasting(op, ref, shapes):
    arrays = _ternary_inputs(op, shapes, 7)
    out = op(*[Tensor(a.astype(np.float32)) for a in arrays])
    assert out.dtype == float32
    np.testing.assert_allclose(out.asnumpy(), ref(*[a.astype(np.float32) for a in arrays]),
                               rtol=1e-6)


@pytest.mark.parametrize("op,ref,shapes", TERNARY, ids=lambda v: getattr(v, "name", ""))
def test_ternary_gradients_with_broadcasting(op, ref, shapes):
    check_bprop(op, *_ternary_inputs(op, shapes, 8))


def test_lerp_and_addcmul_take_python_scalars():
    a, b = Tensor(np.array([1.0, 2.0], np.float32)), Tensor(np.array([3.0, 5.0], np.float32))
    assert ops.lerp(a, b, 0.5).tolist() == [2.0, 3.5]
    assert a.lerp(b, 0.5).dtype == float32
    assert ops.addcmul(a, b, a, 0.5).tolist() == [2.5, 7.0]
    assert a.addcdiv(b, a, 2).tolist() == [7.0, 7.0]
    check_bprop(A.Lerp, np.array([1.0, 2.0]), np.array([3.0, 5.0]), 0.3)


def test_clamp_matches_mindspore_values_dtypes_and_gradients():
    x = Tensor(np.array([1, 5, 9], np.int32))
    assert ops.clamp(x, 2.5, 6.5).dtype == float32  # a float bound promotes (MindSpore)
    assert ops.clamp(x, 2.5, 6.5).tolist() == [2.5, 5.0, 6.5]
    assert ops.clamp(x, min=3).tolist() == [3, 5, 9] and ops.clamp(x, min=3).dtype == int32
    assert ops.clip(x, max=4).tolist() == [1, 4, 4]
    assert x.clamp(6, 2).tolist() == [2, 2, 2]  # min > max: everything becomes max
    assert ops.clamp(Tensor([1.0, 5.0], float16), 2.5, 6.5).dtype == float16
    # Boundaries included: MindSpore 2.10 gives [0, 1, 1, 1, 0] and dmin/dmax elsewhere.
    reg = registry.load()
    v = Tensor(np.array([1.0, 2.0, 2.5, 3.0, 4.0]))
    lo, hi = Tensor(np.full(5, 2.0)), Tensor(np.full(5, 3.0))
    dx, dlo, dhi = reg.bprop(A.ClampTensor)(v, lo, hi, out=None, dout=Tensor(np.ones(5)))
    assert dx.tolist() == [0, 1, 1, 1, 0]
    assert dlo.tolist() == [1, 0, 0, 0, 0] and dhi.tolist() == [0, 0, 0, 0, 1]
    dx, dlo, dhi = reg.bprop(A.ClampTensor)(v, 2.0, 3.0, out=None, dout=Tensor(np.ones(5)))
    assert dlo is None and dhi is None and dx.tolist() == [0, 1, 1, 1, 0]


def test_clip_by_value_keeps_dtype_lists_and_half_gradient_at_ties():
    x = Tensor(np.array([1, 5, 9], np.int32))
    out = ops.clip_by_value(x, 2.5, 6)
    assert out.dtype == int32 and out.tolist() == [2, 5, 6]  # MindSpore 2.10
    f = Tensor(np.array([1.0, 5.0, 9.0], np.float32))
    assert ops.clip_by_value(f, 6, 2).tolist() == [2, 2, 2]
    assert ops.clip_by_value(f, None, 6).tolist() == [1, 5, 6]
    (clipped,) = ops.clip_by_value([f], 2, 6)
    assert clipped.tolist() == [2, 5, 6]
    # Maximum then Minimum: a value on a bound ties, and a tie halves the gradient.
    reg = registry.load()
    v = Tensor(np.array([1.0, 2.0, 2.5]))
    dv, dbound = reg.bprop(A.Maximum)(v, 2.0, out=A.Maximum(v, 2.0), dout=Tensor(np.ones(3)))
    assert dv.tolist() == [0.0, 0.5, 1.0] and dbound is None


def test_addn_sums_tensors_of_one_shape_and_dtype():
    xs = [Tensor(np.array([1, 2], np.int32)), Tensor(np.array([3, 5], np.int32))] * 2
    out = ops.addn(xs)
    assert out.dtype == int32 and out.tolist() == [8, 14]
    assert ops.AddN()(tuple(xs[:2])).tolist() == [4, 7]


@pytest.mark.parametrize("call,exc,match", [
    (lambda: ops.addn([Tensor([1.0, 2.0]), Tensor([[3.0, 5.0]])]), ValueError,
     r"AddN: every input must have one shape: x\[0\] shape \(2,\), x\[1\] shape \(1, 2\)"),
    (lambda: ops.addn([Tensor([1.0]), Tensor(np.array([1], np.int32))]), TypeError,
     r"AddN: every input must have one dtype: x\[0\] is Float32, x\[1\] is Int32"),
    (lambda: ops.addn([]), TypeError, r"AddN: x must be a non-empty list"),
    (lambda: ops.clamp(Tensor([1.0])), ValueError, r"ClampTensor: at least one of 'min'"),
    (lambda: ops.clip_by_value(Tensor([1.0])), ValueError, r"clip_by_value: at least one"),
    (lambda: ops.lerp(Tensor(np.array([1], np.int32)), Tensor(np.array([2], np.int32)), 1),
     TypeError, r"Lerp: input 'start' has dtype Int32"),
    (lambda: ops.addcdiv(*[Tensor(np.array([1], np.int32))] * 3), TypeError,
     r"Addcdiv: input 'input_data' has dtype Int32"),
    (lambda: ops.pow(Tensor([True]), Tensor([False])), TypeError,
     r"Pow: input 'x' has dtype Bool"),
    (lambda: ops.maximum(Tensor([True]), Tensor([False])), TypeError,
     r"Maximum: input 'x' has dtype Bool"),
    (lambda: ops.square(Tensor([True])), TypeError, r"Square: input 'x' has dtype Bool"),
    (lambda: ops.sign(Tensor([True])), TypeError, r"Sign: input 'x' has dtype Bool"),
    (lambda: ops.floor_divide(Tensor(np.ones((2, 3))), Tensor(np.ones(2))), ValueError,
     r"FloorDiv: x shape \(2, 3\) and y shape \(2,\) cannot be broadcast"),
    (lambda: ops.clamp(Tensor(np.ones((2, 3))), Tensor(np.ones(2)), 1.0), ValueError,
     r"ClampTensor: input shape \(2, 3\) and min shape \(2,\) and max shape \(\)"),
    (lambda: Tensor([1.0]) ** "a", TypeError, r"Pow: input 'y'"),
])
def test_arithmetic_errors_name_the_operator(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


@pytest.mark.parametrize("make,expected", [
    # MindSpore 2.10 CPU results, checked by hand against it.
    (lambda: Tensor(np.array([3, 4], np.uint8)) // Tensor(np.array([1, 2], np.int8)), int16),
    (lambda: ops.pow(Tensor(np.array([3], np.uint8)), Tensor(np.array([1], np.int8))), int16),
    (lambda: 2 ** Tensor(np.array([2, 3], np.int32)), int32),
    (lambda: 2.0 ** Tensor(np.array([2, 3], np.int32)), float32),
    (lambda: Tensor(np.array([4, 9], np.int32)) ** 0.5, float32),
    (lambda: ops.maximum(Tensor([1.0], float16), Tensor(np.array([3], np.int32))), float16),
    (lambda: ops.floor_mod(Tensor([3.0], float16), Tensor([1.0], float32)), float32),
    (lambda: ops.reciprocal(Tensor(np.array([2], np.int8))), float32),
    (lambda: ops.square(Tensor(np.array([3], np.uint8))), uint8),
    (lambda: abs(Tensor([True])), bool_),
    (lambda: +Tensor(np.array([-1], np.int32)), int32),
    (lambda: ops.SquaredDifference()(Tensor(np.array([1], np.int32)),
                                     Tensor(np.array([3], np.int32))), int32),
])
def test_arithmetic_dtypes_follow_mindspore(make, expected):
    assert make().dtype == expected


def test_new_dunders_and_methods_reach_their_operators():
    x = Tensor(np.array([2.0, 3.0], np.float32))
    y = Tensor(np.array([3.0, 2.0], np.float32))
    for out in (ops.pow(x, y), ops.tensor_pow(x, y), ops.Pow()(x, y), x.pow(y), x ** y):
        assert out.tolist() == [8.0, 9.0]
    assert (2 ** x).tolist() == [4.0, 8.0]
    assert (x // 2).tolist() == [1.0, 1.0] and (7 // x).tolist() == [3.0, 2.0]
    assert (x % 2).tolist() == [0.0, 1.0] and (7 % x).tolist() == [1.0, 1.0]
    assert x.maximum(y).tolist() == [3.0, 3.0] and x.minimum(y).tolist() == [2.0, 2.0]
    assert (-x).abs().tolist() == [2.0, 3.0] and abs(-x).tolist() == [2.0, 3.0]
    assert (+x) is x
    assert x.square().tolist() == [4.0, 9.0] and x.reciprocal().tolist() == [0.5, np.float32(1 / 3)]
    assert x.floor_divide(y).tolist() == [0.0, 1.0] and x.fmod(y).tolist() == [2.0, 1.0]
    assert x.remainder(-y).tolist() == [-1.0, -1.0] and (-x).sign().tolist() == [-1.0, -1.0]


def test_rounding_division_and_sign_have_no_gradient():
    reg = registry.load()
    for op in (A.FloorDiv, A.Sign):
        assert not op.differentiable and reg.bprop(op) is None


def test_remainder_and_fmod_are_evaluated_as_mindspore_writes_them():
    # MindSpore 2.10's ops.remainder / ops.fmod are x - floor_div(x, y) * y and
    # x - trunc(x / y) * y: bit-identical to those in float32, unlike x % y (FloorMod).
    rng = np.random.default_rng(9)
    a = rng.uniform(-30, 30, 500).astype(np.float32)
    b = (rng.uniform(0.1, 2, 500) * rng.choice([-1, 1], 500)).astype(np.float32)
    ta, tb = Tensor(a), Tensor(b)
    np.testing.assert_array_equal(ops.remainder(ta, tb).asnumpy(), a - np.floor(a / b) * b)
    np.testing.assert_array_equal(ta.remainder(tb).asnumpy(), a - np.floor(a / b) * b)
    np.testing.assert_array_equal(ops.fmod(ta, tb).asnumpy(), a - np.trunc(a / b) * b)
    np.testing.assert_array_equal((ta % tb).asnumpy(), np.remainder(a, b))
    np.testing.assert_array_equal(ops.Mod()(ta, tb).asnumpy(), np.fmod(a, b))
    ints = Tensor(np.array([5, -7, 0], np.int32))
    assert ops.remainder(ints, Tensor(np.array([0, 2, 0], np.int32))).tolist() == [5, 1, 0]
    assert ops.fmod(ints, 2).dtype == int32 and ops.fmod(ints, 2).tolist() == [1, -1, 0]
    assert ops.fmod(ints, 2.5).dtype == float32 and ops.remainder(ints, 2.5).dtype == float32


_NEW_OPS = [op for op in operators(A) if op not in (A.Add, A.Sub, A.Mul, A.Div, A.Neg)]


@pytest.mark.parametrize("op", [op for op in _NEW_OPS if len(op.inputs) > 1], ids=lambda o: o.name)
def test_every_multi_input_op_rejects_unbroadcastable_shapes(op):
    extra = [Tensor(np.ones(1))] * (len(op.inputs) - 2)
    args = [Tensor(np.ones((2, 3))), Tensor(np.ones(2)), *extra]
    with pytest.raises(ValueError, match=rf"{op.name}: \w+ shape \(2, 3\) and \w+ shape \(2,\)"):
        op(*args)


@pytest.mark.parametrize("op", [op for op in _NEW_OPS if len(op.inputs) == 1
                                and op.name != "Square"], ids=lambda o: o.name)
def test_every_unary_op_rejects_complex_input(op):  # Square takes complex (test_complex_ops)
    with pytest.raises(TypeError, match=rf"{op.name}: input 'x' has dtype Complex64"):
        op(Tensor(np.array([1j], np.complex64)))


@pytest.mark.parametrize("op", _NEW_OPS, ids=lambda o: o.name)
def test_every_op_takes_0d_tensors(op):
    out = op(*[Tensor(np.array(0.5))] * len(op.inputs))
    assert out.shape == () and out.dtype == float64
