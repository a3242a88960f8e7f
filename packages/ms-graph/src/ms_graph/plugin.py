"""ms-graph's hookimpls: its optimization passes join the registry, where a plugin's
own passes join them (``registry.add_pass(name, fn, stage="optimize")``)."""

from __future__ import annotations

import importlib

from ms_tensor.hookspecs import hookimpl

# The passes in the order they run: (registry name, module under ms_graph.passes).
PASSES = (
    ("inline", "inline"),
    ("const_fold", "const_fold"),
    ("algebraic", "algebraic"),
    ("cse", "cse"),
    ("fuse_elementwise", "fuse_elementwise"),
    ("dce", "dce"),
)


@hookimpl
def ms_register_passes(registry):
    for name, module in PASSES:
        mod = importlib.import_module(f"ms_graph.passes.{module}")
        registry.add_pass(name, mod.run, stage="optimize")
