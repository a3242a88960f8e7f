"""Elementwise math functions: Exp, Log, Sqrt, the trigonometric family, Erf, Floor, Round...

The transcendental functions take floats; integer and bool inputs are promoted to float32
first (``promote="float"``, as MindSpore documents for ``ops.sqrt`` and friends).
Floor and Ceil take floats only; Round and Trunc also keep integers as they are. The
rounding functions have no gradient (MindSpore's is zero everywhere).
"""

from __future__ import annotations

import math

import numpy as np

from ms_ops.defs._grad_util import grad_for, shape_of, sum_to
from ms_ops.dispatch import binary_method, unary_method
from ms_ops.infer import check_dtype, check_int, elementwise
from ms_ops.opdef import FLOATS, NUMBERS, STATIC, Arg, OpDef, TensorSpec
from ms_tensor import dtype as mstype

_X = (Arg("x"),)
_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _float_op(name: str, doc: str) -> OpDef:
    return OpDef(name, _X, infer=elementwise(FLOATS), promote="float", doc=doc)


def _rounding_op(name: str, dtypes, doc: str) -> OpDef:
    return OpDef(name, _X, infer=elementwise(dtypes), differentiable=False, doc=doc)


Exp = _float_op("Exp", "e ** x, elementwise.")
Exp2 = _float_op("Exp2", "2 ** x, elementwise.")
Expm1 = _float_op("Expm1", "e ** x - 1, accurate for small x.")
Log = _float_op("Log", "Natural logarithm; -inf at 0, NaN below.")
Log1p = _float_op("Log1p", "log(1 + x), accurate for small x.")
Log2 = _float_op("Log2", "Base-2 logarithm.")
Log10 = _float_op("Log10", "Base-10 logarithm.")
Sqrt = _float_op("Sqrt", "Square root; NaN below 0.")
Rsqrt = _float_op("Rsqrt", "1 / sqrt(x); inf at 0.")
Sin = _float_op("Sin", "Sine (radians).")
Cos = _float_op("Cos", "Cosine (radians).")
Tan = _float_op("Tan", "Tangent (radians).")
Asin = _float_op("Asin", "Inverse sine; NaN outside [-1, 1].")
ACos = _float_op("ACos", "Inverse cosine; NaN outside [-1, 1].")
Atan = _float_op("Atan", "Inverse tangent.")
Sinh = _float_op("Sinh", "Hyperbolic sine.")
Cosh = _float_op("Cosh", "Hyperbolic cosine.")
Asinh = _float_op("Asinh", "Inverse hyperbolic sine.")
Acosh = _float_op("Acosh", "Inverse hyperbolic cosine; NaN below 1.")
Atanh = _float_op("Atanh", "Inverse hyperbolic tangent; +-inf at +-1, NaN beyond.")
Erf = _float_op("Erf", "The error function 2/sqrt(pi) * integral_0^x exp(-t**2) dt.")
Erfc = _float_op("Erfc", "1 - erf(x), accurate where erf(x) is close to 1.")
Atan2 = OpDef("Atan2", (Arg("x"), Arg("y")), infer=elementwise(FLOATS), promote="float",
              doc="The angle of the point (y, x), i.e. atan(x / y) in the right quadrant.")

Floor = _rounding_op("Floor", FLOATS, "Round down to an integral value (floats only).")
Ceil = _rounding_op("Ceil", FLOATS, "Round up to an integral value (floats only).")
Trunc = _rounding_op("Trunc", NUMBERS | {mstype.bool_},
                     "Round toward zero; integers and bools are returned unchanged.")


def _round_infer(x, decimals=0):
    check_dtype("x", x, NUMBERS)
    check_int("decimals", decimals)
    return TensorSpec(x.shape, x.dtype)


Round = OpDef("Round", (Arg("x"), Arg("decimals", STATIC, 0)), infer=_round_infer,
              differentiable=False,
              doc="Round half to even, to ``decimals`` places; integers stay integers.")


# -- kernels ------------------------------------------------------------------------
# Outside their domain (log of 0, sqrt of -1, sin of inf, exp overflowing) the functions
# give inf/NaN as MindSpore does, without numpy's RuntimeWarnings.
_quiet = np.errstate(all="ignore")


def _quietly(ufunc):
    @_quiet
    def kernel(x, out=None):
        return ufunc(x, out=out)

    kernel.__name__ = f"{ufunc.__name__}_cpu"
    return kernel


@_quiet
def rsqrt_cpu(x):
    return np.reciprocal(np.sqrt(x))


@_quiet
def atan2_cpu(x, y):
    return np.arctan2(x, y)


def trunc_cpu(x):
    return x.copy() if x.dtype.kind in "biu" else np.trunc(x)


def round_cpu(x, decimals=0):
    return np.round(x, decimals)


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


@_quiet
def erf_cpu(x):
    erf_a, _ = _erf_parts(x)
    return np.copysign(erf_a, x).astype(x.dtype)


@_quiet
def erfc_cpu(x):
    erf_a, erfc_a = _erf_parts(x)
    return np.where(np.signbit(x), 1.0 + erf_a, erfc_a).astype(x.dtype)


# -- gradients (with operators, so they trace and differentiate again) ----------------
def _arith():
    from ms_ops.defs import arithmetic

    return arithmetic


def exp_bprop(x, out, dout):
    return (_arith().Mul(dout, out),)


def exp2_bprop(x, out, dout):
    A = _arith()
    return (A.Mul(A.Mul(dout, out), _LN2),)


def expm1_bprop(x, out, dout):
    A = _arith()
    return (A.Mul(dout, A.Add(out, 1)),)


def log_bprop(x, out, dout):
    return (_arith().Div(dout, x),)


def log1p_bprop(x, out, dout):
    A = _arith()
    return (A.Div(dout, A.Add(x, 1)),)


def log2_bprop(x, out, dout):
    A = _arith()
    return (A.Div(dout, A.Mul(x, _LN2)),)


def log10_bprop(x, out, dout):
    A = _arith()
    return (A.Div(dout, A.Mul(x, _LN10)),)


def sqrt_bprop(x, out, dout):
    A = _arith()
    return (A.Div(A.Mul(dout, 0.5), out),)


def rsqrt_bprop(x, out, dout):
    A = _arith()
    return (A.Mul(A.Mul(dout, -0.5), A.Mul(out, A.Square(out))),)


def sin_bprop(x, out, dout):
    return (_arith().Mul(dout, Cos(x)),)


def cos_bprop(x, out, dout):
    A = _arith()
    return (A.Neg(A.Mul(dout, Sin(x))),)


def tan_bprop(x, out, dout):
    A = _arith()
    return (A.Mul(dout, A.Add(A.Square(out), 1)),)


def _one_minus_square(x):
    A = _arith()
    return A.Sub(1, A.Square(x))


def asin_bprop(x, out, dout):
    return (_arith().Div(dout, Sqrt(_one_minus_square(x))),)


def acos_bprop(x, out, dout):
    A = _arith()
    return (A.Neg(A.Div(dout, Sqrt(_one_minus_square(x)))),)


def atan_bprop(x, out, dout):
    A = _arith()
    return (A.Div(dout, A.Add(A.Square(x), 1)),)


def sinh_bprop(x, out, dout):
    return (_arith().Mul(dout, Cosh(x)),)


def cosh_bprop(x, out, dout):
    return (_arith().Mul(dout, Sinh(x)),)


def asinh_bprop(x, out, dout):
    return (_arith().Div(dout, Cosh(out)),)


def acosh_bprop(x, out, dout):
    return (_arith().Div(dout, Sinh(out)),)


def atanh_bprop(x, out, dout):
    return (_arith().Div(dout, _one_minus_square(x)),)


def _gauss(x, dout):
    """dout * 2/sqrt(pi) * exp(-x^2): the derivative of erf."""
    A = _arith()
    return A.Mul(A.Mul(dout, _TWO_OVER_SQRT_PI), Exp(A.Neg(A.Square(x))))


def erf_bprop(x, out, dout):
    return (_gauss(x, dout),)


def erfc_bprop(x, out, dout):
    return (_arith().Neg(_gauss(x, dout)),)


def atan2_bprop(x, y, out, dout):
    A = _arith()
    scale = A.Div(dout, A.Add(A.Square(x), A.Square(y)))
    return (grad_for(x, sum_to(A.Mul(scale, y), shape_of(x))),
            grad_for(y, sum_to(A.Neg(A.Mul(scale, x)), shape_of(y))))


PRIMITIVES = (Exp, Exp2, Expm1, Log, Log1p, Log2, Log10, Sqrt, Rsqrt, Sin, Cos, Tan, Asin, ACos,
              Atan, Atan2, Sinh, Cosh, Asinh, Acosh, Atanh, Erf, Erfc, Floor, Ceil, Trunc, Round)
CPU_KERNELS = {
    Exp: (_quietly(np.exp), FLOATS),
    Exp2: (_quietly(np.exp2), FLOATS),
    Expm1: (_quietly(np.expm1), FLOATS),
    Log: (_quietly(np.log), FLOATS),
    Log1p: (_quietly(np.log1p), FLOATS),
    Log2: (_quietly(np.log2), FLOATS),
    Log10: (_quietly(np.log10), FLOATS),
    Sqrt: (_quietly(np.sqrt), FLOATS),
    Rsqrt: (rsqrt_cpu, FLOATS),
    Sin: (_quietly(np.sin), FLOATS),
    Cos: (_quietly(np.cos), FLOATS),
    Tan: (_quietly(np.tan), FLOATS),
    Asin: (_quietly(np.arcsin), FLOATS),
    ACos: (_quietly(np.arccos), FLOATS),
    Atan: (np.arctan, FLOATS),
    Atan2: (atan2_cpu, FLOATS),
    Sinh: (_quietly(np.sinh), FLOATS),
    Cosh: (_quietly(np.cosh), FLOATS),
    Asinh: (np.arcsinh, FLOATS),
    Acosh: (_quietly(np.arccosh), FLOATS),
    Atanh: (_quietly(np.arctanh), FLOATS),
    Erf: (erf_cpu, FLOATS),
    Erfc: (erfc_cpu, FLOATS),
    Floor: (np.floor, FLOATS),
    Ceil: (np.ceil, FLOATS),
    Trunc: (trunc_cpu, NUMBERS | {mstype.bool_}),
    Round: (round_cpu, NUMBERS),
}
CPU_KERNELS_WITH_OUT = frozenset({Exp, Exp2, Expm1, Log, Log1p, Log2, Log10, Sqrt, Sin, Cos,
                                  Tan, Asin, ACos, Atan, Sinh, Cosh, Asinh, Acosh, Atanh,
                                  Floor, Ceil})
BPROPS = {
    Exp: exp_bprop, Exp2: exp2_bprop, Expm1: expm1_bprop, Log: log_bprop, Log1p: log1p_bprop,
    Log2: log2_bprop, Log10: log10_bprop, Sqrt: sqrt_bprop, Rsqrt: rsqrt_bprop,
    Sin: sin_bprop, Cos: cos_bprop, Tan: tan_bprop, Asin: asin_bprop, ACos: acos_bprop,
    Atan: atan_bprop, Atan2: atan2_bprop, Sinh: sinh_bprop, Cosh: cosh_bprop,
    Asinh: asinh_bprop, Acosh: acosh_bprop, Atanh: atanh_bprop, Erf: erf_bprop,
    Erfc: erfc_bprop,
}


def _round(self, decimals=0):
    return Round(self, decimals)


def round_(input, *, decimals=0):
    """``ops.round(input, *, decimals=0)``: round half to even."""
    return Round(input, decimals)


_UNARY = {
    "exp": Exp, "exp2": Exp2, "expm1": Expm1, "log": Log, "log1p": Log1p, "log2": Log2,
    "log10": Log10, "sqrt": Sqrt, "rsqrt": Rsqrt, "sin": Sin, "cos": Cos, "tan": Tan,
    "asin": Asin, "arcsin": Asin, "acos": ACos, "arccos": ACos, "atan": Atan, "arctan": Atan,
    "sinh": Sinh, "cosh": Cosh, "asinh": Asinh, "arcsinh": Asinh, "acosh": Acosh,
    "arccosh": Acosh, "atanh": Atanh, "arctanh": Atanh, "erf": Erf, "erfc": Erfc,
    "floor": Floor, "ceil": Ceil, "trunc": Trunc,
}
_methods = {op: unary_method(op) for op in set(_UNARY.values())}
_atan2 = binary_method(Atan2)

FUNCTIONS = {**_UNARY, "atan2": Atan2, "arctan2": Atan2, "round": round_}
TENSOR_METHODS = {**{name: _methods[op] for name, op in _UNARY.items()},
                  "atan2": _atan2, "arctan2": _atan2, "round": _round}
