"""Shape helpers built from Reshape, Transpose, Concat, Slice, Gather and Tile:
``hstack``/``vstack``/``dstack``/``column_stack``/``row_stack``, ``atleast_1d/2d/3d``,
``meshgrid``, ``movedim``/``swapdims``, ``narrow``, ``ravel``, ``unflatten``,
``repeat_interleave``, ``rot90``, ``tensor_split``/``hsplit``/``vsplit``/``dsplit``,
``block_diag``, ``cartesian_prod``, ``index_select`` and ``take``.

Being compositions, they differentiate and compile through the operators they use.
"""

from __future__ import annotations

import numpy as np

from ms_ops.defs import array
from ms_ops.defs.array_create import zeros
from ms_ops.defs.array_join import concat, stack
from ms_ops.defs.array_reorder import ReverseV2
from ms_ops.defs.array_slice import Slice
from ms_ops.defs.indexing import Gather
from ms_ops.infer import check_int, normalize_axis
from ms_ops.opdef import functional
from ms_tensor.tensor import Tensor


def _at_least_one(t, ndim: int):
    if t.ndim >= ndim:
        return t
    if t.ndim == 0:
        return array.Reshape(t, (1,) * ndim)
    if t.ndim == 1:  # (n,) -> (1, n) -> (1, n, 1)
        return array.Reshape(t, (1, t.shape[0]) if ndim == 2 else (1, t.shape[0], 1))
    return array.Reshape(t, (*t.shape, 1))  # (m, n) -> (m, n, 1)


@functional("atleast_1d")
def atleast_1d(inputs):
    """``ops.atleast_1d``: a tensor (or each of a list) with at least one axis."""
    return _at_least_tuple(inputs, 1)


@functional("atleast_2d")
def atleast_2d(inputs):
    """``ops.atleast_2d``: at least two axes ((n,) becomes (1, n))."""
    return _at_least_tuple(inputs, 2)


@functional("atleast_3d")
def atleast_3d(inputs):
    """``ops.atleast_3d``: at least three axes ((n,) becomes (1, n, 1), (m, n) (m, n, 1))."""
    return _at_least_tuple(inputs, 3)


def _at_least_tuple(inputs, ndim):
    if isinstance(inputs, Tensor):
        return _at_least_one(inputs, ndim)
    return tuple(_at_least_one(t, ndim) for t in inputs)


@functional("hstack")
def hstack(tensors):
    """``ops.hstack``: join along axis 1 (axis 0 for 1-d tensors)."""
    ts = atleast_1d(tuple(tensors))
    return concat(ts, 0 if ts[0].ndim == 1 else 1)


@functional("vstack", "row_stack")
def vstack(inputs):
    """``ops.vstack``/``row_stack``: join along axis 0, 1-d tensors as rows."""
    return concat(atleast_2d(tuple(inputs)), 0)


@functional("dstack")
def dstack(tensors):
    """``ops.dstack``: join along axis 2, after making every tensor at least 3-d."""
    return concat(atleast_3d(tuple(tensors)), 2)


@functional("column_stack")
def column_stack(tensors):
    """``ops.column_stack``: 1-d tensors as columns, 2-d ones joined along axis 1."""
    cols = tuple(array.Reshape(t, (-1, 1)) if t.ndim < 2 else t for t in tensors)
    return concat(cols, 1)


@functional("meshgrid")
def meshgrid(*inputs, indexing="xy"):
    """``ops.meshgrid``: coordinate grids of 1-d tensors (``"xy"``: the first two axes
    swapped, as numpy's default; ``"ij"``: matrix indexing)."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    if len(inputs) == 1 and isinstance(inputs[0], (list, tuple)):
        inputs = tuple(inputs[0])
    sizes = [t.shape[0] for t in inputs]
    if indexing == "xy" and len(sizes) > 1:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out = []
    for i, t in enumerate(inputs):
        axis = (1 - i if i < 2 else i) if indexing == "xy" and len(inputs) > 1 else i
        shape = [1] * len(inputs)
        shape[axis] = t.shape[0]
        out.append(array.BroadcastTo(array.Reshape(t, tuple(shape)), shape=tuple(sizes)))
    return tuple(out)


@functional("movedim", methods="movedim")
def movedim(x, source, destination):
    """``ops.movedim``: move axes ``source`` to positions ``destination``."""
    from ms_ops.defs.array import moveaxis

    return moveaxis(x, source, destination)


@functional("swapdims", methods="swapdims")
def swapdims(input, dim0, dim1):
    """``ops.swapdims``: exchange two axes."""
    from ms_ops.defs.array import swapaxes

    return swapaxes(input, dim0, dim1)


@functional("narrow", methods="narrow")
def narrow(input, axis, start, length):
    """``ops.narrow``: ``length`` entries of ``axis`` from ``start``."""
    a = normalize_axis(axis, input.ndim)
    check_int("start", start, minimum=0)
    check_int("length", length, minimum=0)
    if start + length > input.shape[a]:
        raise ValueError(f"narrow: start {start} + length {length} runs past axis {a} of "
                         f"size {input.shape[a]}")
    begin = tuple(start if i == a else 0 for i in range(input.ndim))
    size = tuple(length if i == a else n for i, n in enumerate(input.shape))
    return Slice(input, begin, size)


@functional("ravel")
def ravel(input):
    """``ops.ravel``: the entries as one axis."""
    return array.Reshape(input, (-1,))


@functional("unflatten")
def unflatten(input, dim, sizes):
    """``ops.unflatten``: split axis ``dim`` into ``sizes`` (one may be -1)."""
    d = normalize_axis(dim, input.ndim, "dim")
    return array.Reshape(input, (*input.shape[:d], *sizes, *input.shape[d + 1:]))


@functional("repeat_interleave", methods="repeat_interleave")
def repeat_interleave(input, repeats, axis=None):
    """``ops.repeat_interleave``: each entry repeated ``repeats`` times along ``axis``
    (the flattened input when None); ``repeats`` an int or one count per entry."""
    x = ravel(input) if axis is None else input
    a = 0 if axis is None else normalize_axis(axis, x.ndim)
    counts = repeats.asnumpy() if isinstance(repeats, Tensor) else np.asarray(repeats)
    index = np.repeat(np.arange(x.shape[a]), counts)
    return Gather(x, Tensor(index.astype(np.int64)), a)


@functional("rot90", methods="rot90")
def rot90(input, k, dims):
    """``ops.rot90``: rotate by 90 degrees ``k`` times in the plane ``dims``, from the
    first axis towards the second."""
    d0, d1 = (normalize_axis(d, input.ndim, "dims") for d in dims)
    if d0 == d1:
        raise ValueError(f"rot90: dims must be two different axes, got {dims}")
    k %= 4
    if k == 0:
        return input
    if k == 2:
        return ReverseV2(input, axis=(d0, d1))
    perm = list(range(input.ndim))
    perm[d0], perm[d1] = perm[d1], perm[d0]
    if k == 1:
        return array.Transpose(ReverseV2(input, axis=(d1,)), tuple(perm))
    return ReverseV2(array.Transpose(input, tuple(perm)), axis=(d1,))


@functional("tensor_split", methods="tensor_split")
def tensor_split(input, indices_or_sections, axis=0):
    """``ops.tensor_split``: ``n`` nearly equal parts (the first ``size % n`` one longer),
    or the parts between the given indices."""
    a = normalize_axis(axis, input.ndim)
    size = input.shape[a]
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        if n <= 0:
            raise ValueError(f"tensor_split: sections must be positive, got {n}")
        bounds = np.cumsum([0] + [size // n + (i < size % n) for i in range(n)])
    else:
        bounds = [0, *[min(max(int(i), 0), size) for i in indices_or_sections], size]
    parts = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        hi = max(hi, lo)
        begin = tuple(int(lo) if i == a else 0 for i in range(input.ndim))
        length = tuple(int(hi - lo) if i == a else n for i, n in enumerate(input.shape))
        parts.append(Slice(input, begin, length))
    return tuple(parts)


@functional("hsplit", methods="hsplit")
def hsplit(input, indices_or_sections):
    """``ops.hsplit``: ``tensor_split`` along axis 1 (axis 0 for 1-d)."""
    return tensor_split(input, indices_or_sections, 1 if input.ndim > 1 else 0)


@functional("vsplit", methods="vsplit")
def vsplit(input, indices_or_sections):
    """``ops.vsplit``: ``tensor_split`` along axis 0 (at least 2-d input)."""
    if input.ndim < 2:
        raise ValueError(f"vsplit: input must be at least 2-d, got shape {input.shape}")
    return tensor_split(input, indices_or_sections, 0)


@functional("dsplit", methods="dsplit")
def dsplit(input, indices_or_sections):
    """``ops.dsplit``: ``tensor_split`` along axis 2 (at least 3-d input)."""
    if input.ndim < 3:
        raise ValueError(f"dsplit: input must be at least 3-d, got shape {input.shape}")
    return tensor_split(input, indices_or_sections, 2)


@functional("block_diag")
def block_diag(*inputs):
    """``ops.block_diag``: the matrices on the diagonal of one block matrix (0-d and 1-d
    inputs count as 1 x n rows)."""
    mats = [array.Reshape(t, (1, -1)) if t.ndim < 2 else t for t in inputs]
    width = sum(m.shape[1] for m in mats)
    rows, left = [], 0
    for m in mats:
        parts = []
        if left:
            parts.append(zeros((m.shape[0], left), m.dtype))
        parts.append(m)
        right = width - left - m.shape[1]
        if right:
            parts.append(zeros((m.shape[0], right), m.dtype))
        rows.append(concat(tuple(parts), 1) if len(parts) > 1 else m)
        left += m.shape[1]
    return concat(tuple(rows), 0)


@functional("cartesian_prod")
def cartesian_prod(*inputs):
    """``ops.cartesian_prod``: every combination of the 1-d inputs' entries, one per row."""
    grids = meshgrid(*inputs, indexing="ij")
    return stack(tuple(ravel(g) for g in grids), 1) if len(grids) > 1 else inputs[0]


@functional("index_select", methods="index_select")
def index_select(input, axis, index):
    """``ops.index_select``: the entries at the 1-d ``index`` along ``axis``."""
    if index.ndim != 1:
        raise ValueError(f"index_select: index must be 1-d, got shape {index.shape}")
    return Gather(input, index, normalize_axis(axis, input.ndim))


@functional("take", methods="take")
def take(input, index):
    """``ops.take``: entries of the flattened input at ``index`` (the result has
    ``index``'s shape)."""
    return Gather(ravel(input), index, 0)
