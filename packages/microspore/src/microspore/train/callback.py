"""``mindspore.train.callback``: callbacks (``LossMonitor``, ``ModelCheckpoint``, ...)."""

from microspore._lazy import forward

__getattr__, __dir__ = forward(__name__, globals(), ("ms_nn.train.callbacks",),
                               names={"SummaryLandscape": "ms_insight",
                                      "FlopsUtilizationCollector": "ms_insight"})
