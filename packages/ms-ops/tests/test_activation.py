import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays

import ms_ops as ops
from ms_ops.defs import activation as A
from ms_ops.defs import softmax as S
from ms_ops.testing import check_bprop
from ms_tensor import Tensor, bfloat16, float16, float32, float64, int32, uint8

_erf = np.vectorize(math.erf)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


# op, attrs, numpy reference (float64), points where a finite difference is safe
RECORDS = [
    (A.ReLU, {}, lambda x: np.maximum(x, 0), None),
    (A.ReLU6, {}, lambda x: np.clip(x, 0, 6), [-2.0, 0.5, 3.0, 5.5, 7.0, 40.0]),
    (A.Sigmoid, {}, _sigmoid, [-40.0, -3.0, -0.5, 0.0, 2.0, 35.0]),
    (A.Tanh, {}, np.tanh, [-20.0, -1.5, 0.0, 0.3, 2.0, 9.0]),
    (A.SiLU, {}, lambda x: x * _sigmoid(x), [-30.0, -2.0, 0.0, 0.7, 3.0, 25.0]),
    (A.FastGeLU, {}, lambda x: x * _sigmoid(1.702 * x), [-20.0, -1.0, 0.0, 0.4, 2.5, 15.0]),
    (A.GeLU, {"approximate": "none"}, lambda x: 0.5 * x * (1 + _erf(x / math.sqrt(2))),
     [-9.0, -3.5, -1.0, 0.0, 0.6, 2.8, 12.0]),
    (A.GeLU, {"approximate": "tanh"},
     lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3))),
     [-9.0, -3.5, -1.0, 0.0, 0.6, 2.8, 12.0]),
    (A.Softsign, {}, lambda x: x / (1 + np.abs(x)), [-50.0, -2.0, -0.1, 0.4, 3.0, 80.0]),
    (A.HSwish, {}, lambda x: x * np.clip(x + 3, 0, 6) / 6, [-5.0, -2.5, -0.5, 1.0, 2.9, 8.0]),
    (A.HSigmoid, {}, lambda x: np.clip(x + 3, 0, 6) / 6, [-5.0, -2.5, -0.5, 1.0, 2.9, 8.0]),
    (A.Elu, {"alpha": 0.7}, lambda x: np.where(x > 0, x, 0.7 * np.expm1(x)),
     [-30.0, -2.0, -0.3, 0.5, 4.0]),
    (A.LeakyReLU, {"alpha": 0.3}, lambda x: np.where(x > 0, x, 0.3 * x), None),
    (A.Softplus, {}, lambda x: np.log1p(np.exp(x)), [-50.0, -5.0, -0.5, 0.0, 3.0, 19.0, 25.0]),
    (A.Softplus, {"beta": 2, "threshold": 3},
     lambda x: np.where(2 * x > 3, x, np.log1p(np.exp(2 * x)) / 2), [-4.0, -0.3, 0.9, 2.0]),
    (A.HShrink, {"lambd": 0.8}, lambda x: np.where(np.abs(x) > 0.8, x, 0),
     [-3.0, -0.5, 0.2, 0.6, 1.1, 5.0]),
    (A.SoftShrink, {"lambd": 0.8},
     lambda x: np.where(x > 0.8, x - 0.8, np.where(x < -0.8, x + 0.8, 0)),
     [-3.0, -0.5, 0.2, 0.6, 1.1, 5.0]),
]
IDS = [f"{r[0].name}{''.join(f'-{v}' for v in r[1].values())}" for r in RECORDS]
SHAPES = [(2, 3), (), (4, 1, 3)]


def _inputs(shape, seed=0):
    return np.random.default_rng(seed).uniform(-8, 8, shape)


@pytest.mark.parametrize("op,attrs,ref,points", RECORDS, ids=IDS)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype,rtol", [(np.float64, 1e-12), (np.float32, 2e-6)])
def test_activation_matches_numpy(op, attrs, ref, points, shape, dtype, rtol):
    x = _inputs(shape).astype(dtype)
    out = op(Tensor(x), **attrs)
    assert out.shape == shape and out.dtype == (float64 if dtype is np.float64 else float32)
    np.testing.assert_allclose(out.asnumpy(), ref(x.astype(np.float64)), rtol=rtol, atol=1e-7)


@pytest.mark.parametrize("op,attrs,ref,points", RECORDS, ids=IDS)
def test_activation_gradient_matches_finite_differences(op, attrs, ref, points):
    # Points keep a distance from the kinks of piecewise activations.
    x = np.array(points if points is not None else [-3.0, -0.4, 0.7, 2.0, 9.0])
    check_bprop(op, x, attrs=attrs)
    check_bprop(op, _inputs((2, 3), seed=1) + 0.05, attrs=attrs)


@pytest.mark.parametrize("op,attrs,ref,points", RECORDS, ids=IDS)
def test_activation_keeps_half_precision(op, attrs, ref, points):
    x = np.linspace(-4, 4, 9)
    out16 = op(Tensor(x.astype(np.float16)), **attrs)
    assert out16.dtype == float16
    np.testing.assert_allclose(out16.asnumpy(), ref(x), rtol=2e-3, atol=2e-3)
    bf = op(Tensor(x, bfloat16), **attrs)
    assert bf.dtype == bfloat16
    np.testing.assert_allclose(bf.asnumpy().astype(np.float64), ref(x), rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("op,attrs", [(S.Softmax, {"axis": 0}), (S.Softmax, {"axis": -1}),
                                      (S.Softmax, {"axis": (0, 2)}), (S.LogSoftmax, {"axis": 1}),
                                      (S.LogSoftmax, {"axis": -1})])
def test_softmax_family_matches_numpy_and_gradient(op, attrs):
    x = _inputs((2, 3, 4))
    axis = attrs["axis"]
    want = _softmax(x, axis)
    got = op(Tensor(x), **attrs).asnumpy()
    np.testing.assert_allclose(got, want if op is S.Softmax else np.log(want), rtol=1e-12)
    check_bprop(op, x, attrs=attrs)


def test_softmax_and_log_softmax_are_stable_for_large_logits():
    x = Tensor(np.array([[1.0, 2.0, 1000.0], [-1000.0, 0.0, -1000.0]], np.float32))
    np.testing.assert_allclose(ops.log_softmax(x).asnumpy()[0], [-999.0, -998.0, 0.0])
    np.testing.assert_allclose(ops.softmax(x).asnumpy(), [[0, 0, 1], [0, 1, 0]], atol=1e-30)
    big = Tensor(np.array([-1000.0, 1000.0]))
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        np.testing.assert_array_equal(ops.sigmoid(big).asnumpy(), [0.0, 1.0])
        np.testing.assert_array_equal(ops.softplus(big).asnumpy(), [0.0, 1000.0])
        np.testing.assert_array_equal(ops.gelu(big).asnumpy(), [-0.0, 1000.0])


def test_softmax_of_a_scalar_is_one():
    np.testing.assert_array_equal(ops.softmax(Tensor(np.float32(3.0))).asnumpy(), 1.0)


def test_gelu_tail_is_accurate_where_one_plus_erf_would_cancel():
    # Phi(-8) = 6.22e-16: 1 + erf(-8 / sqrt 2) has no correct digits in float64.
    np.testing.assert_allclose(ops.gelu(Tensor(np.array([-8.0]))).asnumpy(),
                               [-8.0 * 6.220960574271785e-16], rtol=1e-9)


# Values printed by MindSpore 2.10 (CPU, float32) for these inputs.
MS_X = np.array([-30.0, -3.5, -1.0, -0.3, 0.0, 0.2, 1.0, 2.9, 4.0, 30.0], np.float32)
MINDSPORE = {
    "gelu": [-0.0, -0.00081422925, -0.15865526, -0.11462658, 0.0, 0.11585194, 0.84134471,
             2.89458919, 3.99987316, 30.0],
    "GeLU": [-0.0, -0.00061614811, -0.15880799, -0.11462908, 0.0, 0.11585142, 0.84119201,
             2.89503360, 3.99992990, 30.0],
    "fast_gelu": [-2.0046797e-21, -0.0090334462, -0.15420423, -0.11251587, 0.0, 0.11685754,
                  0.84579575, 2.87931299, 3.99558496, 30.0],
    "silu": [-2.8072657e-12, -0.10259271, -0.26894155, -0.12766731, 0.0, 0.10996681, 0.7310589,
             2.74875498, 3.92805505, 30.0],
    "leaky_relu": [-6.0, -0.7, -0.2, -0.06, 0.0, 0.2, 1.0, 2.9, 4.0, 30.0],
    "softplus": [0.0, 0.029750418, 0.31326121, 0.55435467, 0.69314700, 0.79813862, 1.31326103,
                 2.95356274, 4.01815081, 30.0],
    "softsign": [-0.96774191, -0.77777779, -0.5, -0.23076925, 0.0, 0.16666666, 0.5, 0.74358976,
                 0.8, 0.96774191],
    "hardswish": [0.0, 0.0, -0.33333334, -0.135, 0.0, 0.10666668, 0.66666669, 2.85166669, 4.0,
                  30.0],
    "hardsigmoid": [0.0, 0.0, 0.33333334, 0.45, 0.5, 0.53333336, 0.66666669, 0.98333335, 1.0,
                    1.0],
    "hardshrink": [-30.0, -3.5, -1.0, 0.0, 0.0, 0.0, 1.0, 2.9, 4.0, 30.0],
    "softshrink": [-29.5, -3.0, -0.5, 0.0, 0.0, 0.0, 0.5, 2.4, 3.5, 29.5],
    "relu6": [0.0, 0.0, 0.0, 0.0, 0.0, 0.2, 1.0, 2.9, 4.0, 6.0],
    "sigmoid": [9.3575524e-14, 0.029312205, 0.26894155, 0.42555767, 0.5, 0.54983407, 0.7310589,
                0.94784647, 0.98201376, 1.0],
}


@pytest.mark.parametrize("name", sorted(MINDSPORE))
def test_activation_agrees_with_mindspore(name):
    fn = (lambda t: ops.GeLU()(t)) if name == "GeLU" else getattr(ops, name)
    out = fn(Tensor(MS_X))
    assert out.dtype == float32
    np.testing.assert_allclose(out.asnumpy(), MINDSPORE[name], rtol=1e-4, atol=1e-6)


def test_softplus_with_beta_and_threshold_agrees_with_mindspore():
    out = ops.softplus(Tensor(MS_X), beta=2, threshold=3)
    np.testing.assert_allclose(out.asnumpy(), [0.0, 0.00045570824, 0.06346397, 0.21874394,
                                               0.34657350, 0.45650724, 1.06346405, 2.9, 4.0,
                                               30.0], rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("name,x,want", [
    ("relu", np.array([-2, 0, 3], np.int32), [0, 0, 3]),
    ("leaky_relu", np.array([-2, 0, 3], np.int32), [0, 0, 3]),  # -0.4 truncates to 0
    ("hardswish", np.array([-2, 0, 3], np.int32), [0, 0, 3]),
    ("hardsigmoid", np.array([-4, -2, 0, 3, 5], np.int32), [0, 0, 0, 1, 1]),
    ("relu", np.array([True, False]), [True, False]),
])
def test_integer_activations_keep_dtype_as_mindspore(name, x, want):
    out = getattr(ops, name)(Tensor(x))
    assert out.asnumpy().dtype == x.dtype
    np.testing.assert_array_equal(out.asnumpy(), want)


def test_relu_on_uint8_is_identity():
    out = ops.relu(Tensor(np.array([0, 7, 255], np.uint8)))
    assert out.dtype == uint8
    np.testing.assert_array_equal(out.asnumpy(), [0, 7, 255])


@pytest.mark.parametrize("name,op_name", [
    ("sigmoid", "Sigmoid"), ("tanh", "Tanh"), ("softmax", "Softmax"), ("gelu", "GeLU"),
    ("log_softmax", "LogSoftmax"), ("silu", "SiLU"), ("softsign", "Softsign"),
    ("softplus", "Softplus"), ("elu", "Elu"), ("relu6", "ReLU6"), ("fast_gelu", "FastGeLU"),
    ("hardshrink", "HShrink"), ("softshrink", "SoftShrink"),
])
def test_float_activations_reject_integer_input(name, op_name):
    with pytest.raises(TypeError, match=rf"^{op_name}: input '\w+' has dtype Int32"):
        getattr(ops, name)(Tensor(np.array([1, 2], np.int32)))


@pytest.mark.parametrize("call,exc,pattern", [
    (lambda x: ops.softmax(x, axis=2), ValueError, r"Softmax: axis 2 is out of range for a 2-d"),
    (lambda x: ops.Softmax(axis=(0, 0))(x), ValueError, r"Softmax: axis \(0, 0\) repeats"),
    (lambda x: ops.log_softmax(x, axis=(0,)), TypeError, r"LogSoftmax: axis must be an int"),
    (lambda x: ops.gelu(x, approximate="fast"), ValueError, r"approximate must be 'none' or"),
    (lambda x: ops.GeLU(approximate="fast")(x), ValueError, r"GeLU: approximate must be"),
    (lambda x: ops.softplus(x, beta=0), ValueError, r"Softplus: 'beta' cannot be 0"),
    (lambda x: ops.softshrink(x, lambd=-1.0), ValueError, r"SoftShrink: 'lambd' must be >= 0"),
    (lambda x: ops.hardshrink(x, lambd="a"), TypeError, r"HShrink: 'lambd' must be a number"),
    (lambda x: ops.elu(x, alpha=None), TypeError, r"Elu: 'alpha' must be a number"),
    (lambda x: ops.prelu(x, Tensor(np.ones(3, np.float32))), ValueError,
     r"PReLU: weight shape \(3,\) must be 1-d with 1 or 2 elements .* input shape \(4, 2\)"),
    (lambda x: ops.prelu(x, Tensor(np.ones(2))), TypeError,
     r"PReLU: input dtype Float32 and weight dtype Float64 differ"),
    (lambda x: A.ReluGrad(x, Tensor(np.ones(3, np.float32))), ValueError,
     r"ReluGrad: y_backprop shape \(4, 2\) and x shape \(3,\) must be equal"),
])
def test_activation_errors_name_the_operator(call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call(Tensor(np.ones((4, 2), np.float32)))


@pytest.mark.parametrize("xshape,wshape", [((4, 3), (3,)), ((2, 3, 5), (3,)), ((2, 3, 2, 2), (1,)),
                                           ((5,), (1,)), ((2, 3), ())])
def test_prelu_matches_numpy_and_gradient(xshape, wshape):
    rng = np.random.default_rng(3)
    x = rng.uniform(-2, 2, xshape)
    x[np.abs(x) < 0.05] = 0.3
    w = rng.uniform(0.05, 0.5, wshape)
    wb = w.reshape((-1,) + (1,) * (len(xshape) - 2)) if len(xshape) >= 2 else w
    np.testing.assert_allclose(ops.prelu(Tensor(x), Tensor(w)).asnumpy(),
                               np.where(x > 0, x, wb * x))
    check_bprop(A.PReLU, x, w)


def test_prelu_agrees_with_mindspore():
    out = ops.prelu(Tensor(np.array([[-1.0, 2.0], [-3.0, 4.0]], np.float32)),
                    Tensor(np.array([0.1, 0.2], np.float32)))
    np.testing.assert_allclose(out.asnumpy(), [[-0.1, 2.0], [-0.3, 4.0]], rtol=1e-6)


def _bits(a):
    return np.ascontiguousarray(a).view(np.uint8)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("shape", [(33, 7), (2, 3, 4, 5), (0, 3)])
def test_relu_grad_kernel_is_bitwise_np_where(dtype, shape):
    rng = np.random.default_rng(5)
    x = rng.standard_normal(shape).astype(dtype)
    dy = rng.standard_normal(shape).astype(dtype)
    if x.size:
        x.flat[:4] = [np.nan, 0.0, -0.0, np.inf]
        x.flat[4:7], dy.flat[4:7] = 1.0, [np.nan, -0.0, -np.inf]
    want = _bits(np.where(x > 0, dy, np.zeros((), dtype)))
    assert np.array_equal(_bits(A.relu_grad_cpu(dy, x)), want)
    out = np.full_like(dy, 7)
    assert A.relu_grad_cpu(dy, x, out=out) is out
    assert np.array_equal(_bits(out), want)
    strided = A.relu_grad_cpu(dy.T, x.T)  # not C-contiguous: the numpy path
    assert np.array_equal(_bits(strided), _bits(np.where(x.T > 0, dy.T, np.zeros((), dtype))))


def test_relu_grad_differentiates_again():
    rng = np.random.default_rng(4)
    dy = rng.standard_normal((3, 4))
    x = rng.uniform(-4, 4, (3, 4))
    x[np.abs(x) < 0.05] = 0.5
    check_bprop(A.ReluGrad, dy, x)


def test_functional_class_and_method_reach_one_definition():
    x = Tensor(_inputs((3, 4)).astype(np.float32))
    want = ops.softmax(x, 0).asnumpy()
    for out in (ops.Softmax(axis=0)(x), x.softmax(0), ops.softmax(x, axis=0)):
        np.testing.assert_allclose(out.asnumpy(), want)
    np.testing.assert_allclose(x.sigmoid().asnumpy(), ops.Sigmoid()(x).asnumpy())
    np.testing.assert_allclose(x.tanh().asnumpy(), np.tanh(x.asnumpy()), rtol=1e-6)
    np.testing.assert_allclose(x.hardshrink(1.5).asnumpy(), ops.HShrink(1.5)(x).asnumpy())
    assert ops.ReLU.op is ops.relu and ops.LeakyReLU.op is ops.leaky_relu


def test_softmax_dtype_casts_first():
    out = ops.softmax(Tensor(np.ones((2, 2), np.float32)), dtype=float64)
    assert out.dtype == float64
    np.testing.assert_allclose(out.asnumpy(), 0.5)


def test_gelu_primitive_defaults_to_tanh_and_functional_to_erf():
    x = Tensor(np.array([1.0]))
    assert ops.GeLU()(x).asnumpy()[0] == pytest.approx(0.8411919906082768, abs=1e-12)
    assert ops.gelu(x).asnumpy()[0] == pytest.approx(0.8413447460685429, abs=1e-12)


def test_int32_input_of_hswish_and_leaky_relu_infer_int32():
    spec = ops.HSwish().infer(ops.TensorSpec((2,), int32))
    assert spec == ops.TensorSpec((2,), int32)


@settings(max_examples=60, deadline=None)
@given(arrays(np.float64, array_shapes(min_dims=1, max_dims=3, max_side=5),
              elements=st.floats(-700, 700)), st.floats(-300, 300))
def test_softmax_sums_to_one_and_ignores_shifts(x, shift):
    out = ops.softmax(Tensor(x)).asnumpy()
    np.testing.assert_allclose(out.sum(axis=-1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(ops.softmax(Tensor(x + shift)).asnumpy(), out, atol=1e-12)
    np.testing.assert_allclose(np.exp(ops.log_softmax(Tensor(x)).asnumpy()), out, atol=1e-12)
