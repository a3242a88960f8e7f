"""``mindspore.mint.optim.sgd``: the module of ``SGD``."""

from ms_nn.optim.mint_optim import SGD

__all__ = ["SGD"]
