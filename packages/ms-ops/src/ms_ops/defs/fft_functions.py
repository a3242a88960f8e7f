"""``ops.fft`` and friends: the 1-d, 2-d and N-d forms over the four FFT operators.

The Hermitian transforms are the real ones run the other way round (as numpy and
PyTorch define them): ``hfftn(x) = irfftn(conj(x))`` and ``ihfftn(x) = conj(rfftn(x))``,
each with the opposite normalization, so they need no operator (nor gradient) of their own.
"""

from __future__ import annotations

from ms_ops.defs.complex_ops import Conj
from ms_ops.defs.fft import FFTN, IFFTN, IRFFTN, RFFTN, SWAP
from ms_ops.opdef import functional

_OPS = {"fft": FFTN, "ifft": IFFTN, "rfft": RFFTN, "irfft": IRFFTN}


def _tuple(v):
    return tuple(v) if isinstance(v, (list, tuple)) else v


def _n_to_s(name, n):
    if n is None:
        return None
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"{name}: n must be an int or None, got {n!r}")
    if n < 1:
        raise ValueError(f"{name}: n must be greater than 0, got {n}")
    return (n,)


def _dim_1d(name, dim):
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise TypeError(f"{name}: dim must be an int, got {dim!r}")
    return (dim,)


def _run(kind, input, s, dim, norm, hermitian=False):
    """The transform ``kind`` (``fft``, ``ifft``, ``rfft``, ``irfft``) of ``input``."""
    s, dim = _tuple(s), _tuple(dim)
    if hermitian:
        norm = SWAP.get("backward" if norm is None else norm, norm)
    if kind == "irfft" and hermitian:
        return IRFFTN(Conj(input), s=s, dim=dim, norm=norm)
    out = _OPS[kind](input, s=s, dim=dim, norm=norm)
    return Conj(out) if hermitian else out


def _one_d(kind, name, hermitian=False):
    def fn(input, n=None, dim=-1, norm=None):
        return _run(kind, input, _n_to_s(name, n), _dim_1d(name, dim), norm, hermitian)
    return fn


def _n_d(kind, default_dim, hermitian=False):
    def fn(input, s=None, dim=default_dim, norm=None):
        return _run(kind, input, s, dim, norm, hermitian)
    return fn


def _declare(name, fn, doc):
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return functional(name)(fn)


_TWO = (-2, -1)
fft = _declare("fft", _one_d("fft", "fft"),
               "``ops.fft``: the 1-d DFT along ``dim``, cropped or padded to ``n`` first.")
ifft = _declare("ifft", _one_d("ifft", "ifft"), "``ops.ifft``: the 1-d inverse DFT.")
rfft = _declare("rfft", _one_d("rfft", "rfft"),
                "``ops.rfft``: the 1-d DFT of a real input, ``n // 2 + 1`` bins.")
irfft = _declare("irfft", _one_d("irfft", "irfft"),
                 "``ops.irfft``: the inverse of rfft, real, ``n = 2 * (m - 1)`` long by default.")
hfft = _declare("hfft", _one_d("irfft", "hfft", True),
                "``ops.hfft``: the DFT of a Hermitian-symmetric signal given by its first half.")
ihfft = _declare("ihfft", _one_d("rfft", "ihfft", True),
                 "``ops.ihfft``: the inverse of hfft: half the inverse DFT of a real input.")
fft2 = _declare("fft2", _n_d("fft", _TWO), "``ops.fft2``: the DFT over the last two axes.")
ifft2 = _declare("ifft2", _n_d("ifft", _TWO), "``ops.ifft2``: the inverse DFT over two axes.")
rfft2 = _declare("rfft2", _n_d("rfft", _TWO), "``ops.rfft2``: rfftn over the last two axes.")
irfft2 = _declare("irfft2", _n_d("irfft", _TWO), "``ops.irfft2``: irfftn over the last two axes.")
hfft2 = _declare("hfft2", _n_d("irfft", _TWO, True), "``ops.hfft2``: hfftn over two axes.")
ihfft2 = _declare("ihfft2", _n_d("rfft", _TWO, True), "``ops.ihfft2``: ihfftn over two axes.")
fftn = _declare("fftn", _n_d("fft", None),
                "``ops.fftn``: the DFT over ``dim`` (all axes, or the last ``len(s)``).")
ifftn = _declare("ifftn", _n_d("ifft", None), "``ops.ifftn``: the N-d inverse DFT.")
rfftn = _declare("rfftn", _n_d("rfft", None),
                 "``ops.rfftn``: the N-d DFT of a real input; the last axis is halved.")
irfftn = _declare("irfftn", _n_d("irfft", None), "``ops.irfftn``: the inverse of rfftn, real.")
hfftn = _declare("hfftn", _n_d("irfft", None, True),
                 "``ops.hfftn``: the N-d DFT of a Hermitian-symmetric input, real.")
ihfftn = _declare("ihfftn", _n_d("rfft", None, True),
                  "``ops.ihfftn``: the inverse of hfftn: half the inverse DFT of a real input.")
