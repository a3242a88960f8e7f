"""A lite ``Graph`` -> an ONNX model that onnxruntime runs.

Each node is written by the exporter registered for its operator
(``registry.add_onnx_exporter``; ms-lite's own are in ``ms_lite.onnx.export_ops*``), so a
plugin's operator exports once its plugin registers one. The opset and IR version are
pinned (``OPSET``, ``IR_VERSION``): the ones onnxruntime 1.14 and later all load, and the
translations are written for that opset.
"""

from __future__ import annotations

import os

import numpy as np

__all__ = ["OPSET", "IR_VERSION", "UnsupportedExportError", "ExportContext", "export_onnx"]

OPSET = 17
IR_VERSION = 8


class UnsupportedExportError(ValueError):
    """A node's operator has no ONNX exporter, or its attributes have no ONNX form."""


class ExportContext:
    """What an exporter ``fn(ctx, node)`` writes into: ONNX nodes and initializers."""

    def __init__(self, graph):
        self.graph = graph
        self.nodes: list = []
        self.initializers: list = []
        self.node = None
        self._count = 0

    def fresh(self, base: str) -> str:
        self._count += 1
        return f"{base}/{self._count}"

    def add(self, op_type: str, inputs: list[str], outputs: list[str] | None = None,
            **attrs) -> list[str]:
        """Append one ONNX node; fresh output names unless given. Returns the outputs."""
        from onnx import helper

        outputs = outputs or [self.fresh(f"{self.node.name}/{op_type}")]
        self.nodes.append(helper.make_node(op_type, inputs, outputs,
                                           name=self.fresh(self.node.name), **attrs))
        return outputs

    def const(self, value, dtype=None, base: str = "c") -> str:
        """An initializer holding ``value``; returns its name."""
        from onnx import numpy_helper

        name = self.fresh(f"{self.node.name}/{base}")
        self.initializers.append(numpy_helper.from_array(np.asarray(value, dtype), name))
        return name

    def ints(self, values, base: str = "shape") -> str:
        return self.const(np.asarray(values, np.int64).reshape(-1), base=base)

    def rank(self, name: str) -> int:
        return len(self.graph.value(name).shape)

    def shape(self, name: str) -> tuple[int, ...]:
        return self.graph.value(name).shape

    def unsupported(self, why: str) -> UnsupportedExportError:
        n = self.node
        return UnsupportedExportError(f"node {n.name!r} ({n.op}) cannot be exported to ONNX: "
                                      f"{why}")


def _value_info(v):
    from onnx import helper

    return helper.make_tensor_value_info(
        v.name, helper.np_dtype_to_tensor_dtype(np.dtype(v.dtype)), list(v.shape))


def export_onnx(graph, file_name=None, *, opset: int = OPSET):
    """Write ``graph`` as an ONNX model (to ``file_name`` when given) and return it.

    Raises:
        UnsupportedExportError: naming the first node whose operator has no exporter (and
            listing every such operator), before anything is written.

    >>> import numpy as np
    >>> from ms_lite.ir import Graph, Node, Value
    >>> g = Graph([Value("x", (2,), "float32")], [Value("y", (2,), "float32")],
    ...           [Node("ReLU", ["x"], ["y"], {}, "relu")], {}, "tiny")
    >>> [n.op_type for n in export_onnx(g).graph.node]
    ['Relu']
    """
    import onnx
    from onnx import helper, numpy_helper

    from ms_tensor import registry

    reg = registry.load()
    missing = sorted({n.op for n in graph.nodes if reg.lookup("onnx_exporter", n.op) is None})
    if missing:
        first = next(n for n in graph.nodes if n.op in missing)
        raise UnsupportedExportError(
            f"graph {graph.name!r}: no ONNX exporter for operator(s) {', '.join(missing)} "
            f"(first at node {first.name!r}); a plugin adds one with "
            "registry.add_onnx_exporter")
    ctx = ExportContext(graph)
    for name, array in graph.constants.items():
        ctx.initializers.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
    for node in graph.nodes:
        ctx.node = node
        reg.lookup("onnx_exporter", node.op)(ctx, node)
    inputs = [_value_info(v) for v in graph.inputs]
    outputs = [_value_info(v) for v in graph.outputs]
    g = helper.make_graph(ctx.nodes, graph.name, inputs, outputs, initializer=ctx.initializers)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)],
                              ir_version=IR_VERSION, producer_name="microspore")
    onnx.checker.check_model(model)
    if file_name is not None:
        onnx.save(model, os.fspath(file_name))
    return model
