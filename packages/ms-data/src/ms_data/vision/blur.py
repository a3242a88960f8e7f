"""GaussianBlur: a separable Gaussian filter with OpenCV's kernel and reflect-101 borders.

uint8 images go through OpenCV's bit-exact path: the kernel in 8-bit fixed point (the centre
tap takes the rounding remainder so taps sum to 1), rows then columns in integers, rounded
once at the end.
"""

from __future__ import annotations

import numbers

import numpy as np

from ms_data.vision.adjust import saturate
from ms_data.vision.geometry import _ImageOp


def gaussian_kernel(size: int, sigma: float) -> np.ndarray:
    """``cv::getGaussianKernel(size, sigma)`` (sigma <= 0 derives it from the size)."""
    if sigma <= 0:
        sigma = 0.3 * ((size - 1) * 0.5 - 1) + 0.8
    x = np.arange(size) - (size - 1) / 2.0
    k = np.exp(-(x * x) / (2 * sigma * sigma))
    return k / k.sum()


def _fixed_kernel(size: int, sigma: float) -> np.ndarray:
    k = np.rint(gaussian_kernel(size, sigma) * 256).astype(np.int64)
    k[size // 2] += 256 - k.sum()
    return k


def _filter_axis(v: np.ndarray, k: np.ndarray, axis: int) -> np.ndarray:
    r = len(k) // 2
    pad = [(0, 0)] * v.ndim
    pad[axis] = (r, r)
    p = np.pad(v, pad, mode="reflect")  # numpy's reflect is OpenCV's BORDER_REFLECT_101
    n = v.shape[axis]
    return sum(k[i] * np.take(p, np.arange(i, i + n), axis=axis) for i in range(len(k)))


class GaussianBlur(_ImageOp):
    """Blur with a Gaussian of ``kernel_size`` (odd; int or (x, y)) and ``sigma`` (number or
    (x, y); derived from the kernel size when None)."""

    def __init__(self, kernel_size, sigma=None):
        if isinstance(kernel_size, numbers.Integral):
            kernel_size = (kernel_size, kernel_size)
        if (len(kernel_size) != 2 or not all(isinstance(k, numbers.Integral) and k > 0
                                             and k % 2 == 1 for k in kernel_size)):
            raise ValueError(f"GaussianBlur: kernel_size must be positive odd ints, "
                             f"got {kernel_size!r}")
        if sigma is None:
            sigma = tuple(0.3 * ((k - 1) * 0.5 - 1) + 0.8 for k in kernel_size)
        elif isinstance(sigma, numbers.Real):
            sigma = (sigma, sigma)
        if len(sigma) != 2 or not all(s >= 0 for s in sigma):
            raise ValueError(f"GaussianBlur: sigma must be non-negative numbers, got {sigma!r}")
        self.kernel_size = tuple(int(k) for k in kernel_size)
        self.sigma = tuple(float(s) for s in sigma)

    def _nhwc(self, x, rng):
        if x.dtype == np.uint8:
            kx, ky = (_fixed_kernel(k, s) for k, s in zip(self.kernel_size, self.sigma))
            v = _filter_axis(_filter_axis(x.astype(np.int64), kx, axis=2), ky, axis=1)
            return np.clip((v + (1 << 15)) >> 16, 0, 255).astype(np.uint8)
        v = x.astype(np.float64)
        v = _filter_axis(v, gaussian_kernel(self.kernel_size[0], self.sigma[0]), axis=2)
        v = _filter_axis(v, gaussian_kernel(self.kernel_size[1], self.sigma[1]), axis=1)
        return saturate(v, x.dtype)
