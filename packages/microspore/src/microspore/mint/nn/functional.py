"""``mindspore.mint.nn.functional``: PyTorch-shaped nn functions (``ms_ops.mint_nn_functional``)."""

import sys

from microspore._lazy import forward

__getattr__, __dir__ = forward(__name__, globals(), ("ms_ops.mint_nn_functional",))
_module = sys.modules[__name__]
