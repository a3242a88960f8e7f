"""ms-autodiff: gradients of eager (PyNative) code with MindSpore's functional API.

Operators run as called; while a function is differentiated, a tape records them and
the backward pass replays each operator's registered gradient rule. The rules are
written with operators, so gradients of gradients work to any order.
"""

from ms_autodiff.api import grad, value_and_grad
from ms_autodiff.custom import call_with_bprop, custom_bprop
from ms_autodiff.grad_operation import GradOperation
from ms_autodiff.jacobian import jacfwd, jacrev
from ms_autodiff.plugin import StopGradient
from ms_autodiff.ready import on_gradient_ready
from ms_autodiff.vjp import jvp, vjp
from ms_autodiff.vmap import vmap

__version__ = "0.1.0"

__all__ = ["grad", "value_and_grad", "GradOperation", "vjp", "jvp", "stop_gradient",
           "custom_bprop", "call_with_bprop", "on_gradient_ready", "jacrev", "jacfwd", "vmap"]


def stop_gradient(x):
    """``x`` as a constant: differentiation sees no dependence on it."""
    return StopGradient(x)
