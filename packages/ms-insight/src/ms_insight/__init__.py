"""microspore's insight: TensorBoard summaries, lineage, explainers and their evaluation, a dashboard, the profiler"""

__version__ = "0.1.0"
