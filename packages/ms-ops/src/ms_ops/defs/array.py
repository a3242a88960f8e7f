"""Shape and layout: Reshape, BroadcastTo, Cast, Transpose, ExpandDims, Squeeze, Flatten
and Identity, with their functional and Tensor forms.

Tile, ReverseV2, Roll and Select live in ``array_reorder``, joining and splitting (Concat,
Split, ...) in ``array_join``, slicing and padding in
``array_slice``, and tensor creation (Fill, Zeros, Range, Eye, OneHot, ...) in
``array_create``. Reshape, Transpose and friends return numpy views of their input.
Sharing memory is safe because these kernels never write into their inputs and
``Tensor.__setitem__`` replaces a tensor's array instead of writing into it; an operator
declared ``inplace`` (which does write) must only be given arrays its tensor owns.
"""

from __future__ import annotations

import math

import numpy as np

from ms_ops.infer import check_int, normalize_axes, normalize_axis
from ms_ops.opdef import ALL, STATIC, Arg, Attr, OpDef, TensorSpec, functional
from ms_tensor import dtype as mstype


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
                   infer=_expand_dims_infer, methods=("expand_dims", "unsqueeze"),
                   doc="Insert an axis of size 1 at ``axis``.")


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


@functional("squeeze", methods="squeeze")
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


@functional("broadcast_to", methods="broadcast_to")
def broadcast_to(input, shape):
    """``ops.broadcast_to``: ``input`` broadcast to ``shape`` (-1 keeps a dimension)."""
    return BroadcastTo(input, tuple(shape))


@functional("cast")
def cast(input, dtype):
    """``ops.cast``: ``input`` converted to ``dtype``."""
    return Cast(input, dtype)


@functional("permute")
def permute(input, axis):
    """``ops.permute``: output axis i is input axis ``axis[i]``."""
    return Transpose(input, tuple(axis))


@functional("swapaxes", methods="swapaxes")
def swapaxes(input, axis0, axis1):
    """``ops.swapaxes``: exchange two axes."""
    perm = list(range(input.ndim))
    a, b = normalize_axis(axis0, input.ndim, "axis0"), normalize_axis(axis1, input.ndim, "axis1")
    perm[a], perm[b] = perm[b], perm[a]
    return Transpose(input, tuple(perm))


@functional("moveaxis", methods="moveaxis")
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


@functional(methods=("reshape", "view"))
def _t_reshape(self, *shape):
    return Reshape(self, _shape_args(shape))


@functional(methods="transpose")
def _t_transpose(self, *axes):
    perm = _shape_args(axes)
    return Transpose(self, perm if perm else tuple(range(self.ndim - 1, -1, -1)))


@functional(methods="permute")
def _t_permute(self, *axis):
    perm = _shape_args(axis)  # none given: reversed, as ``transpose()`` (MindSpore's too)
    return Transpose(self, perm if perm else tuple(range(self.ndim - 1, -1, -1)))


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


@functional(methods="T", prop=True)
def _t_transposed(self):
    return Transpose(self, tuple(range(self.ndim - 1, -1, -1)))


@functional(methods="ravel")
def _t_ravel(self):
    return Reshape(self, (-1,))
