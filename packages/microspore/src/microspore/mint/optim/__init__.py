"""``mindspore.mint.optim``: PyTorch-shaped optimizers (``ms_nn.optim.mint_optim``)."""

from microspore._lazy import forward

__getattr__, __dir__ = forward(__name__, globals(), ("ms_nn.optim.mint_optim",),
                               submodules=("adam", "adamw", "fused_adamw", "sgd"))
