"""``ms.tensor`` and ``ms.from_numpy``: MindSpore's functions that make a Tensor.

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

__all__ = ["tensor", "from_numpy"]


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
