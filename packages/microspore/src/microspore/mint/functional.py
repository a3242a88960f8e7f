"""``mindspore.mint.functional``: the same functions as ``mint.nn.functional``."""

from microspore._lazy import forward

__getattr__, __dir__ = forward(__name__, globals(), ("ms_ops.mint_nn_functional",))
