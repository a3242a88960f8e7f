"""Shape and dtype inference over a graph, with each operator's own inference.

Capture records the specs its run produced. ``infer`` recomputes every Value's spec from
the graph's input specs alone — operators through ms-ops' promotion and inference (the
same code eager dispatch runs), control flow through its bodies — so a graph can be
checked for other input shapes without running anything: a mismatch is a compile-time
error naming the node, its operator and the shapes it got. ``check`` verifies that a
graph's recorded specs are what inference gives (the passes must keep every spec).
"""

from __future__ import annotations

import numpy as np

from ms_graph import ir
from ms_ops import TensorSpec, plan
from ms_ops.opdef import TENSOR

__all__ = ["infer", "check", "InferenceError"]


class InferenceError(ValueError):
    """A node cannot take the shapes or dtypes that reach it."""


def infer(graph: ir.Graph, input_specs=None, outer: dict | None = None) -> dict:
    """The spec of every Value of ``graph`` (by id), from ``input_specs`` (default: the
    inputs' recorded specs). ``outer`` holds the specs of Values the graph captures."""
    specs: dict[int, TensorSpec] = {} if outer is None else dict(outer)
    given = [v.spec for v in graph.inputs] if input_specs is None else list(input_specs)
    if len(given) != len(graph.inputs):
        raise InferenceError(f"graph {graph.name}: {len(graph.inputs)} inputs, got "
                             f"{len(given)} specs")
    for v, s in zip(graph.inputs, given):
        specs[id(v)] = s
    for v, _ in graph.params:
        specs[id(v)] = v.spec
    for node in graph.nodes:
        try:
            outs = _node_specs(node, specs)
        except (ValueError, TypeError) as e:
            if isinstance(e, InferenceError):
                raise
            raise InferenceError(f"graph {graph.name}: node {node.name} "
                                 f"({_args_text(node, specs)}): {e}") from None
        for v, s in zip(node.outputs, outs):
            specs[id(v)] = s
    return specs


def check(graph: ir.Graph) -> None:
    """Raise ``InferenceError`` where a recorded spec differs from the inferred one."""
    specs = infer(graph)
    for node in graph.nodes:
        for k, v in enumerate(node.outputs):
            if v.spec is not None and specs.get(id(v)) != v.spec:
                raise InferenceError(f"graph {graph.name}: output {k} of {node.name} is "
                                     f"recorded as {_text(v.spec)} but infers as "
                                     f"{_text(specs.get(id(v)))}")


def _spec_of(a, specs):
    if a.is_const:
        return TensorSpec(np.shape(a.const), a.spec.dtype)
    s = specs.get(id(a))
    if s is None:
        raise InferenceError(f"value {a!r} is used before it is defined")
    return s


def _node_specs(node: ir.Node, specs) -> list:
    if isinstance(node.op, str):
        return _control_specs(node, specs)
    op = node.op
    args = [_spec_of(arg, specs) if a.kind == TENSOR and isinstance(arg, ir.Value) else arg
            for a, arg in zip(op.inputs, node.args)]
    out = plan(op, args, node.attrs).outputs  # promotion, inference, the kernel's dtypes
    return list(out) if isinstance(out, tuple) else [out]


def _control_specs(node: ir.Node, specs) -> list:
    args = [_spec_of(a, specs) for a in node.args if isinstance(a, ir.Value)]
    if node.op == "Cond":
        results = [_outputs(sub, args[1:], specs) for sub in node.subgraphs]
        if results[0] != results[1]:
            raise InferenceError(f"Cond: the branches give {_list(results[0])} and "
                                 f"{_list(results[1])}")
        return results[0]
    if node.op == "While":
        cond_g, body = node.subgraphs
        _outputs(cond_g, args, specs)
        after = _outputs(body, args, specs)
        if after != args:
            raise InferenceError(f"While: the body turns loop variables {_list(args)} "
                                 f"into {_list(after)}")
        return args + [None] * (len(node.outputs) - len(args))  # the history, if kept
    if node.op == "Call":
        return _outputs(node.subgraphs[0], args, specs)
    if node.op == "Fused":
        full = [args[i] for i in node.attrs["program"].array_args]
        shapes = {tuple(s.shape) for s in full}
        if len(shapes) > 1:
            raise InferenceError(f"Fused ({', '.join(node.attrs['ops'])}): operands of "
                                 f"shapes {sorted(shapes)} must all have one shape")
        dtype = node.outputs[0].spec.dtype
        return [TensorSpec(shapes.pop() if shapes else node.outputs[0].spec.shape, dtype)]
    # Nodes inference has no rule for (WhileGrad, a plugin's) keep their recorded specs.
    return [v.spec for v in node.outputs]


def _outputs(sub: ir.Graph, input_specs, outer) -> list:
    got = infer(sub, input_specs, outer)
    return [got.get(id(v)) if not v.is_const else v.spec for v in sub.outputs]


def _text(spec) -> str:
    return "?" if spec is None else f"{tuple(spec.shape)} {spec.dtype}"


def _list(specs) -> str:
    return "[" + ", ".join(_text(s) for s in specs) + "]"


def _args_text(node, specs) -> str:
    return ", ".join(_text(specs.get(id(a))) if isinstance(a, ir.Value) and not a.is_const
                     else _text(a.spec) if isinstance(a, ir.Value) else repr(a)
                     for a in node.args)
