"""Slicing and padding: Slice, StridedSlice, Pad, PadV3 (+ PadV3Grad) and ``ops.slice``/
``strided_slice``/``pad``.

StridedSlice follows MindSpore (and TensorFlow): ``begin``/``end``/``strides`` per axis,
with bit masks that ignore a begin or end (``begin_mask``/``end_mask``), stand for
``...`` (``ellipsis_mask``), add an axis (``new_axis_mask``) or pick one position
(``shrink_axis_mask``). It is turned into the basic numpy index it denotes, so its
inference and gradient are those of ``TensorGetItem``. Slices return views.

PadV3's ``reflect``, ``edge`` and ``circular`` modes copy input positions into the border;
numpy's pad of ``arange(n)`` says which position each output takes, so the forward pass
is a take along each axis and the gradient (PadV3Grad) adds back to those positions.
"""

from __future__ import annotations

import numpy as np

from ms_ops.defs._index import EMPTY_INDICES, FULL, index_shape
from ms_ops.infer import check_int
from ms_ops.opdef import ALL, STATIC, Arg, Attr, OpDef, TensorSpec, functional

_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


def strided_index(ndim: int, begin, end, strides, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0) -> tuple:
    """The index description (see ``_index``) that StridedSlice's arguments denote."""
    begin, end, strides = tuple(begin), tuple(end), tuple(strides)
    if not len(begin) == len(end) == len(strides):
        raise ValueError(f"begin {begin}, end {end} and strides {strides} must have the same "
                         "length")
    for name, m in zip(_MASKS, (begin_mask, end_mask, ellipsis_mask, new_axis_mask,
                                shrink_axis_mask)):
        check_int(name, m, minimum=0)
    if bin(ellipsis_mask).count("1") > 1:
        raise ValueError(f"ellipsis_mask {ellipsis_mask} may set only one bit")
    used = sum(1 for i in range(len(begin))
               if not (ellipsis_mask | new_axis_mask) >> i & 1)
    desc = []
    for i, (b, e, s) in enumerate(zip(begin, end, strides)):
        bit = 1 << i
        for name, v in (("begin", b), ("end", e), ("strides", s)):
            check_int(name, v)
        if ellipsis_mask & bit:
            desc.extend([FULL] * max(ndim - used, 0))
        elif new_axis_mask & bit:
            desc.append(None)
        elif s == 0:
            raise ValueError(f"strides {strides} must not contain 0")
        elif shrink_axis_mask & bit:
            desc.append((0 if s > 0 else -1) if begin_mask & bit else b)
        else:
            desc.append((None if begin_mask & bit else b, None if end_mask & bit else e, s))
    return tuple(desc)


def _pairs(paddings, ndim):
    pairs = tuple(tuple(p) for p in paddings)
    if len(pairs) != ndim or any(len(p) != 2 for p in pairs):
        raise ValueError(f"paddings {paddings} must hold one (before, after) pair per axis "
                         f"({ndim})")
    return pairs


def v3_pairs(paddings, ndim: int, contiguous: bool = True) -> tuple:
    """PadV3's flat ``paddings`` (the last axis first) as one (before, after) pair per axis.

    Contiguous: ``(b_last, a_last, b_prev, a_prev, ...)``; otherwise all befores first.
    """
    flat = tuple(paddings)
    if len(flat) % 2 or len(flat) // 2 > ndim:
        raise ValueError(f"paddings {flat} must have an even length of at most 2 * {ndim}")
    for v in flat:
        check_int("paddings", v)
    k = len(flat) // 2
    pairs = [flat[2 * i:2 * i + 2] for i in range(k)] if contiguous else \
        [(flat[i], flat[k + i]) for i in range(k)]
    return ((0, 0),) * (ndim - k) + tuple(reversed(pairs))


def _slice_infer(x, begin, size):
    begin, size = tuple(begin), tuple(size)
    if len(begin) != x.ndim or len(size) != x.ndim:
        raise ValueError(f"begin {begin} and size {size} must have one entry per axis of input "
                         f"shape {x.shape}")
    out = []
    for a, (b, s, n) in enumerate(zip(begin, size, x.shape)):
        check_int("begin", b, minimum=0)
        check_int("size", s, minimum=-1)
        s = n - b if s == -1 else s
        if b + s > n or b > n:
            raise ValueError(f"begin {begin} and size {size} run past axis {a} of input shape "
                             f"{x.shape}")
        out.append(s)
    return TensorSpec(tuple(out), x.dtype)


Slice = OpDef("Slice", (Arg("input"), Arg("begin", STATIC), Arg("size", STATIC)),
              infer=_slice_infer, doc="The block starting at ``begin`` of ``size`` (-1: to "
                                      "the end).")


@Slice.kernel("CPU", dtypes=ALL)
def slice_cpu(x, begin, size):
    return x[tuple(slice(b, n if s == -1 else b + s) for b, s, n in zip(begin, size, x.shape))]


@Slice.bprop
def slice_bprop(x, begin, size, out, dout):
    after = tuple(n - b - s for n, b, s in zip(x.shape, begin, dout.shape))
    return (Pad(dout, paddings=tuple(zip(begin, after))), None, None)


@Slice.samples
def _slice_samples(rng):
    yield (rng.standard_normal((3, 4, 2)), (1, 0, 0), (2, -1, 1)), {}


def _strided_infer(x, begin, end, strides, **masks):
    desc = strided_index(x.ndim, begin, end, strides, **masks)
    try:
        return TensorSpec(index_shape(x.shape, desc), x.dtype)
    except IndexError as e:
        raise ValueError(str(e)) from None


StridedSlice = OpDef("StridedSlice", (Arg("input_x"), Arg("begin", STATIC), Arg("end", STATIC),
                                      Arg("strides", STATIC)),
                     tuple(Attr(m, 0) for m in _MASKS), infer=_strided_infer,
                     doc="``input_x[begin:end:strides]`` per axis, with masks.")


@StridedSlice.kernel("CPU", dtypes=ALL)
def strided_slice_cpu(x, begin, end, strides, **masks):
    from ms_ops.defs._index import numpy_index

    return x[numpy_index(strided_index(x.ndim, begin, end, strides, **masks), EMPTY_INDICES)]


@StridedSlice.bprop
def strided_slice_bprop(x, begin, end, strides, out, dout, **masks):
    from ms_ops.defs.indexing import TensorGetItemGrad, _indices_tensor

    desc = strided_index(x.ndim, begin, end, strides, **masks)
    return (TensorGetItemGrad(dout, _indices_tensor(EMPTY_INDICES), desc, x.shape),
            None, None, None)


@StridedSlice.samples
def _strided_slice(rng):
    x = rng.standard_normal((4, 5))
    yield (x, (0, 1), (4, 5), (2, 2)), {}
    yield (x, (3, 4), (0, 0), (-1, -2)), {}  # negative strides
    yield (x, (1, 0), (3, 3), (1, 1)), {"begin_mask": 1, "end_mask": 2}
    yield (x, (2, 0), (3, 5), (1, 1)), {"shrink_axis_mask": 1}
    yield (x, (0, 0, 1), (1, 4, 4), (1, 1, 1)), {"new_axis_mask": 1}
    y = rng.standard_normal((2, 3, 4))
    yield (y, (0, 1), (1, 3), (1, 1)), {"ellipsis_mask": 1}


def _pad_infer(x, paddings):
    pairs = _pairs(paddings, x.ndim)
    for p in pairs:
        for v in p:
            check_int("paddings", v, minimum=0)
    return TensorSpec(tuple(n + b + a for n, (b, a) in zip(x.shape, pairs)), x.dtype)


Pad = OpDef("Pad", (Arg("input_x"),), (Attr("paddings"),), infer=_pad_infer,
            doc="Zeros added before and after each axis, ``paddings[i] = (before, after)``.")


@Pad.kernel("CPU", dtypes=ALL)
def pad_cpu(x, paddings):
    return np.pad(x, _pairs(paddings, x.ndim))


@Pad.bprop
def pad_bprop(x, out, dout, paddings):
    return (Slice(dout, tuple(b for b, _ in _pairs(paddings, x.ndim)), x.shape),)


@Pad.samples
def _pad(rng):
    yield (rng.standard_normal((2, 3)),), {"paddings": ((1, 0), (2, 1))}


# PadV3's copying modes, as numpy's pad spells them.
_COPY_MODES = {"reflect": "reflect", "symmetric": "symmetric", "edge": "edge",
               "circular": "wrap"}


def source_index(n: int, before: int, after: int, mode: str) -> np.ndarray:
    """For each position of a padded axis, the input position it copies."""
    return np.pad(np.arange(n), (before, after), mode=_COPY_MODES[mode])


def _check_copy_pads(shape, pairs, mode, paddings):
    for axis, (n, (b, a)) in enumerate(zip(shape, pairs)):
        if not (b or a):
            continue
        if b < 0 or a < 0:
            raise ValueError(f"PadV3: {mode} mode cannot crop; got paddings {tuple(paddings)}")
        if n == 0 or (mode == "reflect" and max(b, a) >= n) or \
                (mode == "symmetric" and max(b, a) > n):
            bound = "at most" if mode == "symmetric" else "smaller than"
            raise ValueError(f"PadV3: {mode} mode needs each padding {bound} its axis; "
                             f"got ({b}, {a}) for axis {axis} of size {n}")


def _pad_v3_infer(x, paddings, constant_value=0, mode="constant", paddings_contiguous=True):
    if mode != "constant" and mode not in _COPY_MODES:
        raise ValueError(f"PadV3: mode must be 'constant', 'reflect', 'symmetric', 'edge' or "
                         f"'circular', got {mode!r}")
    pairs = v3_pairs(paddings, x.ndim, paddings_contiguous)
    if mode != "constant":
        _check_copy_pads(x.shape, pairs, mode, paddings)
    shape = tuple(n + b + a for n, (b, a) in zip(x.shape, pairs))
    if any(d < 0 for d in shape):
        raise ValueError(f"paddings {tuple(paddings)} crop more than input shape {x.shape} has")
    return TensorSpec(shape, x.dtype)


PadV3 = OpDef("PadV3", (Arg("x"), Arg("paddings", STATIC), Arg("constant_value", STATIC, 0)),
              (Attr("mode", "constant"), Attr("paddings_contiguous", True)),
              infer=_pad_v3_infer,
              doc="Pad with ``constant_value`` (negative paddings crop), last axis first.")


@PadV3.kernel("CPU", dtypes=ALL)
def pad_v3_cpu(x, paddings, constant_value=0, mode="constant", paddings_contiguous=True):
    pairs = v3_pairs(paddings, x.ndim, paddings_contiguous)
    if mode != "constant":
        for axis, (b, a) in enumerate(pairs):
            if b or a:
                x = np.take(x, source_index(x.shape[axis], b, a, mode), axis)
        return x
    crop = tuple(slice(max(-b, 0), n - max(-a, 0)) for n, (b, a) in zip(x.shape, pairs))
    grow = tuple((max(b, 0), max(a, 0)) for b, a in pairs)
    return np.pad(x[crop], grow, constant_values=constant_value)


@PadV3.bprop
def pad_v3_bprop(x, paddings, constant_value, out, dout, mode="constant",
                 paddings_contiguous=True):
    if mode != "constant":
        return (PadV3Grad(dout, paddings, mode=mode, paddings_contiguous=paddings_contiguous),
                None, None)
    back = tuple(-v for v in paddings)
    return (PadV3(dout, back, 0, mode=mode, paddings_contiguous=paddings_contiguous),
            None, None)


@PadV3.samples
def _pad_v3(rng):
    x = rng.standard_normal((2, 3, 4))
    yield (x, (1, 2), 0), {}
    yield (x, (1, -1, 0, 2), 1.5), {}  # a negative padding crops
    yield (x, (1, 0, 2, 1), 0), {"paddings_contiguous": False}
    for mode in _COPY_MODES:
        yield (x, (1, 2, 2, 0), 0), {"mode": mode}


def _pad_v3_grad_infer(x, paddings, mode="reflect", paddings_contiguous=True):
    if mode not in _COPY_MODES:
        raise ValueError(f"PadV3Grad: mode must be 'reflect', 'symmetric', 'edge' or 'circular', "
                         f"got {mode!r}")
    pairs = v3_pairs(paddings, x.ndim, paddings_contiguous)
    shape = tuple(n - b - a for n, (b, a) in zip(x.shape, pairs))
    _check_copy_pads(shape, pairs, mode, paddings)
    return TensorSpec(shape, x.dtype)


PadV3Grad = OpDef("PadV3Grad", (Arg("x"), Arg("paddings", STATIC)),
                  (Attr("mode", "reflect"), Attr("paddings_contiguous", True)),
                  infer=_pad_v3_grad_infer,
                  doc="PadV3's gradient in a copying mode: each output's gradient added back "
                      "to the input position it copied.")


@PadV3Grad.kernel("CPU", dtypes=ALL)
def pad_v3_grad_cpu(dout, paddings, mode="reflect", paddings_contiguous=True):
    pairs = v3_pairs(paddings, dout.ndim, paddings_contiguous)
    for axis, (b, a) in enumerate(pairs):
        if b or a:
            n = dout.shape[axis] - b - a
            moved = np.moveaxis(dout, axis, 0)
            acc = np.zeros((n,) + moved.shape[1:], dout.dtype)
            np.add.at(acc, source_index(n, b, a, mode), moved)
            dout = np.moveaxis(acc, 0, axis)
    return dout


@PadV3Grad.bprop
def pad_v3_grad_bprop(x, paddings, out, dout, mode="reflect", paddings_contiguous=True):
    return (PadV3(dout, paddings, 0, mode=mode, paddings_contiguous=paddings_contiguous), None)


@PadV3Grad.samples
def _pad_v3_grad(rng):
    for mode in _COPY_MODES:
        yield (rng.standard_normal((2, 6, 6)), (1, 2, 2, 0)), {"mode": mode}


@functional("slice")
def _slice(input_x, begin, size):
    """``ops.slice``: the block of ``input_x`` at ``begin`` of ``size`` (-1: to the end)."""
    return Slice(input_x, tuple(begin), tuple(size))


@functional("strided_slice")
def strided_slice(input_x, begin, end, strides, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0):
    """``ops.strided_slice``: see :data:`StridedSlice`."""
    return StridedSlice(input_x, tuple(begin), tuple(end), tuple(strides),
                        begin_mask=begin_mask, end_mask=end_mask, ellipsis_mask=ellipsis_mask,
                        new_axis_mask=new_axis_mask, shrink_axis_mask=shrink_axis_mask)


@functional("pad")
def pad(input_x, padding, mode="constant", value=None):
    """``ops.pad``: pad (or, with negative values, crop) the last axes; ``padding`` lists
    (before, after) for the last axis first. ``mode``: ``"constant"`` (``value``, default
    0), ``"reflect"``, ``"replicate"`` or ``"circular"``.

    >>> ops.pad(ops.ones((2, 2)), (1, 0)).shape
    (2, 3)
    """
    if mode not in _PAD_MODES:
        raise ValueError(f"pad: mode must be one of {', '.join(map(repr, _PAD_MODES))}, "
                         f"got {mode!r}")
    if mode != "constant" and value is not None:
        raise ValueError(f"pad: value is only used by mode 'constant', not {mode!r}")
    return PadV3(input_x, tuple(padding), 0 if value is None else value, mode=_PAD_MODES[mode])


# ops.pad's mode names -> PadV3's.
_PAD_MODES = {"constant": "constant", "reflect": "reflect", "replicate": "edge",
              "circular": "circular"}
