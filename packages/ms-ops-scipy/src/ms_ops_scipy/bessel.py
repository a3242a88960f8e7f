"""The Bessel functions of MindSpore's ``ops``: I0, I1, J0, J1, K0, K1, Y0, Y1 and the
exponentially scaled I0e, I1e, K0e, K1e (``ops.bessel_j0``, ``ops.BesselJ0()``...).

Kernels are ``scipy.special``'s (imported on first use). Each gradient is the classical
derivative written with these same operators (``J0' = -J1``, ``I1' = I0 - I1/x``,
``K0e' = K0e - K1e``...), so the second derivative exists too; the ``1/x`` terms take
their limit at x = 0.
"""

from __future__ import annotations

from ms_ops.defs.arithmetic import Div, Mul, Neg, Sign, Sub
from ms_ops.defs.array_reorder import Select
from ms_ops.defs.comparison import Equal
from ms_ops.infer import elementwise
from ms_ops.opdef import Arg, OpDef, functional
from ms_ops_scipy._scipy import special
from ms_tensor import dtype as mstype

FLOATS = mstype.float_types


def _samples(positive: bool):
    def samples(rng):
        x = rng.random((2, 3)) * 3 + 0.3 if positive else rng.standard_normal((2, 3)) * 2
        yield (x,), {}
    return samples


def _bessel(name: str, fn, positive: bool, doc: str) -> OpDef:
    short = name[len("Bessel"):].lower()
    op = OpDef(name, (Arg("x"),), infer=elementwise(FLOATS | mstype.int_types), promote="float",
               functional=f"bessel_{short}", doc=doc)

    @op.kernel("CPU", dtypes=FLOATS)
    def cpu(x):
        return special(fn)(x).astype(x.dtype, copy=False)

    op.samples(_samples(positive))
    return op


def _over_x(v, x, at_zero):
    """v / x, and ``at_zero`` where x is 0 (the limit of the derivatives that use it)."""
    zero = Equal(x, 0.0)
    return Select(zero, at_zero, Div(v, Select(zero, 1.0, x)))


BesselI0 = _bessel("BesselI0", "i0", False, "The modified Bessel function I0.")
BesselI0e = _bessel("BesselI0e", "i0e", False, "exp(-|x|) I0(x), without overflow.")
BesselI1 = _bessel("BesselI1", "i1", False, "The modified Bessel function I1.")
BesselI1e = _bessel("BesselI1e", "i1e", False, "exp(-|x|) I1(x), without overflow.")
BesselJ0 = _bessel("BesselJ0", "j0", False, "The Bessel function of the first kind J0.")
BesselJ1 = _bessel("BesselJ1", "j1", False, "The Bessel function of the first kind J1.")
BesselY0 = _bessel("BesselY0", "y0", True, "The Bessel function of the second kind Y0 "
                   "(x > 0; NaN below).")
BesselY1 = _bessel("BesselY1", "y1", True, "The Bessel function of the second kind Y1 "
                   "(x > 0; NaN below).")
BesselK0 = _bessel("BesselK0", "k0", True, "The modified Bessel function K0 (x > 0).")
BesselK0e = _bessel("BesselK0e", "k0e", True, "exp(x) K0(x) (x > 0), without underflow.")
BesselK1 = _bessel("BesselK1", "k1", True, "The modified Bessel function K1 (x > 0).")
BesselK1e = _bessel("BesselK1e", "k1e", True, "exp(x) K1(x) (x > 0), without underflow.")


def _rule(op, derivative):
    @op.bprop
    def bprop(x, out, dout):
        return (Mul(dout, derivative(x, out)),)


_rule(BesselI0, lambda x, out: BesselI1(x))
_rule(BesselI0e, lambda x, out: Sub(BesselI1e(x), Mul(Sign(x), out)))
_rule(BesselI1, lambda x, out: Sub(BesselI0(x), _over_x(out, x, 0.5)))
_rule(BesselI1e, lambda x, out: Sub(Sub(BesselI0e(x), Mul(Sign(x), out)),
                                        _over_x(out, x, 0.5)))
_rule(BesselJ0, lambda x, out: Neg(BesselJ1(x)))
_rule(BesselJ1, lambda x, out: Sub(BesselJ0(x), _over_x(out, x, 0.5)))
_rule(BesselY0, lambda x, out: Neg(BesselY1(x)))
_rule(BesselY1, lambda x, out: Sub(BesselY0(x), Div(out, x)))
_rule(BesselK0, lambda x, out: Neg(BesselK1(x)))
_rule(BesselK0e, lambda x, out: Sub(out, BesselK1e(x)))
_rule(BesselK1, lambda x, out: Sub(Neg(BesselK0(x)), Div(out, x)))
_rule(BesselK1e, lambda x, out: Sub(Sub(out, BesselK0e(x)), Div(out, x)))


@functional("i0", methods="i0")
def i0(input):
    """``ops.i0``: the modified Bessel function I0 (``bessel_i0``)."""
    return BesselI0(input)
