"""MindSpore's Python path: the transforms it runs on PIL images, with Pillow's numerics.

MindSpore answers a PIL input with its Python implementation (Pillow's resize, ImageEnhance,
ImageOps, rotate), whose numbers differ from the OpenCV path numpy images take. Operations
with a ``_pil(img, rng)`` method use these functions when called on a PIL image, so eager
calls on PIL images give MindSpore's numbers; numpy images keep the OpenCV-exact path.
"""

from __future__ import annotations

import numpy as np


def resize(img, size, interpolation):
    """MindSpore's ``py_transforms_util.resize``: an int resizes the shorter edge (the other
    truncated), a pair is (height, width); MindSpore's Inter values are Pillow's filters."""
    if isinstance(size, int):
        w, h = img.size
        if (w <= h and w == size) or (h <= w and h == size):
            return img
        if w < h:
            return img.resize((size, int(size / (w / h))), int(interpolation))
        return img.resize((int(size * (w / h)), size), int(interpolation))
    return img.resize((size[1], size[0]), int(interpolation))


def enhance(img, kind: str, factor: float):
    """Pillow's ImageEnhance (Brightness, Contrast, Color, Sharpness) by ``factor``."""
    from PIL import ImageEnhance

    return getattr(ImageEnhance, kind)(img).enhance(factor)


def adjust_hue(img, hue_factor: float):
    """MindSpore's Python AdjustHue: shift Pillow's HSV hue by ``uint8(hue_factor * 255)``."""
    from PIL import Image

    if img.mode in {"L", "1", "I", "F"}:
        return img
    mode = img.mode
    hue, sat, val = img.convert("HSV").split()
    h = np.array(hue, dtype=np.uint8)
    with np.errstate(over="ignore"):
        h += np.array(hue_factor * 255).astype(np.int64).astype(np.uint8)
    return Image.merge("HSV", (Image.fromarray(h, "L"), sat, val)).convert(mode)


def rotate(img, angle: float, resample, expand: bool, center, fill):
    """Pillow's rotate, as MindSpore's Python Rotate/RandomRotation calls it."""
    fill = tuple([fill] * 3) if isinstance(fill, (int, float)) else tuple(fill)
    if img.mode in ("L", "1", "I", "F"):
        fill = fill[0]
    return img.rotate(angle % 360.0, int(resample), expand, center, fillcolor=fill)


def perspective(img, start_points, end_points, interpolation):
    """MindSpore's Python Perspective: Pillow's PERSPECTIVE transform, its coefficients
    fitted by least squares from ``end_points`` back to ``start_points``."""
    from PIL import Image

    rows = []
    for (x, y), (u, v) in zip(end_points, start_points):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y])
    coeffs = np.linalg.lstsq(np.array(rows, dtype=float),
                             np.array(start_points, dtype=float).reshape(8), rcond=None)[0]
    return img.transform(img.size, Image.PERSPECTIVE, coeffs.tolist(), int(interpolation))


def affine(img, angle: float, translate_px, scale: float, shear, resample, fill):
    """MindSpore's Python RandomAffine step: Pillow's AFFINE transform with the inverse of
    rotation/scale/shear about the centre ((w + 1) / 2, (h + 1) / 2), then translation."""
    import math

    from PIL import Image

    cx, cy = img.size[0] * 0.5 + 0.5, img.size[1] * 0.5 + 0.5
    a = math.radians(angle)
    sx, sy = (math.radians(s) for s in shear)
    d = math.cos(a + sx) * math.cos(a + sy) + math.sin(a + sx) * math.sin(a + sy)
    m = [math.cos(a + sx), math.sin(a + sx), 0, -math.sin(a + sy), math.cos(a + sy), 0]
    m = [(1.0 / scale) / d * v for v in m]
    tx, ty = translate_px
    m[2] += m[0] * (-cx - tx) + m[1] * (-cy - ty) + cx
    m[5] += m[3] * (-cx - tx) + m[4] * (-cy - ty) + cy
    fill = tuple([fill] * 3) if isinstance(fill, (int, float)) else tuple(fill)
    if img.mode in ("L", "1", "I", "F"):
        fill = fill[0]
    return img.transform(img.size, Image.AFFINE, m, int(resample), fillcolor=fill)


def grayscale(img, num_output_channels: int):
    from PIL import Image

    gray = img.convert("L")
    if num_output_channels == 1:
        return gray
    g = np.asarray(gray)
    return Image.fromarray(np.dstack([g, g, g]), "RGB")


def ops(name: str, img, *args):
    """Pillow's ImageOps ``autocontrast``, ``equalize`` or ``invert``."""
    from PIL import ImageOps

    return getattr(ImageOps, name)(img, *args)
