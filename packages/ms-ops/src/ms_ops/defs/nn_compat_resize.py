"""MindSpore's resize and sampling Primitives: ``ops.ResizeBilinearV2``,
``ops.ResizeNearestNeighbor(V2)``, ``ops.ResizeBicubic``, ``ops.ResizeLinear1D``,
``ops.UpsampleNearest3D``, ``ops.UpsampleTrilinear3D``, ``ops.GridSampler2D/3D``,
``ops.AffineGrid`` and ``affine_grid``.

The Resize* operators keep TensorFlow's coordinate rules, which MindSpore's CPU kernels
copy: with neither ``align_corners`` nor ``half_pixel_centers`` an output position maps to
``dst * in / out`` (no centring), nearest rounds with ``align_corners`` and floors
otherwise, bicubic reads Keys' weights from a 1024-step table (a = -0.5 and out-of-range
taps dropped with half-pixel centres, a = -0.75 and edge clamping without). Each axis is
a constant gather and weighting (``_resample``), so gradients flow to the input.
"""

from __future__ import annotations

import numpy as np

import ms_ops as ops
from ms_ops.defs.nn_resize_more import _cubic, _resample, _source
from ms_ops.opdef import functional, primitive_class
from ms_tensor import dtype as mstype
from ms_tensor.tensor import Tensor


def _size(name, size, n):
    if isinstance(size, Tensor):
        size = size.asnumpy().reshape(-1).tolist()
    if isinstance(size, int):
        size = (size,)
    size = tuple(int(s) for s in size)
    if len(size) != n or min(size) <= 0:
        raise ValueError(f"{name}: size must hold {n} positive ints, got {size!r}")
    return size


def _source_positions(n, out, align_corners, half_pixel):
    dst = np.arange(out, dtype=np.float64)
    if align_corners:
        return dst * ((n - 1) / (out - 1) if out > 1 else 0.0)
    scale = n / out
    return (dst + 0.5) * scale - 0.5 if half_pixel else dst * scale


def _tf_taps(mode, n, out, align_corners, half_pixel):
    """(indices, weights) per tap along one axis of length n -> out, TensorFlow's rules."""
    if mode == "nearest":
        dst = np.arange(out, dtype=np.float64)
        if align_corners:
            scale = (n - 1) / (out - 1) if out > 1 else 0.0
            src = np.floor(dst * scale + 0.5)  # roundf: half away from zero
        else:
            scale = n / out
            src = np.floor((dst + 0.5) * scale) if half_pixel else np.floor(dst * scale)
        return [(np.clip(src, 0, n - 1).astype(np.int64), np.ones(out))]
    src = _source_positions(n, out, align_corners, half_pixel)
    base = np.floor(src)
    frac = src - base
    if mode == "linear":
        lower = np.clip(base, 0, n - 1).astype(np.int64)
        upper = np.clip(np.ceil(src), 0, n - 1).astype(np.int64)
        return [(lower, 1.0 - frac), (upper, frac)]
    frac = np.rint(frac * 1024) / 1024  # TensorFlow's 1024-step weight table
    a = -0.5 if half_pixel else -0.75
    idx = [base + k for k in (-1, 0, 1, 2)]
    weights = [_cubic(frac - k, a) for k in (-1, 0, 1, 2)]
    if half_pixel:
        weights = [w * ((i >= 0) & (i <= n - 1)) for w, i in zip(weights, idx)]
        total = sum(weights)
        weights = [w / total for w in weights]
    return [(np.clip(i, 0, n - 1).astype(np.int64), w) for i, w in zip(idx, weights)]


def _resize(name, mode, x, size, align_corners, half_pixel, rank=4):
    if not isinstance(x, Tensor) or x.ndim != rank:
        raise ValueError(f"{name}: input must be a {rank}-d Tensor, got "
                         f"{getattr(x, 'shape', type(x).__name__)}")
    if align_corners and half_pixel:
        raise ValueError(f"{name}: align_corners and half_pixel_centers cannot both be True")
    if mode != "nearest" and not x.is_floating_point():
        raise TypeError(f"{name}: input must be float16/32/64, got {x.dtype}")
    size = _size(name, size, rank - 2)
    out = x
    for k, (n, m) in enumerate(zip(x.shape[2:], size)):
        out = _resample(out, 2 + k, _tf_taps(mode, n, m, align_corners, half_pixel))
    return out


ResizeBilinearV2 = primitive_class(
    "ResizeBilinearV2", lambda x, size, align_corners=False, half_pixel_centers=False: _resize(
        "ResizeBilinearV2", "linear", x, size, align_corners, half_pixel_centers),
    ("align_corners", "half_pixel_centers"))
ResizeNearestNeighbor = primitive_class(
    "ResizeNearestNeighbor", lambda x, size, align_corners=False, half_pixel_centers=False:
    _resize("ResizeNearestNeighbor", "nearest", x, size, align_corners, False),
    ("size", "align_corners", "half_pixel_centers"))
ResizeNearestNeighborV2 = primitive_class(
    "ResizeNearestNeighborV2", lambda x, size, align_corners=False, half_pixel_centers=False:
    _resize("ResizeNearestNeighborV2", "nearest", x, size, align_corners, half_pixel_centers),
    ("align_corners", "half_pixel_centers"))
ResizeBicubic = primitive_class(
    "ResizeBicubic", lambda images, size, align_corners=False, half_pixel_centers=False:
    _resize("ResizeBicubic", "cubic", images, size, align_corners, half_pixel_centers),
    ("align_corners", "half_pixel_centers"))


def _linear1d(x, size, coordinate_transformation_mode="align_corners"):
    if coordinate_transformation_mode not in ("align_corners", "half_pixel"):
        raise ValueError(f"ResizeLinear1D: coordinate_transformation_mode must be "
                         f"'align_corners' or 'half_pixel', got "
                         f"{coordinate_transformation_mode!r}")
    align = coordinate_transformation_mode == "align_corners"
    return _resize("ResizeLinear1D", "linear", x, size, align, not align, rank=3)


ResizeLinear1D = primitive_class("ResizeLinear1D", _linear1d,
                                 ("coordinate_transformation_mode",))


def _upsample3d(name, mode, x, output_size, scales, align_corners):
    if not isinstance(x, Tensor) or x.ndim != 5:
        raise ValueError(f"{name}: x must be a 5-d Tensor (N, C, D, H, W), got "
                         f"{getattr(x, 'shape', type(x).__name__)}")
    if (output_size is None) == (scales is None):
        raise ValueError(f"{name}: exactly one of output_size and scales must be given")
    if output_size is not None:
        return ops.interpolate(x, size=_size(name, output_size, 3), mode=mode,
                               align_corners=align_corners)
    return ops.interpolate(x, scale_factor=tuple(float(s) for s in scales), mode=mode,
                           align_corners=align_corners)


UpsampleNearest3D = primitive_class(
    "UpsampleNearest3D", lambda x, output_size=None, scales=None: _upsample3d(
        "UpsampleNearest3D", "nearest", x, output_size, scales, None))
UpsampleTrilinear3D = primitive_class(
    "UpsampleTrilinear3D", lambda x, output_size=None, scales=None, align_corners=False:
    _upsample3d("UpsampleTrilinear3D", "trilinear", x, output_size, scales, align_corners),
    ("align_corners",))
GridSampler2D = primitive_class(
    "GridSampler2D", lambda input_x, grid, interpolation_mode="bilinear", padding_mode="zeros",
    align_corners=False: ops.grid_sample(input_x, grid, interpolation_mode, padding_mode,
                                         align_corners),
    ("interpolation_mode", "padding_mode", "align_corners"))


def _grid_sample3d(input_x, grid, interpolation_mode="bilinear", padding_mode="zeros",
                   align_corners=False):
    """Sample (N, C, D, H, W) ``input_x`` at the normalized (x, y, z) of ``grid``
    (N, D', H', W', 3): trilinear or nearest, PyTorch's padding modes."""
    name = "GridSampler3D"
    if interpolation_mode not in ("bilinear", "nearest") or \
            padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"{name}: interpolation_mode must be 'bilinear' or 'nearest' and "
                         f"padding_mode 'zeros', 'border' or 'reflection', got "
                         f"{interpolation_mode!r}, {padding_mode!r}")
    if not isinstance(input_x, Tensor) or not isinstance(grid, Tensor) or input_x.ndim != 5 \
            or grid.ndim != 5 or grid.shape[-1] != 3 or grid.shape[0] != input_x.shape[0]:
        raise ValueError(f"{name}: input_x {getattr(input_x, 'shape', None)} must be (N, C, D, "
                         f"H, W) and grid {getattr(grid, 'shape', None)} (N, D', H', W', 3)")
    n, c, d, h, w = input_x.shape
    out_shape = grid.shape[1:4]
    m = int(np.prod(out_shape))
    ix = _source(grid[..., 0], w, padding_mode, bool(align_corners))
    iy = _source(grid[..., 1], h, padding_mode, bool(align_corners))
    iz = _source(grid[..., 2], d, padding_mode, bool(align_corners))
    flat = ops.reshape(input_x, (n, c, d * h * w))

    def tap(xi, yi, zi):
        valid = (xi >= 0) & (xi <= w - 1) & (yi >= 0) & (yi <= h - 1) & (zi >= 0) & \
            (zi <= d - 1)
        index = (ops.clamp(zi, 0, d - 1) * h + ops.clamp(yi, 0, h - 1)) * w + \
            ops.clamp(xi, 0, w - 1)
        index = ops.broadcast_to(ops.reshape(ops.cast(index, mstype.int64), (n, 1, m)),
                                 (n, c, m))
        values = ops.reshape(ops.gather_elements(flat, 2, index), (n, c) + out_shape)
        return values * ops.expand_dims(ops.cast(valid, input_x.dtype), 1)

    if interpolation_mode == "nearest":
        return tap(ops.round(ix), ops.round(iy), ops.round(iz))
    x0, y0, z0 = ops.floor(ix), ops.floor(iy), ops.floor(iz)
    fx, fy, fz = (ops.expand_dims(t, 1) for t in (ix - x0, iy - y0, iz - z0))
    out = None
    for dz, wz in ((0, 1 - fz), (1, fz)):
        for dy, wy in ((0, 1 - fy), (1, fy)):
            for dx, wx in ((0, 1 - fx), (1, fx)):
                part = tap(x0 + dx, y0 + dy, z0 + dz) * wx * wy * wz
                out = part if out is None else out + part
    return out


GridSampler3D = primitive_class("GridSampler3D", _grid_sample3d,
                                ("interpolation_mode", "padding_mode", "align_corners"))


def _base(n, align_corners):
    if align_corners:
        return np.linspace(-1.0, 1.0, n) if n > 1 else np.zeros(1)
    return (np.arange(n) * 2 + 1) / n - 1


@functional("affine_grid")
def affine_grid(theta, size, align_corners=False):
    """The sampling grid of the affine maps ``theta`` ((N, 2, 3) or (N, 3, 4)) for an
    output of ``size`` (N, C, H, W) or (N, C, D, H, W): (N, H, W, 2) or (N, D, H, W, 3).

    >>> affine_grid(Tensor([[[1.0, 0, 0], [0, 1.0, 0]]]), (1, 1, 2, 2)).reshape(-1).tolist()
    [-0.5, -0.5, 0.5, -0.5, -0.5, 0.5, 0.5, 0.5]
    """
    if not isinstance(theta, Tensor) or not theta.is_floating_point():
        raise TypeError(f"AffineGrid: theta must be a float Tensor, got "
                        f"{getattr(theta, 'dtype', type(theta).__name__)}")
    size = _size("AffineGrid", size, len(size) if isinstance(size, (tuple, list)) else 4)
    nd = len(size) - 2
    if nd not in (2, 3) or theta.shape != (size[0], nd, nd + 1):
        raise ValueError(f"AffineGrid: theta shape {theta.shape} must be (N, {nd}, {nd + 1}) "
                         f"for size {size} (4 or 5 entries, N first)")
    axes = [_base(s, align_corners) for s in size[2:]]  # (D,) H, W
    mesh = np.meshgrid(*axes, indexing="ij")
    coords = [mesh[-1], mesh[-2]] + ([mesh[0]] if nd == 3 else [])  # x, y (, z)
    base = np.stack(coords + [np.ones_like(mesh[0])], -1).reshape(-1, nd + 1)
    grid = ops.matmul(ops.broadcast_to(Tensor(base).astype(theta.dtype),
                                       (size[0],) + base.shape), ops.transpose(theta, (0, 2, 1)))
    return ops.reshape(grid, (size[0],) + tuple(size[2:]) + (nd,))


AffineGrid = primitive_class(
    "AffineGrid", lambda theta, output_size, align_corners=False: affine_grid(
        theta, output_size, align_corners), ("align_corners",))
