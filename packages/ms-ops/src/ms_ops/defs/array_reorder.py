"""Operators that reorder or pick elements without changing them: Tile, ReverseV2 (``flip``),
Roll and Select (``where``), with their functions and Tensor methods.
"""

from __future__ import annotations

import numpy as np

from ms_ops.defs.array import BroadcastTo, ExpandDims, Reshape
from ms_ops.infer import BOOL, broadcast_shapes, check_int, normalize_axes, normalize_axis
from ms_ops.opdef import ALL, STATIC, Arg, Attr, OpDef, TensorSpec, functional
from ms_tensor.tensor import Tensor


def tiled_shapes(shape: tuple, multiples: tuple) -> tuple:
    """(input shape, multiples), both padded with leading 1s to one length."""
    n = max(len(shape), len(multiples))
    return (1,) * (n - len(shape)) + tuple(shape), (1,) * (n - len(multiples)) + tuple(multiples)


def roll_axes(shifts, dims, ndim: int) -> tuple:
    """(shifts, axes) as equal-length tuples; ``dims=None`` rolls the flattened input."""
    shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    if dims is None:
        if len(shifts) != 1:
            raise ValueError(f"shifts {shifts} needs dims when it has more than one entry")
        return shifts, None
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if len(shifts) != len(dims):
        raise ValueError(f"shifts {shifts} and dims {dims} must have the same length")
    for s in shifts:
        check_int("shifts", s)
    return shifts, tuple(normalize_axis(d, ndim, "dims") for d in dims)


def _tile_infer(x, dims):
    if not isinstance(dims, (tuple, list)):
        raise TypeError(f"dims must be a tuple of ints, got {type(dims).__name__}")
    for m in dims:
        check_int("dims", m, minimum=0)
    shape, mult = tiled_shapes(x.shape, dims)
    return TensorSpec(tuple(d * m for d, m in zip(shape, mult)), x.dtype)


Tile = OpDef("Tile", (Arg("input"), Arg("dims", STATIC)), infer=_tile_infer,
             doc="Repeat the whole input ``dims[i]`` times along each axis.")


@Tile.kernel("CPU", dtypes=ALL)
def tile_cpu(x, dims):
    return np.tile(x, dims)


@Tile.bprop
def tile_bprop(x, dims, out, dout):
    from ms_ops.defs.reduction import ReduceSum

    shape, mult = tiled_shapes(x.shape, dims)
    # Output axis i is (multiple m_i, size s_i) interleaved: sum over the multiples.
    split = Reshape(dout, tuple(v for pair in zip(mult, shape) for v in pair))
    summed = ReduceSum(split, tuple(range(0, 2 * len(shape), 2)))
    return (Reshape(summed, x.shape), None)


@Tile.samples
def _tile(rng):
    yield (rng.standard_normal((2, 3)), (2, 1, 2)), {}
    yield (rng.standard_normal((3,)), (3,)), {}


def _reverse_infer(x, axis):
    normalize_axes(axis, x.ndim)
    return TensorSpec(x.shape, x.dtype)


ReverseV2 = OpDef("ReverseV2", (Arg("input"),), (Attr("axis"),), infer=_reverse_infer,
                  doc="Reverse the order of elements along each axis in ``axis``.")


@ReverseV2.kernel("CPU", dtypes=ALL)
def reverse_cpu(x, axis):
    return np.flip(x, axis)


@ReverseV2.bprop
def reverse_bprop(x, out, dout, axis):
    return (ReverseV2(dout, axis=axis),)


@ReverseV2.samples
def _reverse(rng):
    yield (rng.standard_normal((2, 3, 4)),), {"axis": (0, 2)}
    yield (rng.standard_normal((5,)),), {"axis": (-1,)}


def _roll_infer(x, shifts, dims=None):
    roll_axes(shifts, dims, x.ndim)
    return TensorSpec(x.shape, x.dtype)


Roll = OpDef("Roll", (Arg("input"),), (Attr("shifts"), Attr("dims", None)), infer=_roll_infer,
             methods="roll",
             doc="Shift elements along ``dims`` circularly (the flattened input if None).")


@Roll.kernel("CPU", dtypes=ALL)
def roll_cpu(x, shifts, dims=None):
    shifts, axes = roll_axes(shifts, dims, x.ndim)
    return np.roll(x, shifts[0] if axes is None else shifts, axes)


@Roll.bprop
def roll_bprop(x, out, dout, shifts, dims=None):
    back = -shifts if isinstance(shifts, int) else tuple(-s for s in shifts)
    return (Roll(dout, shifts=back, dims=dims),)


@Roll.samples
def _roll(rng):
    yield (rng.standard_normal((3, 4)),), {"shifts": 1, "dims": None}
    yield (rng.standard_normal((3, 4)),), {"shifts": (1, -2), "dims": (0, 1)}


def _select_infer(condition, x, y):
    if condition.dtype is not BOOL:
        raise TypeError(f"input 'condition' has dtype {condition.dtype}, expected Bool")
    shape = broadcast_shapes(condition, x, y, names=("condition", "x", "y"))
    return TensorSpec(shape, x.dtype)


Select = OpDef("Select", (Arg("condition", promote=False), Arg("x"), Arg("y")),
               infer=_select_infer, promote="common", nondiff_inputs=("condition",),
               doc="x where condition is True, else y; broadcasting, x and y promoted.")


@Select.kernel("CPU", dtypes=ALL)
def select_cpu(condition, x, y):
    return np.where(condition, x, y)


@Select.bprop
def select_bprop(condition, x, y, out, dout):
    from ms_ops.defs._grad_util import grad_for, shape_of, sum_to

    return (None,
            grad_for(x, sum_to(Select(condition, dout, 0), shape_of(x))),
            grad_for(y, sum_to(Select(condition, 0, dout), shape_of(y))))


@Select.samples
def _select(rng):
    yield (rng.random((2, 3)) < 0.5, rng.standard_normal((2, 3)),
           rng.standard_normal((2, 3))), {}
    # condition, x and y broadcast against each other
    yield (rng.random((1, 3)) < 0.5, rng.standard_normal((2, 1)),
           rng.standard_normal((3,))), {}
    yield (np.array([True, False, True]), rng.standard_normal((2, 3)),
           rng.standard_normal((1,))), {}


@functional("tile")
def tile(input, dims):
    """``ops.tile``: repeat ``input`` ``dims[i]`` times along each axis."""
    return Tile(input, tuple(dims))


@functional("flip", methods="flip")
def flip(input, dims):
    """``ops.flip``: reverse the order of elements along ``dims``."""
    return ReverseV2(input, axis=(dims,) if isinstance(dims, int) else tuple(dims))


@functional("roll")
def roll(input, shifts, dims=None):
    """``ops.roll``: shift elements circularly along ``dims`` (the flattened input if None)."""
    return Roll(input, shifts=shifts, dims=dims)


@functional("select", "where")
def select(condition, input, other):
    """``ops.select``/``ops.where``: ``input`` where ``condition``, else ``other``."""
    return Select(condition, input, other)


@functional(methods="tile")
def _t_tile(self, reps):
    return Tile(self, (reps,) if isinstance(reps, int) else tuple(reps))


@functional(methods="repeat")
def _t_repeat(self, repeats, axis=None):
    """numpy's ``repeat``: each element ``repeats`` times along ``axis`` (flattened if None)."""
    x = self if axis is not None else Reshape(self, (-1,))
    a = 0 if axis is None else normalize_axis(axis, x.ndim)
    if isinstance(repeats, (list, tuple)) and len(repeats) == 1:
        repeats = repeats[0]
    if isinstance(repeats, int):
        check_int("repeats", repeats, minimum=0)
        shape = x.shape
        spread = BroadcastTo(ExpandDims(x, a + 1), shape[:a + 1] + (repeats,) + shape[a + 1:])
        return Reshape(spread, shape[:a] + (shape[a] * repeats,) + shape[a + 1:])
    from ms_ops.defs.indexing import Gather

    counts = np.asarray(repeats)
    if counts.shape != (x.shape[a],) or counts.dtype.kind not in "iu" or (counts < 0).any():
        raise ValueError(f"repeat: repeats must be a non-negative int or {x.shape[a]} of them "
                         f"for axis {a} of shape {x.shape}, got {repeats!r}")
    return Gather(x, Tensor(np.repeat(np.arange(x.shape[a]), counts)), a)
