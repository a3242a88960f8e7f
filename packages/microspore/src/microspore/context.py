"""``mindspore.context``: ``set_context``, ``get_context`` and the two modes.

``import microspore.context as context; context.set_context(mode=context.GRAPH_MODE)``
works as in MindSpore. In GRAPH_MODE a Cell's ``construct`` is compiled by ms-graph.
"""

from ms_tensor.context import GRAPH_MODE, PYNATIVE_MODE, get_context, reset_context, set_context

__all__ = ["GRAPH_MODE", "PYNATIVE_MODE", "set_context", "get_context", "reset_context"]
