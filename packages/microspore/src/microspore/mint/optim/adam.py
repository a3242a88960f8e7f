"""``mindspore.mint.optim.adam``: the module of ``Adam``."""

from ms_nn.optim.mint_optim import Adam

__all__ = ["Adam"]
