"""ms-ops: microspore's operators, each defined once (signature, inference, kernels, bprop).

``ms_ops.add``, ``ms_ops.Add`` and every other operator name resolve through the
registry, exactly like a plugin's operators do (see ``ms_ops.functional``).
"""

from ms_ops import functional
from ms_ops.defs._grad_util import needing, sum_to, wanted
from ms_ops.dispatch import OpError, get_recorder, method_for, set_recorder, static_key
from ms_ops.opdef import Arg, Attr, OpDef, TensorSpec
from ms_ops.planning import Plan, plan
from ms_ops.primitive import Primitive

__version__ = "0.1.0"

__all__ = ["functional", "OpDef", "Arg", "Attr", "TensorSpec", "Primitive", "OpError",
           "set_recorder", "get_recorder", "needing", "wanted", "sum_to", "Plan", "plan",
           "method_for", "static_key"]


def __getattr__(name: str):
    if name in ("tuning", "blas"):  # `from ms_ops import tuning` must not load the registry
        import importlib

        return importlib.import_module(f"ms_ops.{name}")
    return getattr(functional, name)


def __dir__():
    return sorted(set(__all__) | set(dir(functional)))
