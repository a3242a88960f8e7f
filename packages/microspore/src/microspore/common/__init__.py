"""``mindspore.common``: Tensor, Parameter, dtypes, ``set_seed``; ``initializer`` and ``dtype``.

``from mindspore.common.initializer import TruncatedNormal`` and
``from mindspore.common import dtype as mstype`` work with ``microspore`` in their place.
"""

from microspore._lazy import forward
from ms_tensor import Parameter, ParameterTuple, Tensor
from ms_tensor.seed import get_seed, set_seed

__all__ = ["Tensor", "Parameter", "ParameterTuple", "set_seed", "get_seed", "initializer",
           "dtype"]

__getattr__, __dir__ = forward(__name__, globals(), (), submodules=("initializer", "dtype"))
