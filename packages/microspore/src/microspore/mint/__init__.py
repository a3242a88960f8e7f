"""``mindspore.mint``: the PyTorch-shaped functional API (``ms_ops.mint``)."""

from ms_ops import mint as _mint


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return getattr(_mint, name)


def __dir__():
    return dir(_mint)
