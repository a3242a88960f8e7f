"""Data sink and loop sink: a device queue (``channel``; ``get_channel`` finds one by
name), the ``GetNext`` operator that reads it inside a graph, and ``SinkLoop``
(``loop``), which compiles ``n`` steps into one graph.

The names load on first use: the registry imports ``get_next`` (an operator definition)
with ms-graph's hook module in every process, which must not start queues or threads.
"""

import importlib

__all__ = ["DataChannel", "ChannelError", "DataStarvedError", "PipelineError",
           "get_channel"]


def __getattr__(name: str):
    if name not in __all__:
        raise AttributeError(f"module 'ms_graph.sink' has no attribute {name!r}")
    value = getattr(importlib.import_module("ms_graph.sink.channel"), name)
    globals()[name] = value
    return value
