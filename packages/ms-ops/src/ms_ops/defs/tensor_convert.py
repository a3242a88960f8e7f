"""Tensor methods that convert, describe or re-create a tensor, as MindSpore's ``Tensor``
has them: ``x.half()``/``float()``/``int()``/..., ``x.to(dtype)``, ``x.type()``,
``x.type_as(y)``, ``x.is_floating_point()``, ``x.ndimension()``, ``x.expand_as(y)``,
``x.new_zeros(size)``, ``x.t()``, ``x.mT``, ``x.unbind(dim)``...

Each is a composition of existing operators (Cast, Reshape, BroadcastTo, Transpose,
Fill, Unstack), so gradients and graph mode come with them.
"""

from __future__ import annotations

import math

import numpy as np

from ms_ops.defs import array
from ms_ops.defs.array_create import check_shape, full
from ms_ops.defs.array_join import Unstack
from ms_ops.infer import normalize_axis
from ms_ops.opdef import functional
from ms_tensor import dtype as mstype
from ms_tensor.tensor import Tensor


def _cast(x: Tensor, dtype) -> Tensor:
    return x if x.dtype is dtype else array.Cast(x, dtype)


def _cast_method(name: str, dtype):
    def method(self):
        return _cast(self, dtype)

    method.__name__ = f"_as_{name}"
    method.__doc__ = f"``x.{name}()``: ``x`` as {dtype} (``x`` itself if it is already)."
    return functional(methods=name)(method)


# One Tensor method per dtype, with torch's and MindSpore's names.
_CASTS = {"half": mstype.float16, "float": mstype.float32, "double": mstype.float64,
          "bfloat16": mstype.bfloat16, "int": mstype.int32, "long": mstype.int64,
          "short": mstype.int16, "byte": mstype.uint8, "bool": mstype.bool_}
globals().update((m.__name__, m) for m in (_cast_method(n, d) for n, d in _CASTS.items()))


@functional(methods="to")
def _to(self, dtype):
    """``x.to(dtype)``: ``x`` cast to ``dtype``."""
    if not isinstance(dtype, mstype.DType):
        raise TypeError(f"Tensor.to: dtype must be a microspore dtype, got {dtype!r}")
    return _cast(self, dtype)


@functional(methods="type")
def _type(self, dtype=None):
    """``x.type()``: the dtype's name (``'Float32'``); ``x.type(dtype)``: ``x`` cast."""
    return str(self.dtype) if dtype is None else _to(self, dtype)


@functional(methods="type_as")
def _type_as(self, other):
    """``x.type_as(y)``: ``x`` cast to ``y``'s dtype."""
    return _cast(self, other.dtype)


@functional("is_floating_point", methods="is_floating_point")
def is_floating_point(input) -> bool:
    """``ops.is_floating_point``: whether the dtype is a float type."""
    return input.dtype in mstype.float_types


@functional("is_complex", methods="is_complex")
def is_complex(input) -> bool:
    """``ops.is_complex``: whether the dtype is complex."""
    return input.dtype in (mstype.complex64, mstype.complex128)


@functional(methods="is_signed")
def _is_signed(self) -> bool:
    """``x.is_signed()``: whether the dtype holds negative numbers."""
    return np.dtype(self.dtype.np).kind in "ifc" or self.dtype is mstype.bfloat16


@functional(methods="ndimension")
def _ndimension(self) -> int:
    """``x.ndimension()``: the number of axes."""
    return len(self.shape)


@functional(methods="nelement")
def _nelement(self) -> int:
    """``x.nelement()``: the number of elements."""
    return math.prod(self.shape)


@functional(methods="expand_as")
def _expand_as(self, other):
    """``x.expand_as(y)``: ``x`` broadcast to ``y``'s shape."""
    return array.BroadcastTo(self, shape=tuple(other.shape))


@functional(methods=("reshape_as", "view_as"))
def _reshape_as(self, other):
    """``x.reshape_as(y)`` / ``x.view_as(y)``: ``x`` with ``y``'s shape."""
    return array.Reshape(self, tuple(other.shape))


def _new(self, size, value, dtype):
    return full(check_shape("size", size), value, dtype=self.dtype if dtype is None else dtype)


@functional(methods="new_zeros")
def _new_zeros(self, size, dtype=None):
    """``x.new_zeros(size)``: zeros of ``size``, with ``x``'s dtype unless ``dtype``."""
    return _new(self, size, 0, dtype)


@functional(methods="new_ones")
def _new_ones(self, size, dtype=None):
    """``x.new_ones(size)``: ones of ``size``, with ``x``'s dtype unless ``dtype``."""
    return _new(self, size, 1, dtype)


@functional(methods="new_full")
def _new_full(self, size, fill_value, dtype=None):
    """``x.new_full(size, v)``: ``v`` everywhere, with ``x``'s dtype unless ``dtype``."""
    return _new(self, size, fill_value, dtype)


@functional(methods="new_empty")
def _new_empty(self, size, dtype=None):
    """``x.new_empty(size)``: a new tensor of ``size`` (zeroed: microspore never hands out
    uninitialized memory)."""
    return _new(self, size, 0, dtype)


@functional(methods="fill")
def _fill(self, value):
    """``x.fill(v)``: a new tensor of ``x``'s shape and dtype holding ``v``."""
    return full(tuple(self.shape), value, dtype=self.dtype)


@functional(methods="contiguous")
def _contiguous(self):
    """``x.contiguous()``: ``x`` itself; every microspore tensor is contiguous."""
    return self


@functional(methods="is_contiguous")
def _is_contiguous(self) -> bool:
    """``x.is_contiguous()``: True; every microspore tensor is contiguous."""
    return True


@functional("t", methods="t")
def t(input):
    """``ops.t``: a 2-d tensor transposed (1-d and 0-d are returned as they are)."""
    if input.ndim > 2:
        raise ValueError(f"t: input must be at most 2-d, got shape {input.shape}")
    return array.Transpose(input, (1, 0)) if input.ndim == 2 else input


@functional(methods=("mT", "H", "mH"), prop=True)
def _matrix_transpose(self):
    """``x.mT``: the last two axes swapped (``H``/``mH`` too: real tensors only)."""
    if self.ndim < 2:
        raise ValueError(f"Tensor.mT: input must be at least 2-d, got shape {self.shape}")
    perm = list(range(self.ndim))
    perm[-2], perm[-1] = perm[-1], perm[-2]
    return array.Transpose(self, tuple(perm))


@functional("unbind", methods="unbind")
def unbind(input, dim=0):
    """``ops.unbind``: the slices along ``dim``, as a tuple of tensors without that axis."""
    return Unstack(input, axis=normalize_axis(dim, input.ndim, "dim"))
