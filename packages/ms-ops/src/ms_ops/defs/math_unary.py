"""Elementwise math functions: Exp, Log, Sqrt, the trigonometric family, Erf, Floor, Round...

The transcendental functions take floats; integer and bool inputs are promoted to float32
first (``promote="float"``, as MindSpore documents for ``ops.sqrt`` and friends).
Floor and Ceil take floats only; Round and Trunc also keep integers as they are. The
rounding functions have no gradient (MindSpore's is zero everywhere).
"""

from __future__ import annotations

import math

import numpy as np

import ms_ops.defs.arithmetic as A
from ms_ops.defs._grad_util import conj, grad_for, shape_of, sum_to
from ms_ops.infer import check_dtype, check_int, elementwise
from ms_ops.opdef import FLOATS, NUMBERS, STATIC, Arg, OpDef, TensorSpec, functional
from ms_tensor import dtype as mstype

_X = (Arg("x"),)
_COMPLEX = frozenset({mstype.complex64, mstype.complex128})
_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _float_op(name: str, doc: str, **names) -> OpDef:
    return OpDef(name, _X, infer=elementwise(FLOATS), promote="float", doc=doc, **names)


def _float_or_complex_op(name: str, doc: str, **names) -> OpDef:
    """Exp, Log and Sqrt: MindSpore's take complex inputs as well."""
    return OpDef(name, _X, infer=elementwise(FLOATS | _COMPLEX), promote="float", doc=doc,
                 **names)


def _rounding_op(name: str, dtypes, doc: str, **names) -> OpDef:
    return OpDef(name, _X, infer=elementwise(dtypes), differentiable=False, doc=doc, **names)


# Outside their domain (log of 0, sqrt of -1, sin of inf, exp overflowing) the functions
# give inf/NaN as MindSpore does, without numpy's RuntimeWarnings.
_quiet = np.errstate(all="ignore")


def _quietly(ufunc):
    @_quiet
    def kernel(x, out=None):
        return ufunc(x, out=out)

    kernel.__name__ = f"{ufunc.__name__}_cpu"
    return kernel


# erf/erfc: numpy has neither, so they are computed in float64 from a power series below
# _TAIL and a continued fraction above it; each is accurate to a few ulps of float64 where
# it is used (tests compare with math.erf/math.erfc). The series has only positive terms,
# so it does not cancel:
#   erf(a) = 2/sqrt(pi) * exp(-a^2) * sum_n (2 a^2)^n a / (1 * 3 * ... * (2n + 1)).
_TAIL = 1.5
_SERIES_TERMS = 32
_SERIES_COEF = np.cumprod([1.0] + [2.0 / (2 * n + 1) for n in range(1, _SERIES_TERMS)])
_FRACTION_TERMS = 90
_NO_TAIL = 40.0  # erfc underflows long before; clipping keeps inf out of the arithmetic


def _exp_neg_square(a):
    """exp(-a^2) without the rounding error of a*a, which exp magnifies by a^2 in the tail.

    With z = a rounded to 1/16, z*z is exact and a^2 = z^2 + (a - z)(a + z).
    """
    z = np.round(a * 16.0) / 16.0
    return np.exp(-z * z) * np.exp(-(a - z) * (a + z))


def _erf_series(a):
    """erf(a) for 0 <= a < _TAIL, by Horner's rule on the series in a^2."""
    a2 = a * a
    s = np.full_like(a, _SERIES_COEF[-1])
    for c in _SERIES_COEF[-2::-1]:
        s *= a2
        s += c
    return s * a * np.exp(-a2) * _TWO_OVER_SQRT_PI


def _erfc_fraction(a):
    """erfc(a) for a >= _TAIL: exp(-a^2)/sqrt(pi) / (a + (1/2)/(a + 1/(a + (3/2)/(a + ...))))."""
    a = np.minimum(a, _NO_TAIL)
    f = a.copy()
    for k in range(_FRACTION_TERMS, 0, -1):
        f = a + (0.5 * k) / f
    return _exp_neg_square(a) / (math.sqrt(math.pi) * f)


def _erf_parts(x):
    """(erf(|x|), erfc(|x|)) in float64, each from the expansion that is accurate there."""
    a = np.abs(x.astype(np.float64))
    near = a < _TAIL
    tail = ~near  # NaN goes here, and comes out NaN
    erf_a = np.empty_like(a)
    erfc_a = np.empty_like(a)
    erf_a[near] = _erf_series(a[near])
    erfc_a[near] = 1.0 - erf_a[near]
    erfc_a[tail] = _erfc_fraction(a[tail])
    erf_a[tail] = 1.0 - erfc_a[tail]
    return erf_a, erfc_a


def _one_minus_square(x):
    return A.Sub(1, A.Square(x))


def _gauss(x, dout):
    """dout * 2/sqrt(pi) * exp(-x^2): the derivative of erf."""
    return A.Mul(A.Mul(dout, _TWO_OVER_SQRT_PI), Exp(A.Neg(A.Square(x))))


@functional("round")
def round_(input, *, decimals=0):
    """``ops.round(input, *, decimals=0)``: round half to even."""
    return Round(input, decimals)


# Samples for the elementwise math functions: each inside its smooth domain (logs and
# roots on positive values, asin/acos/atanh inside (-1, 1), acosh above 1), and the
# rounding functions away from the points where they jump.
def _uniform(lo, hi, shape=(2, 3)):
    def sample(rng):
        yield (rng.uniform(lo, hi, shape),), {}
        yield (rng.uniform(lo, hi, (4,)),), {}
    return sample


def _normal(rng):
    yield (rng.standard_normal((2, 3)),), {}
    yield (rng.standard_normal((4,)),), {}


def _off_integers(rng):
    """k + f with f in [0.2, 0.8]: floor, ceil and trunc are flat there."""
    yield (rng.integers(-3, 3, (2, 3)) + rng.uniform(0.2, 0.8, (2, 3)),), {}
    yield (rng.integers(-3, 3, (4,)) + rng.uniform(0.2, 0.8, (4,)),), {}


POSITIVE = _uniform(0.5, 2.0)


INSIDE_UNIT = _uniform(-0.8, 0.8)


Exp = _float_or_complex_op("Exp", "e ** x, elementwise.", functional="exp", methods="exp")
Exp.kernel("CPU", dtypes=FLOATS | _COMPLEX, out=True)(_quietly(np.exp))


@Exp.bprop
def exp_bprop(x, out, dout):
    return (A.Mul(dout, conj(out)),)


Exp.samples(_normal)


Exp2 = _float_op("Exp2", "2 ** x, elementwise.", functional="exp2", methods="exp2")
Exp2.kernel("CPU", dtypes=FLOATS, out=True)(_quietly(np.exp2))


@Exp2.bprop
def exp2_bprop(x, out, dout):
    return (A.Mul(A.Mul(dout, out), _LN2),)


Exp2.samples(_normal)


Expm1 = _float_op("Expm1", "e ** x - 1, accurate for small x.",
                  functional="expm1", methods="expm1")
Expm1.kernel("CPU", dtypes=FLOATS, out=True)(_quietly(np.expm1))


@Expm1.bprop
def expm1_bprop(x, out, dout):
    return (A.Mul(dout, A.Add(out, 1)),)


Expm1.samples(_normal)


Log = _float_or_complex_op("Log", "Natural logarithm; -inf at 0, NaN below (real inputs).",
                           functional="log", methods="log")
Log.kernel("CPU", dtypes=FLOATS | _COMPLEX, out=True)(_quietly(np.log))


@Log.bprop
def log_bprop(x, out, dout):
    return (A.Div(dout, conj(x)),)


Log.samples(POSITIVE)


Log1p = _float_op("Log1p", "log(1 + x), accurate for small x.",
                  functional="log1p", methods="log1p")
Log1p.kernel("CPU", dtypes=FLOATS, out=True)(_quietly(np.log1p))


@Log1p.bprop
def log1p_bprop(x, out, dout):
    return (A.Div(dout, A.Add(x, 1)),)


Log1p.samples(_uniform(-0.5, 1.5))


Log2 = _float_op("Log2", "Base-2 logarithm.", functional="log2", methods="log2")
Log2.kernel("CPU", dtypes=FLOATS, out=True)(_quietly(np.log2))


@Log2.bprop
def log2_bprop(x, out, dout):
    return (A.Div(dout, A.Mul(x, _LN2)),)


Log2.samples(POSITIVE)


Log10 = _float_op("Log10", "Base-10 logarithm.", functional="log10", methods="log10")
Log10.kernel("CPU", dtypes=FLOATS, out=True)(_quietly(np.log10))


@Log10.bprop
def log10_bprop(x, out, dout):
    return (A.Div(dout, A.Mul(x, _LN10)),)


Log10.samples(POSITIVE)


Sqrt = _float_or_complex_op("Sqrt", "Square root; NaN below 0 (real inputs).",
                            functional="sqrt", methods="sqrt")
Sqrt.kernel("CPU", dtypes=FLOATS | _COMPLEX, out=True)(_quietly(np.sqrt))


@Sqrt.bprop
def sqrt_bprop(x, out, dout):
    return (A.Div(A.Mul(dout, 0.5), conj(out)),)


Sqrt.samples(POSITIVE)


Rsqrt = _float_op("Rsqrt", "1 / sqrt(x); inf at 0.", functional="rsqrt", methods="rsqrt")


@Rsqrt.kernel("CPU", dtypes=FLOATS)
@_quiet
def rsqrt_cpu(x):
    return np.reciprocal(np.sqrt(x))


@Rsqrt.bprop
def rsqrt_bprop(x, out, dout):
    return (A.Mul(A.Mul(dout, -0.5), A.Mul(out, A.Square(out))),)


Rsqrt.samples(POSITIVE)


Sin = _float_op("Sin", "Sine (radians).", functional="sin", methods="sin")
Sin.kernel("CPU", dtypes=FLOATS, out=True)(_quietly(np.sin))


@Sin.bprop
def sin_bprop(x, out, dout):
    return (A.Mul(dout, Cos(x)),)


Sin.samples(_normal)


Cos = _float_op("Cos", "Cosine (radians).", functional="cos", methods="cos")
Cos.kernel("CPU", dtypes=FLOATS, out=True)(_quietly(np.cos))


@Cos.bprop
def cos_bprop(x, out, dout):
    return (A.Neg(A.Mul(dout, Sin(x))),)


Cos.samples(_normal)


Tan = _float_op("Tan", "Tangent (radians).", functional="tan", methods="tan")
Tan.kernel("CPU", dtypes=FLOATS, out=True)(_quietly(np.tan))


@Tan.bprop
def tan_bprop(x, out, dout):
    return (A.Mul(dout, A.Add(A.Square(out), 1)),)


Tan.samples(_uniform(-1.2, 1.2))


Asin = _float_op("Asin", "Inverse sine; NaN outside [-1, 1].",
                 functional=("asin", "arcsin"), methods=("asin", "arcsin"))
Asin.kernel("CPU", dtypes=FLOATS, out=True)(_quietly(np.arcsin))


@Asin.bprop
def asin_bprop(x, out, dout):
    return (A.Div(dout, Sqrt(_one_minus_square(x))),)


Asin.samples(INSIDE_UNIT)


ACos = _float_op("ACos", "Inverse cosine; NaN outside [-1, 1].",
                 functional=("acos", "arccos"), methods=("acos", "arccos"))
ACos.kernel("CPU", dtypes=FLOATS, out=True)(_quietly(np.arccos))


@ACos.bprop
def acos_bprop(x, out, dout):
    return (A.Neg(A.Div(dout, Sqrt(_one_minus_square(x)))),)


ACos.samples(INSIDE_UNIT)


Atan = _float_op("Atan", "Inverse tangent.",
                 functional=("atan", "arctan"), methods=("atan", "arctan"))
Atan.kernel("CPU", dtypes=FLOATS, out=True)(np.arctan)


@Atan.bprop
def atan_bprop(x, out, dout):
    return (A.Div(dout, A.Add(A.Square(x), 1)),)


Atan.samples(_normal)


Sinh = _float_op("Sinh", "Hyperbolic sine.", functional="sinh", methods="sinh")
Sinh.kernel("CPU", dtypes=FLOATS, out=True)(_quietly(np.sinh))


@Sinh.bprop
def sinh_bprop(x, out, dout):
    return (A.Mul(dout, Cosh(x)),)


Sinh.samples(_normal)


Cosh = _float_op("Cosh", "Hyperbolic cosine.", functional="cosh", methods="cosh")
Cosh.kernel("CPU", dtypes=FLOATS, out=True)(_quietly(np.cosh))


@Cosh.bprop
def cosh_bprop(x, out, dout):
    return (A.Mul(dout, Sinh(x)),)


Cosh.samples(_normal)


Asinh = _float_op("Asinh", "Inverse hyperbolic sine.",
                  functional=("asinh", "arcsinh"), methods=("asinh", "arcsinh"))
Asinh.kernel("CPU", dtypes=FLOATS, out=True)(np.arcsinh)


@Asinh.bprop
def asinh_bprop(x, out, dout):
    return (A.Div(dout, Cosh(out)),)


Asinh.samples(_normal)


Acosh = _float_op("Acosh", "Inverse hyperbolic cosine; NaN below 1.",
                  functional=("acosh", "arccosh"), methods=("acosh", "arccosh"))
Acosh.kernel("CPU", dtypes=FLOATS, out=True)(_quietly(np.arccosh))


@Acosh.bprop
def acosh_bprop(x, out, dout):
    return (A.Div(dout, Sinh(out)),)


Acosh.samples(_uniform(1.3, 3.0))


Atanh = _float_op("Atanh", "Inverse hyperbolic tangent; +-inf at +-1, NaN beyond.",
                  functional=("atanh", "arctanh"), methods=("atanh", "arctanh"))
Atanh.kernel("CPU", dtypes=FLOATS, out=True)(_quietly(np.arctanh))


@Atanh.bprop
def atanh_bprop(x, out, dout):
    return (A.Div(dout, _one_minus_square(x)),)


Atanh.samples(INSIDE_UNIT)


Erf = _float_op("Erf", "The error function 2/sqrt(pi) * integral_0^x exp(-t**2) dt.",
                functional="erf", methods="erf")


@Erf.kernel("CPU", dtypes=FLOATS)
@_quiet
def erf_cpu(x):
    erf_a, _ = _erf_parts(x)
    return np.copysign(erf_a, x).astype(x.dtype)


@Erf.bprop
def erf_bprop(x, out, dout):
    return (_gauss(x, dout),)


Erf.samples(_normal)


Erfc = _float_op("Erfc", "1 - erf(x), accurate where erf(x) is close to 1.",
                 functional="erfc", methods="erfc")


@Erfc.kernel("CPU", dtypes=FLOATS)
@_quiet
def erfc_cpu(x):
    erf_a, erfc_a = _erf_parts(x)
    return np.where(np.signbit(x), 1.0 + erf_a, erfc_a).astype(x.dtype)


@Erfc.bprop
def erfc_bprop(x, out, dout):
    return (A.Neg(_gauss(x, dout)),)


Erfc.samples(_normal)


Atan2 = OpDef("Atan2", (Arg("x"), Arg("y")), infer=elementwise(FLOATS), promote="float",
              doc="The angle of the point (y, x), i.e. atan(x / y) in the right quadrant.",
              functional=("atan2", "arctan2"), methods=("atan2", "arctan2"))


@Atan2.kernel("CPU", dtypes=FLOATS)
@_quiet
def atan2_cpu(x, y):
    return np.arctan2(x, y)


@Atan2.bprop
def atan2_bprop(x, y, out, dout):
    scale = A.Div(dout, A.Add(A.Square(x), A.Square(y)))
    return (grad_for(x, sum_to(A.Mul(scale, y), shape_of(x))),
            grad_for(y, sum_to(A.Neg(A.Mul(scale, x)), shape_of(y))))


@Atan2.samples
def _atan2(rng):
    """x away from 0, so no point sits on the branch cut (x = 0, y < 0)."""
    def away(shape):
        return rng.uniform(0.3, 2.0, shape) * rng.choice([-1.0, 1.0], shape)
    yield (away((2, 3)), rng.standard_normal((2, 3))), {}
    yield (away((2, 1)), rng.standard_normal((3,))), {}
    yield (away((3,)), rng.standard_normal((2, 3))), {}


Floor = _rounding_op("Floor", FLOATS, "Round down to an integral value (floats only).",
                     functional="floor", methods="floor")
Floor.kernel("CPU", dtypes=FLOATS, out=True)(np.floor)
Floor.samples(_off_integers)


Ceil = _rounding_op("Ceil", FLOATS, "Round up to an integral value (floats only).",
                    functional="ceil", methods="ceil")
Ceil.kernel("CPU", dtypes=FLOATS, out=True)(np.ceil)
Ceil.samples(_off_integers)


Trunc = _rounding_op("Trunc", NUMBERS | {mstype.bool_},
                     "Round toward zero; integers and bools are returned unchanged.",
                     functional="trunc", methods="trunc")


@Trunc.kernel("CPU", dtypes=NUMBERS | {mstype.bool_})
def trunc_cpu(x):
    return x.copy() if x.dtype.kind in "biu" else np.trunc(x)


Trunc.samples(_off_integers)


def _round_infer(x, decimals=0):
    check_dtype("x", x, NUMBERS)
    check_int("decimals", decimals)
    return TensorSpec(x.shape, x.dtype)


Round = OpDef("Round", (Arg("x"), Arg("decimals", STATIC, 0)), infer=_round_infer,
              differentiable=False,
              doc="Round half to even, to ``decimals`` places; integers stay integers.",
              methods="round")


@Round.kernel("CPU", dtypes=NUMBERS)
def round_cpu(x, decimals=0):
    return np.round(x, decimals)


@Round.samples
def _round(rng):
    """Away from the half-way points where round jumps, at 0 and 1 decimals."""
    yield (rng.integers(-3, 3, (2, 3)) + rng.uniform(-0.3, 0.3, (2, 3)), 0), {}
    yield ((rng.integers(-30, 30, (4,)) + rng.uniform(-0.3, 0.3, (4,))) / 10, 1), {}
