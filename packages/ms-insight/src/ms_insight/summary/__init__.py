"""Summaries: TensorBoard event files from ``SummaryRecord``, the summary operators and
``SummaryCollector``.

Only the writer's module is imported here; the operators load with the registry
(``ms_insight.plugin``) and the collector with ``ms_insight.summary.collector``.
"""

from ms_insight.summary.record import SummaryRecord

__all__ = ["SummaryRecord"]
