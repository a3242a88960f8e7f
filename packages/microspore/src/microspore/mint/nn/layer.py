"""``mindspore.mint.nn.layer``: the ``mint.nn`` layers under their package name."""

from microspore._lazy import forward

__getattr__, __dir__ = forward(__name__, globals(), ("ms_nn.layers.mint_nn",))
