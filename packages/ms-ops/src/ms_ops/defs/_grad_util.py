"""Helpers that gradient rules share, written with operators like the rules themselves."""

from __future__ import annotations

import threading

from ms_ops.defs import array, reduction
from ms_tensor.tensor import Tensor

# Per thread: two threads differentiating at once each tell their own rules what they
# need (a process-wide mask leaked one thread's mask into the other's rules).
_state = threading.local()


def wanted(i: int) -> bool:
    """Whether the caller uses the gradient of input ``i`` of the rule being run.

    The differentiation engine sets this around each rule call (``needing``); a rule
    whose input gradients are costly (MatMul, Conv2D) may return None for the others,
    e.g. the gradient of a network's input batch, which training never reads.
    """
    mask = getattr(_state, "mask", None)
    return mask is None or mask[i]


class needing:
    """``with needing(mask): rule(...)`` — tell the rule which input gradients are used."""

    def __init__(self, mask):
        self.mask = tuple(mask)

    def __enter__(self):
        self._previous = getattr(_state, "mask", None)
        _state.mask = self.mask

    def __exit__(self, *exc):
        _state.mask = self._previous


def shape_of(v) -> tuple:
    """The shape of a tensor input; Python scalars are 0-d."""
    return v.shape if isinstance(v, Tensor) else ()


def sum_to(dout: Tensor, shape: tuple) -> Tensor:
    """Undo broadcasting: sum ``dout`` over the axes that broadcasting added to ``shape``."""
    if dout.shape == tuple(shape):
        return dout
    lead = dout.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, d in enumerate(shape) if d == 1 and dout.shape[lead + i] != 1)
    summed = reduction.ReduceSum(dout, axes, keep_dims=False) if axes else dout
    if summed.shape == tuple(shape):  # a bias's gradient: the sum already has its shape
        return summed
    return array.Reshape(summed, tuple(shape))


def grad_for(v, g):
    """``g`` for a tensor input; ``None`` for a Python scalar, which takes no gradient."""
    return g if isinstance(v, Tensor) else None


def conj(v):
    """``conj(v)`` for a complex tensor, ``v`` otherwise: the rules of products take the
    conjugate of the other factor (the gradient convention of ``complex_ops``)."""
    if isinstance(v, Tensor) and v.dtype.kind == "c":
        from ms_ops.defs.complex_ops import Conj  # complex_ops builds on arithmetic

        return Conj(v)
    return v
