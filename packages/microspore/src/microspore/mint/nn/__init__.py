"""``mindspore.mint.nn``: PyTorch-shaped layers (``ms_nn.layers.mint_nn``); ``functional``
(also ``F``) holds the functions and ``layer`` the layers again, as in MindSpore."""

from microspore._lazy import forward

__getattr__, __dir__ = forward(__name__, globals(), ("ms_nn.layers.mint_nn",),
                               {"F": "microspore.mint.nn.functional:_module"},
                               submodules=("functional", "layer"))
