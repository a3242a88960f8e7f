"""Functions with their own gradient rule (MindSpore's ``bprop``), e.g. ``Cell.bprop``."""

from __future__ import annotations

import functools

from ms_autodiff.tape import active_tapes, pause_recording
from ms_tensor.context import get_context
from ms_tensor.tensor import Tensor

__all__ = ["custom_bprop", "call_with_bprop", "record_call"]


class _CustomOp:
    """Stands for a user function on the tape; its rule is the user's ``bprop``."""

    differentiable = True
    nondiff_inputs = frozenset()

    def __init__(self, name: str, bprop):
        self.name = name
        self.custom_bprop = bprop


def call_with_bprop(forward, bprop, *args, name: str | None = None):
    """Run ``forward(*args)``; under differentiation, its gradient is
    ``bprop(*args, out, dout)`` (one gradient per argument) instead of what the
    operators inside ``forward`` would give."""
    tapes = active_tapes()
    if not tapes:
        return forward(*args)
    with pause_recording():
        out = forward(*args)
    outs = out if isinstance(out, tuple) else (out,)
    if not all(isinstance(o, Tensor) for o in outs):
        raise TypeError(f"{name or forward.__name__}: a function with a custom bprop must "
                        "return Tensors")

    name = name or getattr(forward, "__qualname__", "custom")

    def rule(*inputs, out, dout):
        grads = bprop(*inputs, out, dout)
        grads = grads if isinstance(grads, tuple) else (grads,)
        if len(grads) != len(inputs):
            raise ValueError(f"{name}: bprop returned {len(grads)} gradients for "
                             f"{len(inputs)} inputs")
        if get_context("check_bprop"):
            _check_grads(name, inputs, grads)
        return grads

    record_call(name, rule, args, out)
    return out


def _check_grads(name, inputs, grads):
    """``set_context(check_bprop=True)``: each gradient has its input's shape and dtype."""
    for i, (x, g) in enumerate(zip(inputs, grads)):
        if not isinstance(x, Tensor) or g is None:
            continue
        if not isinstance(g, Tensor) or g.shape != x.shape or g.dtype != x.dtype:
            got = (f"{g.dtype} {g.shape}" if isinstance(g, Tensor) else type(g).__name__)
            raise ValueError(f"{name}: bprop's gradient {i} is {got}, but input {i} is "
                             f"{x.dtype} {x.shape} (set_context(check_bprop=True))")


def record_call(name: str, rule, inputs, out) -> None:
    """Record, on every recording tape, a call computed without recording (``out`` from
    ``inputs``) whose gradient is ``rule(*inputs, out=out, dout=dout)``, which returns one
    gradient (or None) per input. ms-graph's captured control flow uses it."""
    op = _CustomOp(name, rule)
    for tape in active_tapes():
        if tape.recording:
            tape.record_custom(op, inputs, out)


def custom_bprop(bprop):
    """Decorator: ``@custom_bprop(lambda x, out, dout: (dout * 2,))`` on a function."""

    def decorate(forward):
        @functools.wraps(forward)
        def wrapper(*args):
            return call_with_bprop(forward, bprop, *args)

        return wrapper

    return decorate
