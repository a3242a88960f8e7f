"""The window of an unpadded ("VALID") MaxPool/AvgPool from its registry attributes,
for ms-lite's own pooling kernels (float32 and int8)."""

from __future__ import annotations

from typing import NamedTuple

from ms_tensor import registry as _registry

__all__ = ["Window", "valid_window"]


class Window(NamedTuple):
    kh: int
    kw: int
    sh: int
    sw: int
    oh: int
    ow: int


def _hw(name: str, v) -> tuple[int, int]:
    """MindSpore's forms: an int, (h, w), or (1, 1, h, w)."""
    if isinstance(v, int) and not isinstance(v, bool):
        return v, v
    v = tuple(v)
    if len(v) == 4:
        v = v[2:]
    if len(v) != 2 or not all(isinstance(i, int) and i > 0 for i in v):
        raise ValueError(f"{name} must be a positive int or pair, got {v!r}")
    return v


def valid_window(op: str, x_shape, attrs: dict) -> Window:
    """``op``'s (``"MaxPool"``/``"AvgPool"``) window on an NCHW ``x_shape``; ValueError
    unless the pool is unpadded and fits."""
    full = _registry.load().primitive(op).complete_attrs(dict(attrs))
    if str(full.get("pad_mode", "")).upper() != "VALID":
        raise ValueError(f"{op}: pad_mode {full.get('pad_mode')!r}; only 'VALID' runs here")
    if full.get("data_format", "NCHW") != "NCHW" or len(x_shape) != 4:
        raise ValueError(f"{op}: an NCHW 4-d input is needed, got {tuple(x_shape)} "
                         f"{full.get('data_format')}")
    (kh, kw), (sh, sw) = _hw("kernel_size", full["kernel_size"]), _hw("strides",
                                                                      full["strides"])
    h, w = x_shape[2:]
    if kh > h or kw > w:
        raise ValueError(f"{op}: kernel_size {(kh, kw)} is larger than the input {(h, w)}")
    return Window(kh, kw, sh, sw, (h - kh) // sh + 1, (w - kw) // sw + 1)
