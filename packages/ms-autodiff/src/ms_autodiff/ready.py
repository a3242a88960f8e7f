"""Gradient-ready callbacks: ``on_gradient_ready(fn)`` has the backward pass call
``fn(tensor, gradient)`` for each differentiated tensor as soon as its gradient is
complete, before the rest of the backward pass runs.

For work that should start early, such as the data-parallel reduction of a layer's
gradients while the earlier layers are still being differentiated. The callback must not
change the gradient it receives. Per thread; nothing is called when no callback is set.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager

__all__ = ["on_gradient_ready", "gradient_ready_callback"]

_state = threading.local()


@contextmanager
def on_gradient_ready(fn):
    """Within the block, backward passes of this thread call ``fn(tensor, gradient)``."""
    previous = getattr(_state, "fn", None)
    _state.fn = fn
    try:
        yield
    finally:
        _state.fn = previous


def gradient_ready_callback():
    """The callback set for this thread, or None."""
    return getattr(_state, "fn", None)
