"""Model FLOPs utilization: ``FlopsUtilizationCollector`` counts a step's FLOPs per
operator through ms-ops' kernel observer and reports them against a stated peak."""

from ms_insight.flops.collector import FlopsUtilizationCollector

__all__ = ["FlopsUtilizationCollector"]
