"""Window functions for spectral analysis: Bartlett, Blackman, Hamming, Hann, Kaiser.

Each is a creation function (no input to differentiate), computed in float64 by numpy's
formulas and cast. ``periodic=True`` (the default) gives the window of length ``N + 1``
without its last sample, the form that an FFT of length ``N`` wants (PyTorch/MindSpore).
MindSpore takes ``window_length`` as an int32/int64 tensor for the Bartlett and Blackman
windows (their class forms too), as a Python int for the others; and its Hann and Kaiser
windows are float64 unless ``dtype`` says otherwise, the others float32.
"""

from __future__ import annotations

import numpy as np

from ms_ops.opdef import FLOATS, functional
from ms_tensor import dtype as mstype
from ms_tensor.tensor import Tensor


def _length(name, window_length, tensor):
    """``window_length`` as an int: a 0-d or one-element int tensor, or a Python int."""
    if tensor:
        if not isinstance(window_length, Tensor):
            raise TypeError(f"{name}: window_length must be an int32 or int64 Tensor, got "
                            f"{type(window_length).__name__}")
        if window_length.dtype not in (mstype.int32, mstype.int64) or window_length.size != 1:
            raise TypeError(f"{name}: window_length must be an int32 or int64 Tensor holding "
                            f"one value, got {window_length.dtype} of shape {window_length.shape}")
        window_length = int(window_length.asnumpy().reshape(()))
    elif not isinstance(window_length, int) or isinstance(window_length, bool):
        raise TypeError(f"{name}: window_length must be a non-negative int, got "
                        f"{type(window_length).__name__} {window_length!r}")
    if window_length < 0:
        raise ValueError(f"{name}: window_length must be a non-negative int, got {window_length}")
    return window_length


def _make(name, formula, window_length, periodic, dtype, default, tensor):
    n = _length(name, window_length, tensor)
    dtype = default if dtype is None else dtype
    if dtype not in FLOATS:
        raise TypeError(f"{name}: dtype must be a float type, got {dtype}")
    if not isinstance(periodic, bool):
        raise TypeError(f"{name}: periodic must be a bool, got {periodic!r}")
    if n <= 1:
        return Tensor(np.ones(n, dtype=dtype.np))
    m = n + 1 if periodic else n
    w = formula(np.arange(m, dtype=np.float64), m - 1)
    return Tensor(w[:n].astype(dtype.np))


def _cosines(*coefficients):
    def formula(k, last):
        return sum(c * np.cos(2 * np.pi * i * k / last) for i, c in enumerate(coefficients))
    return formula


def _bartlett(k, last):
    return 1 - np.abs(2 * k / last - 1)


@functional("bartlett_window")
def bartlett_window(window_length, periodic=True, *, dtype=None):
    """``ops.bartlett_window``: the triangular window, ``1 - |2n/(N-1) - 1|``.

    >>> import numpy as np
    >>> from ms_tensor import Tensor
    >>> bartlett_window(Tensor(np.int32(5)), periodic=False).asnumpy()
    array([0. , 0.5, 1. , 0.5, 0. ], dtype=float32)
    """
    return _make("bartlett_window", _bartlett, window_length, periodic, dtype,
                 mstype.float32, True)


@functional("blackman_window")
def blackman_window(window_length, periodic=True, *, dtype=None):
    """``ops.blackman_window``: ``0.42 - 0.5 cos(2 pi n/(N-1)) + 0.08 cos(4 pi n/(N-1))``."""
    return _make("blackman_window", _cosines(0.42, -0.5, 0.08), window_length, periodic,
                 dtype, mstype.float32, True)


@functional("hamming_window")
def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None):
    """``ops.hamming_window``: ``alpha - beta cos(2 pi n/(N-1))``."""
    return _make("hamming_window", _cosines(alpha, -beta), window_length, periodic, dtype,
                 mstype.float32, False)


@functional("hann_window")
def hann_window(window_length, periodic=True, *, dtype=None):
    """``ops.hann_window``: ``0.5 - 0.5 cos(2 pi n/(N-1))`` (float64 by default, as
    MindSpore's)."""
    return _make("hann_window", _cosines(0.5, -0.5), window_length, periodic, dtype,
                 mstype.float64, False)


@functional("kaiser_window")
def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None):
    """``ops.kaiser_window``: ``I0(beta sqrt(1 - (2n/(N-1) - 1)^2)) / I0(beta)``
    (float64 by default, as MindSpore's)."""
    def formula(k, last):
        return np.i0(beta * np.sqrt(np.clip(1 - (2 * k / last - 1) ** 2, 0, 1))) / np.i0(beta)
    return _make("kaiser_window", formula, window_length, periodic, dtype, mstype.float64,
                 False)


class _Window:
    """The class forms take ``window_length`` as a tensor: ``ops.BartlettWindow()(n)``."""

    def __init__(self, periodic=True, dtype=mstype.float32):
        self.periodic, self.dtype, self.options = periodic, dtype, {}

    def __call__(self, window_length):
        n = _length(type(self).__name__, window_length, True)
        return type(self).fn(Tensor(np.int64(n)) if self.tensor else n, self.periodic,
                             dtype=self.dtype, **self.options)

    def __repr__(self) -> str:
        return f"Prim[{type(self).__name__}]"


@functional("BartlettWindow")
class BartlettWindow(_Window):
    """``ops.BartlettWindow(periodic=True, dtype=float32)(window_length)``."""

    fn = staticmethod(bartlett_window)
    tensor = True


@functional("BlackmanWindow")
class BlackmanWindow(_Window):
    """``ops.BlackmanWindow(periodic=True, dtype=float32)(window_length)``."""

    fn = staticmethod(blackman_window)
    tensor = True


@functional("HammingWindow")
class HammingWindow(_Window):
    """``ops.HammingWindow(periodic=True, alpha=0.54, beta=0.46, dtype=float32)(length)``."""

    fn = staticmethod(hamming_window)
    tensor = False

    def __init__(self, periodic=True, alpha=0.54, beta=0.46, dtype=mstype.float32):
        super().__init__(periodic, dtype)
        self.options = {"alpha": alpha, "beta": beta}
