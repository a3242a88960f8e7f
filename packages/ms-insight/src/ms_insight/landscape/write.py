"""Landscapes into a summary: the grids as tensors and a picture TensorBoard shows."""

from __future__ import annotations

import numpy as np

__all__ = ["write_landscapes", "picture"]


def picture(loss: np.ndarray) -> np.ndarray:
    """The grid as a ``(1, 3, H, W)`` uint8 viridis image, low loss dark, row 0 at the top
    being the largest y (as a plot's axes); non-finite losses are white.

    >>> picture(np.array([[0.0, 1.0], [2.0, 3.0]])).shape
    (1, 3, 2, 2)
    """
    from matplotlib import colormaps

    z = np.asarray(loss, np.float64)[::-1]
    finite = np.isfinite(z)
    lo, hi = (z[finite].min(), z[finite].max()) if finite.any() else (0.0, 1.0)
    scaled = np.where(finite, (z - lo) / (hi - lo if hi > lo else 1.0), 0.0)
    rgb = colormaps["viridis"](scaled)[..., :3]
    rgb[~finite] = 1.0
    return (rgb * 255).round().astype(np.uint8).transpose(2, 0, 1)[None]


def write_landscapes(log_dir: str, landscapes: list[dict]) -> None:
    from ms_insight.summary.record import SummaryRecord

    with SummaryRecord(log_dir) as record:
        for land in landscapes:
            tag = f"landscape_{land['interval']}"
            record.add_value("tensor", f"{tag}/x", np.asarray(land["x"], np.float32))
            record.add_value("tensor", f"{tag}/y", np.asarray(land["y"], np.float32))
            record.add_value("tensor", f"{tag}/loss", np.asarray(land["loss"], np.float32))
            if land["path"] is not None:
                record.add_value("tensor", f"{tag}/path", np.asarray(land["path"], np.float32))
            record.add_value("image", f"{tag}/image", picture(land["loss"]))
            record.record(0)
        record.flush()
