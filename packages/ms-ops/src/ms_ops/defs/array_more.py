"""Shape and creation helpers MindSpore names on their own: depth/space/batch
rearrangements (DepthToSpace, SpaceToDepth, space_to_batch_nd, batch_to_space_nd), Diag and
DiagPart of any rank, reverse_sequence, combinations, vander, and the class forms or old
names of existing functions (Meshgrid, LogSpace, IdentityN, FillV2, expand, reverse...).

All are reshapes, transposes, pads, slices and gathers of existing operators, so their
gradients are those operators'.
"""

from __future__ import annotations

import itertools

import numpy as np

from ms_ops.defs import array, comparison
from ms_ops.defs.arithmetic import Mul, Pow, Sub
from ms_ops.defs.array_compose import meshgrid, repeat_interleave, swapdims
from ms_ops.defs.array_create import Eye, Fill, Range
from ms_ops.defs.array_reorder import Select, flip
from ms_ops.defs.array_slice import Pad, Slice
from ms_ops.defs.array_space import logspace
from ms_ops.defs.indexing import Gather, GatherD
from ms_ops.opdef import functional, primitive_class
from ms_tensor import dtype as mstype
from ms_tensor.tensor import Tensor


def _ints(name, value) -> tuple[int, ...]:
    if isinstance(value, Tensor):
        value = value.asnumpy().tolist()
    return tuple(int(v) for v in np.atleast_1d(value))


def _depth_to_space(x, block_size):
    n, c, h, w = x.shape
    b = block_size
    if c % (b * b):
        raise ValueError(f"DepthToSpace: channels {c} must be divisible by block_size**2 "
                         f"= {b * b} (input shape {x.shape})")
    parts = array.Reshape(x, (n, b, b, c // (b * b), h, w))
    moved = array.Transpose(parts, (0, 3, 4, 1, 5, 2))
    return array.Reshape(moved, (n, c // (b * b), h * b, w * b))


def _space_to_depth(x, block_size):
    n, c, h, w = x.shape
    b = block_size
    if h % b or w % b:
        raise ValueError(f"SpaceToDepth: height and width {h, w} must be divisible by "
                         f"block_size {b} (input shape {x.shape})")
    parts = array.Reshape(x, (n, c, h // b, b, w // b, b))
    moved = array.Transpose(parts, (0, 3, 5, 1, 2, 4))
    return array.Reshape(moved, (n, c * b * b, h // b, w // b))


DepthToSpace = primitive_class("DepthToSpace", _depth_to_space, ("block_size",))
SpaceToDepth = primitive_class("SpaceToDepth", _space_to_depth, ("block_size",))


@functional("space_to_batch_nd")
def space_to_batch_nd(input_x, block_size, paddings):
    """``ops.space_to_batch_nd``: the trailing spatial axes (one per block) padded by
    ``paddings`` and cut into ``block_size`` tiles that move into the batch axis."""
    blocks = _ints("space_to_batch_nd", block_size)
    m = len(blocks)
    if len(blocks) == 1 and input_x.ndim == 4:
        blocks = blocks * 2
        m = 2
    pads = [tuple(p) for p in (paddings.asnumpy().tolist() if isinstance(paddings, Tensor)
                               else paddings)]
    if len(pads) != m:
        raise ValueError(f"space_to_batch_nd: paddings must have {m} rows, got {pads}")
    lead = input_x.ndim - m
    x = Pad(input_x, paddings=((0, 0),) * lead + tuple(pads))
    spatial = x.shape[lead:]
    if any(s % b for s, b in zip(spatial, blocks)):
        raise ValueError(f"space_to_batch_nd: padded spatial shape {spatial} must be "
                         f"divisible by block_size {blocks}")
    shape = list(x.shape[:lead])
    for s, b in zip(spatial, blocks):
        shape += [s // b, b]
    x = array.Reshape(x, tuple(shape))
    block_axes = [lead + 2 * i + 1 for i in range(m)]
    rest = [a for a in range(len(shape)) if a not in block_axes]
    x = array.Transpose(x, tuple(block_axes + rest))
    n = input_x.shape[0] * int(np.prod(blocks))
    return array.Reshape(x, (n,) + tuple(shape[a] for a in rest[1:]))


@functional("batch_to_space_nd")
def batch_to_space_nd(input_x, block_shape, crops):
    """``ops.batch_to_space_nd``: the inverse of :func:`space_to_batch_nd`, then
    ``crops`` cut from the start and end of each spatial axis."""
    blocks = _ints("batch_to_space_nd", block_shape)
    m = len(blocks)
    if m == 1 and input_x.ndim == 4:
        blocks, m = blocks * 2, 2
    cuts = [tuple(int(v) for v in c) for c in (crops.asnumpy().tolist()
                                              if isinstance(crops, Tensor) else crops)]
    lead = input_x.ndim - m
    total = int(np.prod(blocks))
    if input_x.shape[0] % total:
        raise ValueError(f"batch_to_space_nd: batch {input_x.shape[0]} must be divisible by "
                         f"the product of block_shape {blocks}")
    n = input_x.shape[0] // total
    x = array.Reshape(input_x, tuple(blocks) + (n,) + tuple(input_x.shape[1:]))
    order = [m]  # batch, then the middle axes, then (spatial, block) pairs
    order += [m + 1 + a for a in range(lead - 1)]
    for i in range(m):
        order += [m + lead + i, i]
    x = array.Transpose(x, tuple(order))
    spatial = [s * b for s, b in zip(input_x.shape[lead:], blocks)]
    x = array.Reshape(x, (n,) + tuple(input_x.shape[1:lead]) + tuple(spatial))
    begin = [0] * lead + [c[0] for c in cuts]
    size = list(x.shape[:lead]) + [s - c[0] - c[1] for s, c in zip(spatial, cuts)]
    return Slice(x, tuple(begin), tuple(size))


SpaceToBatchND = primitive_class("SpaceToBatchND", lambda x, block_shape, paddings:
                                 space_to_batch_nd(x, block_shape, paddings),
                                 ("block_shape", "paddings"))
SpaceToBatch = primitive_class("SpaceToBatch", lambda x, block_size, paddings:
                               space_to_batch_nd(x, [block_size] * 2, paddings),
                               ("block_size", "paddings"))
BatchToSpace = primitive_class("BatchToSpace", lambda x, block_size, crops:
                               batch_to_space_nd(x, [block_size] * 2, crops),
                               ("block_size", "crops"))
BatchToSpaceNDV2 = primitive_class("BatchToSpaceNDV2", batch_to_space_nd)


def _diag(x):
    n = x.size
    flat = array.Reshape(x, (n, 1))
    return array.Reshape(Mul(flat, array.Cast(Eye(n, n, mstype.float32), x.dtype)),
                         tuple(x.shape) * 2)


def _diag_part(x):
    if x.ndim % 2 or x.shape[:x.ndim // 2] != x.shape[x.ndim // 2:]:
        raise ValueError(f"DiagPart: input shape must be (d1, ..., dk, d1, ..., dk), got "
                         f"{x.shape}")
    half = x.shape[:x.ndim // 2]
    n = int(np.prod(half))
    picks = Tensor(np.arange(n, dtype=np.int64) * (n + 1))
    return array.Reshape(Gather(array.Reshape(x, (n * n,)), picks, 0), half)


Diag = primitive_class("Diag", _diag)
DiagPart = primitive_class("DiagPart", _diag_part)


def _fill_v2(shape, value):
    return Fill(value.dtype, _ints("FillV2", shape), value)


FillV2 = primitive_class("FillV2", _fill_v2)


@functional("fills")
def fills(x, value):
    """``ops.fills``: a tensor of x's shape and dtype filled with ``value``."""
    return Fill(x.dtype, tuple(x.shape), value)


Fills = primitive_class("Fills", fills)
IdentityN = primitive_class("IdentityN", lambda x: tuple(array.Identity(t) for t in x))


def _invert_permutation(x):
    perm = _ints("InvertPermutation", x)
    if sorted(perm) != list(range(len(perm))):
        raise ValueError(f"InvertPermutation: input must be a permutation of 0..{len(perm) - 1},"
                         f" got {perm}")
    inverse = np.empty(len(perm), np.int64)
    inverse[list(perm)] = np.arange(len(perm))
    return tuple(int(v) for v in inverse) if not isinstance(x, Tensor) else Tensor(
        inverse.astype(x.dtype.np))


InvertPermutation = primitive_class("InvertPermutation", _invert_permutation)


def _scalar(v):
    return v.asnumpy().item() if isinstance(v, Tensor) else v


LogSpace = primitive_class("LogSpace", lambda start, end, steps=10, base=10,
                           dtype=mstype.float32: logspace(_scalar(start), _scalar(end), steps,
                                                          base, dtype=dtype),
                           ("steps", "base", "dtype"))
Meshgrid = primitive_class("Meshgrid", lambda inputs, indexing="xy":
                           meshgrid(*inputs, indexing=indexing), ("indexing",))


def _ragged_range(starts, limits, deltas, Tsplits=mstype.int64):
    s, lim, d = (np.atleast_1d(v.asnumpy()) for v in (starts, limits, deltas))
    if np.any(d == 0):
        raise ValueError("RaggedRange: deltas must not be 0")
    rows = [np.arange(a, b, c, dtype=starts.dtype.np) for a, b, c in np.broadcast(s, lim, d)]
    splits = np.concatenate([[0], np.cumsum([len(r) for r in rows])]).astype(Tsplits.np)
    values = np.concatenate(rows) if rows else np.zeros(0, starts.dtype.np)
    return Tensor(splits), Tensor(values.astype(starts.dtype.np))


RaggedRange = primitive_class("RaggedRange", _ragged_range, ("Tsplits",))


@functional("reverse_sequence")
def reverse_sequence(x, seq_lengths, seq_dim, batch_dim=0):
    """``ops.reverse_sequence``: for each batch entry b, the first ``seq_lengths[b]``
    elements along ``seq_dim`` reversed, the rest kept."""
    seq_dim, batch_dim = seq_dim % x.ndim, batch_dim % x.ndim
    if seq_dim == batch_dim:
        raise ValueError(f"reverse_sequence: seq_dim and batch_dim must differ, both are "
                         f"{seq_dim}")
    if tuple(seq_lengths.shape) != (x.shape[batch_dim],):
        raise ValueError(f"reverse_sequence: seq_lengths shape {seq_lengths.shape} must be "
                         f"({x.shape[batch_dim]},), the batch_dim size of input {x.shape}")
    shape = [1] * x.ndim
    shape[seq_dim] = x.shape[seq_dim]
    position = array.Reshape(Range(0, x.shape[seq_dim], 1), tuple(shape))
    shape = [1] * x.ndim
    shape[batch_dim] = x.shape[batch_dim]
    length = array.Reshape(array.Cast(seq_lengths, mstype.int64), tuple(shape))
    mirrored = Sub(Sub(length, 1), position)
    index = Select(comparison.Less(position, length), mirrored, position)
    return GatherD(x, seq_dim, array.BroadcastTo(index, tuple(x.shape)))


ReverseSequence = primitive_class("ReverseSequence", lambda x, seq_lengths, seq_dim,
                                  batch_dim=0: reverse_sequence(x, seq_lengths, seq_dim,
                                                                batch_dim),
                                  ("seq_dim", "batch_dim"))


@functional("combinations")
def combinations(input, r=2, with_replacement=False):
    """``ops.combinations``: every r-length subsequence of a 1-D tensor, in order (with
    repeats of an element when ``with_replacement``), one per row."""
    if input.ndim != 1:
        raise ValueError(f"combinations: input must be 1-D, got shape {input.shape}")
    pick = itertools.combinations_with_replacement if with_replacement \
        else itertools.combinations
    rows = np.array(list(pick(range(input.shape[0]), r)), np.int64).reshape(-1, r)
    return array.Reshape(Gather(input, Tensor(rows.reshape(-1)), 0), rows.shape)


@functional("expand")
def expand(input_x, size):
    """``ops.expand``: ``input_x`` broadcast to ``size`` (a tensor or tuple; -1 keeps)."""
    target = list(_ints("expand", size))
    offset = len(target) - input_x.ndim
    for i, d in enumerate(input_x.shape):
        if target[offset + i] == -1:
            target[offset + i] = d
    return array.BroadcastTo(input_x, tuple(target))


@functional("expand_as")
def expand_as(input, other):
    """``ops.expand_as``: ``input`` broadcast to the shape of ``other``."""
    return array.BroadcastTo(input, tuple(other.shape))


@functional("repeat_elements")
def repeat_elements(x, rep, axis=0):
    """``ops.repeat_elements``: each element repeated ``rep`` times along ``axis``."""
    return repeat_interleave(x, rep, axis)


@functional("reverse")
def reverse(x, axis):
    """``ops.reverse``: ``x`` reversed along the axes ``axis`` (``ops.flip``)."""
    return flip(x, tuple(axis) if isinstance(axis, (list, tuple)) else (axis,))


@functional("tensor_range")
def tensor_range(start, end, step):
    """``ops.tensor_range``: ``Range()`` with tensor bounds (int64 for integers)."""
    return Range(_scalar(start), _scalar(end), _scalar(step))


@functional("vander")
def vander(x, N=None):
    """``ops.vander``: the Vandermonde matrix, column j holding x ** (N - 1 - j)."""
    if x.ndim != 1:
        raise ValueError(f"vander: x must be 1-D, got shape {x.shape}")
    n = x.shape[0] if N is None else N
    powers = Tensor(np.arange(n - 1, -1, -1).astype(x.dtype.np))
    return Pow(array.Reshape(x, (x.shape[0], 1)), powers)


@functional("view_as")
def view_as(input, other):
    """``ops.view_as``: ``input`` reshaped to the shape of ``other``."""
    return array.Reshape(input, tuple(other.shape))


TransposeView = primitive_class("TransposeView", lambda x, perm: array.Transpose(x, tuple(perm)))
TransposeExtView = primitive_class("TransposeExtView", swapdims)
