"""ms-ops' hookimpls: its operators enter the registry exactly as a plugin's would."""

from __future__ import annotations

from ms_ops.defs import families as _families
from ms_tensor.hookspecs import hookimpl


@hookimpl
def ms_register_primitives(registry):
    for fam in _families():
        for op in fam.PRIMITIVES:
            registry.add_primitive(op)


@hookimpl
def ms_register_kernels(registry):
    for fam in _families():
        with_out = getattr(fam, "CPU_KERNELS_WITH_OUT", frozenset())
        for op, (fn, dtypes) in fam.CPU_KERNELS.items():
            registry.add_kernel(op, "CPU", fn, dtypes=dtypes, out=op in with_out)


@hookimpl
def ms_register_bprops(registry):
    for fam in _families():
        for op, fn in fam.BPROPS.items():
            registry.add_bprop(op, fn)


@hookimpl
def ms_register_functions(registry):
    for fam in _families():
        for op in fam.PRIMITIVES:
            registry.add_function(op.name, op.primitive)
        for name, fn in fam.FUNCTIONS.items():
            registry.add_function(name, fn)


@hookimpl
def ms_register_tensor_methods(registry):
    for fam in _families():
        for name, fn in fam.TENSOR_METHODS.items():
            registry.add_tensor_method(name, fn)


@hookimpl
def ms_register_op_samples(registry):
    from ms_ops.samples import families as sample_families

    for fam in sample_families():
        for name, fn in fam.SAMPLES.items():
            registry.add_op_sample(name, fn)
