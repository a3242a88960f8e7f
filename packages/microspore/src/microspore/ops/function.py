"""``mindspore.ops.function``: MindSpore's package of functional operators, the same names
as ``mindspore.ops.functional`` (``from mindspore.ops.function import matmul``)."""

from microspore.ops.functional import __dir__, __getattr__  # noqa: F401 -- PEP 562 hooks

__all__ = []
