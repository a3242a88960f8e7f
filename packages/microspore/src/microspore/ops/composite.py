"""``mindspore.ops.composite``: ``GradOperation`` and the functional differentiation API."""

from ms_autodiff import GradOperation, grad, jvp, stop_gradient, value_and_grad, vjp

__all__ = ["GradOperation", "grad", "value_and_grad", "vjp", "jvp", "stop_gradient"]
