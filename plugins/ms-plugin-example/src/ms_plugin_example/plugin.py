"""The hookimpls microspore calls once, when its registry first loads.

Each hook receives a view of the registry that records this plugin's name (the entry
point's name, ``example``) against everything it adds; ``python -m ms_tensor.registry``
lists them.
"""

from ms_plugin_example.cli import mish_command
from ms_plugin_example.mish import Mish
from ms_tensor.hookspecs import hookimpl
from ms_tensor.registry import RegistryView


@hookimpl
def ms_register_ops(registry: RegistryView) -> None:
    registry.add_ops(Mish)  # its kernel, gradient rule, samples, ops.mish, x.mish()


@hookimpl
def ms_register_cli_commands(registry: RegistryView) -> None:
    registry.add_cli_command("mish", mish_command, help="print Mish(x) for the numbers given")
