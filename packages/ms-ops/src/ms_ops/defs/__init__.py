"""Operator families: one module per family.

In a family module each operator sits in one block: its ``OpDef`` (with the names it goes
by), then ``@Op.kernel``, ``@Op.bprop`` and ``@Op.samples``; functions that are not one
operator are marked ``@functional``. ``ms_ops.plugin`` registers every public module
here through the ``ms_register_ops`` hook, as a third-party plugin would.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import FunctionType

from ms_ops.opdef import OpDef

__all__ = ["families", "operators", "functions"]


def families():
    """The family modules, in name order (modules starting with ``_`` are helpers)."""
    names = sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))
    return [importlib.import_module(f"{__name__}.{n}") for n in names]


def operators(module) -> list[OpDef]:
    """The operators ``module`` defines (not those it imports), in definition order."""
    return list(dict.fromkeys(v for v in vars(module).values()
                              if isinstance(v, OpDef) and v.module == module.__name__))


def functions(module) -> list:
    """The ``@functional`` functions (and Primitive-style classes) ``module`` defines."""
    return [v for v in vars(module).values() if isinstance(v, (FunctionType, type))
            and v.__module__ == module.__name__ and hasattr(v, "ms_functional")]
