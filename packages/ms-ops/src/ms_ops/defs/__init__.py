"""Operator families: one module per family, each with the same five tables.

``PRIMITIVES`` (OpDefs), ``CPU_KERNELS`` ({op: (fn, dtypes)}), ``BPROPS`` ({op: fn}),
``FUNCTIONS`` ({functional name: callable}) and ``TENSOR_METHODS`` ({name: callable}).
A family may add ``CPU_KERNELS_WITH_OUT``: the operators whose CPU kernel also accepts
``out=`` (an array of the result's shape and dtype to fill), for engines that plan memory.
``ms_ops.plugin`` registers every public module here through the public hooks.
"""

from __future__ import annotations

import importlib
import pkgutil

__all__ = ["families"]


def families():
    """The family modules, in name order (modules starting with ``_`` are helpers)."""
    names = sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))
    return [importlib.import_module(f"{__name__}.{n}") for n in names]
