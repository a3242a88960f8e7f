"""ms-tensor's own hookimpls: the CPU backend, registered like any device plugin's."""

from ms_tensor.backend import CPUBackend
from ms_tensor.hookspecs import hookimpl


@hookimpl
def ms_register_backends(registry):
    registry.add_backend(CPUBackend())
