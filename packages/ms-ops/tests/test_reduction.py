import numpy as np
import pytest

import ms_ops as ops
from ms_ops.defs import reduction as R
from ms_ops.defs import reduction_arg as RA
from ms_ops.defs import reduction_cum as RC
from ms_ops.defs import reduction_stats as RS
from ms_ops.testing import check_bprop
from ms_tensor import Tensor, bool_, float16, float32, float64, int8, int32, int64

RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 3, 4)).astype(np.float32)

REDUCE = [(R.ReduceSum, np.sum), (R.ReduceMean, np.mean), (R.ReduceProd, np.prod),
          (R.ReduceMax, np.max), (R.ReduceMin, np.min), (R.ReduceAll, np.all),
          (R.ReduceAny, np.any)]
AXES = [(), 0, -1, (0, 2), [1, -1], (-3,), None]


def _np_axes(axis):
    if axis is None or axis == ():
        return None
    return tuple(axis) if isinstance(axis, list) else axis


@pytest.mark.parametrize("op,ref", REDUCE, ids=lambda v: getattr(v, "name", ""))
@pytest.mark.parametrize("axis", AXES, ids=str)
@pytest.mark.parametrize("keep", [False, True])
def test_reduce_matches_numpy(op, ref, axis, keep):
    x = X > 0 if op in (R.ReduceAll, R.ReduceAny) else X
    out = op(Tensor(x), axis, keep_dims=keep)
    want = ref(x, axis=_np_axes(axis), keepdims=keep)
    assert out.shape == want.shape
    assert out.dtype == (bool_ if op in (R.ReduceAll, R.ReduceAny) else float32)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5, atol=1e-6)


def test_reduce_class_form_and_default_axis():
    x = Tensor(X)
    np.testing.assert_allclose(ops.ReduceMax(keep_dims=True)(x, 1).asnumpy(),
                               X.max(1, keepdims=True))
    np.testing.assert_allclose(ops.ReduceMean()(x).asnumpy(), X.mean(), rtol=1e-6)


@pytest.mark.parametrize("op,dtype,data,want", [
    (R.ReduceSum, int8, [100, 100], np.int8(-56)),        # the primitive keeps (and wraps) int8
    (R.ReduceMean, int32, [-1, -2], -1),                  # truncated toward zero, as MindSpore
    (R.ReduceMean, int32, [-1, -2, -2], -1),
    (R.ReduceProd, int32, [2, 3, 4], 24),
    (R.ReduceMax, int32, [1, 7, 3], 7),
    (R.ReduceMean, float16, [1.0, 2.0], 1.5),
    (R.ReduceAll, int32, [1, 0], False),
    (R.ReduceAny, float32, [0.0, 0.5], True),
])
def test_reduce_dtypes(op, dtype, data, want):
    out = op(Tensor(data, dtype))
    assert out.dtype == (bool_ if op in (R.ReduceAll, R.ReduceAny) else dtype)
    assert out.asnumpy() == want


@pytest.mark.parametrize("op", [R.ReduceSum, R.ReduceMean, R.ReduceProd, R.ReduceMax],
                         ids=lambda o: o.name)
def test_reduce_rejects_axis_out_of_range(op):
    with pytest.raises(ValueError, match=rf"{op.name}: axis 3 is out of range for a 3-d input"):
        op(Tensor(X), 3)


def test_reduce_rejects_repeated_axis_and_bad_keep_dims():
    with pytest.raises(ValueError, match=r"ReduceSum: axis \(1, -2\) repeats an axis"):
        R.ReduceSum(Tensor(X), (1, -2))
    with pytest.raises(TypeError, match="ReduceSum: 'keep_dims' must be a bool"):
        R.ReduceSum(Tensor(X), 0, keep_dims="yes")


def test_reduce_rejects_bad_dtypes():
    with pytest.raises(TypeError, match="ReduceMax: input 'x' has dtype Bool"):
        R.ReduceMax(Tensor([True, False]))
    with pytest.raises(TypeError, match="ReduceMean: input 'x' has dtype Bool"):
        R.ReduceMean(Tensor([True, False]))


def test_extrema_reject_zero_size_axis():
    with pytest.raises(ValueError, match=r"ReduceMax: cannot take the maximum over zero-size "
                                         r"axis 0 of input shape \(0, 3\)"):
        R.ReduceMax(Tensor(np.zeros((0, 3), np.float32)), 0)
    assert R.ReduceSum(Tensor(np.zeros((0, 3), np.float32)), 0).shape == (3,)


@pytest.mark.parametrize("op", [R.ReduceSum, R.ReduceMean, R.ReduceMax, R.ReduceMin,
                                R.ReduceProd], ids=lambda o: o.name)
@pytest.mark.parametrize("axis,keep", [((), False), (1, True), ((0, -1), False), (-2, False)])
def test_reduce_gradients(op, axis, keep):
    x = RNG.standard_normal((2, 3, 2))
    check_bprop(op, x, axis, attrs={"keep_dims": keep})


def test_reduce_prod_gradient_with_zeros_is_exact():
    x = np.array([[2.0, 0.0, 3.0], [0.0, 0.0, 5.0], [1.0, 2.0, 3.0]])
    check_bprop(R.ReduceProd, x, 1)
    check_bprop(R.ReduceProd, x, (), attrs={"keep_dims": True})


def test_max_gradient_is_shared_between_ties():
    from ms_tensor import registry

    x = Tensor(np.array([1.0, 3.0, 3.0]))
    out = R.ReduceMax(x, 0)
    (g, _) = registry.load().bprop(R.ReduceMax)(x, 0, out=out, dout=Tensor(np.array(1.0)))
    np.testing.assert_allclose(g.asnumpy(), [0.0, 0.5, 0.5])


# -- functional forms and MindSpore 2.x dtypes ---------------------------------------------
def test_functional_sum_prod_widen_integers():
    x = Tensor([[1, 2], [3, 4]], int32)
    assert ops.sum(x).dtype == int64 and ops.sum(x).item() == 10
    assert ops.sum(x, 1, keepdim=True).shape == (2, 1)
    assert ops.sum(x, dtype=float32).dtype == float32
    assert ops.sum(x > 1).dtype == int64
    assert ops.prod(Tensor([2, 3], int8)).dtype == int64
    assert ops.ReduceSum()(x).dtype == int32


def test_functional_reductions_match_numpy():
    x = Tensor(X)
    np.testing.assert_allclose(ops.mean(x, (0, 1), True).asnumpy(),
                               X.mean((0, 1), keepdims=True), rtol=1e-6)
    np.testing.assert_allclose(ops.amax(x, -1).asnumpy(), X.max(-1))
    np.testing.assert_allclose(ops.amin(x).asnumpy(), X.min())
    np.testing.assert_allclose(ops.prod(x, 2).asnumpy(), X.prod(2), rtol=1e-5)
    assert ops.all(x > -10).item() is True
    assert ops.any(x > 10, 1).shape == (2, 4)


def test_ops_max_min_return_values_and_int64_indices():
    x = Tensor(np.array([[1, 5, 3], [4, 2, 6]], np.float32))
    values, index = ops.max(x, 1)
    np.testing.assert_array_equal(values.asnumpy(), [5, 6])
    np.testing.assert_array_equal(index.asnumpy(), [1, 2])
    assert index.dtype == int64
    values, index = ops.min(x, 0, keepdims=True)
    assert values.shape == (1, 3) and index.asnumpy().tolist() == [[0, 1, 0]]
    values, index = ops.max(x)  # MindSpore 2.x: no axis gives the maximum and index 0
    assert values.item() == 6 and index.item() == 0 and index.dtype == int64


# -- arg-reductions ----------------------------------------------------------------------
@pytest.mark.parametrize("op,ref", [(RA.Argmax, np.argmax), (RA.Argmin, np.argmin)],
                         ids=lambda v: getattr(v, "name", ""))
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_arg_reductions_match_numpy(op, ref, axis):
    out = op(Tensor(X), axis=axis)
    assert out.dtype == int32
    np.testing.assert_array_equal(out.asnumpy(), ref(X, axis=axis))
    assert op(Tensor(X), axis=axis, output_type=int64).dtype == int64


def test_arg_reduction_errors():
    with pytest.raises(ValueError, match="Argmax: axis 3 is out of range for a 3-d input"):
        ops.Argmax(axis=3)(Tensor(X))
    with pytest.raises(ValueError, match="Argmin: input must have at least 1 dimension"):
        ops.Argmin()(Tensor(1.0))
    with pytest.raises(ValueError, match=r"Argmax: cannot take the argmax over zero-size axis "
                                         r"1 of input shape \(2, 0\)"):
        ops.Argmax()(Tensor(np.zeros((2, 0), np.float32)))
    with pytest.raises(TypeError, match="Argmax: output_type must be Int32 or Int64"):
        ops.Argmax(output_type=float32)(Tensor(X))


def test_functional_argmax_argmin_follow_mindspore():
    x = Tensor(np.array([[1, 5, 3], [4, 2, 6]], np.float32))
    assert ops.argmax(x).dtype == int64 and ops.argmax(x).item() == 5
    assert ops.argmax(x, keepdim=True).shape == ()  # keepdim needs a dim
    assert ops.argmax(x, 1, keepdim=True).asnumpy().tolist() == [[1], [2]]
    assert ops.argmin(x).dtype == int32 and ops.argmin(x).item() == 0
    assert ops.argmin(x, -1, keepdims=True).asnumpy().tolist() == [[0], [1]]
    assert x.argmax(1).asnumpy().tolist() == [1, 2] and x.argmax().dtype == int64
    assert x.argmin(axis=0).dtype == int32


@pytest.mark.parametrize("op,find", [(RA.ArgMaxWithValue, np.argmax),
                                     (RA.ArgMinWithValue, np.argmin)],
                         ids=lambda v: getattr(v, "name", ""))
@pytest.mark.parametrize("axis,keep", [(0, False), (-1, True), (1, False)])
def test_with_value_matches_numpy_and_gradient(op, find, axis, keep):
    index, value = op(Tensor(X), axis=axis, keep_dims=keep)
    want = np.expand_dims(find(X, axis), axis)
    assert index.dtype == int64
    np.testing.assert_array_equal(index.asnumpy(), want if keep else want.squeeze(axis))
    np.testing.assert_array_equal(value.asnumpy(), np.take_along_axis(X, want, axis)
                                  if keep else np.take_along_axis(X, want, axis).squeeze(axis))
    check_bprop(op, X.astype(np.float64), attrs={"axis": axis, "keep_dims": keep})


# -- cumulative operators -------------------------------------------------------------------
def _cum_ref(fn, identity, x, axis, exclusive, reverse):
    if reverse:
        x = np.flip(x, axis)
    out = fn(x, axis=axis)
    if exclusive:
        out = np.concatenate([np.full_like(np.take(out, [0], axis), identity),
                              np.delete(out, -1, axis)], axis)
    return np.flip(out, axis) if reverse else out


@pytest.mark.parametrize("op,fn,identity", [(RC.CumSum, np.cumsum, 0),
                                            (RC.CumProd, np.cumprod, 1)],
                         ids=lambda v: getattr(v, "name", ""))
@pytest.mark.parametrize("axis", [0, 2, -2])
@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumulative_matches_numpy_and_gradient(op, fn, identity, axis, exclusive, reverse):
    attrs = {"exclusive": exclusive, "reverse": reverse}
    out = op(Tensor(X), axis, **attrs)
    np.testing.assert_allclose(out.asnumpy(), _cum_ref(fn, identity, X, axis, exclusive,
                                                       reverse), rtol=1e-5, atol=1e-6)
    x = RNG.uniform(0.5, 1.5, (2, 3, 3)) * RNG.choice([-1, 1], (2, 3, 3))
    check_bprop(op, x, axis, attrs=attrs)


def test_cumulative_matches_mindspore_values_and_dtypes():
    x = Tensor(np.array([[1, 5, 3], [4, 2, 6]], np.float32))
    assert ops.CumSum(exclusive=True, reverse=True)(x, 1).asnumpy().tolist() == \
        [[8, 3, 0], [8, 6, 0]]
    assert ops.CumProd(exclusive=True, reverse=True)(x, 1).asnumpy().tolist() == \
        [[15, 3, 1], [12, 6, 1]]
    assert ops.cumsum(Tensor([1, 2], int8), 0).dtype == int8
    assert ops.cumsum(Tensor([1, 2], int32), 0, dtype=float32).dtype == float32
    assert ops.cumprod(Tensor([1, 2], int32), 0).dtype == int64
    assert x.cumsum().asnumpy().tolist() == [1, 6, 9, 13, 15, 21]
    assert x.cumprod(0).asnumpy().tolist() == [[1, 5, 3], [4, 10, 18]]


def test_cumulative_errors():
    with pytest.raises(ValueError, match="CumSum: axis 2 is out of range for a 2-d input"):
        ops.cumsum(Tensor(np.ones((2, 3), np.float32)), 2)
    with pytest.raises(TypeError, match="CumSum: input 'x' has dtype Bool"):
        ops.CumSum()(Tensor([True]), 0)


# -- statistics ------------------------------------------------------------------------------
@pytest.mark.parametrize("axis,keep", [((), False), (1, True), ((0, 2), False)])
def test_logsumexp_matches_numpy_and_gradient(axis, keep):
    out = RS.LogSumExp(Tensor(X), axis, keep_dims=keep)
    want = np.log(np.sum(np.exp(X.astype(np.float64)), axis=_np_axes(axis), keepdims=keep))
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-5)
    check_bprop(RS.LogSumExp, X.astype(np.float64), axis, attrs={"keep_dims": keep})


def test_logsumexp_is_stable_and_matches_mindspore():
    big = ops.logsumexp(Tensor(np.array([1000.0, 1000.0], np.float32)), 0)
    np.testing.assert_allclose(big.asnumpy(), 1000 + np.log(2), rtol=1e-6)
    x = Tensor(np.array([[1, 5, 3], [4, 2, 6]], np.float32))
    np.testing.assert_allclose(ops.logsumexp(x, 1).asnumpy(), [5.1429314, 6.1429314], rtol=1e-6)
    assert ops.logsumexp(x, 1, keepdim=True).shape == (2, 1)
    assert x.logsumexp(0).shape == (3,)


@pytest.mark.parametrize("axis,unbiased,keep", [((), True, False), (1, False, True),
                                                ((0, -1), True, False)])
def test_reduce_std_matches_numpy_and_gradient(axis, unbiased, keep):
    std, mean = ops.ReduceStd(axis=axis, unbiased=unbiased, keep_dims=keep)(Tensor(X))
    ax = _np_axes(axis)
    np.testing.assert_allclose(std.asnumpy(), X.std(ax, ddof=int(unbiased), keepdims=keep),
                               rtol=1e-5)
    np.testing.assert_allclose(mean.asnumpy(), X.mean(ax, keepdims=keep), rtol=1e-5, atol=1e-7)
    check_bprop(RS.ReduceStd, X.astype(np.float64),
                attrs={"axis": axis, "unbiased": unbiased, "keep_dims": keep})


def test_std_var_match_numpy_and_mindspore():
    x = Tensor(np.array([[1, 5, 3], [4, 2, 6]], np.float32))
    a = x.asnumpy()
    np.testing.assert_allclose(ops.std(x).asnumpy(), 1.7078251838684082, rtol=1e-6)
    np.testing.assert_allclose(ops.var(x, 1).asnumpy(), [2.6666667, 2.6666667], rtol=1e-6)
    np.testing.assert_allclose(ops.var(x, 1, ddof=2).asnumpy(), [8.0, 8.0])
    np.testing.assert_allclose(ops.std(x, (0, 1), ddof=3, keepdims=True).asnumpy(),
                               a.std(ddof=3, keepdims=True), rtol=1e-6)
    np.testing.assert_allclose(x.var(1, ddof=1).asnumpy(), [4.0, 4.0])
    np.testing.assert_allclose(x.std(axis=1, ddof=1, keepdims=True).asnumpy(), [[2.0], [2.0]])
    with pytest.raises(TypeError, match=r"var: input has dtype Int32"):
        ops.var(Tensor([1, 2], int32))
    with pytest.raises(TypeError, match="ReduceStd: input 'input_x' has dtype Int32"):
        ops.ReduceStd()(Tensor([1, 2], int32))


# -- Tensor methods ----------------------------------------------------------------------------
def test_tensor_reduction_methods():
    x = Tensor(np.array([[1, 5, 3], [4, 2, 6]], np.int32))
    assert x.sum().dtype == int64 and x.sum().item() == 21
    assert x.sum(axis=1, keepdims=True).asnumpy().tolist() == [[9], [12]]
    assert x.sum(1, float64).dtype == float64
    assert x.sum(initial=10).item() == 31
    assert x.mean().dtype == int32 and x.mean().item() == 3
    assert x.mean(axis=1, keep_dims=True).shape == (2, 1)
    assert x.prod().item() == 720 and x.prod(axis=1, keep_dims=True).shape == (2, 1)
    assert x.all().item() is True and x.any(1).shape == (2,)
    f = Tensor(np.array([[1, 5, 3], [4, 2, 6]], np.float32))
    assert f.max().item() == 6 and f.min(axis=0).asnumpy().tolist() == [1, 2, 3]
    assert f.max(axis=1, keepdims=True).shape == (2, 1)
    values, index = f.max(axis=1, return_indices=True)
    assert values.asnumpy().tolist() == [5, 6] and index.asnumpy().tolist() == [1, 2]
    assert f.amax(1).asnumpy().tolist() == [5, 6] and f.amin().item() == 1
