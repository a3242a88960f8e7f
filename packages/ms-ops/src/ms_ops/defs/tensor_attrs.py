"""Tensor attributes MindSpore code reads about storage and placement: ``data``,
``device``, ``has_init``/``init``, ``is_init``/``is_pinned``/``is_shared``, ``value()``,
``stride()``, ``storage_offset()``, ``data_ptr()``, ``itemset``, ``move_to``,
``pin_memory``, ``to_dlpack`` and ``Tensor.from_numpy``.

microspore's tensors are initialised host arrays (a Parameter's ``init`` has run by the
time it exists), so these answer for that one placement.
"""

from __future__ import annotations

import numpy as np

from ms_ops.opdef import functional
from ms_tensor.creation import from_numpy as _from_numpy
from ms_tensor.creation import to_dlpack as _to_dlpack
from ms_tensor.tensor import array_of, set_array


@functional(methods="data", prop=True)
def data(self):
    """``x.data``: the tensor itself (MindSpore's view of its data)."""
    return self


@functional(methods="device", prop=True)
def device(self):
    """``x.device``: where the tensor lives: "CPU"."""
    return "CPU"


@functional(methods="has_init", prop=True)
def has_init(self):
    """``x.has_init``: False, the data is already there."""
    return False


@functional(methods="init", prop=True)
def init(self):
    """``x.init``: None, no pending initializer."""
    return None


@functional(methods=("is_init", "is_pinned", "is_shared"))
def _false(self):
    return False


@functional(methods="value")
def value(self):
    """``x.value()``: the tensor."""
    return self


@functional(methods="stride")
def stride(self, dim=None):
    """``x.stride()``: the step in elements along each axis (of one axis with ``dim``)."""
    steps = [s // self.itemsize for s in array_of(self).strides]
    return steps if dim is None else steps[dim]


@functional(methods="storage_offset")
def storage_offset(self):
    """``x.storage_offset()``: 0, a tensor starts at its storage."""
    return 0


@functional(methods="data_ptr")
def data_ptr(self):
    """``x.data_ptr()``: the address of the first element."""
    return int(array_of(self).ctypes.data)


@functional(methods="itemset")
def itemset(self, *args):
    """``x.itemset(index, value)`` or ``x.itemset(value)`` for one element: numpy's, on a
    copy the tensor then holds."""
    a = array_of(self).copy()
    if len(args) == 1:
        if a.size != 1:
            raise ValueError(f"itemset: a single value needs a one-element tensor, shape "
                             f"{a.shape}")
        a.reshape(-1)[0] = args[0]
    elif len(args) == 2:
        index = args[0] if isinstance(args[0], tuple) else np.unravel_index(args[0], a.shape)
        a[index] = args[1]
    else:
        raise TypeError(f"itemset: takes 1 or 2 arguments, got {len(args)}")
    set_array(self, a)
    return self


@functional(methods=("move_to", "pin_memory"))
def _stay(self, to="CPU", blocking=True):
    if to not in ("CPU", "cpu"):
        raise ValueError(f"move_to: microspore keeps tensors in host memory; to must be "
                         f"'CPU', got {to!r}")
    return self


@functional(methods="to_dlpack")
def to_dlpack(self):
    """``x.to_dlpack()``: a DLPack capsule over the tensor's memory."""
    return _to_dlpack(self)


@functional(methods="from_numpy")
def from_numpy(array):
    """``Tensor.from_numpy(array)``: a Tensor sharing ``array``'s memory."""
    return _from_numpy(array)
