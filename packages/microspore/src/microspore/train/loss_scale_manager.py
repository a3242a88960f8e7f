"""``mindspore.train.loss_scale_manager``: ``FixedLossScaleManager``,
``DynamicLossScaleManager``."""

from microspore._lazy import forward

__getattr__, __dir__ = forward(__name__, globals(), ("ms_nn.amp",))
