"""Registers the code generator's C templates (ms-ops' operators in float32, ms-lite's
quantized operators in int8) through the ``ms_register_c_templates`` hook, the door a
third-party operator's template uses too."""

from __future__ import annotations

from ms_tensor.hookspecs import hookimpl

__all__ = ["ms_register_c_templates"]


@hookimpl
def ms_register_c_templates(registry) -> None:
    from ms_lite.codegen.kernels import fp32, fp32_fused, int8, int8_fused

    for name, template in {**fp32.TEMPLATES, **fp32_fused.TEMPLATES}.items():
        registry.add_c_template(name, template, dtype="float32")
    for (name, dtype), template in {**int8.TEMPLATES, **int8_fused.TEMPLATES}.items():
        registry.add_c_template(name, template, dtype=dtype)
