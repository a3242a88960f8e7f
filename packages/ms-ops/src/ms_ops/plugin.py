"""ms-ops' hookimpl: its operators enter the registry exactly as a plugin's would.

Every ``OpDef`` of a family module brings its kernels, gradient rule, samples and names
(``registry.add_ops``); every function marked ``@functional`` becomes ``ops.<name>`` and
its Tensor methods (``registry.add_function``, ``registry.add_tensor_method``).
"""

from __future__ import annotations

from ms_ops.defs import families, functions, operators
from ms_tensor.hookspecs import hookimpl
from ms_tensor.registry import RegistryView


@hookimpl
def ms_register_ops(registry: RegistryView) -> None:
    for fam in families():
        registry.add_ops(*operators(fam))
        for fn in functions(fam):
            names, methods, prop = fn.ms_functional
            for name in names:
                registry.add_function(name, fn)
            for name in methods:
                registry.add_tensor_method(name, property(fn) if prop else fn)
