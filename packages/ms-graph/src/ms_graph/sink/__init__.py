"""Data sink and loop sink: a device queue (``channel``), the ``GetNext`` operator that
reads it inside a graph, and ``SinkLoop``, which compiles ``n`` steps into one graph."""

from ms_graph.sink.channel import (
    ChannelError,
    DataChannel,
    DataStarvedError,
    PipelineError,
    channel,
)

__all__ = ["DataChannel", "ChannelError", "DataStarvedError", "PipelineError", "channel"]
