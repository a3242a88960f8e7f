"""``mindspore.train.amp``: mixed precision (the same module as ``mindspore.amp``)."""

from microspore._lazy import forward

__getattr__, __dir__ = forward(__name__, globals(), ("ms_nn.amp",))
