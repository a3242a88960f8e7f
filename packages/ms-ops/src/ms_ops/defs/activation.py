"""Activations: ReLU, GeLU, Sigmoid, Tanh, ... with numerically stable kernels (Softmax and
LogSoftmax are in ``softmax``).

Gradient rules are written with operators. Piecewise activations share one mask
operator, ``ReluGrad(dy, x) = dy * (x > 0)`` (MindSpore's own rule for ReLU): every
other mask is a sum of shifted copies of it (``0 < x <= 6`` is ``(x > 0) - (x > 6)``),
so their rules need no comparison or select operator and still differentiate again.
"""

from __future__ import annotations

import math

import numpy as np

from ms_ops.defs import array, math_unary, reduction
from ms_ops.defs.arithmetic import Abs, Add, Div, Mul, Neg, Sub
from ms_ops.infer import check_dtype
from ms_ops.kernels import _activation
from ms_ops.opdef import FLOATS, NUMBERS, Arg, Attr, OpDef, TensorSpec, functional
from ms_tensor import dtype as mstype

RELU_TYPES = NUMBERS | {mstype.bool_}


def _unary(dtypes):
    """Inference of a one-input activation: same shape and dtype, dtype checked."""

    def infer(x, **_attrs):
        check_dtype("input", x, dtypes)
        return TensorSpec(x.shape, x.dtype)

    return infer


def _compute(x):
    """Half-precision inputs (float16, bfloat16) are computed in float32; dispatch casts
    the result back to the input's dtype."""
    return x.astype(np.float32) if x.dtype.itemsize < 4 else x


def _as_float(x):
    """Integer inputs of activations that accept them are computed in float64."""
    return x.astype(np.float64) if x.dtype.kind in "biu" else _compute(x)


_IN = (Arg("input"),)
_X = (Arg("x"),)


def _number_attr(name, value):
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise TypeError(f"{name!r} must be a number, got {type(value).__name__} {value!r}")
    return float(value)


def _shrink_infer(x, lambd=0.5):
    if _number_attr("lambd", lambd) < 0:
        raise ValueError(f"'lambd' must be >= 0, got {lambd}")
    return _unary(FLOATS)(x)


_UINT = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def _flat_c(a):
    return a.dtype in (np.float32, np.float64) and a.flags.c_contiguous


def sigmoid_cpu(x):
    x = _compute(x)
    e = np.exp(-np.abs(x))  # never overflows; picks the branch that cannot cancel
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


_GELU_K = math.sqrt(2 / math.pi)
_SQRT_HALF = math.sqrt(0.5)


def _gelu_tanh(x):
    with np.errstate(over="ignore"):  # x**3 overflows for |x| > 1e12; tanh saturates anyway
        return 0.5 * x * (1 + np.tanh(_GELU_K * (x + 0.044715 * x ** 3)))


def _channel_shape(size, ndim):
    """The shape that makes PReLU's weight broadcast along axis 1 of a ``ndim``-d input."""
    return (size,) + (1,) * (ndim - 2) if ndim >= 2 else (size,)


def _mask(dy, x, shift=0.0):
    """dy * (x > shift), by ReluGrad."""
    return ReluGrad(dy, Sub(x, shift) if shift else x)


def _swish_grad(x, scale, dout):
    """d/dx of x * sigmoid(scale x), times dout."""
    s = Sigmoid(Mul(x, scale) if scale != 1.0 else x)
    inner = Add(1.0, Mul(Mul(x, scale), Sub(1.0, s)))
    return Mul(dout, Mul(s, inner))


def hsigmoid_bprop(x, out, dout):
    return (Div(Sub(_mask(dout, x, -3.0), _mask(dout, x, 3.0)), 6.0),)


def _shrink_mask(dout, x, lambd):
    """dout * (|x| > lambd)."""
    return Add(_mask(dout, x, lambd), _mask(dout, Neg(x), lambd))


# Samples for the activations: piecewise ones (ReLU, ReLU6, HSwish, shrinks, ...) get
# values at least 0.2 away from their breakpoints; Softmax and LogSoftmax are sampled
# along several axes; attributes that change the math get a second value.
def _away_from(breaks, lo=-4.0, hi=4.0, gap=0.2):
    """Uniform values in [lo, hi], redrawn until each is ``gap`` from every breakpoint."""
    def values(rng, shape):
        x = rng.uniform(lo, hi, shape)
        while True:
            near = np.min(np.abs(x[..., None] - np.asarray(breaks)), axis=-1) < gap
            if not near.any():
                return x
            x = np.where(near, rng.uniform(lo, hi, shape), x)
    return values


def _unary_samples(values, attrs_list=({},)):
    def sample(rng):
        for attrs in attrs_list:
            yield (values(rng, (2, 3)),), dict(attrs)
            yield (values(rng, (4,)),), dict(attrs)
    return sample


def _normal(rng, shape):
    return rng.standard_normal(shape)


SMOOTH = _unary_samples(_normal)


AWAY_FROM_0 = _away_from([0.0])


SHRINK = [{"lambd": 0.5}, {"lambd": 1.0}]


ReLU = OpDef("ReLU", _IN, infer=_unary(RELU_TYPES), doc="max(input, 0), elementwise.",
             functional="relu")


@ReLU.kernel("CPU", dtypes=RELU_TYPES, out=True)
def relu_cpu(x, out=None):
    return np.maximum(x, np.zeros((), x.dtype), out=out)


@ReLU.bprop
def relu_bprop(x, out, dout):
    return (ReluGrad(dout, out),)


ReLU.samples(_unary_samples(AWAY_FROM_0))


ReLU6 = OpDef("ReLU6", _X, infer=_unary(FLOATS), doc="min(max(x, 0), 6), elementwise.",
              functional="relu6")


@ReLU6.kernel("CPU", dtypes=FLOATS)
def relu6_cpu(x):
    return np.clip(x, 0, 6)


@ReLU6.bprop
def relu6_bprop(x, out, dout):
    return (Sub(_mask(dout, x), _mask(dout, x, 6.0)),)


ReLU6.samples(_unary_samples(_away_from([0.0, 6.0], -2.0, 8.0)))


def _relu_grad_infer(dy, x):
    check_dtype("y_backprop", dy, FLOATS)
    check_dtype("x", x, FLOATS)
    if dy.shape != x.shape:
        raise ValueError(f"y_backprop shape {dy.shape} and x shape {x.shape} must be equal")
    return TensorSpec(dy.shape, dy.dtype)


ReluGrad = OpDef("ReluGrad", (Arg("y_backprop"), Arg("x")), infer=_relu_grad_infer,
                 nondiff_inputs=("x",),
                 doc="y_backprop * (x > 0): ReLU's gradient and the mask piecewise rules share.")


@ReluGrad.kernel("CPU", dtypes=FLOATS, out=True)
def relu_grad_cpu(dy, x, out=None):
    # dy where x > 0, else +0.0. float32/float64: one Cython pass (the numpy bit mask below
    # makes two temporaries and three passes); other dtypes: as a bit mask, ~9x faster than
    # np.where. Both are bit-identical to np.where (NaN, inf and -0.0 in dy included).
    if dy.shape == x.shape and dy.dtype == x.dtype and _flat_c(dy) and _flat_c(x) and (
            out is None or (out.dtype == dy.dtype and out.flags.c_contiguous)):
        if out is None:
            out = np.empty_like(dy)
        _activation.relu_grad(dy.reshape(-1), x.reshape(-1), out.reshape(-1))
        return out
    uint = _UINT.get(dy.itemsize)
    if uint is None or dy.shape != x.shape or not (dy.flags.c_contiguous and x.flags.c_contiguous):
        grad = np.where(x > 0, dy, np.zeros((), dy.dtype))
        if out is None:
            return grad
        np.copyto(out, grad)
        return out
    mask = np.negative((x > 0).view(np.uint8), dtype=uint)  # True -> all ones, False -> 0
    if out is None:
        return np.bitwise_and(dy.view(uint), mask).view(dy.dtype)
    np.bitwise_and(dy.view(uint), mask, out=out.view(uint))
    return out


@ReluGrad.bprop
def relu_grad_bprop(dy, x, out, dout):
    return (ReluGrad(dout, x), None)


@ReluGrad.samples
def _relu_grad(rng):
    x = _away_from([0.0])(rng, (2, 3))
    yield (rng.standard_normal((2, 3)), x), {}


Sigmoid = OpDef("Sigmoid", _IN, infer=_unary(FLOATS), doc="1 / (1 + exp(-input)), stably.",
                functional="sigmoid", methods="sigmoid")
Sigmoid.kernel("CPU", dtypes=FLOATS)(sigmoid_cpu)


@Sigmoid.bprop
def sigmoid_bprop(x, out, dout):
    return (Mul(dout, Mul(out, Sub(1.0, out))),)


Sigmoid.samples(SMOOTH)


Tanh = OpDef("Tanh", _IN, infer=_unary(FLOATS), doc="Hyperbolic tangent, elementwise.",
             functional="tanh", methods="tanh")


@Tanh.kernel("CPU", dtypes=FLOATS, out=True)
def tanh_cpu(x, out=None):
    return np.tanh(_compute(x), out=out)


@Tanh.bprop
def tanh_bprop(x, out, dout):
    return (Mul(dout, Sub(1.0, Mul(out, out))),)


Tanh.samples(SMOOTH)


SiLU = OpDef("SiLU", _IN, infer=_unary(FLOATS), doc="input * sigmoid(input) (swish).",
             functional="silu")


@SiLU.kernel("CPU", dtypes=FLOATS)
def silu_cpu(x):
    x = _compute(x)
    return x * sigmoid_cpu(x)


@SiLU.bprop
def silu_bprop(x, out, dout):
    return (_swish_grad(x, 1.0, dout),)


SiLU.samples(SMOOTH)


FastGeLU = OpDef("FastGeLU", _X, infer=_unary(FLOATS),
                 doc="x * sigmoid(1.702 x): MindSpore's fast GeLU approximation.",
                 functional="fast_gelu")


@FastGeLU.kernel("CPU", dtypes=FLOATS)
def fast_gelu_cpu(x):
    x = _compute(x)
    return x * sigmoid_cpu(1.702 * x)


@FastGeLU.bprop
def fast_gelu_bprop(x, out, dout):
    return (_swish_grad(x, 1.702, dout),)


FastGeLU.samples(SMOOTH)


Softsign = OpDef("Softsign", _X, infer=_unary(FLOATS), doc="x / (1 + |x|), elementwise.",
                 functional="softsign")


@Softsign.kernel("CPU", dtypes=FLOATS)
def softsign_cpu(x):
    x = _compute(x)
    return x / (1 + np.abs(x))


@Softsign.bprop
def softsign_bprop(x, out, dout):
    d = Add(1.0, Abs(x))
    return (Div(dout, Mul(d, d)),)


Softsign.samples(SMOOTH)


HSwish = OpDef("HSwish", _IN, infer=_unary(NUMBERS), doc="input * relu6(input + 3) / 6.",
               functional="hardswish")


@HSwish.kernel("CPU", dtypes=NUMBERS)
def hswish_cpu(x):
    x = _as_float(x)
    return x * np.clip(x + 3, 0, 6) / 6


@HSwish.bprop
def hswish_bprop(x, out, dout):
    # d/dx [x hsigmoid(x)] = hsigmoid(x) + x * hsigmoid'(x)
    inner = hsigmoid_bprop(x, None, Mul(dout, x))[0]
    return (Add(Mul(dout, HSigmoid(x)), inner),)


HSwish.samples(_unary_samples(_away_from([-3.0, 3.0], -5.0, 5.0)))


HSigmoid = OpDef("HSigmoid", _IN, infer=_unary(NUMBERS), doc="relu6(input + 3) / 6.",
                 functional="hardsigmoid")


@HSigmoid.kernel("CPU", dtypes=NUMBERS)
def hsigmoid_cpu(x):
    return np.clip(_as_float(x) + 3, 0, 6) / 6


HSigmoid.bprop(hsigmoid_bprop)
HSigmoid.samples(_unary_samples(_away_from([-3.0, 3.0], -5.0, 5.0)))


def _gelu_infer(x, approximate="tanh"):
    if approximate not in ("none", "tanh"):
        raise ValueError(f"approximate must be 'none' or 'tanh', got {approximate!r}")
    return _unary(FLOATS)(x)


GeLU = OpDef("GeLU", _IN, (Attr("approximate", "tanh"),), infer=_gelu_infer,
             doc="input * Phi(input); ``approximate='tanh'`` (the Primitive's default, as in "
                 "MindSpore) uses the tanh formula, ``'none'`` the exact erf form.")


@GeLU.kernel("CPU", dtypes=FLOATS)
def gelu_cpu(x, approximate="tanh"):
    x = _compute(x)
    if approximate == "tanh":
        return _gelu_tanh(x)
    # Phi(x) = erfc(-x / sqrt 2) / 2 keeps the tail for very negative x, where
    # 1 + erf(x / sqrt 2) would cancel to nothing.
    x64 = x.astype(np.float64)
    return x64 * 0.5 * math_unary.erfc_cpu(x64 * -_SQRT_HALF)


@GeLU.bprop
def gelu_bprop(x, out, dout, approximate="tanh"):
    if approximate == "none":
        # d/dx [x Phi(x)] = Phi(x) + x phi(x)
        cdf = Mul(math_unary.Erfc(Mul(x, -_SQRT_HALF)), 0.5)
        pdf = Mul(math_unary.Exp(Mul(Mul(x, x), -0.5)), 1 / math.sqrt(2 * math.pi))
        return (Mul(dout, Add(cdf, Mul(x, pdf))),)
    # out = 0.5 x (1 + t), t = tanh(k (x + c x^3))
    x2 = Mul(x, x)
    t = Tanh(Mul(Mul(x, Add(1.0, Mul(x2, 0.044715))), _GELU_K))
    du = Mul(Add(1.0, Mul(x2, 3 * 0.044715)), _GELU_K)
    grad = Add(Mul(Add(1.0, t), 0.5), Mul(Mul(Mul(x, 0.5), Sub(1.0, Mul(t, t))), du))
    return (Mul(dout, grad),)


GeLU.samples(_unary_samples(_normal, [{"approximate": "tanh"}, {"approximate": "none"}]))


def _elu_infer(x, alpha=1.0):
    _number_attr("alpha", alpha)
    return _unary(FLOATS)(x)


Elu = OpDef("Elu", (Arg("input_x"),), (Attr("alpha", 1.0),), infer=_elu_infer,
            doc="x for x > 0, alpha * (exp(x) - 1) otherwise (any alpha, not only 1.0).",
            functional="elu")


@Elu.kernel("CPU", dtypes=FLOATS)
def elu_cpu(x, alpha=1.0):
    x = _compute(x)
    return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0)))


@Elu.bprop
def elu_bprop(x, out, dout, alpha=1.0):
    pos = _mask(dout, x)
    return (Add(pos, Mul(Sub(dout, pos), Add(out, alpha))),)


Elu.samples(_unary_samples(AWAY_FROM_0, [{}, {"alpha": 0.5}]))


def _leaky_infer(x, alpha=0.2):
    _number_attr("alpha", alpha)
    return _unary(NUMBERS)(x)


LeakyReLU = OpDef("LeakyReLU", _IN, (Attr("alpha", 0.2),), infer=_leaky_infer,
                  doc="x for x > 0, alpha * x otherwise.", functional="leaky_relu")


@LeakyReLU.kernel("CPU", dtypes=NUMBERS)
def leaky_relu_cpu(x, alpha=0.2):
    x = _as_float(x)
    return np.where(x > 0, x, alpha * x)


@LeakyReLU.bprop
def leaky_relu_bprop(x, out, dout, alpha=0.2):
    pos = _mask(dout, x)
    return (Add(pos, Mul(Sub(dout, pos), alpha)),)


LeakyReLU.samples(_unary_samples(AWAY_FROM_0, [{}, {"alpha": 0.01}]))


def _softplus_infer(x, beta=1, threshold=20):
    if _number_attr("beta", beta) == 0:
        raise ValueError("'beta' cannot be 0")
    _number_attr("threshold", threshold)
    return _unary(FLOATS)(x)


Softplus = OpDef("Softplus", _IN, (Attr("beta", 1), Attr("threshold", 20)),
                 infer=_softplus_infer,
                 doc="log(1 + exp(beta x)) / beta, and x itself where beta x > threshold.",
                 functional="softplus")


@Softplus.kernel("CPU", dtypes=FLOATS)
def softplus_cpu(x, beta=1, threshold=20):
    x = _compute(x)
    bx = beta * x
    return np.where(bx > threshold, x, np.logaddexp(0, bx) / beta)


@Softplus.bprop
def softplus_bprop(x, out, dout, beta=1, threshold=20):
    bx = Mul(x, beta)
    # sigmoid(bx) below the threshold, exactly 1 above it (where softplus returns x)
    return (Add(Mul(dout, Sigmoid(bx)), _mask(Mul(dout, Sigmoid(Neg(bx))), bx, threshold)),)


@Softplus.samples
def _softplus(rng):
    """The default, and beta=2, threshold=3: beta * x jumps to x above 3 (x > 1.5)."""
    yield (rng.standard_normal((2, 3)) * 2,), {}
    yield (_away_from([1.5], -3.0, 3.0)(rng, (2, 3)),), {"beta": 2, "threshold": 3}


HShrink = OpDef("HShrink", _IN, (Attr("lambd", 0.5),), infer=_shrink_infer,
                doc="x where |x| > lambd, else 0.", functional="hardshrink", methods="hardshrink")


@HShrink.kernel("CPU", dtypes=FLOATS)
def hshrink_cpu(x, lambd=0.5):
    return np.where(np.abs(x) > lambd, x, np.zeros((), x.dtype))


@HShrink.bprop
def hshrink_bprop(x, out, dout, lambd=0.5):
    return (_shrink_mask(dout, x, lambd),)


HShrink.samples(_unary_samples(_away_from([-1.0, -0.5, 0.5, 1.0], -2.0, 2.0), SHRINK))


SoftShrink = OpDef("SoftShrink", _IN, (Attr("lambd", 0.5),), infer=_shrink_infer,
                   doc="x - lambd where x > lambd, x + lambd where x < -lambd, else 0.",
                   functional="softshrink")


@SoftShrink.kernel("CPU", dtypes=FLOATS)
def softshrink_cpu(x, lambd=0.5):
    x = _compute(x)
    return np.where(x > lambd, x - lambd, np.where(x < -lambd, x + lambd, 0))


@SoftShrink.bprop
def softshrink_bprop(x, out, dout, lambd=0.5):
    return (_shrink_mask(dout, x, lambd),)


SoftShrink.samples(_unary_samples(_away_from([-1.0, -0.5, 0.5, 1.0], -2.0, 2.0), SHRINK))


def _prelu_infer(x, weight):
    check_dtype("input", x, FLOATS)
    check_dtype("weight", weight, FLOATS)
    if x.dtype is not weight.dtype:
        raise TypeError(f"input dtype {x.dtype} and weight dtype {weight.dtype} differ")
    channels = x.shape[1] if x.ndim >= 2 else 1
    size = math.prod(weight.shape)
    if weight.ndim > 1 or size not in (1, channels):
        raise ValueError(f"weight shape {weight.shape} must be 1-d with 1 or {channels} "
                         f"elements (the channels of input shape {x.shape})")
    return TensorSpec(x.shape, x.dtype)


PReLU = OpDef("PReLU", (Arg("input"), Arg("weight")), infer=_prelu_infer,
              doc="x for x > 0, weight[c] * x otherwise; c is the channel (axis 1).",
              functional="prelu")


@PReLU.kernel("CPU", dtypes=FLOATS)
def prelu_cpu(x, weight):
    return np.where(x > 0, x, weight.reshape(_channel_shape(weight.size, x.ndim)) * x)


@PReLU.bprop
def prelu_bprop(x, weight, out, dout):
    pos = _mask(dout, x)
    neg = Sub(dout, pos)
    w = array.Reshape(weight, _channel_shape(math.prod(weight.shape), x.ndim))
    dx = Add(pos, Mul(neg, w))
    dw = Mul(neg, x)
    if weight.shape and weight.shape[0] > 1 and x.ndim >= 2:
        axes = (0,) + tuple(range(2, x.ndim))
        dw = reduction.ReduceSum(dw, axes, keep_dims=False)
    else:
        dw = reduction.ReduceSum(dw, (), keep_dims=False)
    return (dx, array.Reshape(dw, weight.shape))


@PReLU.samples
def _prelu(rng):
    values = _away_from([0.0], -2.0, 2.0)
    yield (values(rng, (2, 3, 2)), rng.uniform(0.05, 0.5, (3,))), {}
    yield (values(rng, (2, 3)), rng.uniform(0.05, 0.5, (1,))), {}
    yield (values(rng, (4,)), rng.uniform(0.05, 0.5, (1,))), {}


@functional("gelu")
def gelu(input, approximate="none"):
    """GeLU with the exact erf form by default (``ops.gelu``); ``'tanh'`` approximates.

    >>> ops.gelu(Tensor([1.0])).asnumpy().round(4)
    array([0.8413], dtype=float32)
    """
    if approximate not in ("none", "tanh"):
        raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    return GeLU(input, approximate=approximate)
