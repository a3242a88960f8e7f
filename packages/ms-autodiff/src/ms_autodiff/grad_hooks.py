"""Operators that act on a gradient as it passes: ``InsertGradientOf(f)`` (the gradient
becomes ``f(gradient)``), ``HookBackward(hook_fn)`` (``hook_fn`` sees it, and may replace
it by returning a value) and ``DumpGradient`` (it is saved to a .npy file).

Each is the identity forward, with its own rule through ``call_with_bprop``.
"""

from __future__ import annotations

import numpy as np

from ms_autodiff.custom import call_with_bprop
from ms_ops.defs.array import Identity
from ms_tensor.tensor import Tensor

__all__ = ["InsertGradientOf", "HookBackward", "DumpGradient"]


def _identity(*xs):
    # new tensors, so that only the uses of the output (not of the input) are hooked
    copies = tuple(Identity(x) for x in xs)
    return copies[0] if len(copies) == 1 else copies


class InsertGradientOf:
    """``ops.InsertGradientOf(f)(x)``: x; under differentiation its gradient is f(dout)."""

    def __init__(self, f):
        if not callable(f):
            raise TypeError(f"InsertGradientOf: f must be callable, got {type(f).__name__}")
        self.f = f

    def __call__(self, x):
        return call_with_bprop(_identity, lambda x, out, dout: (self.f(dout),), x,
                               name="InsertGradientOf")


class HookBackward:
    """``ops.HookBackward(hook_fn)(*inputs)``: the inputs; ``hook_fn(grad)`` is called on
    each gradient that flows back, and a non-None return replaces it."""

    def __init__(self, hook_fn, cell_id=""):
        if not callable(hook_fn):
            raise TypeError(f"HookBackward: hook_fn must be callable, got "
                            f"{type(hook_fn).__name__}")
        self.hook_fn = hook_fn

    def __call__(self, *inputs):
        def rule(*args):
            douts = args[-1] if isinstance(args[-1], tuple) else (args[-1],)
            out = []
            for g in douts:
                replaced = self.hook_fn(g)
                out.append(g if replaced is None else replaced)
            return tuple(out)

        return call_with_bprop(_identity, rule, *inputs, name="HookBackward")


class DumpGradient:
    """``ops.DumpGradient()(path, x, input_output)``: x; its gradient is saved to ``path``
    (a .npy file) when it flows back."""

    def __call__(self, path, x, input_output="in"):
        def rule(x, out, dout):
            target = str(path)
            np.save(target if target.endswith(".npy") else target + ".npy", dout.asnumpy())
            return (dout,)

        if not isinstance(x, Tensor):
            raise TypeError(f"DumpGradient: x must be a Tensor, got {type(x).__name__}")
        return call_with_bprop(_identity, rule, x, name="DumpGradient")
