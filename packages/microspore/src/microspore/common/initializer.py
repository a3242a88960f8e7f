"""``mindspore.common.initializer``: ``initializer(init, shape, dtype)`` and the Initializer
classes (``TruncatedNormal``, ``Normal``, ``XavierUniform``, ``HeUniform``, ``Zero``, ...)."""

from microspore._lazy import forward

__getattr__, __dir__ = forward(__name__, globals(), ("ms_nn.initializer",))
