"""Loss landscapes (MindSpore's ``SummaryLandscape``): checkpoints saved by
``SummaryCollector``'s ``collect_landscape``, turned into loss grids along PCA or random
normalized directions and written into a summary."""

from ms_insight.landscape.summary_landscape import SummaryLandscape

__all__ = ["SummaryLandscape"]
