"""PNG pictures the dashboard shows: the input, the saliency over it as a heat map, and
a hierarchical-occlusion step (the occluded part dimmed). Pillow encodes them."""

from __future__ import annotations

import numpy as np

__all__ = ["to_gray_rgb", "heat_overlay", "occlusion_view", "save_png"]


def _normalize(a: np.ndarray) -> np.ndarray:
    a = a.astype(np.float64)
    low, high = np.nanmin(a), np.nanmax(a)
    return np.zeros_like(a) if high <= low else (a - low) / (high - low)


def to_gray_rgb(image_chw: np.ndarray) -> np.ndarray:
    """A ``(C, H, W)`` input as ``(H, W, 3)`` uint8, stretched to the full range."""
    img = image_chw if image_chw.shape[0] in (1, 3) else image_chw[:1]
    img = _normalize(img).transpose(1, 2, 0)
    if img.shape[2] == 1:
        img = np.repeat(img, 3, axis=2)
    return (img * 255).round().astype(np.uint8)


def _heat(v: np.ndarray) -> np.ndarray:
    """Values in [0, 1] to a blue-cyan-yellow-red ramp, ``(..., 3)`` floats."""
    r = np.clip(1.5 - np.abs(4 * v - 3), 0, 1)
    g = np.clip(1.5 - np.abs(4 * v - 2), 0, 1)
    b = np.clip(1.5 - np.abs(4 * v - 1), 0, 1)
    return np.stack([r, g, b], axis=-1)


def heat_overlay(image_chw: np.ndarray, saliency_hw: np.ndarray, alpha: float = 0.5):
    """The input in gray with the min-max normalized saliency's heat map blended over it
    (blue: none, red: the most)."""
    base = to_gray_rgb(image_chw).astype(np.float64) / 255
    s = _normalize(saliency_hw)
    out = base * (1 - alpha) + _heat(s) * alpha
    return (out * 255).round().astype(np.uint8)


def occlusion_view(image_chw: np.ndarray, keep_hw: np.ndarray) -> np.ndarray:
    """The input with everything outside ``keep_hw`` dimmed to a fifth."""
    base = to_gray_rgb(image_chw).astype(np.float64)
    base[~keep_hw] *= 0.2
    return base.round().astype(np.uint8)


def save_png(rgb: np.ndarray, path, scale: int = 1) -> None:
    from PIL import Image

    img = Image.fromarray(rgb)
    if scale > 1:
        img = img.resize((img.width * scale, img.height * scale), Image.NEAREST)
    img.save(path, "PNG")
