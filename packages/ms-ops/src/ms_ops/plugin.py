"""ms-ops' hookimpl: its operators enter the registry exactly as a plugin's would.

Every ``OpDef`` of a family module brings its kernels, gradient rule, samples and names
(``registry.add_ops``); every function marked ``@functional`` becomes ``ops.<name>`` and
its Tensor methods (``registry.add_function``).
"""

from __future__ import annotations

from ms_ops.defs import families as _families
from ms_ops.defs import functions, operators
from ms_ops.opdef import OpDef
from ms_tensor.hookspecs import hookimpl
from ms_tensor.registry import RegistryView


@hookimpl
def ms_register_ops(registry: RegistryView) -> None:
    families = _families()
    for fam in families:
        if hasattr(fam, "PRIMITIVES"):
            _declare_tables(fam, registry)
    for fam in families:
        registry.add_ops(*operators(fam))
        for fn in functions(fam):
            names, methods, prop = fn.ms_functional
            for name in names:
                registry.add_function(name, fn)
            for name in methods:
                registry.add_tensor_method(name, property(fn) if prop else fn)


def _declare_tables(fam, registry) -> None:
    """The old table layout, while families move to declarations (transitional)."""
    import importlib

    if not getattr(fam, "_tables_declared", False):
        fam._tables_declared = True
        with_out = getattr(fam, "CPU_KERNELS_WITH_OUT", frozenset())
        for op, (fn, dtypes) in fam.CPU_KERNELS.items():
            op.kernel("CPU", dtypes=dtypes, out=op in with_out)(fn)
        for op, fn in fam.BPROPS.items():
            op.bprop(fn)
        samples = importlib.import_module(f"ms_ops.samples.{fam.__name__.rsplit('.', 1)[1]}")
        by_name = {op.name: op for op in fam.PRIMITIVES}
        for name, fn in samples.SAMPLES.items():
            by_name[name].samples(fn)
        fam._table_functions = []
        for name, fn in fam.FUNCTIONS.items():
            if isinstance(fn, OpDef):
                fn.functional += (name,)
            else:
                fam._table_functions.append((name, fn))
    for name, fn in fam._table_functions:
        registry.add_function(name, fn)
    for name, fn in fam.TENSOR_METHODS.items():
        registry.add_tensor_method(name, fn)
