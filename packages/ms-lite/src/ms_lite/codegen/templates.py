"""C templates: the C code an operator carries, found in the registry per dtype.

A template is registered with ``registry.add_c_template(op, template, dtype=...)`` (the
``ms_register_c_templates`` hook) or declared on the operator itself
(``OpDef(..., c_template="out[i] = ...;")``, its float32 template). Either a ``CTemplate``
or a plain string: the loop body of an elementwise operator whose inputs and output all
have the output's shape, reading the inputs by the operator's argument names and writing
``out[i]``.
"""

from __future__ import annotations

import string
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["CTemplate", "MissingTemplateError", "find_template", "C_TYPES"]

C_TYPES = {"float32": "float", "float64": "double", "int8": "int8_t", "uint8": "uint8_t",
           "int32": "int32_t", "int16": "int16_t", "bool": "uint8_t"}


class MissingTemplateError(LookupError):
    """A model holds operators that have no C template for their dtype."""


@dataclass(frozen=True)
class CTemplate:
    """One operator's C code for one dtype.

    Args:
        source: C definitions emitted once per generated project (kernel functions,
            ``static``); may be shared by several operators (emitted once by text).
        call: one call, a ``string.Template`` filled per node with ``${in0}``..,
            ``${out0}``.. (``${out}`` too), the inputs' argument names (``${x}``, ``${w}``;
            ``0`` for one left out), ``${n}`` (elements of the first output), the node's
            scalar attributes, and what ``params`` returns.
        params: ``params(ctx) -> dict`` of further fields, from the ``NodeContext``
            (shapes, attributes, quantization; ``ctx.add_const`` adds a const array).
        inplace: the output may overwrite the first input when that input dies here
            (elementwise and reshape-like operators); the call must then be correct with
            ``out == in0``.
        split: the field (``"OC"``, ``"M"``) holding the number of output channels the
            call computes independently; the call then takes ``${O0}``, ``${O1}``, the
            range of channels to compute: all of them in a single-threaded build, one
            share per thread with ``support_parallel``.
    """

    source: str
    call: str
    params: Callable | None = None
    inplace: bool = False
    split: str | None = None
    includes: tuple = field(default=())

    def fill(self, fields: dict) -> str:
        try:
            return string.Template(self.call).substitute(fields)
        except KeyError as e:
            raise KeyError(f"C template call {self.call!r} uses ${{{e.args[0]}}}, which "
                           f"the node does not provide (fields: "
                           f"{getattr(fields, 'keys_known', fields.keys)()})") from None


def _elementwise(op, body: str) -> CTemplate:
    """A ``CTemplate`` from an ``OpDef``'s plain-string template (a loop body)."""
    names = list(getattr(op, "input_names", None) or ())
    fn = f"{op.name.lower()}_f32_loop"
    args = ", ".join(f"const float *{n}" for n in names)
    src = (f"static void {fn}({args}, float *out, int32_t n)\n{{\n"
           f"    for (int32_t i = 0; i < n; ++i) {{\n        {body}\n    }}\n}}\n")
    call = f"{fn}({', '.join('${' + n + '}' for n in names)}, ${{out}}, ${{n}});"
    return CTemplate(src, call, params=_same_shapes(op.name), inplace=True)


def _same_shapes(name: str):
    def params(ctx):
        shape = ctx.outputs[0].shape
        for v in ctx.inputs:
            if v is not None and v.shape != shape:
                raise MissingTemplateError(
                    f"operator {name!r} (node {ctx.node.name!r}): its C template is an "
                    f"elementwise loop body, which needs every input of the output's shape "
                    f"{shape}; input {v.name!r} has shape {v.shape} (register a CTemplate "
                    "that broadcasts)")
        return {}
    return params


def find_template(registry, op_name: str, dtype: str) -> CTemplate | None:
    """The template of ``op_name`` for ``dtype``, or None."""
    t = registry.lookup("c_template", op_name, dtype)
    if t is None and dtype == "float32":
        t = registry.lookup("c_template", op_name)  # the OpDef's own c_template=
    if isinstance(t, str):
        op = registry.primitive(op_name)
        if op is None:
            raise MissingTemplateError(f"operator {op_name!r} has a plain-string C template "
                                       "but is not a registered primitive")
        t = _elementwise(op, t)
    return t
