"""1-d and 3-d convolutions and patch extraction, built exactly on Conv2D and its gradient.

``conv1d`` is a Conv2D over a height of 1. ``conv3d`` is a sum over the depth taps of
Conv2D on the (strided) depth slices, each folded into the batch; ``conv_transpose3d`` is
the same with Conv2DBackpropInput, its depth slices interleaved by the stride. ``unfold``
(im2col) is a grouped Conv2D with one-hot kernels and ``fold`` (col2im) its transpose, so
every function differentiates and compiles through the operators it uses.
"""

from __future__ import annotations

import numpy as np

import ms_ops as ops
from ms_ops.opdef import functional
from ms_tensor.tensor import Tensor


def _tuple(name, value, n) -> tuple:
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return (int(value),) * n
    if isinstance(value, (tuple, list)) and len(value) == n and all(
            isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value):
        return tuple(int(v) for v in value)
    raise ValueError(f"{name} must be an int or a tuple of {n} ints, got {value!r}")


def _same_pads(sizes, kernel, stride, dilation) -> list:
    """(before, after) per spatial axis for 'same' padding (the extra one after)."""
    pads = []
    for n, k, s, d in zip(sizes, kernel, stride, dilation):
        total = max((-(-n // s) - 1) * s + (k - 1) * d + 1 - n, 0)
        pads.append((total // 2, total - total // 2))
    return pads


def _explicit_pads(name, padding, pad_mode, nd, sizes, kernel, stride, dilation) -> list:
    """(before, after) per spatial axis from MindSpore's pad_mode/padding (or mint's str)."""
    if isinstance(padding, str):
        pad_mode, padding = padding, 0
    if pad_mode not in ("valid", "same", "pad"):
        raise ValueError(f"{name}: pad_mode must be 'valid', 'same' or 'pad', got {pad_mode!r}")
    if pad_mode == "same":
        return _same_pads(sizes, kernel, stride, dilation)
    if pad_mode == "valid" and padding not in (0, (0,) * nd, [0] * nd, (0,) * 2 * nd):
        raise ValueError(f"{name}: padding must be 0 when pad_mode is 'valid', got {padding!r}")
    if isinstance(padding, (tuple, list)) and len(padding) == 2 * nd:
        return [(int(padding[2 * i]), int(padding[2 * i + 1])) for i in range(nd)]
    return [(p, p) for p in _tuple(f"{name}: padding", padding, nd)]


def _check(name, input, weight, rank):
    if not isinstance(input, Tensor) or not isinstance(weight, Tensor):
        raise TypeError(f"{name}: input and weight must be Tensors, got "
                        f"{type(input).__name__} and {type(weight).__name__}")
    if input.ndim != rank or weight.ndim != rank:
        raise ValueError(f"{name}: input shape {input.shape} and weight shape {weight.shape} "
                         f"must both be {rank}-d")


def _bias(out, bias, name):
    if bias is None:
        return out
    if tuple(bias.shape) != (out.shape[1],):
        raise ValueError(f"{name}: bias shape {tuple(bias.shape)} must be ({out.shape[1]},), "
                         f"one value per output channel (output shape {out.shape})")
    return out + ops.reshape(bias, (1, out.shape[1]) + (1,) * (out.ndim - 2))


def _pad(x, pads):
    flat = tuple(v for p in reversed(pads) for v in p)  # last axis first, as ops.pad wants
    return ops.pad(x, flat) if any(flat) else x


@functional("conv1d")
def conv1d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1,
           groups=1):
    """1-d convolution of (N, C, L) ``input`` with ``weight`` ``(Cout, Cin/groups, k)``.

    >>> conv1d(ops.ones((1, 2, 5)), ops.ones((3, 2, 3))).shape
    (1, 3, 3)
    """
    _check("conv1d", input, weight, 3)
    (s,), (d,) = _tuple("conv1d: stride", stride, 1), _tuple("conv1d: dilation", dilation, 1)
    pads = _explicit_pads("conv1d", padding, pad_mode, 1, input.shape[2:], weight.shape[2:],
                          (s,), (d,))
    out = ops.conv2d(ops.expand_dims(_pad(input, pads), 2), ops.expand_dims(weight, 2),
                     stride=(1, s), dilation=(1, d), groups=groups)
    return _bias(ops.squeeze(out, 2), bias, "conv1d")


@functional("conv3d")
def conv3d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1,
           groups=1):
    """3-d convolution of (N, C, D, H, W) ``input`` with ``weight`` ``(Cout, Cin/groups,
    kd, kh, kw)``: one Conv2D per depth tap, summed.

    >>> conv3d(ops.ones((1, 2, 4, 5, 5)), ops.ones((3, 2, 2, 3, 3)), padding=1,
    ...        pad_mode="pad").shape
    (1, 3, 5, 5, 5)
    """
    _check("conv3d", input, weight, 5)
    st, dl = _tuple("conv3d: stride", stride, 3), _tuple("conv3d: dilation", dilation, 3)
    kd = weight.shape[2]
    x = _pad(input, _explicit_pads("conv3d", padding, pad_mode, 3, input.shape[2:],
                                   weight.shape[2:], st, dl))
    n, c, depth, h, w = x.shape
    out_d = (depth - dl[0] * (kd - 1) - 1) // st[0] + 1
    if out_d <= 0:
        raise ValueError(f"conv3d: the (padded) input depth {depth} is smaller than the "
                         f"kernel's extent {dl[0] * (kd - 1) + 1}")
    total = None
    for k in range(kd):
        start = k * dl[0]
        xs = x[:, :, start:start + st[0] * (out_d - 1) + 1:st[0]]
        xs = ops.reshape(ops.transpose(xs, (0, 2, 1, 3, 4)), (n * out_d, c, h, w))
        y = ops.conv2d(xs, weight[:, :, k], stride=st[1:], dilation=dl[1:], groups=groups)
        total = y if total is None else total + y
    cout, oh, ow = total.shape[1:]
    out = ops.transpose(ops.reshape(total, (n, out_d, cout, oh, ow)), (0, 2, 1, 3, 4))
    return _bias(out, bias, "conv3d")


def _transpose_args(name, nd, stride, padding, output_padding, dilation):
    st, dl = _tuple(f"{name}: stride", stride, nd), _tuple(f"{name}: dilation", dilation, nd)
    pd = _tuple(f"{name}: padding", padding, nd)
    op = _tuple(f"{name}: output_padding", output_padding, nd)
    if not all(0 <= o < max(s, d) for o, s, d in zip(op, st, dl)):
        raise ValueError(f"{name}: output_padding {output_padding!r} must be smaller than "
                         f"stride {stride!r} or dilation {dilation!r}")
    return st, pd, op, dl


@functional("conv_transpose1d")
def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    """Transposed 1-d convolution; ``weight`` is ``(Cin, Cout/groups, k)``.

    >>> conv_transpose1d(ops.ones((1, 4, 3)), ops.ones((4, 2, 3)), stride=2).shape
    (1, 2, 7)
    """
    _check("conv_transpose1d", input, weight, 3)
    (s,), (p,), (o,), (d,) = _transpose_args("conv_transpose1d", 1, stride, padding,
                                             output_padding, dilation)
    out = ops.conv_transpose2d(ops.expand_dims(input, 2), ops.expand_dims(weight, 2), None,
                               (1, s), (0, p), (0, o), groups, (1, d))
    return _bias(ops.squeeze(out, 2), bias, "conv_transpose1d")


@functional("conv_transpose3d")
def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    """Transposed 3-d convolution; ``weight`` is ``(Cin, Cout/groups, kd, kh, kw)``. Each
    depth tap is a transposed Conv2D whose slices land every ``stride`` planes.

    >>> conv_transpose3d(ops.ones((1, 4, 2, 3, 3)), ops.ones((4, 2, 2, 3, 3)), stride=2).shape
    (1, 2, 4, 7, 7)
    """
    _check("conv_transpose3d", input, weight, 5)
    st, pd, op, dl = _transpose_args("conv_transpose3d", 3, stride, padding, output_padding,
                                     dilation)
    n, cin, depth, h, w = input.shape
    kd = weight.shape[2]
    xs = ops.reshape(ops.transpose(input, (0, 2, 1, 3, 4)), (n * depth, cin, h, w))
    full = (depth - 1) * st[0] + dl[0] * (kd - 1) + 1 + op[0]
    total = None
    for k in range(kd):
        y = ops.conv_transpose2d(xs, weight[:, :, k], None, st[1:], pd[1:], op[1:], groups,
                                 dl[1:])
        cout, oh, ow = y.shape[1:]
        y = ops.reshape(y, (n, depth, 1, cout, oh, ow))
        if st[0] > 1:  # interleave zero planes: plane i lands at i * stride
            y = ops.concat((y, ops.zeros((n, depth, st[0] - 1, cout, oh, ow), y.dtype)), 2)
        y = ops.reshape(y, (n, depth * st[0], cout, oh, ow))[:, :(depth - 1) * st[0] + 1]
        before = k * dl[0]
        y = ops.pad(y, (0, 0, 0, 0, 0, 0, before, full - before - y.shape[1]))
        total = y if total is None else total + y
    out = ops.transpose(total[:, pd[0]:full - pd[0]], (0, 2, 1, 3, 4))
    return _bias(out, bias, "conv_transpose3d")


def _patch_kernel(channels, kh, kw, dtype):
    """One-hot kernels (C*kh*kw, 1, kh, kw): output channel c*kh*kw + i*kw + j reads (i, j)."""
    eye = np.eye(kh * kw, dtype=np.float32).reshape(kh * kw, 1, kh, kw)
    return Tensor(np.tile(eye, (channels, 1, 1, 1))).astype(dtype)


def _patch_args(name, kernel_size, dilation, padding, stride):
    return (_tuple(f"{name}: kernel_size", kernel_size, 2),
            _tuple(f"{name}: dilation", dilation, 2), _tuple(f"{name}: padding", padding, 2),
            _tuple(f"{name}: stride", stride, 2))


@functional("unfold")
def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """im2col: the sliding blocks of (N, C, H, W) ``input`` as columns, (N, C*kh*kw, L).

    >>> unfold(ops.ones((1, 2, 4, 4)), 2).shape
    (1, 8, 9)
    """
    if not isinstance(input, Tensor) or input.ndim != 4:
        raise ValueError(f"unfold: input must be a 4-d Tensor (N, C, H, W), got "
                         f"{getattr(input, 'shape', type(input).__name__)}")
    (kh, kw), dl, pd, st = _patch_args("unfold", kernel_size, dilation, padding, stride)
    n, c = input.shape[:2]
    out = ops.conv2d(_pad(input, [(pd[0], pd[0]), (pd[1], pd[1])]),
                     _patch_kernel(c, kh, kw, input.dtype), stride=st, dilation=dl, groups=c)
    return ops.reshape(out, (n, c * kh * kw, -1))


@functional("fold")
def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """col2im: sum the columns (N, C*kh*kw, L) of ``unfold`` back into (N, C, H, W).

    >>> fold(ops.ones((1, 8, 9)), (4, 4), 2).shape
    (1, 2, 4, 4)
    """
    if isinstance(output_size, Tensor):
        output_size = tuple(int(v) for v in output_size.asnumpy().reshape(-1))
    size = _tuple("fold: output_size", output_size, 2)
    (kh, kw), dl, pd, st = _patch_args("fold", kernel_size, dilation, padding, stride)
    if not isinstance(input, Tensor) or input.ndim not in (2, 3):
        raise ValueError(f"fold: input must be a 3-d Tensor (N, C*kh*kw, L), got "
                         f"{getattr(input, 'shape', type(input).__name__)}")
    x = input if input.ndim == 3 else ops.expand_dims(input, 0)
    n, ck, length = x.shape
    blocks = [(o + 2 * p - d * (k - 1) - 1) // s + 1
              for o, p, d, k, s in zip(size, pd, dl, (kh, kw), st)]
    if ck % (kh * kw) or blocks[0] * blocks[1] != length or min(blocks) <= 0:
        raise ValueError(f"fold: input shape {input.shape} does not match output_size {size}, "
                         f"kernel_size {(kh, kw)}: expected (N, C*{kh * kw}, "
                         f"{blocks[0] * blocks[1]})")
    c = ck // (kh * kw)
    extra = [o + 2 * p - ((b - 1) * s + d * (k - 1) + 1)
             for o, p, b, s, d, k in zip(size, pd, blocks, st, dl, (kh, kw))]
    out = ops.conv_transpose2d(ops.reshape(x, (n, ck, blocks[0], blocks[1])),
                               _patch_kernel(c, kh, kw, x.dtype), None, st, 0, 0, c, dl)
    out = ops.pad(out, (0, extra[1], 0, extra[0])) if any(extra) else out
    out = out[:, :, pd[0]:pd[0] + size[0], pd[1]:pd[1] + size[1]]
    return out if input.ndim == 3 else ops.squeeze(out, 0)
