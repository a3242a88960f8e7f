"""``mindspore.mint.linalg``: ``inv``, ``norm``, ``matrix_norm``, ``vector_norm``, ``qr``
(the ``ops`` functions of the same meaning)."""

from microspore._lazy import forward

__getattr__, __dir__ = forward(__name__, globals(), (), {
    "inv": "ms_ops:inverse", "norm": "ms_ops:norm", "matrix_norm": "ms_ops:matrix_norm",
    "vector_norm": "ms_ops:vector_norm", "qr": "ms_ops:qr"})
