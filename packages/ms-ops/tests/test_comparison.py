import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ms_ops as ops
from ms_ops.defs import comparison as C
from ms_ops.defs import operators
from ms_tensor import Tensor, bool_, float16, int8, int16, int32, registry

COMPARISONS = [(C.Equal, np.equal), (C.NotEqual, np.not_equal), (C.Less, np.less),
               (C.LessEqual, np.less_equal), (C.Greater, np.greater),
               (C.GreaterEqual, np.greater_equal)]
LOGICAL = [(C.LogicalAnd, np.logical_and), (C.LogicalOr, np.logical_or),
           (C.LogicalXor, np.logical_xor)]
BITWISE = [(C.BitwiseAnd, np.bitwise_and), (C.BitwiseOr, np.bitwise_or),
           (C.BitwiseXor, np.bitwise_xor)]
SHAPES = [((2, 3), (2, 3)), ((2, 3), (3,)), ((4, 1, 3), (2, 1)), ((), (2,))]
_ids = lambda v: getattr(v, "name", "")  # noqa: E731


def _ints(shape, seed, lo=-3, hi=4, dtype=np.int32):
    return np.random.default_rng(seed).integers(lo, hi, shape).astype(dtype)


@pytest.mark.parametrize("op,ref", COMPARISONS, ids=_ids)
@pytest.mark.parametrize("sx,sy", SHAPES)
def test_comparisons_match_numpy_with_broadcasting(op, ref, sx, sy):
    # Small integers make ties common, so equality is exercised as much as order.
    x, y = _ints(sx, 0), _ints(sy, 1).astype(np.float32)
    out = op(Tensor(x), Tensor(y))
    assert out.dtype == bool_
    np.testing.assert_array_equal(out.asnumpy(), ref(x, y))


@pytest.mark.parametrize("op,ref", LOGICAL, ids=_ids)
@pytest.mark.parametrize("sx,sy", SHAPES)
def test_logical_ops_read_any_dtype_as_truth(op, ref, sx, sy):
    x, y = _ints(sx, 2, 0, 2), _ints(sy, 3, 0, 3).astype(np.float32)
    out = op(Tensor(x), Tensor(y))
    assert out.dtype == bool_
    np.testing.assert_array_equal(out.asnumpy(), ref(x, y))


@pytest.mark.parametrize("op,ref", BITWISE, ids=_ids)
@pytest.mark.parametrize("sx,sy", SHAPES)
def test_bitwise_ops_match_numpy(op, ref, sx, sy):
    x, y = _ints(sx, 4, -8, 8), _ints(sy, 5, 0, 16)
    out = op(Tensor(x), Tensor(y))
    assert out.dtype == int32
    np.testing.assert_array_equal(out.asnumpy(), ref(x, y))


@pytest.mark.parametrize("op,ref", [(C.IsNan, np.isnan), (C.IsInf, np.isinf),
                                    (C.IsFinite, np.isfinite), (C.LogicalNot, np.logical_not)],
                         ids=_ids)
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64, np.int32, np.bool_])
def test_predicates_match_numpy(op, ref, dtype):
    x = np.array([0.0, 1.5, np.nan, np.inf, -np.inf, -2.0])
    with np.errstate(invalid="ignore"):
        x = x.astype(dtype) if np.dtype(dtype).kind == "f" else np.nan_to_num(x).astype(dtype)
    out = op(Tensor(x))
    assert out.dtype == bool_
    np.testing.assert_array_equal(out.asnumpy(), ref(x))


def test_nan_compares_unequal_to_everything():
    x = Tensor(np.array([np.nan, 1.0], np.float32))
    assert (x == x).tolist() == [False, True]
    assert (x != x).tolist() == [True, False]
    assert (x < np.inf).tolist() == [False, True] and (x >= -np.inf).tolist() == [False, True]


@pytest.mark.parametrize("make,dtype,values", [
    # MindSpore 2.10 CPU results.
    (lambda: ops.equal(Tensor(np.array([1, 2], np.int32)), Tensor([1.5, 2.0])), bool_,
     [False, True]),
    (lambda: ops.less(Tensor(np.array([1, 2], np.int32)), 1.5), bool_, [True, False]),
    (lambda: ops.ge(Tensor([True, False]), Tensor([True, True])), bool_, [True, False]),
    (lambda: ops.bitwise_and(Tensor([True, False]), Tensor(np.array([3, 3], np.int32))), int32,
     [1, 0]),
    (lambda: ops.bitwise_and(Tensor(np.array([3, 3], np.uint8)), Tensor([1, 2], int8)),
     int16, [1, 2]),
    (lambda: ops.bitwise_or(Tensor(np.array([1, 0, 3], np.int32)), Tensor([1, 1, 5], int8)),
     int32, [1, 1, 7]),
    (lambda: Tensor([True, False]) & True, bool_, [True, False]),
    (lambda: Tensor(np.array([1, 0, 3], np.int32)) ^ 4, int32, [5, 4, 7]),
    (lambda: ~Tensor(np.array([1, 0], np.int32)), bool_, [False, True]),  # logical, not bitwise
    (lambda: ~Tensor([1.0, 0.0], float16), bool_, [False, True]),
    (lambda: ops.logical_not(Tensor(np.array([1, 0], np.uint8))), bool_, [False, True]),
    (lambda: ops.logical_xor(Tensor(np.array([1, 0, 3], np.int32)), Tensor([1.0, 1.0, 0.0])),
     bool_, [False, True, True]),
    (lambda: ops.isfinite(Tensor(np.array([1], np.uint8))), bool_, [True]),
    (lambda: ops.isnan(Tensor(np.array([1], np.int8))), bool_, [False]),
])
def test_comparison_dtypes_and_values_follow_mindspore(make, dtype, values):
    out = make()
    assert out.dtype == dtype
    assert out.tolist() == values


def test_isclose_matches_numpy_and_mindspore():
    a = Tensor(np.array([1.0, 2.0, np.nan], np.float32))
    b = Tensor(np.array([1.0 + 1e-6, 2.1, np.nan], np.float32))
    assert ops.isclose(a, b).tolist() == [True, False, False]  # MindSpore 2.10
    assert ops.isclose(a, b, equal_nan=True).tolist() == [True, False, True]
    assert a.isclose(b, rtol=0.1).tolist() == [True, True, False]
    assert ops.IsClose(rtol=0.5)(Tensor([1.0, 2.0]), Tensor([1.0, 3.0])).tolist() == [True, True]
    rng = np.random.default_rng(6)
    x, y = rng.uniform(0, 1, (4, 1, 3)), rng.uniform(0, 1, (2, 1))
    y[0, 0] = x[0, 0, 0] + 1e-9
    out = ops.isclose(Tensor(x), Tensor(y), 0.01, 0.05)
    np.testing.assert_array_equal(out.asnumpy(), np.isclose(x, y, rtol=0.01, atol=0.05))
    assert ops.isclose(Tensor(np.array([1, 2], np.int32)), Tensor(np.array([1, 3], np.int32))
                       ).tolist() == [True, False]


@pytest.mark.parametrize("call,exc,match", [
    (lambda: ops.equal(Tensor(np.ones((2, 3))), Tensor(np.ones(2))), ValueError,
     r"Equal: x shape \(2, 3\) and y shape \(2,\) cannot be broadcast: dimension -1 is 3 vs 2"),
    (lambda: Tensor(np.ones(3)) < Tensor(np.ones(2)), ValueError, r"Less: x shape \(3,\)"),
    (lambda: ops.bitwise_and(Tensor([1.0]), Tensor([1.0])), TypeError,
     r"BitwiseAnd: input 'x' has dtype Float32, expected one of Bool, Int16"),
    (lambda: Tensor([1.0]) | 1, TypeError, r"BitwiseOr: input 'x' has dtype Float32"),
    (lambda: ops.less(Tensor(np.array([1j], np.complex64)), Tensor(np.array([1j], np.complex64))),
     TypeError, r"Less: input 'x' has dtype Complex64"),
    (lambda: ops.isclose(Tensor([1.0]), Tensor([1.0]), rtol="a"), TypeError,
     r"IsClose: 'rtol' must be a float, got str 'a'"),
    (lambda: ops.isclose(Tensor([1.0]), Tensor([1.0]), equal_nan=1), TypeError,
     r"IsClose: 'equal_nan' must be a bool, got int 1"),
    (lambda: ops.isnan(object()), TypeError, r"IsNan: input 'x' must be a Tensor"),
    (lambda: ops.logical_and(Tensor(np.ones(2, bool)), Tensor(np.ones(3, bool))), ValueError,
     r"LogicalAnd: x shape \(2,\) and y shape \(3,\)"),
])
def test_comparison_errors_name_the_operator(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_dunders_and_methods_reach_one_definition():
    x = Tensor(np.array([1, 2, 3], np.int32))
    y = Tensor(np.array([3, 2, 1], np.int32))
    table = [
        ((x == y), (ops.equal, ops.eq, x.equal, x.eq, ops.Equal()), [False, True, False]),
        ((x != y), (ops.not_equal, ops.ne, x.ne, x.not_equal), [True, False, True]),
        ((x < y), (ops.less, ops.lt, x.lt, x.less), [True, False, False]),
        ((x <= y), (ops.less_equal, ops.le, x.le, x.less_equal), [True, True, False]),
        ((x > y), (ops.greater, ops.gt, x.gt, x.greater), [False, False, True]),
        ((x >= y), (ops.greater_equal, ops.ge, x.ge, x.greater_equal), [False, True, True]),
        ((x & y), (ops.bitwise_and, x.bitwise_and, ops.BitwiseAnd()), [1, 2, 1]),
        ((x | y), (ops.bitwise_or, x.bitwise_or), [3, 2, 3]),
        ((x ^ y), (ops.bitwise_xor, x.bitwise_xor), [2, 0, 2]),
    ]
    for dunder, fns, want in table:
        assert dunder.tolist() == want
        for fn in fns:
            out = fn(y) if getattr(fn, "__self__", None) is x else fn(x, y)
            assert out.tolist() == want
    assert (1 == x).tolist() == [True, False, False] and (2 < x).tolist() == [False, False, True]
    assert (6 & x).tolist() == [0, 2, 2] and (4 | x).tolist() == [5, 6, 7]
    assert (1 ^ x).tolist() == [0, 3, 2]
    assert (np.array([1, 2, 3]) == x).tolist() == [True, True, True]
    b = x > 1
    assert b.logical_and(x < 3).tolist() == [False, True, False]
    assert b.logical_or(x < 2).tolist() == [True, True, True]
    assert b.logical_xor(x < 3).tolist() == [True, False, True]
    assert b.logical_not().tolist() == [True, False, False]
    f = Tensor([np.nan, np.inf, 1.0])
    assert f.isnan().tolist() == [True, False, False]
    assert f.isinf().tolist() == [False, True, False]
    assert f.isfinite().tolist() == [False, False, True]


def test_tensors_stay_hashable_by_identity():
    x, y = Tensor([1.0]), Tensor([1.0])
    assert hash(x) == object.__hash__(x)
    assert len({x, y}) == 2 and {x: 1}[x] == 1


def test_comparisons_have_no_gradient():
    reg = registry.load()
    for op in operators(C):
        assert not op.differentiable and reg.bprop(op) is None


@given(st.lists(st.floats(allow_nan=False, width=32), min_size=1, max_size=8),
       st.lists(st.floats(allow_nan=False, width=32), min_size=1, max_size=8))
def test_exactly_one_of_less_equal_greater_holds(a, b):
    n = min(len(a), len(b))
    x, y = Tensor(np.array(a[:n], np.float32)), Tensor(np.array(b[:n], np.float32))
    count = ((x < y).asnumpy().astype(int) + (x == y).asnumpy().astype(int)
             + (x > y).asnumpy().astype(int))
    assert (count == 1).all()
    assert ((x <= y) == ((x < y) | (x == y))).asnumpy().all()
    assert ((x != y) == ~(x == y)).asnumpy().all()


@pytest.mark.parametrize("op", [op for op in operators(C) if len(op.inputs) == 2], ids=_ids)
def test_every_binary_op_rejects_unbroadcastable_shapes(op):
    with pytest.raises(ValueError, match=rf"{op.name}: x shape \(2, 3\) and y shape \(2,\)"):
        op(Tensor(np.ones((2, 3), np.int32)), Tensor(np.ones(2, np.int32)))


@pytest.mark.parametrize("op", [op for op in operators(C) if len(op.inputs) == 1], ids=_ids)
def test_every_unary_op_rejects_non_tensor_input(op):
    with pytest.raises(TypeError, match=rf"{op.name}: input 'x' must be a Tensor"):
        op(object())


@pytest.mark.parametrize("op", operators(C), ids=_ids)
def test_every_op_takes_0d_tensors(op):
    out = op(*[Tensor(np.array(3, np.int32))] * len(op.inputs))
    assert out.shape == () and out.dtype == (int32 if op in (C.BitwiseAnd, C.BitwiseOr,
                                                             C.BitwiseXor) else bool_)
