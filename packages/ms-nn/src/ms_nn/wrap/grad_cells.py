"""``nn.grad``: the ``Jvp`` and ``Vjp`` Cells (MindSpore 1.x's forms of ``ops.jvp`` and
``ops.vjp``): called with ``fn``'s inputs then the vector, they return ``(output,
derivative)``; with one input the derivative is a Tensor, otherwise a tuple."""

from __future__ import annotations

from ms_autodiff import vjp
from ms_autodiff.vjp import jvp
from ms_nn.cell import Cell

__all__ = ["Jvp", "Vjp"]


class Jvp(Cell):
    """Forward mode: ``(fn(*inputs), J v)``.

    >>> out, d = Jvp(lambda x: x * x)(Tensor([3.0]), Tensor([1.0])); d.asnumpy()
    array([6.], dtype=float32)
    """

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, *args):
        inputs, v = args[:-1], args[-1]
        if len(inputs) == 1:
            return jvp(self.fn, inputs[0], v)
        return jvp(self.fn, tuple(inputs), v)


class Vjp(Cell):
    """Reverse mode: ``(fn(*inputs), v^T J)``.

    >>> out, d = Vjp(lambda x: x * x)(Tensor([3.0]), Tensor([2.0])); d.asnumpy()
    array([12.], dtype=float32)
    """

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, *args):
        inputs, v = args[:-1], args[-1]
        out, vjp_fn = vjp(self.fn, *inputs)
        grads = vjp_fn(v)
        return out, grads[0] if len(inputs) == 1 and isinstance(grads, tuple) else grads
