"""``mindspore.train.serialization``: ``save_checkpoint``, ``load_checkpoint``,
``load_param_into_net``."""

from microspore._lazy import forward

__getattr__, __dir__ = forward(__name__, globals(), ("ms_nn.train.checkpoint",))
