"""The gamma family and its neighbours: Lgamma, Digamma, Polygamma, Mvlgamma, Erfinv,
Igamma/Igammac (regularized incomplete gamma) and Zeta (Hurwitz), kernels from
``scipy.special``.

Gradients are the derivatives written with these operators (lgamma' = digamma,
digamma' = polygamma(1), erfinv' = sqrt(pi)/2 exp(erfinv^2), ...). The derivative of
Igamma/Igammac in the order ``a`` has no closed form: IgammaGradA computes it (MindSpore
has an operator of that name too). The exponent ``x`` of Zeta takes no gradient, as in
MindSpore 2.10 (its rule gives zeros there).
"""

from __future__ import annotations

import math

import numpy as np

from ms_ops import sum_to
from ms_ops.defs import array, math_unary
from ms_ops.defs.arithmetic import Add, Div, Minimum, Mul, Neg, Sub
from ms_ops.defs.reduction import ReduceSum
from ms_ops.infer import check_dtype, elementwise
from ms_ops.opdef import Arg, OpDef, TensorSpec, functional, primitive_class
from ms_ops_scipy._scipy import special
from ms_tensor import dtype as mstype
from ms_tensor.tensor import Tensor

FLOATS = mstype.float_types
_REAL = FLOATS | mstype.int_types


def _unary(name, fn, doc, functional_name, samples):
    op = OpDef(name, (Arg("input"),), infer=elementwise(_REAL, names=("input",)),
               promote="float", functional=functional_name, methods=functional_name, doc=doc)

    @op.kernel("CPU", dtypes=FLOATS)
    def cpu(x):
        return special(fn)(x).astype(x.dtype, copy=False)

    op.samples(samples)
    return op


def _away_from_poles(rng):
    yield (rng.random((2, 3)) * 4 + 0.2,), {}
    yield (-rng.random((4,)) * 0.8 - 0.1,), {}


def _inside_unit(rng):
    yield (rng.random((2, 3)) * 1.6 - 0.8,), {}


Lgamma = _unary("Lgamma", "gammaln", "log|Gamma(x)|.", "lgamma", _away_from_poles)
Digamma = _unary("Digamma", "psi", "d/dx log Gamma(x) (psi).", "digamma", _away_from_poles)
Erfinv = _unary("Erfinv", "erfinv", "The inverse error function on (-1, 1).", "erfinv",
                _inside_unit)


def _polygamma_infer(a, x):
    check_dtype("a", a, mstype.int_types)
    check_dtype("x", x, _REAL)
    return TensorSpec(x.shape, x.dtype if x.dtype in FLOATS else mstype.float32)


Polygamma = OpDef("Polygamma", (Arg("a", promote=False), Arg("x")), infer=_polygamma_infer,
                  nondiff_inputs=("a",),
                  doc="The a-th derivative of digamma at x (a = 0: digamma itself).")


@Polygamma.kernel("CPU", dtypes=FLOATS)
def polygamma_cpu(a, x):
    return special("polygamma")(a, x).astype(x.dtype, copy=False)


@Polygamma.bprop
def polygamma_bprop(a, x, out, dout):
    return (None, Mul(dout, Polygamma(Add(a, 1), x)))


@Polygamma.samples
def _polygamma(rng):
    yield (np.array(1), rng.random((2, 3)) * 3 + 0.5), {}
    yield (np.array(2), rng.random((3,)) * 3 + 0.5), {}


@Lgamma.bprop
def lgamma_bprop(x, out, dout):
    return (Mul(dout, Digamma(x)),)


@Digamma.bprop
def digamma_bprop(x, out, dout):
    return (Mul(dout, Polygamma(Tensor(np.int64(1)), x)),)


@Erfinv.bprop
def erfinv_bprop(x, out, dout):
    return (Mul(dout, Mul(math_unary.Exp(Mul(out, out)), math.sqrt(math.pi) / 2)),)


@functional("polygamma", methods="polygamma")
def polygamma(n, input):
    """``ops.polygamma``: the n-th derivative of digamma (n an int or an int tensor)."""
    n = n if isinstance(n, Tensor) else Tensor(int(n))
    return Polygamma(n, input)


@functional("mvlgamma", methods="mvlgamma")
def mvlgamma(input, p):
    """``ops.mvlgamma``: the log of the multivariate gamma function of dimension ``p``:
    sum_j lgamma(x - j/2) + p(p-1)/4 log(pi); defined for x > (p - 1)/2."""
    if not isinstance(p, int) or p < 1:
        raise ValueError(f"mvlgamma: p must be a positive int, got {p!r}")
    x = array.ExpandDims(input, -1)
    steps = Tensor(np.arange(p, dtype=input.dtype.np) / 2)
    return Add(ReduceSum(Lgamma(Sub(x, steps)), (-1,)), p * (p - 1) / 4 * math.log(math.pi))


def _binary(name, fn, doc, functional_name, inputs, nondiff, samples):
    op = OpDef(name, tuple(Arg(n) for n in inputs), infer=elementwise(FLOATS),
               promote="common", nondiff_inputs=nondiff, functional=functional_name,
               methods=functional_name, doc=doc)

    @op.kernel("CPU", dtypes=FLOATS)
    def cpu(u, v):
        return special(fn)(u, v).astype(u.dtype, copy=False)

    op.samples(samples)
    return op


def _gamma_pairs(rng):
    yield (rng.random((2, 3)) * 3 + 0.5, rng.random((2, 3)) * 3 + 0.2), {}
    yield (rng.random((3,)) * 3 + 0.5, rng.random((2, 1)) * 3 + 0.2), {}


def _zeta_pairs(rng):
    yield (rng.random((2, 3)) * 3 + 1.5, rng.random((2, 3)) * 2 + 0.5), {}


Igamma = _binary("Igamma", "gammainc", "The regularized lower incomplete gamma P(a, x).",
                 "igamma", ("a", "x"), (), _gamma_pairs)
Igammac = _binary("Igammac", "gammaincc", "The regularized upper incomplete gamma Q(a, x) "
                  "= 1 - P(a, x).", "igammac", ("a", "x"), (), _gamma_pairs)
Zeta = _binary("Zeta", "zeta", "The Hurwitz zeta function: sum over k of (k + q) ** -x.",
               "zeta", ("x", "q"), ("x",), _zeta_pairs)
IgammaGradA = _binary("IgammaGradA", "gammainc", "dP(a, x)/da, the derivative of the "
                      "regularized lower incomplete gamma in its order, summed from P's "
                      "power series in float64.", (), ("a", "x"), (), _gamma_pairs)


@IgammaGradA.kernel("CPU", dtypes=FLOATS)
def igamma_grad_a_cpu(a, x):
    # P(a, x) = sum_n t_n with t_n = exp(-x + (a + n) log x - lgamma(a + n + 1)), so
    # dP/da = sum_n t_n (log x - digamma(a + n + 1)); the terms peak near n = x and are
    # negligible a few standard deviations (sqrt x) past it
    a64, x64 = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    positive = x64 > 0
    log_x = np.log(np.where(positive, x64, 1.0))
    top = float(x64.max()) if x64.size else 0.0
    total = np.zeros_like(a64)
    for n in range(int(top + 12 * np.sqrt(top) + 60)):
        t = np.exp(-x64 + (a64 + n) * log_x - special("gammaln")(a64 + n + 1))
        total += t * (log_x - special("psi")(a64 + n + 1))
    return np.where(positive, total, 0.0).astype(np.result_type(a, x))


@IgammaGradA.bprop
def igamma_grad_a_bprop(a, x, out, dout):
    # in x: d/da of the density, analytic; in a: Richardson-extrapolated central
    # differences of this operator (steps that keep a - h > 0)
    h = Minimum(Mul(a, 0.25), 1e-2)

    def slope(step):
        return Div(Sub(IgammaGradA(Add(a, step), x), IgammaGradA(Sub(a, step), x)),
                   Mul(step, 2.0))

    da = Div(Sub(Mul(slope(Mul(h, 0.5)), 4.0), slope(h)), 3.0)
    dx = Mul(_density(a, x), Sub(math_unary.Log(x), Digamma(a)))
    return (sum_to(Mul(dout, da), tuple(a.shape)), sum_to(Mul(dout, dx), tuple(x.shape)))


def _density(a, x):
    # x ** (a - 1) exp(-x) / Gamma(a), through logs
    return math_unary.Exp(Sub(Sub(Mul(Sub(a, 1.0), math_unary.Log(x)), x), Lgamma(a)))


@Igamma.bprop
def igamma_bprop(a, x, out, dout):
    return (sum_to(Mul(dout, IgammaGradA(a, x)), tuple(a.shape)),
            sum_to(Mul(dout, _density(a, x)), tuple(x.shape)))


@Igammac.bprop
def igammac_bprop(a, x, out, dout):
    return (sum_to(Neg(Mul(dout, IgammaGradA(a, x))), tuple(a.shape)),
            sum_to(Neg(Mul(dout, _density(a, x))), tuple(x.shape)))


@Zeta.bprop
def zeta_bprop(x, q, out, dout):
    return (None, sum_to(Mul(dout, Neg(Mul(x, Zeta(Add(x, 1.0), q)))), tuple(q.shape)))


Mvlgamma = primitive_class("Mvlgamma", mvlgamma, ("p",))
