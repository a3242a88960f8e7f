"""``mindspore.ops.primitive``: the Primitive base class and ``constexpr`` (MindSpore defines
both there; ``from mindspore.ops.primitive import Primitive``)."""

from ms_graph.hints import constexpr

from ms_ops import Primitive

__all__ = ["Primitive", "constexpr"]
