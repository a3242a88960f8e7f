"""``mindspore.parallel.function``: ``reshard`` (ms-parallel's ``ms_parallel.auto.reshard``)."""

from microspore._lazy import forward

_NAMES = {"reshard": "ms_parallel.auto.reshard"}

__getattr__, __dir__ = forward(__name__, globals(), (), _NAMES)

__all__ = [*_NAMES]
