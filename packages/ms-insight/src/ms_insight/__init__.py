"""microspore's insight: TensorBoard summaries, lineage, explainers and their evaluation,
a dashboard, the profiler.

The public names load on first use (``import ms_insight`` imports no tensorboard):
``SummaryRecord``, ``SummaryCollector``, ``SummaryLandscape``, ``Profiler``,
``FlopsUtilizationCollector``, ``progress``.
"""

import importlib

__version__ = "0.1.0"
__all__ = ["SummaryRecord", "SummaryCollector", "SummaryLandscape", "Profiler",
           "FlopsUtilizationCollector", "progress"]

_LAZY = {
    "SummaryRecord": "ms_insight.summary.record",
    "SummaryCollector": "ms_insight.summary.collector",
    "SummaryLandscape": "ms_insight.landscape",
    "Profiler": "ms_insight.profiler",
    "FlopsUtilizationCollector": "ms_insight.flops",
    "progress": "ms_insight.progress_bar",
}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ms_insight' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
