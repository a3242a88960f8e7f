"""ms-graph's hookimpl: its optimization passes join the registry, where a plugin's own
passes join them (``registry.add_pass(name, fn, stage="optimize")``).

The passes are registered as ``"module:run"`` strings, in ``passes.ORDER``: the registry
imports a pass when a graph is first optimized, so an eager program never loads them.
"""

from __future__ import annotations

from ms_graph.passes import ORDER
from ms_tensor.hookspecs import hookimpl
from ms_tensor.registry import RegistryView


@hookimpl
def ms_register_ops(registry: RegistryView) -> None:
    from ms_graph.sink.get_next import GetNext  # the data-sink queue reader

    registry.add_ops(GetNext)


@hookimpl
def ms_register_passes(registry: RegistryView) -> None:
    for name in ORDER:
        registry.add_pass(name, f"ms_graph.passes.{name}:run", stage="optimize")
