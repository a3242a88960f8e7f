"""Host reads of an operator's input values, refused while a graph is being captured.

Non-maximum suppression, TensorFlow's CTCLoss and greedy decoder and RNNTLoss work out
indices or lattices from their inputs' values in numpy (FractionalMaxPool draws its
windows there). A compiled graph could only keep those values as constants of
the call that compiled it and return stale results on later calls, so while ms-graph
captures (it installs ms-tensor's value-read hook for exactly that time) these
operators raise instead: graph mode equals PyNative or raises.
"""

from __future__ import annotations

import numpy as np

from ms_tensor.tensor import value_read_hook


def outside_graph(name: str, what: str = "its input values") -> None:
    """Raise, naming ``name``, when a graph capture is running."""
    if value_read_hook() is not None:  # set only while a graph capture runs
        raise RuntimeError(
            f"{name} computes on the host from {what}, which a compiled graph would keep "
            "as constants of the call that compiled it; call it outside the compiled "
            "function (PyNative mode)")


def host_values(name: str, t) -> np.ndarray:
    """``t.asnumpy()``, or an error naming ``name`` inside a graph capture."""
    outside_graph(name)
    return t.asnumpy()
