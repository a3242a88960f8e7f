"""``mindspore.context``: ``set_context``, ``get_context`` and the two modes.

``import microspore.context as context; context.set_context(mode=context.GRAPH_MODE)``
works as in MindSpore. In GRAPH_MODE a Cell's ``construct`` is compiled by ms-graph.
The auto-parallel context (``set_auto_parallel_context``, ``ParallelMode``...) lives in
ms-parallel and is imported on first use.
"""

from microspore._lazy import forward
from ms_tensor.context import GRAPH_MODE, PYNATIVE_MODE, get_context, reset_context, set_context

_PARALLEL = ("set_auto_parallel_context", "get_auto_parallel_context",
             "reset_auto_parallel_context", "ParallelMode")

__getattr__, __dir__ = forward(__name__, globals(), (),
                               dict.fromkeys(_PARALLEL, "ms_parallel.context"))

__all__ = ["GRAPH_MODE", "PYNATIVE_MODE", "set_context", "get_context", "reset_context",
           *_PARALLEL]
