"""Shape and layout: Reshape, BroadcastTo, Cast, Transpose, ExpandDims, Squeeze, Flatten,
Tile, ReverseV2, Roll, Identity and Select, with their functional and Tensor forms.

Joining and splitting (Concat, Split, ...) live in ``array_join``, slicing and padding in
``array_slice``, and tensor creation (Fill, Zeros, Range, Eye, OneHot, ...) in
``array_create``. Reshape, Transpose and friends return numpy views of their input.
Sharing memory is safe because these kernels never write into their inputs and
``Tensor.__setitem__`` replaces a tensor's array instead of writing into it; an operator
declared ``inplace`` (which does write) must only be given arrays its tensor owns.
"""

from __future__ import annotations

import math

import numpy as np

from ms_ops.infer import BOOL, broadcast_shapes, check_int, normalize_axes, normalize_axis
from ms_ops.opdef import ALL, STATIC, Arg, Attr, OpDef, TensorSpec, functional
from ms_tensor import dtype as mstype
from ms_tensor.tensor import Tensor


def normalize_perm(perm, ndim: int, name: str = "input_perm") -> tuple:
    """``perm`` as non-negative axes, checked to be a permutation of ``range(ndim)``."""
    if not isinstance(perm, (tuple, list)):
        raise TypeError(f"{name} must be a tuple of ints, got {type(perm).__name__}")
    axes = tuple(normalize_axis(a, ndim, name) for a in perm)
    if len(axes) != ndim or len(set(axes)) != ndim:
        raise ValueError(f"{name} {tuple(perm)} is not a permutation of the {ndim} axes")
    return axes


def squeezed_axes(shape: tuple, axis) -> tuple:
    """The size-1 axes among ``axis`` (every size-1 axis when ``()``/``None``).

    Axes of another size are kept, as MindSpore 2.x does, instead of raising.
    """
    if axis is None or axis == () or axis == []:
        return tuple(i for i, d in enumerate(shape) if d == 1)
    return tuple(a for a in normalize_axes(axis, len(shape)) if shape[a] == 1)


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


def reshape_like_bprop(x, out, dout, **_):
    return (Reshape(dout, x.shape),)


def _flat_range(ndim, start_dim, end_dim):
    if ndim == 0:
        return 0, 0
    return normalize_axis(start_dim, ndim, "start_dim"), normalize_axis(end_dim, ndim, "end_dim")


def _shape_args(shape):
    """``t.reshape(2, 3)`` and ``t.reshape((2, 3))`` both mean shape (2, 3)."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return tuple(shape[0])
    return tuple(shape)


def _reshape_infer(x, shape):
    shape = tuple(shape)
    unknown = [i for i, d in enumerate(shape) if d == -1]
    if len(unknown) > 1 or any(not isinstance(d, int) or d < -1 for d in shape):
        raise ValueError(f"shape {shape} is invalid: use non-negative ints and at most one -1")
    size = math.prod(x.shape)
    known = math.prod(d for d in shape if d != -1)
    if unknown:
        if known == 0 or size % known:
            raise ValueError(f"cannot reshape input of shape {x.shape} (size {size}) to {shape}")
        shape = tuple(size // known if d == -1 else d for d in shape)
    elif known != size:
        raise ValueError(f"cannot reshape input of shape {x.shape} (size {size}) to {shape} "
                         f"(size {known})")
    return TensorSpec(shape, x.dtype)


Reshape = OpDef("Reshape", (Arg("input_x"), Arg("input_shape", STATIC)), infer=_reshape_infer,
                doc="The same data with a new shape (one dimension may be -1).")


@Reshape.kernel("CPU", dtypes=ALL)
def reshape_cpu(x, input_shape):
    return np.reshape(x, input_shape)


@Reshape.bprop
def reshape_bprop(x, shape, out, dout):
    return (Reshape(dout, x.shape), None)


@Reshape.samples
def _reshape(rng):
    yield (rng.standard_normal((2, 3, 4)), (4, -1)), {}
    yield (rng.standard_normal((6,)), (2, 1, 3)), {}


def _broadcast_to_infer(x, shape):
    shape = tuple(shape)
    if len(shape) < x.ndim:
        raise ValueError(f"cannot broadcast input of shape {x.shape} to {shape}: target has "
                         "fewer dimensions")
    out = list(shape)
    lead = len(shape) - x.ndim
    for i, t in enumerate(shape[:lead]):
        if t == -1:
            raise ValueError(f"cannot broadcast input of shape {x.shape} to {shape}: -1 at "
                             f"new leading dimension {i}")
    for i, d in enumerate(x.shape):
        t = shape[lead + i]
        if t == -1:
            out[lead + i] = d
        elif d != t and d != 1:
            raise ValueError(f"cannot broadcast input of shape {x.shape} to {shape}: "
                             f"dimension {i} is {d}, target {t}")
    return TensorSpec(tuple(out), x.dtype)


BroadcastTo = OpDef("BroadcastTo", (Arg("input_x"),), (Attr("shape"),),
                    infer=_broadcast_to_infer,
                    doc="Broadcast to ``shape`` (-1 keeps a dim); a new, writable array.")


@BroadcastTo.kernel("CPU", dtypes=ALL)
def broadcast_to_cpu(x, shape):
    # A broadcast view is read-only and has zero strides: an in-place update or a user
    # writing through asnumpy() would fail (or write one value many times), and kernels
    # that want C-contiguous input would copy it anyway. MindSpore's BroadcastTo also
    # makes a new tensor, so the result is materialized once here.
    shape = tuple(d if t == -1 else t for d, t in
                  zip((1,) * (len(shape) - x.ndim) + x.shape, shape))
    if shape == x.shape:
        return x
    out = np.empty(shape, dtype=x.dtype)
    out[...] = x
    return out


@BroadcastTo.bprop
def broadcast_to_bprop(x, out, dout, shape):
    from ms_ops.defs._grad_util import sum_to

    return (sum_to(dout, x.shape),)


@BroadcastTo.samples
def _broadcast_to(rng):
    yield (rng.standard_normal((3, 1)),), {"shape": (2, 3, 4)}
    yield (rng.standard_normal((1, 4)),), {"shape": (3, -1)}


def _cast_infer(x, dtype):
    if not isinstance(dtype, mstype.DType):
        raise TypeError(f"dtype must be a microspore dtype (e.g. float32), got {dtype!r}")
    return TensorSpec(x.shape, dtype)


Cast = OpDef("Cast", (Arg("input_x"), Arg("dtype", STATIC)), infer=_cast_infer,
             doc="Convert to ``dtype``.")


@Cast.kernel("CPU", dtypes=ALL)
def cast_cpu(x, dtype):
    return x.astype(dtype.np)


@Cast.bprop
def cast_bprop(x, dtype, out, dout):
    return (Cast(dout, x.dtype), None)


@Cast.samples
def _cast(rng):
    # float64 -> float64 only: a narrower float would drown finite differences in rounding.
    yield (rng.standard_normal((2, 3)), mstype.float64), {}


def _transpose_infer(x, perm):
    axes = normalize_perm(perm, x.ndim)
    return TensorSpec(tuple(x.shape[a] for a in axes), x.dtype)


Transpose = OpDef("Transpose", (Arg("input_x"), Arg("input_perm", STATIC)),
                  infer=_transpose_infer, doc="Permute the axes: output axis i is input "
                                              "axis ``input_perm[i]``.")


@Transpose.kernel("CPU", dtypes=ALL)
def transpose_cpu(x, input_perm):
    return np.transpose(x, input_perm)


@Transpose.bprop
def transpose_bprop(x, perm, out, dout):
    inverse = tuple(int(i) for i in np.argsort(normalize_perm(perm, x.ndim)))
    return (Transpose(dout, inverse), None)


@Transpose.samples
def _transpose(rng):
    yield (rng.standard_normal((2, 3, 4)), (2, 0, 1)), {}
    yield (rng.standard_normal((3, 4)), (1, 0)), {}


def _expand_dims_infer(x, axis):
    check_int("axis", axis)
    if not -x.ndim - 1 <= axis <= x.ndim:
        raise ValueError(f"axis {axis} is out of range for input shape {x.shape} (expected "
                         f"{-x.ndim - 1} <= axis <= {x.ndim})")
    a = axis % (x.ndim + 1)
    return TensorSpec(x.shape[:a] + (1,) + x.shape[a:], x.dtype)


ExpandDims = OpDef("ExpandDims", (Arg("input_x"), Arg("axis", STATIC)),
                   infer=_expand_dims_infer, doc="Insert an axis of size 1 at ``axis``.")


@ExpandDims.kernel("CPU", dtypes=ALL)
def expand_dims_cpu(x, axis):
    return np.expand_dims(x, axis)


@ExpandDims.bprop
def expand_dims_bprop(x, axis, out, dout):
    return (Reshape(dout, x.shape), None)


@ExpandDims.samples
def _expand_dims(rng):
    yield (rng.standard_normal((2, 3)), 1), {}
    yield (rng.standard_normal((2, 3)), -1), {}


def _squeeze_infer(x, axis=()):
    drop = squeezed_axes(x.shape, axis)
    return TensorSpec(tuple(d for i, d in enumerate(x.shape) if i not in drop), x.dtype)


Squeeze = OpDef("Squeeze", (Arg("input"),), (Attr("axis", ()),), infer=_squeeze_infer,
                doc="Remove size-1 axes (those in ``axis``, or all of them).")


@Squeeze.kernel("CPU", dtypes=ALL)
def squeeze_cpu(x, axis=()):
    return np.squeeze(x, squeezed_axes(x.shape, axis))


Squeeze.bprop(reshape_like_bprop)


@Squeeze.samples
def _squeeze(rng):
    yield (rng.standard_normal((2, 1, 3, 1)),), {"axis": ()}
    yield (rng.standard_normal((2, 1, 3, 1)),), {"axis": (1,)}


def _flatten_infer(x):
    if x.ndim == 0:
        raise ValueError("input must have at least 1 dimension, got a 0-d tensor")
    return TensorSpec((x.shape[0], math.prod(x.shape[1:])), x.dtype)


Flatten = OpDef("Flatten", (Arg("input_x"),), infer=_flatten_infer,
                doc="Keep axis 0 and flatten the rest: shape (N, -1).")


@Flatten.kernel("CPU", dtypes=ALL)
def flatten_cpu(x):
    return np.reshape(x, (x.shape[0], math.prod(x.shape[1:])))


Flatten.bprop(reshape_like_bprop)


@Flatten.samples
def _flatten(rng):
    yield (rng.standard_normal((2, 3, 2)),), {}


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


Identity = OpDef("Identity", (Arg("input_x"),), infer=lambda x: TensorSpec(x.shape, x.dtype),
                 doc="A copy of the input.")


@Identity.kernel("CPU", dtypes=ALL)
def identity_cpu(x):
    return x.copy()


@Identity.bprop
def identity_bprop(x, out, dout):
    return (dout,)


@Identity.samples
def _identity(rng):
    yield (rng.standard_normal((2, 3)),), {}


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


@functional("reshape")
def reshape(input, shape):
    """``ops.reshape``: the same data in ``shape`` (one dimension may be -1)."""
    return Reshape(input, tuple(shape))


@functional("transpose")
def transpose(input, input_perm):
    """``ops.transpose``: output axis i is input axis ``input_perm[i]``."""
    return Transpose(input, tuple(input_perm))


@functional("expand_dims")
def expand_dims(input_x, axis):
    """``ops.expand_dims``: insert a size-1 axis at ``axis``."""
    return ExpandDims(input_x, axis)


@functional("unsqueeze")
def unsqueeze(input, dim):
    """``ops.unsqueeze``: insert a size-1 axis at ``dim``."""
    return ExpandDims(input, dim)


@functional("squeeze")
def squeeze(input, axis=None):
    """``ops.squeeze``: remove the size-1 axes in ``axis`` (all of them if None)."""
    return Squeeze(input, axis=() if axis is None else axis)


@functional("flatten")
def flatten(input, order="C", *, start_dim=1, end_dim=-1):
    """``ops.flatten``: merge axes ``start_dim..end_dim``; order 'F' reverses the axes first.

    >>> ops.flatten(ops.ones((2, 3, 4))).shape
    (2, 12)
    """
    if order not in ("C", "F"):
        raise ValueError(f"flatten: order must be 'C' or 'F', got {order!r}")
    if order == "F" and input.ndim > 1:
        input = Transpose(input, tuple(range(input.ndim - 1, -1, -1)))
    if input.ndim == 0:
        return Reshape(input, (1,))
    start, end = _flat_range(input.ndim, start_dim, end_dim)
    if start > end:
        raise ValueError(f"flatten: start_dim {start_dim} comes after end_dim {end_dim} for "
                         f"input shape {input.shape}")
    shape = input.shape
    return Reshape(input, shape[:start] + (math.prod(shape[start:end + 1]),) + shape[end + 1:])


@functional("tile")
def tile(input, dims):
    """``ops.tile``: repeat ``input`` ``dims[i]`` times along each axis."""
    return Tile(input, tuple(dims))


@functional("broadcast_to")
def broadcast_to(input, shape):
    """``ops.broadcast_to``: ``input`` broadcast to ``shape`` (-1 keeps a dimension)."""
    return BroadcastTo(input, tuple(shape))


@functional("cast")
def cast(input, dtype):
    """``ops.cast``: ``input`` converted to ``dtype``."""
    return Cast(input, dtype)


@functional("flip")
def flip(input, dims):
    """``ops.flip``: reverse the order of elements along ``dims``."""
    return ReverseV2(input, axis=(dims,) if isinstance(dims, int) else tuple(dims))


@functional("roll")
def roll(input, shifts, dims=None):
    """``ops.roll``: shift elements circularly along ``dims`` (the flattened input if None)."""
    return Roll(input, shifts=shifts, dims=dims)


@functional("permute")
def permute(input, axis):
    """``ops.permute``: output axis i is input axis ``axis[i]``."""
    return Transpose(input, tuple(axis))


@functional("swapaxes")
def swapaxes(input, axis0, axis1):
    """``ops.swapaxes``: exchange two axes."""
    perm = list(range(input.ndim))
    a, b = normalize_axis(axis0, input.ndim, "axis0"), normalize_axis(axis1, input.ndim, "axis1")
    perm[a], perm[b] = perm[b], perm[a]
    return Transpose(input, tuple(perm))


@functional("moveaxis")
def moveaxis(x, source, destination):
    """``ops.moveaxis``: move axes ``source`` to positions ``destination``."""
    src = (source,) if isinstance(source, int) else tuple(source)
    dst = (destination,) if isinstance(destination, int) else tuple(destination)
    if len(src) != len(dst):
        raise ValueError(f"moveaxis: source {source} and destination {destination} must have "
                         "the same length")
    src = tuple(normalize_axis(a, x.ndim, "source") for a in src)
    dst = tuple(normalize_axis(a, x.ndim, "destination") for a in dst)
    rest = [a for a in range(x.ndim) if a not in src]
    for d, s in sorted(zip(dst, src)):
        rest.insert(d, s)
    return Transpose(x, tuple(rest))


@functional("identity")
def identity(x):
    """``ops.identity``: a copy of ``x``."""
    return Identity(x)


@functional("select", "where")
def select(condition, input, other):
    """``ops.select``/``ops.where``: ``input`` where ``condition``, else ``other``."""
    return Select(condition, input, other)


@functional(methods=("reshape", "view"))
def _t_reshape(self, *shape):
    return Reshape(self, _shape_args(shape))


@functional(methods="transpose")
def _t_transpose(self, *axes):
    perm = _shape_args(axes)
    return Transpose(self, perm if perm else tuple(range(self.ndim - 1, -1, -1)))


@functional(methods="permute")
def _t_permute(self, *axis):
    return Transpose(self, _shape_args(axis))


@functional(methods=("expand_dims", "unsqueeze"))
def _t_expand_dims(self, axis):
    return ExpandDims(self, axis)


@functional(methods="squeeze")
def _t_squeeze(self, axis=None):
    return squeeze(self, axis)


@functional(methods="flatten")
def _t_flatten(self, order="C", *, start_dim=0, end_dim=-1):
    return flatten(self, order, start_dim=start_dim, end_dim=end_dim)


@functional(methods="astype")
def _t_astype(self, dtype, copy=True):
    if not isinstance(dtype, mstype.DType):
        dtype = mstype.from_numpy(np.dtype(dtype))
    if dtype is self.dtype and not copy:
        return self
    return Cast(self, dtype) if dtype is not self.dtype else Identity(self)


@functional(methods="swapaxes")
def _t_swapaxes(self, axis0, axis1):
    return swapaxes(self, axis0, axis1)


@functional(methods="broadcast_to")
def _t_broadcast_to(self, shape):
    return broadcast_to(self, shape)


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


@functional(methods="T", prop=True)
def _t_transposed(self):
    return Transpose(self, tuple(range(self.ndim - 1, -1, -1)))


@functional(methods="ravel")
def _t_ravel(self):
    return Reshape(self, (-1,))


@functional(methods="flip")
def _t_flip(self, dims):
    return flip(self, dims)


@functional(methods="roll")
def _t_roll(self, shifts, dims=None):
    return Roll(self, shifts=shifts, dims=dims)


@functional(methods="moveaxis")
def _t_moveaxis(self, source, destination):
    return moveaxis(self, source, destination)
