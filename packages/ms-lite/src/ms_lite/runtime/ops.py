"""Finding a node's operator: a registry primitive (ms-ops or a plugin's), or a lite
operator (the converter's fused and quantized forms, kind ``"lite_op"``).

A ``LiteOp`` is not a Primitive: it exists only in converted models, has no gradient
and no eager form, so it stays out of the operator suites; it declares inference and a
CPU kernel like an ``OpDef`` does, and ``step`` plans one call of either kind.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ms_ops.opdef import TENSOR, TensorSpec
from ms_ops.planning import plan
from ms_tensor import dtype as mstype
from ms_tensor import registry as _registry

__all__ = ["LiteOp", "Step", "step", "spec", "UnknownOperatorError", "find_op"]


class UnknownOperatorError(LookupError):
    """A model names an operator no installed package registers."""


@dataclass(frozen=True)
class LiteOp:
    """An operator of converted models only.

    Args:
        name: MindSpore Lite's name (``"Conv2DFusion"``).
        infer: ``infer(*specs, **attrs) -> TensorSpec | tuple``: one ``TensorSpec`` per
            input (None for one left out), the node's attributes as keywords.
        kernel: ``kernel(*arrays, **attrs) -> array | tuple``.
        doc: what it computes.
    """

    name: str
    infer: Callable
    kernel: Callable
    doc: str = ""
    threaded: bool = False  # the kernel takes ``threads=`` (Context.cpu.thread_num)


@dataclass
class Step:
    """One planned node: call ``kernel(*cast inputs, **kwargs)``; ``outputs`` are specs."""

    node: object
    kernel: Callable
    kwargs: dict
    casts: tuple
    outputs: tuple
    takes_out: bool
    threaded: bool = False


def spec(shape, dtype) -> TensorSpec:
    return TensorSpec(tuple(shape), mstype.from_numpy(np.dtype(dtype)))


def find_op(name: str):
    """The registry's primitive or lite operator named ``name``."""
    reg = _registry.load()
    op = reg.primitive(name)
    if op is None:
        op = reg.lookup("lite_op", name)
    if op is None:
        raise UnknownOperatorError(
            f"operator {name!r} is not registered by any installed package (is the plugin "
            "that defines it installed?)")
    return op


def step(node, in_specs: list) -> Step:
    """Plan ``node`` for inputs of these specs (None for an input left out)."""
    op = find_op(node.op)
    try:
        if isinstance(op, LiteOp):
            out = op.infer(*in_specs, **node.attrs)
            outs = out if isinstance(out, tuple) else (out,)
            return Step(node, op.kernel, dict(node.attrs), (None,) * len(in_specs), outs, False,
                        op.threaded)
        args, k = [], 0
        for a in op.inputs:
            if a.kind == TENSOR:
                args.append(in_specs[k] if k < len(in_specs) else None)
                k += 1
            else:
                args.append(node.attrs[a.name])
        attrs = {n: node.attrs[n] for n in op.attr_names if n in node.attrs}
        p = plan(op, args, attrs)
    except (TypeError, ValueError, KeyError) as e:
        raise type(e)(f"node {node.name!r} ({node.op}): {e}") from None
    outs = p.outputs if p.multi else (p.outputs,)
    casts = tuple(p.casts) + (None,) * (len(in_specs) - len(p.casts))
    return Step(node, p.kernel, p.kwargs, casts, outs, p.takes_out)
