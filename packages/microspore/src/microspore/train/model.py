"""``mindspore.train.model``: ``Model``."""

from microspore._lazy import forward

__getattr__, __dir__ = forward(__name__, globals(), ("ms_nn.train.model", "ms_nn.train"))
