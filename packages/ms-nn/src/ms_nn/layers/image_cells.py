"""Image-quality and cropping layers: ``SSIM``, ``MSSSIM``, ``PSNR``, ``CentralCrop``.

SSIM follows MindSpore (Wang et al. 2004): a Gaussian window filters each channel
('valid'), the per-pixel SSIM is averaged over the image and channels; MSSSIM repeats it
on 2x2-average-pooled images and combines the levels' contrast-structure terms with
``power_factors``. Float images are in [0, max_val]; uint8 images are scaled by 1/255.
"""

from __future__ import annotations

import numpy as np

import ms_ops as ops
from ms_nn.cell import Cell
from ms_tensor import Tensor
from ms_tensor import dtype as mstype

__all__ = ["SSIM", "MSSSIM", "PSNR", "CentralCrop"]


def _window(size, sigma) -> np.ndarray:
    y, x = np.mgrid[-size // 2 + 1:size // 2 + 1, -size // 2 + 1:size // 2 + 1]
    g = np.exp(-(x.astype(np.float32) ** 2 + y.astype(np.float32) ** 2) / (2 * sigma ** 2))
    return (g / g.sum()).reshape(1, 1, size, size).astype(np.float32)


def _to_float(img, max_val, who):
    if img.ndim != 4:
        raise ValueError(f"{who}: images must be 4-d (N, C, H, W), got shape {tuple(img.shape)}")
    if img.dtype == mstype.uint8:
        return ops.cast(img, mstype.float32) / 255.0, max_val / 255.0
    return img, max_val


def _check_pair(img1, img2, who):
    if img1.shape != img2.shape or img1.dtype != img2.dtype:
        raise ValueError(f"{who}: img1 {tuple(img1.shape)} {img1.dtype} and img2 "
                         f"{tuple(img2.shape)} {img2.dtype} must have the same shape and dtype")


def _ssim_maps(img1, img2, window, c1, c2):
    """Per-channel (N, C) means of the SSIM and contrast-structure maps."""
    n, c, h, w = img1.shape
    flat = [ops.reshape(t, (n * c, 1, h, w)) for t in (img1, img2)]
    def conv(t):
        return ops.conv2d(t, window)

    mu1, mu2 = conv(flat[0]), conv(flat[1])
    s11 = conv(flat[0] * flat[0]) - mu1 * mu1
    s22 = conv(flat[1] * flat[1]) - mu2 * mu2
    s12 = conv(flat[0] * flat[1]) - mu1 * mu2
    v1, v2 = 2 * s12 + c2, s11 + s22 + c2
    ssim = (2 * mu1 * mu2 + c1) * v1 / ((mu1 * mu1 + mu2 * mu2 + c1) * v2)
    cs = v1 / v2
    return (ops.reshape(ops.mean(ssim, (1, 2, 3)), (n, c)),
            ops.reshape(ops.mean(cs, (1, 2, 3)), (n, c)))


class SSIM(Cell):
    """Structural similarity of two image batches, one value per image.

    >>> img = ops.ones((1, 1, 16, 16))
    >>> SSIM()(img, img).asnumpy()
    array([1.], dtype=float32)
    """

    def __init__(self, max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03):
        super().__init__()
        if not isinstance(filter_size, int) or filter_size < 1 or filter_sigma <= 0:
            raise ValueError(f"SSIM: filter_size must be an int >= 1 and filter_sigma > 0, got "
                             f"{filter_size!r}, {filter_sigma!r}")
        self.max_val, self.filter_size, self.k1, self.k2 = max_val, filter_size, k1, k2
        self._window = Tensor(_window(filter_size, filter_sigma))

    def _prepare(self, img1, img2):
        who = type(self).__name__
        _check_pair(img1, img2, who)
        img1, max_val = _to_float(img1, self.max_val, who)
        img2, _ = _to_float(img2, self.max_val, who)
        if min(img1.shape[2:]) < self.filter_size:
            raise ValueError(f"{who}: images {tuple(img1.shape)} are smaller than filter_size "
                             f"{self.filter_size}")
        return img1, img2, (self.k1 * max_val) ** 2, (self.k2 * max_val) ** 2

    def construct(self, img1, img2):
        img1, img2, c1, c2 = self._prepare(img1, img2)
        ssim, _ = _ssim_maps(img1, img2, ops.cast(self._window, img1.dtype), c1, c2)
        return ops.mean(ssim, -1)


class MSSSIM(SSIM):
    """Multi-scale SSIM over ``len(power_factors)`` scales.

    >>> img = ops.ones((1, 1, 64, 64))
    >>> MSSSIM(filter_size=3)(img, img).asnumpy().round(4)
    array([1.], dtype=float32)
    """

    def __init__(self, max_val=1.0, power_factors=(0.0448, 0.2856, 0.3001, 0.2363, 0.1333),
                 filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03):
        super().__init__(max_val, filter_size, filter_sigma, k1, k2)
        self.power_factors = tuple(float(p) for p in power_factors)

    def construct(self, img1, img2):
        img1, img2, c1, c2 = self._prepare(img1, img2)
        window = ops.cast(self._window, img1.dtype)
        terms = []
        for level in range(len(self.power_factors)):
            ssim, cs = _ssim_maps(img1, img2, window, c1, c2)
            terms.append(ops.relu(cs))
            if level < len(self.power_factors) - 1:
                img1, img2 = ops.avg_pool2d(img1, 2, 2), ops.avg_pool2d(img2, 2, 2)
        terms[-1] = ops.relu(ssim)
        stacked = ops.stack(terms, -1)
        weights = Tensor(np.array(self.power_factors, np.float32)).astype(stacked.dtype)
        return ops.mean(ops.prod(ops.pow(stacked, weights), -1), -1)


class PSNR(Cell):
    """Peak signal-to-noise ratio 10 log10(max_val^2 / MSE), one value per image.

    >>> PSNR()(ops.zeros((1, 1, 2, 2)), ops.full((1, 1, 2, 2), 0.1)).asnumpy().round(3)
    array([20.], dtype=float32)
    """

    def __init__(self, max_val=1.0):
        super().__init__()
        if max_val <= 0:
            raise ValueError(f"PSNR: max_val must be > 0, got {max_val!r}")
        self.max_val = max_val

    def construct(self, img1, img2):
        _check_pair(img1, img2, "PSNR")
        img1, max_val = _to_float(img1, self.max_val, "PSNR")
        img2, _ = _to_float(img2, self.max_val, "PSNR")
        mse = ops.mean(ops.square(img1 - img2), (-3, -2, -1))
        return 10 * ops.log(max_val ** 2 / mse) / float(np.log(10.0))


class CentralCrop(Cell):
    """The central ``central_fraction`` of the height and width of (C, H, W) or
    (N, C, H, W) images.

    >>> CentralCrop(0.5)(ops.ones((1, 3, 8, 6))).shape
    (1, 3, 4, 4)
    """

    def __init__(self, central_fraction):
        super().__init__()
        if not 0.0 < central_fraction <= 1.0:
            raise ValueError(f"CentralCrop: central_fraction must be in (0, 1], got "
                             f"{central_fraction!r}")
        self.central_fraction = float(central_fraction)

    def construct(self, image):
        if image.ndim not in (3, 4):
            raise ValueError(f"CentralCrop: image shape {tuple(image.shape)} must be 3-d or 4-d")
        if self.central_fraction == 1.0:
            return image
        h, w = image.shape[-2:]
        top = int((float(h) - float(h * self.central_fraction)) / 2)
        left = int((float(w) - float(w * self.central_fraction)) / 2)
        return image[..., top:h - top, left:w - left]
