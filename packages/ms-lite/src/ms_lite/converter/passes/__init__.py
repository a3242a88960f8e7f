"""The converter's graph passes, one per module, each ``fn(graph, report) -> graph`` and
registered by ms-lite's plugin under the pass stage ``"lite"`` (``ms_lite.plugin``)."""
