import math

import numpy as np
import pytest

import ms_ops as ops
from ms_ops.defs import math_unary as M
from ms_ops.defs import operators
from ms_ops.testing import check_bprop
from ms_tensor import Tensor, bfloat16, bool_, float16, float32, float64, int8, int32, registry

# op, numpy reference, (low, high) of a domain where the function is smooth
RECORDS = [
    (M.Exp, np.exp, (-3, 3)),
    (M.Exp2, np.exp2, (-3, 3)),
    (M.Expm1, np.expm1, (-3, 3)),
    (M.Log, np.log, (0.2, 5)),
    (M.Log1p, np.log1p, (-0.5, 5)),
    (M.Log2, np.log2, (0.2, 5)),
    (M.Log10, np.log10, (0.2, 5)),
    (M.Sqrt, np.sqrt, (0.2, 5)),
    (M.Rsqrt, lambda x: 1 / np.sqrt(x), (0.2, 5)),
    (M.Sin, np.sin, (-3, 3)),
    (M.Cos, np.cos, (-3, 3)),
    (M.Tan, np.tan, (-1.2, 1.2)),
    (M.Asin, np.arcsin, (-0.9, 0.9)),
    (M.ACos, np.arccos, (-0.9, 0.9)),
    (M.Atan, np.arctan, (-3, 3)),
    (M.Sinh, np.sinh, (-3, 3)),
    (M.Cosh, np.cosh, (-3, 3)),
    (M.Asinh, np.arcsinh, (-3, 3)),
    (M.Acosh, np.arccosh, (1.2, 5)),
    (M.Atanh, np.arctanh, (-0.9, 0.9)),
    (M.Erf, np.vectorize(math.erf), (-3, 3)),
    (M.Erfc, np.vectorize(math.erfc), (-3, 3)),
]
_ids = lambda v: getattr(v, "name", "")  # noqa: E731


@pytest.mark.parametrize("op,ref,domain", RECORDS, ids=_ids)
def test_float_functions_match_numpy(op, ref, domain):
    x = np.random.default_rng(0).uniform(*domain, (3, 4))
    out64 = op(Tensor(x))
    assert out64.dtype == float64
    np.testing.assert_allclose(out64.asnumpy(), ref(x), rtol=1e-13, atol=1e-15)
    out32 = op(Tensor(x.astype(np.float32)))
    assert out32.dtype == float32
    np.testing.assert_allclose(out32.asnumpy(), ref(x.astype(np.float32).astype(np.float64)),
                               rtol=2e-6, atol=1e-7)


@pytest.mark.parametrize("op,ref,domain", RECORDS, ids=_ids)
def test_float_functions_gradients(op, ref, domain):
    check_bprop(op, np.random.default_rng(1).uniform(*domain, (2, 3)))


@pytest.mark.parametrize("op,ref,domain", RECORDS, ids=_ids)
def test_integers_are_promoted_to_float32_and_half_floats_kept(op, ref, domain):
    lo = math.ceil(domain[0])
    ints = np.array([lo, lo], np.int32) if op not in (M.Asin, M.ACos, M.Atanh) else \
        np.array([0, 0], np.int32)
    out = op(Tensor(ints))
    assert out.dtype == float32
    np.testing.assert_allclose(out.asnumpy(), ref(ints.astype(np.float64)), rtol=1e-6)
    for half in (float16, bfloat16):
        assert op(Tensor(ints, half)).dtype == half


def test_erf_and_erfc_are_accurate_across_the_whole_line():
    x = np.concatenate([np.linspace(-30, 30, 2001), [0.0, -0.0, 1e-300, 1.9999, 2.0, 2.0001]])
    erf = M.Erf(Tensor(x)).asnumpy()
    erfc = M.Erfc(Tensor(x)).asnumpy()
    want_erf = np.array([math.erf(v) for v in x])
    want_erfc = np.array([math.erfc(v) for v in x])
    np.testing.assert_allclose(erf, want_erf, rtol=4e-15, atol=1e-300)
    np.testing.assert_allclose(erfc, want_erfc, rtol=4e-14, atol=1e-300)
    special = Tensor(np.array([np.nan, np.inf, -np.inf, -0.0]))
    np.testing.assert_array_equal(ops.erf(special).asnumpy(), [np.nan, 1.0, -1.0, -0.0])
    np.testing.assert_array_equal(ops.erfc(special).asnumpy(), [np.nan, 0.0, 2.0, 1.0])
    assert np.signbit(ops.erf(special).asnumpy()[3])


def test_atan2_matches_numpy_with_broadcasting_and_gradients():
    rng = np.random.default_rng(2)
    x, y = rng.uniform(-2, 2, (2, 3)), rng.uniform(0.5, 2, (3,)) * np.array([1, -1, 1])
    np.testing.assert_allclose(ops.atan2(Tensor(x), Tensor(y)).asnumpy(), np.arctan2(x, y))
    check_bprop(M.Atan2, x, y)
    check_bprop(M.Atan2, rng.uniform(-2, 2, (4, 1, 3)), rng.uniform(0.5, 2, (2, 1)))
    assert ops.atan2(Tensor(np.array([1], np.int32)), 2.5).dtype == float32


def test_domain_edges_give_inf_and_nan_silently(recwarn):
    # MindSpore 2.10: log(0) = -inf, log(-1) = nan, rsqrt(0) = inf; numpy warns, we do not.
    assert ops.log(Tensor([0.0, -1.0])).tolist()[0] == -np.inf
    assert np.isnan(ops.log(Tensor([-1.0])).asnumpy()).all()
    assert ops.rsqrt(Tensor([0.0])).tolist() == [np.inf]
    assert np.isnan(ops.acos(Tensor([2.0])).asnumpy()).all()
    assert ops.atanh(Tensor([1.0])).tolist() == [np.inf]
    edges = Tensor(np.array([np.inf, -np.inf, np.nan, 1e30, 0.0, -1.0], np.float32))
    for op, *_ in RECORDS:
        op(edges)
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


@pytest.mark.parametrize("op,ref", [(M.Floor, np.floor), (M.Ceil, np.ceil),
                                    (M.Trunc, np.trunc), (M.Round, np.round)], ids=_ids)
def test_rounding_matches_numpy_and_has_no_gradient(op, ref):
    x = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.7, -2.7], np.float32)
    out = op(Tensor(x))
    assert out.dtype == float32
    np.testing.assert_array_equal(out.asnumpy(), ref(x))
    assert not op.differentiable and registry.load().bprop(op) is None


def test_round_is_half_to_even_keeps_integers_and_takes_decimals():
    # MindSpore 2.10: round([0.5, 1.5, 2.5, -0.5]) = [0, 2, 2, -0].
    assert ops.round(Tensor([0.5, 1.5, 2.5, -0.5])).tolist() == [0.0, 2.0, 2.0, -0.0]
    assert ops.Round()(Tensor([0.5, 1.5])).tolist() == [0.0, 2.0]
    ints = Tensor(np.array([1, 2], np.int32))
    assert ops.round(ints).dtype == int32 and ops.round(ints).tolist() == [1, 2]
    np.testing.assert_allclose(Tensor([1.25, 2.375]).round(decimals=1).asnumpy(), [1.2, 2.4])
    assert Tensor(np.array([-7], np.int8)).trunc().dtype == int8
    assert ops.trunc(Tensor([True])).dtype == bool_


@pytest.mark.parametrize("call,exc,match", [
    (lambda: ops.floor(Tensor(np.array([1], np.int32))), TypeError,
     r"Floor: input 'x' has dtype Int32, expected one of BFloat16, Float16, Float32, Float64"),
    (lambda: ops.ceil(Tensor([True])), TypeError, r"Ceil: input 'x' has dtype Bool"),
    (lambda: ops.erf(Tensor(np.array([1j], np.complex64))), TypeError,
     r"Erf: input 'x' has dtype Complex64"),
    (lambda: ops.sqrt(object()), TypeError, r"Sqrt: input 'x' must be a Tensor"),
    (lambda: ops.round(Tensor([1.5]), decimals=1.5), TypeError,
     r"Round: 'decimals' must be an int, got float 1.5"),
    (lambda: ops.round(Tensor([True])), TypeError, r"Round: input 'x' has dtype Bool"),
    (lambda: ops.atan2(Tensor(np.ones((2, 3))), Tensor(np.ones(2))), ValueError,
     r"Atan2: x shape \(2, 3\) and y shape \(2,\) cannot be broadcast"),
])
def test_math_errors_name_the_operator(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


@pytest.mark.parametrize("x,dtype,expected", [
    # MindSpore 2.10 CPU: sqrt/reciprocal promote integers and bool to float32.
    (np.array([1, 2], np.int64), None, [1.0, 1.4142135381698608]),
    (np.array([True, False]), None, [1.0, 0.0]),
    (np.array([1, 2], np.float64), float16, [1.0, 1.4140625]),
])
def test_sqrt_dtypes_and_values_match_mindspore(x, dtype, expected):
    out = ops.sqrt(Tensor(x, dtype))
    assert out.dtype == (dtype or float32)
    assert out.tolist() == expected


def test_functional_class_alias_and_method_reach_one_definition():
    x = Tensor(np.array([0.25, 0.5], np.float32))
    want = np.arcsin(x.asnumpy())
    for out in (ops.asin(x), ops.arcsin(x), ops.Asin()(x), x.asin(), x.arcsin()):
        np.testing.assert_array_equal(out.asnumpy(), want)
    assert ops.ACos.op is ops.acos and ops.arccosh is ops.acosh
    np.testing.assert_array_equal(x.exp().asnumpy(), np.exp(x.asnumpy()))
    np.testing.assert_array_equal(x.atan2(x).asnumpy(), np.arctan2(x.asnumpy(), x.asnumpy()))


@pytest.mark.parametrize("op", [r[0] for r in RECORDS if r[0] not in (M.Exp, M.Log, M.Sqrt)]
                         + [M.Atan2], ids=_ids)
def test_every_float_function_rejects_complex_input(op):  # those three take complex too
    args = [Tensor(np.array([1j], np.complex64))] * len(op.inputs)
    with pytest.raises(TypeError, match=rf"{op.name}: input 'x' has dtype Complex64"):
        op(*args)


@pytest.mark.parametrize("op", operators(M), ids=_ids)
def test_every_function_takes_0d_tensors(op):
    out = op(*[Tensor(np.array(1.5))] * sum(a.kind == "tensor" for a in op.inputs))
    assert out.shape == () and out.dtype == float64
