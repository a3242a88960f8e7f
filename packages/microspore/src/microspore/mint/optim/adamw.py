"""``mindspore.mint.optim.adamw``: the module of ``AdamW``."""

from ms_nn.optim.mint_optim import AdamW

__all__ = ["AdamW"]
