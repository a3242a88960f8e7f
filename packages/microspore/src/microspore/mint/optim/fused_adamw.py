"""``mindspore.mint.optim.fused_adamw``: the module of ``FusedAdamW``."""

from ms_nn.optim.mint_optim import FusedAdamW

__all__ = ["FusedAdamW"]
