"""``mindspore.dataset.transforms``: operations on any column, and composition.

Every operation is callable on one row (``TypeCast(ms_tensor.int32)(label)``) and, where it
can, offers ``batch_call(x, rng)`` on a stacked batch; see :mod:`ms_data.transforms.base`.
"""

from ms_data.transforms.base import PyFunc, TensorOperation, as_operation
from ms_data.transforms.compose import Compose, RandomApply, RandomChoice
from ms_data.transforms.more import PadEnd, RandomOrder, Unique, not_random
from ms_data.transforms.ops import (
    Concatenate,
    Duplicate,
    Fill,
    Mask,
    OneHot,
    Relational,
    Slice,
    TypeCast,
)

__all__ = [
    "Compose", "Concatenate", "Duplicate", "Fill", "Mask", "OneHot", "PadEnd", "PyFunc",
    "RandomApply", "RandomChoice", "RandomOrder", "Relational", "Slice", "TensorOperation",
    "TypeCast", "Unique", "as_operation", "not_random",
]
