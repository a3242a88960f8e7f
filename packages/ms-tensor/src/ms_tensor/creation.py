"""``ms.tensor``, ``ms.from_numpy``, ``ms.frombuffer``, ``ms.from_dlpack``/``to_dlpack``
and ``ms.swap_tensors``: MindSpore's functions that make a Tensor or exchange its data.

``tensor(data, dtype)`` copies, as the ``Tensor`` constructor does; ``from_numpy(array)``
shares the array's memory (a write to one is seen by the other), so the array must have
a dtype microspore knows and be contiguous.

>>> import numpy as np
>>> from ms_tensor.creation import from_numpy
>>> a = np.array([1.0, 2.0]); t = from_numpy(a); a[0] = 5.0
>>> t.asnumpy()
array([5., 2.])
"""

from __future__ import annotations

import numpy as np

from ms_tensor import dtype as mstype
from ms_tensor.tensor import Tensor, wrap

__all__ = ["tensor", "from_numpy", "frombuffer", "from_dlpack", "to_dlpack", "swap_tensors"]


def tensor(data, dtype=None) -> Tensor:
    """A new Tensor holding a copy of ``data`` (a number, a list, an array), in ``dtype``."""
    return Tensor(data, dtype)


def from_numpy(array: np.ndarray) -> Tensor:
    """A Tensor over the same memory as ``array``."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"from_numpy: expected a numpy array, got {type(array).__name__}")
    mstype.from_numpy(array.dtype)  # TypeError naming the dtype when microspore lacks it
    if not array.flags.c_contiguous:
        raise ValueError("from_numpy: the array must be C-contiguous to share its memory "
                         "(np.ascontiguousarray makes a copy that is)")
    return wrap(array)


def frombuffer(buffer, dtype, count=-1, offset=0) -> Tensor:
    """A Tensor over ``buffer``'s bytes (a bytes object, bytearray, memoryview...), read as
    ``count`` items of ``dtype`` after ``offset`` bytes; a read-only buffer is copied."""
    dt = dtype if isinstance(dtype, mstype.DType) else mstype.from_numpy(np.dtype(dtype))
    array = np.frombuffer(buffer, dtype=dt.np, count=count, offset=offset)
    return wrap(array if array.flags.writeable else array.copy())


def from_dlpack(dlpack) -> Tensor:
    """A Tensor over the memory of an object with ``__dlpack__`` (a CPU array of numpy,
    PyTorch, JAX...), without copying."""
    array = np.from_dlpack(dlpack)
    mstype.from_numpy(array.dtype)
    return wrap(array)


def to_dlpack(tensor: Tensor):
    """A DLPack capsule over the tensor's memory (``torch.from_dlpack`` reads it)."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"to_dlpack: expected a Tensor, got {type(tensor).__name__}")
    return tensor.asnumpy().__dlpack__()


def swap_tensors(t1: Tensor, t2: Tensor) -> None:
    """Exchange the data (and the recorded history) of two Tensors in place."""
    from ms_tensor.tensor import array_of, node_of, set_array, set_node

    for t in (t1, t2):
        if not isinstance(t, Tensor):
            raise TypeError(f"swap_tensors: expected Tensors, got {type(t).__name__}")
    a1, n1, a2, n2 = array_of(t1), node_of(t1), array_of(t2), node_of(t2)
    set_array(t1, a2)
    set_node(t1, n2)
    set_array(t2, a1)
    set_node(t2, n1)
