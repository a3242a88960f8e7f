"""Around the FFT: fftshift/ifftshift, fftfreq/rfftfreq, FFTWithSize, stft/STFT.

Compositions of the FFT operators with Roll, Gather and PadV3, so each has its
gradient through theirs. ``stft`` frames the signal with one Gather (indices
``t * hop + k``), windows the frames and transforms each, as PyTorch and MindSpore do:
centred frames by default (padded by ``n_fft // 2`` on both sides), ``n_fft // 4`` hop,
a rectangular window unless given, and the real/imaginary pairs in a last axis of 2
unless ``return_complex``.
"""

from __future__ import annotations

import numpy as np

from ms_ops.defs import arithmetic as A
from ms_ops.defs import array, array_reorder, array_slice, indexing
from ms_ops.defs.complex_ops import COMPLEX, Real, view_as_real
from ms_ops.defs.fft import FFTN, IFFTN, IRFFTN, RFFTN
from ms_ops.opdef import FLOATS, functional
from ms_tensor import dtype as mstype
from ms_tensor.tensor import Tensor


def _shift(name, input, dim, sign):
    dims = tuple(range(input.ndim)) if dim is None else \
        ((dim,) if isinstance(dim, int) else tuple(dim))
    if not dims:
        return input
    for d in dims:
        if not -input.ndim <= d < input.ndim:
            raise ValueError(f"{name}: dim {d} is out of range for a {input.ndim}-d input")
    shifts = tuple(sign * (input.shape[d] // 2) for d in dims)
    return array_reorder.Roll(input, shifts=shifts, dims=dims)


@functional("fftshift")
def fftshift(input, dim=None):
    """``ops.fftshift``: move the zero-frequency bin to the middle of each axis in ``dim``
    (all axes if None).

    >>> import numpy as np
    >>> from ms_tensor import Tensor
    >>> fftshift(Tensor(np.arange(5.0))).asnumpy()
    array([3., 4., 0., 1., 2.])
    """
    return _shift("fftshift", input, dim, 1)


@functional("ifftshift")
def ifftshift(input, dim=None):
    """``ops.ifftshift``: the inverse of fftshift (they differ for odd lengths)."""
    return _shift("ifftshift", input, dim, -1)


def _freq(name, fn, n, d, dtype):
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise ValueError(f"{name}: n must be a positive int, got {n!r}")
    dtype = mstype.float32 if dtype is None else dtype
    if dtype not in FLOATS:
        raise TypeError(f"{name}: dtype must be a float type, got {dtype}")
    return Tensor(fn(n, float(d)).astype(dtype.np))


@functional("fftfreq")
def fftfreq(n, d=1.0, dtype=None):
    """``ops.fftfreq``: the frequency of each bin of an ``n``-point DFT, spacing ``d``.

    >>> fftfreq(4).asnumpy()
    array([ 0.  ,  0.25, -0.5 , -0.25], dtype=float32)
    """
    return _freq("fftfreq", np.fft.fftfreq, n, d, dtype)


@functional("rfftfreq")
def rfftfreq(n, d=1.0, dtype=None):
    """``ops.rfftfreq``: the frequencies of rfft's ``n // 2 + 1`` bins."""
    return _freq("rfftfreq", np.fft.rfftfreq, n, d, dtype)


@functional("FFTWithSize")
class FFTWithSize:
    """``ops.FFTWithSize(signal_ndim, inverse, real, norm, onesided, signal_sizes)(x)``:
    MindSpore's one primitive for every transform over the last ``signal_ndim`` axes."""

    def __init__(self, signal_ndim, inverse, real, norm="backward", onesided=True,
                 signal_sizes=()):
        if signal_ndim not in (1, 2, 3):
            raise ValueError(f"FFTWithSize: signal_ndim must be 1, 2 or 3, got {signal_ndim!r}")
        self.signal_ndim, self.inverse, self.real = signal_ndim, inverse, real
        self.norm, self.onesided, self.signal_sizes = norm, onesided, tuple(signal_sizes)

    def __call__(self, x):
        if x.ndim < self.signal_ndim:
            raise ValueError(f"FFTWithSize: the input needs at least {self.signal_ndim} "
                             f"dimensions, got shape {x.shape}")
        dim = tuple(range(x.ndim - self.signal_ndim, x.ndim))
        if not self.real:
            return (IFFTN if self.inverse else FFTN)(x, dim=dim, norm=self.norm)
        if not self.inverse:
            return (RFFTN if self.onesided else FFTN)(x, dim=dim, norm=self.norm)
        if not self.onesided:
            return Real(IFFTN(x, dim=dim, norm=self.norm))
        return IRFFTN(x, s=self.signal_sizes or None, dim=dim, norm=self.norm)

    def __repr__(self) -> str:
        return "Prim[FFTWithSize]"


_PAD_MODES = {"reflect": "reflect", "constant": "constant", "replicate": "edge",
              "circular": "circular"}


def _window(window, win_length, n_fft, like):
    if window is None:
        window = Tensor(np.ones(win_length, dtype=like.dtype.np))
    if window.ndim != 1 or window.shape[0] != win_length:
        raise ValueError(f"stft: window must be 1-d of length win_length={win_length}, "
                         f"got shape {window.shape}")
    left = (n_fft - win_length) // 2
    if left or n_fft - win_length - left:
        window = array_slice.Pad(window, ((left, n_fft - win_length - left),))
    return window


@functional("stft")
def stft(x, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="REFLECT", normalized=False, onesided=None, return_complex=None):
    """``ops.stft``: the short-time Fourier transform of ``x`` (``(L,)`` or ``(B, L)``),
    ``(..., n_fft // 2 + 1, frames)`` (all ``n_fft`` bins unless one-sided)."""
    if x.ndim not in (1, 2):
        raise ValueError(f"stft: x must be 1-d or 2-d, got shape {x.shape}")
    hop_length = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    if not 0 < win_length <= n_fft or hop_length <= 0:
        raise ValueError(f"stft: need 0 < win_length <= n_fft and hop_length > 0, got "
                         f"n_fft={n_fft}, win_length={win_length}, hop_length={hop_length}")
    window = _window(window, win_length, n_fft, x)
    if center:
        mode = _PAD_MODES.get(str(pad_mode).lower())
        if mode is None:
            raise ValueError(f"stft: pad_mode must be one of {sorted(_PAD_MODES)}, got "
                             f"{pad_mode!r}")
        x = array_slice.PadV3(x, (n_fft // 2, n_fft // 2), 0, mode=mode)
    length = x.shape[-1]
    if length < n_fft:
        raise ValueError(f"stft: the (padded) signal length {length} is shorter than "
                         f"n_fft={n_fft}")
    frames = 1 + (length - n_fft) // hop_length
    index = np.arange(frames)[:, None] * hop_length + np.arange(n_fft)
    framed = A.Mul(indexing.Gather(x, Tensor(index), x.ndim - 1), window)
    complex_input = x.dtype in COMPLEX or window.dtype in COMPLEX
    onesided = not complex_input if onesided is None else onesided
    dim = (framed.ndim - 1,)
    norm = "ortho" if normalized else "backward"
    spec = (RFFTN if onesided else FFTN)(framed, dim=dim, norm=norm)
    perm = tuple(range(spec.ndim - 2)) + (spec.ndim - 1, spec.ndim - 2)
    spec = array.Transpose(spec, perm)
    return spec if return_complex else view_as_real(spec)


@functional("STFT")
class STFT:
    """``ops.STFT(n_fft, hop_length, win_length, normalized, onesided, return_complex)
    (x, window)``: stft without centring."""

    def __init__(self, n_fft, hop_length, win_length, normalized, onesided, return_complex):
        self.args = {"n_fft": n_fft, "hop_length": hop_length, "win_length": win_length,
                     "normalized": normalized, "onesided": onesided,
                     "return_complex": return_complex}

    def __call__(self, x, window):
        return stft(x, window=window, center=False, **self.args)

    def __repr__(self) -> str:
        return "Prim[STFT]"
