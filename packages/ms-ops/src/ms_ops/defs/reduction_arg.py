"""Arg-reductions: Argmax, Argmin, ArgMaxWithValue, ArgMinWithValue; ``ops.max``/``ops.min``.

MindSpore's index dtypes differ between forms, and microspore keeps them: the
``Argmax``/``Argmin`` primitives give ``output_type`` (int32 by default),
``ops.argmax`` gives int64, ``ops.argmin`` int32, and the ``*WithValue`` primitives
(hence ``ops.max``/``ops.min``) int64. Only the ``*WithValue`` value output has a
gradient: it flows to the first extremum, the one whose index is returned.
"""

from __future__ import annotations

import numpy as np

from ms_ops.defs import array
from ms_ops.defs.reduction import ReduceMax, ReduceMin, reduced_shape
from ms_ops.infer import check_bool, check_dtype, normalize_axis
from ms_ops.opdef import NUMBERS, Arg, Attr, OpDef, TensorSpec, functional
from ms_tensor import dtype as mstype
from ms_tensor.tensor import Tensor

_ORDERED = NUMBERS | {mstype.bool_}
_INDEX_TYPES = (mstype.int32, mstype.int64)


def _check_axis(x, axis, what: str) -> int:
    check_dtype("x", x, _ORDERED)
    if x.ndim == 0:
        raise ValueError(f"input must have at least 1 dimension to take {what} along an "
                         "axis, got a 0-d tensor")
    a = normalize_axis(axis, x.ndim)
    if x.shape[a] == 0:
        raise ValueError(f"cannot take {what} over zero-size axis {a} of input shape "
                         f"{x.shape}")
    return a


def _arg_infer(what):
    def infer(x, axis=-1, output_type=mstype.int32):
        a = _check_axis(x, axis, what)
        if output_type not in _INDEX_TYPES:
            raise TypeError(f"output_type must be Int32 or Int64, got {output_type!r}")
        return TensorSpec(reduced_shape(x.shape, (a,), False), output_type)

    return infer


def _with_value_infer(what):
    def infer(x, axis=0, keep_dims=False):
        a = _check_axis(x, axis, what)
        check_bool("keep_dims", keep_dims)
        shape = reduced_shape(x.shape, (a,), keep_dims)
        return TensorSpec(shape, mstype.int64), TensorSpec(shape, x.dtype)

    return infer


_ARG_ATTRS = (Attr("axis", -1), Attr("output_type", mstype.int32))


_WV_ATTRS = (Attr("axis", 0), Attr("keep_dims", False))


def _with_value(find, x, axis, keep_dims):
    index = find(x, axis=axis, keepdims=True)
    value = np.take_along_axis(x, index, axis=axis)
    if keep_dims:
        return index, value
    return np.squeeze(index, axis), np.squeeze(value, axis)


def with_value_bprop(x, out, dout, axis=0, keep_dims=False):
    from ms_ops.defs.arithmetic import Mul
    from ms_ops.defs.array_create import OneHot

    dvalue = dout[1]
    if dvalue is None:
        return (None,)
    a = normalize_axis(axis, x.ndim)
    index = out[0]
    if keep_dims:
        index = array.Squeeze(index, a)
    else:
        dvalue = array.ExpandDims(dvalue, a)
    picked = array.Cast(OneHot(index, x.shape[a], 1, 0, axis=a), dvalue.dtype)
    return (Mul(picked, dvalue),)


def _arg(op, input, axis, keep, output_type):
    if axis is None:  # over the flattened input; keepdims does not apply (MindSpore 2.x)
        return op(array.Reshape(input, (-1,)), axis=0, output_type=output_type)
    out = op(input, axis=axis, output_type=output_type)
    return array.ExpandDims(out, axis if axis >= 0 else axis + input.ndim) if keep else out


def _extremum(with_value, reduce, input, axis, keepdims):
    if axis is None:
        # MindSpore 2.x documents a fixed index of 0 when no axis is given.
        return reduce(input, ()), Tensor(np.zeros((), np.int64))
    index, value = with_value(input, axis=axis, keep_dims=keepdims)
    return value, index


# Samples for Argmax/Argmin and ArgMaxWithValue/ArgMinWithValue: distinct values (no
# ties, where the index would jump), several axes, ``keep_dims`` both ways.
def _distinct(rng, shape):
    """A shuffled grid 0.3 apart plus small noise: no two values tie."""
    n = int(np.prod(shape))
    return (rng.permutation(n) * 0.3 + rng.uniform(-0.05, 0.05, n) - 0.15 * n).reshape(shape)


def _arg_samples(rng):
    yield (_distinct(rng, (2, 3, 2)),), {}
    yield (_distinct(rng, (2, 3, 2)),), {"axis": 1}
    yield (_distinct(rng, (4,)),), {"axis": 0}


def _with_value_samples(rng):
    yield (_distinct(rng, (2, 3, 2)),), {}
    yield (_distinct(rng, (2, 3, 2)),), {"axis": -1, "keep_dims": True}
    yield (_distinct(rng, (4,)),), {"axis": 0}


Argmax = OpDef("Argmax", (Arg("input_x"),), _ARG_ATTRS, infer=_arg_infer("the argmax"),
               differentiable=False,
               doc="Index of the first maximum along ``axis``, as ``output_type``.")


@Argmax.kernel("CPU", dtypes=_ORDERED)
def argmax_cpu(x, axis=-1, output_type=None):
    return np.argmax(x, axis=axis)


Argmax.samples(_arg_samples)


Argmin = OpDef("Argmin", (Arg("x"),), _ARG_ATTRS, infer=_arg_infer("the argmin"),
               differentiable=False,
               doc="Index of the first minimum along ``axis``, as ``output_type``.")


@Argmin.kernel("CPU", dtypes=_ORDERED)
def argmin_cpu(x, axis=-1, output_type=None):
    return np.argmin(x, axis=axis)


Argmin.samples(_arg_samples)


ArgMaxWithValue = OpDef("ArgMaxWithValue", (Arg("input"),), _WV_ATTRS,
                        infer=_with_value_infer("the maximum"),
                        doc="(index, value) of the first maximum along ``axis``.")


@ArgMaxWithValue.kernel("CPU", dtypes=_ORDERED)
def arg_max_with_value_cpu(x, axis=0, keep_dims=False):
    return _with_value(np.argmax, x, axis, keep_dims)


ArgMaxWithValue.bprop(with_value_bprop)
ArgMaxWithValue.samples(_with_value_samples)


ArgMinWithValue = OpDef("ArgMinWithValue", (Arg("input"),), _WV_ATTRS,
                        infer=_with_value_infer("the minimum"),
                        doc="(index, value) of the first minimum along ``axis``.")


@ArgMinWithValue.kernel("CPU", dtypes=_ORDERED)
def arg_min_with_value_cpu(x, axis=0, keep_dims=False):
    return _with_value(np.argmin, x, axis, keep_dims)


ArgMinWithValue.bprop(with_value_bprop)
ArgMinWithValue.samples(_with_value_samples)


@functional("argmax")
def argmax(input, dim=None, keepdim=False):
    """``ops.argmax``: index of the first maximum along ``dim`` (flattened if None), int64."""
    return _arg(Argmax, input, dim, keepdim, mstype.int64)


@functional("argmin", methods="argmin")
def argmin(input, axis=None, keepdims=False):
    """``ops.argmin``: index of the first minimum along ``axis`` (flattened if None), int32."""
    return _arg(Argmin, input, axis, keepdims, mstype.int32)


@functional("max")
def _max(input, axis=None, keepdims=False):
    """``ops.max``: ``(values, indices)`` of the maximum along ``axis``.

    >>> ops.max(Tensor([[1.0, 5.0], [4.0, 2.0]]), 1)[1].asnumpy()
    array([1, 0])
    """
    return _extremum(ArgMaxWithValue, ReduceMax, input, axis, keepdims)


@functional("min")
def _min(input, axis=None, keepdims=False):
    """``ops.min``: ``(values, indices)`` of the minimum along ``axis``."""
    return _extremum(ArgMinWithValue, ReduceMin, input, axis, keepdims)


@functional(methods="max")
def _t_max(self, axis=None, keepdims=False, *, return_indices=False):
    if return_indices:
        return _max(self, axis, keepdims)
    return ReduceMax(self, () if axis is None else axis, keep_dims=keepdims)


@functional(methods="min")
def _t_min(self, axis=None, keepdims=False, *, return_indices=False):
    if return_indices:
        return _min(self, axis, keepdims)
    return ReduceMin(self, () if axis is None else axis, keep_dims=keepdims)


@functional(methods="argmax")
def _t_argmax(self, axis=None, keepdims=False):
    return argmax(self, axis, keepdims)


