"""``mindspore.nn``: Cell, containers, layers, losses, optimizers, wrappers (ms-nn).

Everything ``ms_nn`` exports, under MindSpore's name; ms-nn loads on first access.
"""

from microspore._lazy import forward

__getattr__, __dir__ = forward(__name__, globals(), ("ms_nn",))
