"""``from_cell``: a Cell (or function) captured by ms-graph's tracer as a lite ``Graph``.

ms-graph and ms-nn are imported here, inside the function: the lite runtime installs
without them, and only export needs them.
"""

from __future__ import annotations

import inspect

import numpy as np

from ms_lite.ir.graph import Graph, IRError, Node, Value

__all__ = ["from_cell", "UnsupportedOperatorError"]


class UnsupportedOperatorError(IRError):
    """The captured graph holds something the lite IR cannot express (control flow that
    tracing kept, an operator without a CPU kernel)."""


def _input_names(net, n: int) -> list[str]:
    fn = getattr(net, "construct", net)
    try:
        params = [p.name for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    names = params[:n] if len(params) >= n else []
    return names or [f"input_{i}" for i in range(n)]


def _dtype_name(spec) -> str:
    return np.dtype(spec.dtype.np).name


def from_cell(net, *inputs, name: str | None = None) -> Graph:
    """Capture one inference call ``net(*inputs)`` as a lite ``Graph``.

    A Cell is put in inference mode (``set_train(False)``) for the capture and then back
    in its former mode. Parameters become constants named by the Parameter
    (``conv1.weight``), holding a copy of their values; tensors the call creates become
    constants too, and a Python number given to an operator becomes a 0-d constant of
    the dtype the operator computes in.

    Args:
        net: an ``nn.Cell`` or a function of tensors.
        inputs: example inputs (Tensors or numpy arrays); their shapes and dtypes are
            the graph inputs'.
        name: the graph's name (default: the Cell's class name).
    Returns:
        A validated ``Graph``.
    Raises:
        UnsupportedOperatorError: naming the construct or operator the IR cannot hold.

    >>> import numpy as np
    >>> import ms_nn as nn
    >>> g = from_cell(nn.Dense(3, 2), np.ones((1, 3), np.float32))
    >>> [n.op for n in g.nodes], sorted(g.constants), g.outputs[0].shape
    (['Dense'], ['bias', 'weight'], (1, 2))
    """
    from ms_graph.trace import trace

    from ms_tensor import Tensor
    from ms_tensor.tensor import array_of

    args = [x if isinstance(x, Tensor) else Tensor(np.asarray(x)) for x in inputs]
    was_training = getattr(net, "training", None)
    if hasattr(net, "set_train"):
        net.set_train(False)
    try:
        captured = trace(net, *args)
    finally:
        if was_training and hasattr(net, "set_train"):
            net.set_train(True)
    gname = name or (type(net).__name__ if hasattr(net, "set_train")
                     else getattr(net, "__name__", "graph"))
    return _lower(captured, _input_names(net, len(args)), gname, array_of)


def _lower(captured, input_names, gname: str, array_of) -> Graph:
    from ms_ops.opdef import TENSOR
    from ms_ops.planning import plan

    names: dict[int, str] = {}
    graph = Graph([], [], [], {}, gname)
    for v, nm in zip(captured.inputs, input_names):
        names[id(v)] = nm
        graph.inputs.append(Value(nm, v.spec.shape, _dtype_name(v.spec)))
    for v, p in captured.params:
        names[id(v)] = p.name
        graph.constants[p.name] = np.array(array_of(p))
    counts: dict[str, int] = {}

    def const_name(base: str) -> str:
        k = counts.get(base, 0)
        counts[base] = k + 1
        return f"{base}_{k}"

    def ref(v) -> str:
        if id(v) not in names:
            if not v.is_const:
                raise IRError(f"graph {gname!r}: a value is used before it is computed")
            nm = v.name if v.name and v.name not in graph.constants else const_name("const")
            names[id(v)] = nm
            graph.constants[nm] = np.array(v.const)
        return names[id(v)]

    for node in captured.nodes:
        if isinstance(node.op, str):
            raise UnsupportedOperatorError(
                f"graph {gname!r}: a {node.op!r} node (control flow or a nested call) "
                "cannot be exported; export a Cell whose construct traces to operators only")
        op = node.op
        # BatchNorm writes its moving statistics only in training
        writes = op.inplace is not None or (op.writes and node.attrs.get("is_training", True))
        if op.stateful or writes or getattr(op, "side_effect_io", False):
            what = "random" if op.stateful else "in-place" if writes else "side-effect"
            raise UnsupportedOperatorError(
                f"graph {gname!r}: operator {op.name} ({what}) cannot be exported: a lite "
                "model computes a pure function of its inputs")
        nname = const_name(op.name)
        inputs, attrs, plan_args = [], dict(node.attrs), []
        for arg_def, a in zip(op.inputs, node.args):
            if arg_def.kind != TENSOR:
                attrs[arg_def.name] = a
                plan_args.append(a)
            elif a is None:
                inputs.append("")
                plan_args.append(None)
            elif hasattr(a, "spec") and hasattr(a, "is_const"):
                inputs.append(ref(a))
                plan_args.append(a.spec)
            else:  # a Python number: a constant of the dtype the operator computes in
                inputs.append(None)
                plan_args.append(a)
        if None in inputs:
            p = plan(op, plan_args, node.attrs)
            k = 0
            for i, arg_def in enumerate(op.inputs):
                if arg_def.kind != TENSOR:
                    continue
                if inputs[k] is None:
                    cname = const_name(f"{nname}.{arg_def.name}")
                    graph.constants[cname] = np.asarray(plan_args[i], p.inputs[k].dtype.np)
                    inputs[k] = cname
                k += 1
        outs = []
        for j, v in enumerate(node.outputs):
            if v.spec.dtype.kind == "c":
                raise UnsupportedOperatorError(
                    f"graph {gname!r}: operator {op.name} gives a {v.spec.dtype} result; "
                    "lite models hold real and integer tensors only")
            oname = nname if len(node.outputs) == 1 else f"{nname}:{j}"
            names[id(v)] = oname
            outs.append(oname)
            graph.values[oname] = Value(oname, v.spec.shape, _dtype_name(v.spec))
        graph.nodes.append(Node(op.name, inputs, outs, attrs, nname))
    for v in captured.outputs:
        nm = ref(v)
        graph.outputs.append(Value(nm, v.spec.shape, _dtype_name(v.spec)))
    return graph.validate()
