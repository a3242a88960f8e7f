"""``mindspore.train.callback``: callbacks (``LossMonitor``, ``ModelCheckpoint``, ...)."""

from microspore._lazy import forward

__getattr__, __dir__ = forward(__name__, globals(), ("ms_nn.train.callbacks",))
