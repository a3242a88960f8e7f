"""``mindspore.amp``: mixed precision (``auto_mixed_precision``, loss-scale managers,
``all_finite``)."""

from microspore._lazy import forward

__getattr__, __dir__ = forward(__name__, globals(), ("ms_nn.amp",))
