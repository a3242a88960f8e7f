"""The hookimpl: this package's operators and functions join the registry as ms-ops' do."""

from __future__ import annotations

from ms_ops.defs import functions, operators
from ms_ops_scipy import bessel, gamma, matrix
from ms_tensor.hookspecs import hookimpl
from ms_tensor.registry import RegistryView


@hookimpl
def ms_register_ops(registry: RegistryView) -> None:
    for module in (bessel, gamma, matrix):
        registry.add_ops(*operators(module))
        for fn in functions(module):
            names, methods, prop = fn.ms_functional
            for name in names:
                registry.add_function(name, fn)
            for name in methods:
                registry.add_tensor_method(name, property(fn) if prop else fn)
