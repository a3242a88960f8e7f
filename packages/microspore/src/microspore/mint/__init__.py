"""``mindspore.mint``: the PyTorch-shaped functional API (``ms_ops.mint``), with the
``nn`` (layers, ``nn.functional``) and ``optim`` subpackages."""

from importlib import import_module

from ms_ops import mint as _mint

_SUBMODULES = ("nn", "optim", "functional", "linalg", "special")


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    if name in _SUBMODULES:
        return import_module(f"{__name__}.{name}")
    return getattr(_mint, name)


def __dir__():
    return sorted(set(dir(_mint)) | set(_SUBMODULES))
