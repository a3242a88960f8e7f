"""Discrete Fourier transforms: FFTN, IFFTN, RFFTN, IRFFTN (numpy's pocketfft kernels).

Four operators carry every transform; ``ops.fft``/``fft2``/``fftn`` and their inverse,
real and Hermitian forms (``fft_more``) only choose ``s`` (the signal sizes: each axis is
cropped or zero-padded to it), ``dim`` and ``norm``, as in ``torch.fft``/MindSpore:
``s`` alone transforms the last ``len(s)`` axes, neither transforms all of them.

The transforms are linear, so each gradient is the adjoint transform: the DFT's adjoint
is the inverse DFT with the opposite normalization (``backward`` <-> ``forward``), then
the crop/pad of ``s`` undone. RFFTN's output is half a spectrum (its adjoint pads the
other half with zeros); IRFFTN reads each inner bin twice (once mirrored), so its
adjoint doubles them. Complex gradients follow ``complex_ops``' convention.
"""

from __future__ import annotations

import numpy as np

from ms_ops.defs import arithmetic as A
from ms_ops.defs import array, array_slice
from ms_ops.defs.complex_ops import COMPLEX, Real, complex_dtype, part_dtype
from ms_ops.infer import check_dtype
from ms_ops.opdef import FLOATS, INTS, Arg, Attr, OpDef, TensorSpec
from ms_tensor import dtype as mstype
from ms_tensor.tensor import Tensor

__all__ = ["FFTN", "IFFTN", "RFFTN", "IRFFTN", "plan", "SWAP"]

NORMS = ("backward", "forward", "ortho")
SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}
_REAL_IN = FLOATS | INTS  # bool is refused, as MindSpore does
_ANY_IN = _REAL_IN | COMPLEX
_ATTRS = (Attr("s", None), Attr("dim", None), Attr("norm", None))


def _norm(norm):
    if norm is None:
        return "backward"
    if norm not in NORMS:
        raise ValueError(f"norm must be one of {', '.join(NORMS)} or None, got {norm!r}")
    return norm


def _ints(name, value):
    value = (value,) if isinstance(value, int) else value
    if not isinstance(value, (tuple, list)) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise TypeError(f"{name!r} must be an int or a tuple of ints, got {value!r}")
    return tuple(value)


def plan(shape, s=None, dim=None, half=False):
    """``(s, dim)`` spelled out: every transformed axis (non-negative) and its length.

    ``half``: the last axis of an inverse real transform, whose default length is
    ``2 * (m - 1)`` for an input of ``m`` bins.
    """
    ndim = len(shape)
    if ndim < 1:
        raise ValueError("the input must have at least 1 dimension, got a 0-d tensor")
    s = None if s is None else _ints("s", s)
    if dim is None:
        dim = tuple(range(ndim - (len(s) if s is not None else ndim), ndim))
        if s is not None and len(s) > ndim:
            raise ValueError(f"s {s} has more entries than the input has dimensions ({ndim})")
    dim = _ints("dim", dim)
    for d in dim:
        if not -ndim <= d < ndim:
            raise ValueError(f"dim {d} is out of range for a {ndim}-d input "
                             f"(expected [{-ndim}, {ndim}))")
    dim = tuple(d % ndim for d in dim)
    if len(set(dim)) != len(dim):
        raise ValueError(f"the dims must be unique, got {dim}")
    if s is None:
        s = tuple(shape[d] for d in dim)
        if half and s:
            s = s[:-1] + (2 * (s[-1] - 1),)
    elif len(s) != len(dim):
        raise ValueError(f"s {s} and dim {dim} must have the same length")
    for n in s:
        if n < 1:
            raise ValueError(f"the signal sizes s must be greater than 0, got {s}")
    if not dim:
        raise ValueError("there must be at least one dimension to transform")
    return s, dim


def _out_shape(shape, s, dim):
    out = list(shape)
    for n, d in zip(s, dim):
        out[d] = n
    return out


def _fft_infer(x, s=None, dim=None, norm=None):
    check_dtype("input", x, _ANY_IN)
    _norm(norm)
    s, dim = plan(x.shape, s, dim)
    return TensorSpec(tuple(_out_shape(x.shape, s, dim)), complex_dtype(x.dtype))


def _rfft_infer(x, s=None, dim=None, norm=None):
    check_dtype("input", x, _ANY_IN)
    _norm(norm)
    s, dim = plan(x.shape, s, dim)
    out = _out_shape(x.shape, s, dim)
    out[dim[-1]] = s[-1] // 2 + 1
    return TensorSpec(tuple(out), complex_dtype(x.dtype))


def _irfft_infer(x, s=None, dim=None, norm=None):
    check_dtype("input", x, _ANY_IN)
    _norm(norm)
    s, dim = plan(x.shape, s, dim, half=True)
    real = part_dtype(x.dtype)
    return TensorSpec(tuple(_out_shape(x.shape, s, dim)),
                      real if real in (mstype.float32, mstype.float64) else mstype.float32)


def _fit(t, shape):
    """Crop or zero-pad ``t`` to ``shape``: the adjoint of what ``s`` did to the input."""
    if tuple(t.shape) == tuple(shape):
        return t
    crop = tuple(min(a, b) for a, b in zip(t.shape, shape))
    if crop != tuple(t.shape):
        t = array_slice.Slice(t, (0,) * t.ndim, crop)
    if crop != tuple(shape):
        t = array_slice.Pad(t, tuple((0, b - a) for a, b in zip(crop, shape)))
    return t


def _like_input(x, g):
    """The gradient for ``x``: real for a real input, at ``x``'s shape already."""
    return g if x.dtype in COMPLEX else array.Cast(Real(g), x.dtype)


def _kernel(fn, dtype_of):
    def kernel(x, s=None, dim=None, norm=None):
        s, dim = plan(x.shape, s, dim, half=fn is np.fft.irfftn)
        return np.asarray(fn(x, s=s, axes=dim, norm=_norm(norm)), dtype_of(x))
    kernel.__name__ = f"{fn.__name__}_cpu"
    return kernel


def _complex_np(x):
    return np.complex128 if x.dtype in (np.float64, np.complex128) else np.complex64


def _real_np(x):
    return np.float64 if x.dtype in (np.float64, np.complex128) else np.float32


def _samples(rng, complex_input):
    def draw(shape):
        x = rng.standard_normal(shape)
        return x + 1j * rng.standard_normal(shape) if complex_input else x
    yield (draw((5,)),), {}
    yield (draw((2, 6)),), {"s": (4,), "dim": (1,), "norm": "ortho"}
    yield (draw((3, 4)),), {"s": (5, 3), "norm": "forward"}
    yield (draw((2, 3, 4)),), {"dim": (0, 2)}


FFTN = OpDef("FFTN", (Arg("input"),), _ATTRS, infer=_fft_infer,
             doc="The N-d DFT over ``dim`` with signal sizes ``s``; complex output.")
FFTN.kernel("CPU", dtypes=_ANY_IN)(_kernel(np.fft.fftn, _complex_np))


@FFTN.bprop
def fftn_bprop(x, out, dout, s=None, dim=None, norm=None):
    _, dim = plan(x.shape, s, dim)
    g = IFFTN(dout, dim=dim, norm=SWAP[_norm(norm)])
    return (_like_input(x, _fit(g, x.shape)),)


FFTN.samples(lambda rng: _samples(rng, False))


IFFTN = OpDef("IFFTN", (Arg("input"),), _ATTRS, infer=_fft_infer,
              doc="The N-d inverse DFT over ``dim`` with signal sizes ``s``.")
IFFTN.kernel("CPU", dtypes=_ANY_IN)(_kernel(np.fft.ifftn, _complex_np))


@IFFTN.bprop
def ifftn_bprop(x, out, dout, s=None, dim=None, norm=None):
    _, dim = plan(x.shape, s, dim)
    g = FFTN(dout, dim=dim, norm=SWAP[_norm(norm)])
    return (_like_input(x, _fit(g, x.shape)),)


IFFTN.samples(lambda rng: _samples(rng, True))


RFFTN = OpDef("RFFTN", (Arg("input"),), _ATTRS, infer=_rfft_infer,
              doc="The N-d DFT of a real input; the last axis keeps ``s[-1] // 2 + 1`` bins.")


@RFFTN.kernel("CPU", dtypes=_ANY_IN)
def rfftn_cpu(x, s=None, dim=None, norm=None):
    if not np.iscomplexobj(x):
        return _kernel(np.fft.rfftn, _complex_np)(x, s, dim, norm)
    # A complex input (MindSpore accepts one): the full DFT's first half on the last axis.
    s, dim = plan(x.shape, s, dim)
    out = np.fft.fftn(x, s=s, axes=dim, norm=_norm(norm))
    return np.take(out, np.arange(s[-1] // 2 + 1), dim[-1]).astype(x.dtype)


@RFFTN.bprop
def rfftn_bprop(x, out, dout, s=None, dim=None, norm=None):
    s, dim = plan(x.shape, s, dim)
    full = list(dout.shape)
    full[dim[-1]] = s[-1]
    g = IFFTN(_fit(dout, full), dim=dim, norm=SWAP[_norm(norm)])
    return (_like_input(x, _fit(g, x.shape)),)


@RFFTN.samples
def _rfftn(rng):
    yield from _samples(rng, False)
    yield (rng.standard_normal((2, 5)) + 1j * rng.standard_normal((2, 5)),), {"norm": "ortho"}


IRFFTN = OpDef("IRFFTN", (Arg("input"),), _ATTRS, infer=_irfft_infer,
               doc="The inverse of RFFTN: a real output, ``s[-1]`` long on the last axis "
                   "(``2 * (m - 1)`` for ``m`` input bins by default).")
IRFFTN.kernel("CPU", dtypes=_ANY_IN)(_kernel(np.fft.irfftn, _real_np))


@IRFFTN.bprop
def irfftn_bprop(x, out, dout, s=None, dim=None, norm=None):
    s, dim = plan(x.shape, s, dim, half=True)
    g = RFFTN(dout, dim=dim, norm=SWAP[_norm(norm)])
    bins = s[-1] // 2 + 1
    twice = np.ones(bins, dtype=part_dtype(g.dtype).np)
    twice[1:s[-1] - bins + 1] = 2  # the bins the real output reads twice (k and n - k)
    shape = [1] * g.ndim
    shape[dim[-1]] = bins
    g = A.Mul(g, Tensor(twice.reshape(shape)))
    if x.dtype not in COMPLEX:
        return (array.Cast(Real(_fit(g, x.shape)), x.dtype),)
    return (_fit(g, x.shape),)


IRFFTN.samples(lambda rng: _samples(rng, True))
