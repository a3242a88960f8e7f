"""An ms-graph ``Graph`` as TensorBoard's ``GraphDef``, for its graph dashboard.

Each operator node becomes a ``NodeDef`` named ``<Op>_<k>`` whose inputs name the nodes
that produce its arguments; graph inputs are ``Placeholder`` nodes, Parameters are
``Parameter`` nodes under their dotted name turned into a scope (``conv1/weight``), and
constants are ``Const`` nodes. Output shapes travel in ``_output_shapes``, which
TensorBoard shows on the edges. Control-flow bodies are scoped under their node.
"""

from __future__ import annotations

__all__ = ["graph_def"]


def graph_def(graph):
    """``graph`` (an ``ms_graph.ir.Graph``) as a ``GraphDef`` proto."""
    from tensorboard.compat.proto import graph_pb2

    out = graph_pb2.GraphDef()
    names: dict[int, str] = {}
    for i, v in enumerate(graph.inputs):
        names[id(v)] = _add(out, f"input_{i}", "Placeholder", [], [v.spec])
    for v, p in graph.params:
        names[id(v)] = _add(out, p.name.replace(".", "/"), "Parameter", [], [v.spec])
    _add_nodes(out, graph, names, scope="", counts={})
    return out


def _add_nodes(out, graph, names, scope, counts) -> None:
    for node in graph.nodes:
        op = node.name
        k = counts[op] = counts.get(op, -1) + 1
        name = f"{scope}{op}_{k}"
        inputs = []
        for a in node.inputs():
            src = names.get(id(a))
            if src is None:
                if a.is_const:
                    src = names[id(a)] = _add(out, f"{scope}Const_{len(names)}", "Const", [],
                                              [a.spec])
                else:  # captured from an enclosing graph that named it under another id
                    continue
            inputs.append(src if a.index == 0 or a.producer is None else f"{src}:{a.index}")
        _add(out, name, op, inputs, [v.spec for v in node.outputs])
        for v in node.outputs:
            names[id(v)] = name
        for j, sub in enumerate(node.subgraphs):
            for v in sub.inputs:
                names.setdefault(id(v), name)
            _add_nodes(out, sub, names, f"{name}/body_{j}/", counts)


def _add(out, name: str, op: str, inputs, specs) -> str:
    from tensorboard.compat.proto import attr_value_pb2, tensor_shape_pb2

    node = out.node.add(name=name, op=op, input=inputs)
    shapes = attr_value_pb2.AttrValue.ListValue()
    for s in specs:
        if s is None:
            continue
        shapes.shape.add(dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=int(d))
                              for d in s.shape])
        node.attr["dtype"].s = str(s.dtype).encode()
    node.attr["_output_shapes"].list.CopyFrom(shapes)
    return name
