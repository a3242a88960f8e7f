"""The hookimpl that adds ``microspore parallel plan`` (imported lazily by the CLI)."""

from ms_tensor.hookspecs import hookimpl
from ms_tensor.registry import RegistryView


@hookimpl
def ms_register_cli_commands(registry: RegistryView) -> None:
    registry.add_cli_command("parallel", "ms_parallel.auto.cli:main",
                             help="plan a parallel strategy on a simulated cluster")
