"""``mindspore.ops.functional``: the functional operator names (``F.tensor_pow``, ``F.add``).

Names are read from the registry on each access, not cached here, so a plugin registered
later (or a registry reload) is seen at once.
"""

from ms_ops import functional as _functional

__all__ = []


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    return getattr(_functional, name)


def __dir__():
    return dir(_functional)
