"""ms-device-ascend's hookimpls: the ``"Ascend"`` emulation backend, its Cube kernels, the
rank-table reader ms-parallel's launcher uses, and the ``microspore ascend`` command."""

from __future__ import annotations

from ms_tensor.hookspecs import hookimpl
from ms_tensor.registry import RegistryView


@hookimpl
def ms_register_backends(registry: RegistryView) -> None:
    from ms_device_ascend.backend import AscendEmulationBackend

    registry.add_backend(AscendEmulationBackend())
    # ms-parallel's launcher reads rank tables through this entry (it cannot import us)
    registry.add("rank_table", "hccl", "ms_device_ascend.rank_table:load_rank_table")


@hookimpl
def ms_register_kernels(registry: RegistryView) -> None:
    """Cube operators get Ascend kernels; every other operator keeps the CPU's (the
    emulation changes the Cube's arithmetic only, ``ms_device_ascend.cube``)."""
    from ms_device_ascend.cube import conv2d_kernel, emulated_kernel, matmul_kernel
    from ms_ops.defs import linalg, nn_conv

    for op in (linalg.MatMul, linalg.BatchMatMul):
        registry.add_kernel(op, "Ascend", matmul_kernel(op.kernels["CPU"][0]))
    registry.add_kernel(nn_conv.Conv2D, "Ascend", conv2d_kernel(nn_conv.Conv2D.kernels["CPU"][0]))
    for op in (linalg.Dense, nn_conv.Conv2DBackpropInput, nn_conv.Conv2DBackpropFilter):
        registry.add_kernel(op, "Ascend", emulated_kernel(op.kernels["CPU"][0]))


@hookimpl
def ms_register_cli_commands(registry: RegistryView) -> None:
    registry.add_cli_command("ascend", "ms_device_ascend.cli:main",
                             help="Ascend tools: check a script, doctor the environment, "
                                  "write a rank table")
