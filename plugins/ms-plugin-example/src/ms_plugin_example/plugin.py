"""The hookimpls microspore calls once, when its registry first loads.

Each hook receives a view of the registry that records this plugin's name (the entry
point's name, ``example``) against everything it adds; ``python -m ms_tensor.registry``
lists them.
"""

from ms_plugin_example.cli import mish_command
from ms_plugin_example.mish import (
    FLOATS,
    Mish,
    mish,
    mish_bprop,
    mish_cpu,
    mish_samples,
    tensor_mish,
)
from ms_tensor.hookspecs import hookimpl


@hookimpl
def ms_register_primitives(registry):
    registry.add_primitive(Mish)


@hookimpl
def ms_register_kernels(registry):
    registry.add_kernel(Mish, "CPU", mish_cpu, dtypes=FLOATS)


@hookimpl
def ms_register_bprops(registry):
    registry.add_bprop(Mish, mish_bprop)


@hookimpl
def ms_register_functions(registry):
    registry.add_function("Mish", Mish.primitive)  # the class style: ops.Mish()(x)
    registry.add_function("mish", mish)


@hookimpl
def ms_register_tensor_methods(registry):
    registry.add_tensor_method("mish", tensor_mish)


@hookimpl
def ms_register_op_samples(registry):
    registry.add_op_sample("Mish", mish_samples)


@hookimpl
def ms_register_cli_commands(registry):
    registry.add_cli_command("mish", mish_command, help="print Mish(x) for the numbers given")
