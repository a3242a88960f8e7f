"""``mindspore.train.metrics``: metrics (``Accuracy``, ``Metric``, ...)."""

from microspore._lazy import forward

__getattr__, __dir__ = forward(__name__, globals(), ("ms_nn.train.metrics",))
