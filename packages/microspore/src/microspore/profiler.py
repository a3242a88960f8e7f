"""``mindspore.profiler``: ``Profiler`` (ms-insight)."""

from microspore._lazy import forward

__getattr__, __dir__ = forward(__name__, globals(), (), {"Profiler": "ms_insight"})
