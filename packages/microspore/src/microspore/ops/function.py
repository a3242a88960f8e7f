"""``mindspore.ops.function``: MindSpore's package of functional operators, the same names
as ``mindspore.ops.functional`` (``from mindspore.ops.function import matmul``)."""

from ms_ops import functional as _functional

__all__ = []


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    return getattr(_functional, name)


def __dir__():
    return dir(_functional)
