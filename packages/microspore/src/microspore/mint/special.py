"""``mindspore.mint.special``: ``erfc``, ``exp2``, ``expm1``, ``log1p``, ``log_softmax``,
``round``, ``sinc`` (the ``ops`` / ``mint.nn.functional`` functions)."""

from microspore._lazy import forward

__getattr__, __dir__ = forward(__name__, globals(), (), {
    **dict.fromkeys(("erfc", "exp2", "expm1", "log1p", "round", "sinc"), "ms_ops"),
    "round_op": "ms_ops:round", "log_softmax": "ms_ops.mint_nn_functional"})
