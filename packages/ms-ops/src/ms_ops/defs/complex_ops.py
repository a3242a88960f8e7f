"""Complex numbers: Real, Imag, Conj, Complex, ComplexAbs, Angle, and polar/view_as_real.

Gradients follow MindSpore's (and PyTorch's) convention for a real loss ``L`` of a
complex ``z``: the gradient is ``dL/dRe(z) + i dL/dIm(z)`` (the conjugate Wirtinger
derivative, times two). So ``Real``'s rule turns a real ``dout`` into ``dout + 0i``,
``Imag``'s into ``0 + dout i``, and ``Complex``'s splits a complex ``dout`` back into its
two parts. Real inputs are accepted where MindSpore accepts them (``real``, ``conj`` of a
float tensor is the tensor; ``imag`` is zeros).
"""

from __future__ import annotations

import numpy as np

from ms_ops.defs import arithmetic as A
from ms_ops.defs import array, array_create, array_join, array_reorder, comparison
from ms_ops.defs import math_unary as U
from ms_ops.infer import broadcast_shapes, check_dtype
from ms_ops.opdef import ALL, FLOATS, NUMBERS, Arg, OpDef, TensorSpec, functional, primitive_class
from ms_tensor import dtype as mstype

COMPLEX = frozenset({mstype.complex64, mstype.complex128})
_PART = {mstype.complex64: mstype.float32, mstype.complex128: mstype.float64}
_WHOLE = {mstype.float32: mstype.complex64, mstype.float64: mstype.complex128}
_NUMERIC = NUMBERS | COMPLEX | {mstype.bool_}


def part_dtype(dtype):
    """The real dtype of a complex one (float32 for complex64); real dtypes unchanged."""
    return _PART.get(dtype, dtype)


def complex_dtype(dtype):
    """The complex dtype holding a real one (complex64 for float32 and narrower)."""
    return dtype if dtype in COMPLEX else _WHOLE.get(dtype, mstype.complex64)


def _complex_samples(rng, shape):
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


def _as_complex(t):
    """``t + 0i`` in the matching complex dtype (a gradient for a complex input)."""
    return t if t.dtype in COMPLEX else array.Cast(t, complex_dtype(t.dtype))


def _part_infer(x):
    check_dtype("input", x, _NUMERIC)
    return TensorSpec(x.shape, part_dtype(x.dtype))


Real = OpDef("Real", (Arg("input"),), infer=_part_infer, functional="real", methods="real",
             doc="The real part; a real input is returned as it is.")


@Real.kernel("CPU", dtypes=ALL)
def real_cpu(x):
    return np.real(x).copy()


@Real.bprop
def real_bprop(x, out, dout):
    return (_as_complex(dout) if x.dtype in COMPLEX else dout,)


@Real.samples
def _real(rng):
    yield (_complex_samples(rng, (2, 3)),), {}
    yield (rng.standard_normal((3,)),), {}


Imag = OpDef("Imag", (Arg("input"),), infer=_part_infer, functional="imag", methods="imag",
             doc="The imaginary part; zeros for a real input.")


@Imag.kernel("CPU", dtypes=ALL)
def imag_cpu(x):
    return np.imag(x).copy() if np.iscomplexobj(x) else np.zeros_like(x)


@Imag.bprop
def imag_bprop(x, out, dout):
    if x.dtype not in COMPLEX:
        return (array_create.ZerosLike(x),)
    return (Complex(array_create.ZerosLike(dout), dout),)


@Imag.samples
def _imag(rng):
    yield (_complex_samples(rng, (2, 3)),), {}


Conj = OpDef("Conj", (Arg("input"),), infer=lambda x: (check_dtype("input", x, _NUMERIC) or
                                                         TensorSpec(x.shape, x.dtype)),
             functional="conj", methods="conj",
             doc="The complex conjugate; a real input is returned as it is.")


@Conj.kernel("CPU", dtypes=ALL)
def conj_cpu(x):
    return np.conj(x)


@Conj.bprop
def conj_bprop(x, out, dout):
    return (Conj(dout),)


@Conj.samples
def _conj(rng):
    yield (_complex_samples(rng, (2, 3)),), {}


def _complex_infer(real, imag):
    check_dtype("real", real, {mstype.float32, mstype.float64})
    if imag.dtype is not real.dtype:
        raise TypeError(f"inputs 'real' ({real.dtype}) and 'imag' ({imag.dtype}) must have "
                        "the same dtype")
    return TensorSpec(broadcast_shapes(real, imag, names=("real", "imag")),
                      _WHOLE[real.dtype])


Complex = OpDef("Complex", (Arg("real", promote=False), Arg("imag", promote=False)),
                infer=_complex_infer, functional="complex",
                doc="real + i imag, elementwise with broadcasting; float32 gives complex64.")


@Complex.kernel("CPU", dtypes=FLOATS)
def complex_cpu(re, im):
    out = np.empty(np.broadcast_shapes(re.shape, im.shape),
                   np.complex64 if re.dtype == np.float32 else np.complex128)
    out.real, out.imag = re, im
    return out


@Complex.bprop
def complex_bprop(re, im, out, dout):
    from ms_ops.defs._grad_util import sum_to

    return (sum_to(Real(dout), re.shape), sum_to(Imag(dout), im.shape))


@Complex.samples
def _complex(rng):
    yield (rng.standard_normal((2, 3)), rng.standard_normal((2, 3))), {}
    yield (rng.standard_normal((2, 1)), rng.standard_normal((3,))), {}


def _complex_only_infer(x):
    check_dtype("input", x, COMPLEX)
    return TensorSpec(x.shape, _PART[x.dtype])


def _safe_ratio(num, den):
    """num / den, and 0 where den is 0 (the subgradient PyTorch and MindSpore pick)."""
    zero = comparison.Equal(den, 0)
    return array_reorder.Select(zero, array_create.ZerosLike(num),
                                A.Div(num, A.Add(den, array.Cast(zero, den.dtype))))


ComplexAbs = OpDef("ComplexAbs", (Arg("x"),), infer=_complex_only_infer,
                   doc="|x| of a complex tensor, as a real tensor.")


@ComplexAbs.kernel("CPU", dtypes=COMPLEX)
def complex_abs_cpu(x):
    return np.abs(x)


@ComplexAbs.bprop
def complex_abs_bprop(x, out, dout):
    # d|z| = (Re z dRe + Im z dIm) / |z|: the gradient is dout * z / |z|.
    scale = _safe_ratio(dout, out)
    return (Complex(A.Mul(scale, Real(x)), A.Mul(scale, Imag(x))),)


@ComplexAbs.samples
def _complex_abs(rng):
    yield (_complex_samples(rng, (2, 3)),), {}


Angle = OpDef("Angle", (Arg("input"),), infer=_complex_only_infer, functional="angle",
              methods="angle", doc="The argument atan2(Im, Re) of a complex tensor, in radians.")


@Angle.kernel("CPU", dtypes=COMPLEX)
def angle_cpu(x):
    return np.angle(x)


@Angle.bprop
def angle_bprop(x, out, dout):
    # d atan2(y, x) = (x dy - y dx) / |z|^2: the gradient is dout * (-Im z + i Re z) / |z|^2.
    re, im = Real(x), Imag(x)
    scale = _safe_ratio(dout, A.Add(A.Square(re), A.Square(im)))
    return (Complex(A.Neg(A.Mul(scale, im)), A.Mul(scale, re)),)


@Angle.samples
def _angle(rng):
    yield (_complex_samples(rng, (2, 3)),), {}


@functional("polar")
def polar(abs, angle):
    """``ops.polar``: ``abs * (cos(angle) + i sin(angle))``, complex64 for float32 inputs.

    >>> import numpy as np
    >>> from ms_tensor import Tensor
    >>> polar(Tensor(np.float32([2.0])), Tensor(np.float32([0.0]))).asnumpy()
    array([2.+0.j], dtype=complex64)
    """
    if abs.dtype is not angle.dtype or abs.dtype not in (mstype.float32, mstype.float64):
        raise TypeError(f"polar: 'abs' and 'angle' must both be float32 or both float64, got "
                        f"{abs.dtype} and {angle.dtype}")
    return Complex(A.Mul(abs, U.Cos(angle)), A.Mul(abs, U.Sin(angle)))


Polar = primitive_class("Polar", polar)


@functional("view_as_real")
def view_as_real(input):
    """``ops.view_as_real``: a complex tensor as a real one with a last axis of (re, im).

    >>> import numpy as np
    >>> from ms_tensor import Tensor
    >>> view_as_real(Tensor(np.complex64([1 + 2j]))).asnumpy()
    array([[1., 2.]], dtype=float32)
    """
    if input.dtype not in COMPLEX:
        raise TypeError(f"view_as_real: the input must be complex64 or complex128, got "
                        f"{input.dtype}")
    return array_join.stack([Real(input), Imag(input)], -1)
