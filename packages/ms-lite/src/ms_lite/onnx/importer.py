"""ONNX model -> lite ``Graph`` of registry operators (MindConverter's front half).

Each ONNX node is translated by the importer registered for its operator type
(``registry.add_onnx_importer``; ms-lite's own are in ``ms_lite.onnx.import_*``). A node
whose inputs are all known at import time (initializers, ``Constant``, ``Shape`` of a
tensor of known shape, and anything computed from those) is folded by onnx's reference
evaluator instead: the shape arithmetic PyTorch exports becomes constants. A node that
cannot be translated is reported with its name and the reason, and so is every node that
depends on it; nothing is skipped silently.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from ms_lite.ir import Graph, Value
from ms_lite.onnx.context import ImportContext, Unsupported, attr

__all__ = ["NodeReport", "ImportResult", "UnsupportedOnnxError", "OnnxFileError", "load_model",
           "import_onnx", "translate_node"]

# Operators whose result is not a function of their inputs: never folded.
_RANDOM = frozenset({"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike",
                     "Multinomial", "Bernoulli"})
# Operators with subgraphs (which read outer tensors the folder does not see): translated.
_SUBGRAPH = frozenset({"If", "Loop", "Scan"})


class OnnxFileError(ValueError):
    """The file is not a readable ONNX model (missing, truncated, corrupt)."""


@dataclass
class NodeReport:
    """What became of one ONNX node: ``status`` is ``translated`` (into ``ops``),
    ``folded`` (computed at import), ``unsupported`` or ``skipped`` (needs an unsupported
    node's output)."""

    name: str
    op_type: str
    status: str
    detail: str = ""
    ops: list[str] = field(default_factory=list)

    def line(self) -> str:
        what = ", ".join(self.ops) if self.ops else self.detail
        extra = f" ({self.detail})" if self.ops and self.detail else ""
        return f"{self.name} [{self.op_type}]: {self.status}" + (f" -> {what}" if what else "") \
            + extra


@dataclass
class ImportResult:
    """The lite graph (None if some node is unsupported) and one report line per node."""

    graph: Graph | None
    nodes: list[NodeReport]
    source: str = "<model>"
    notes: list[str] = field(default_factory=list)

    @property
    def unsupported(self) -> list[NodeReport]:
        return [r for r in self.nodes if r.status in ("unsupported", "skipped")]

    def report(self) -> str:
        """The conversion report: unsupported nodes first, then every node."""
        bad = [r for r in self.nodes if r.status == "unsupported"]
        head = [f"ONNX import of {self.source}: {len(self.nodes)} nodes, "
                f"{len(bad)} unsupported, "
                f"{sum(r.status == 'skipped' for r in self.nodes)} skipped (they need an "
                "unsupported node's output)"]
        head += [f"note: {n}" for n in self.notes]
        if bad:
            head += ["", "unsupported operators:"] + [f"  {r.line()}" for r in bad]
        return "\n".join(head + ["", "nodes:"] + [f"  {r.line()}" for r in self.nodes]) + "\n"


class UnsupportedOnnxError(ValueError):
    """Some ONNX nodes have no translation; ``result.report()`` lists them by name."""

    def __init__(self, result: ImportResult):
        self.result = result
        bad = [r for r in result.nodes if r.status == "unsupported"]
        listed = "; ".join(f"node {r.name!r} ({r.op_type}): {r.detail}" for r in bad[:8])
        more = f" and {len(bad) - 8} more" if len(bad) > 8 else ""
        super().__init__(f"{result.source}: {len(bad)} ONNX node(s) cannot be converted: "
                         f"{listed}{more}")


def load_model(source):
    """An ``onnx.ModelProto`` from a path, bytes or a ModelProto; ``OnnxFileError`` naming
    the file when it cannot be read or parsed."""
    import onnx

    if isinstance(source, onnx.ModelProto):
        return source
    if isinstance(source, (bytes, bytearray)):
        what, data = "<bytes>", bytes(source)
    else:
        what = os.fspath(source)
        try:
            with open(what, "rb") as f:
                data = f.read()
        except OSError as e:
            raise OnnxFileError(f"{what}: cannot read the ONNX file: {e.strerror}") from None
    model = onnx.ModelProto()
    try:
        model.ParseFromString(data)
    except Exception as e:  # protobuf raises DecodeError or RuntimeWarning-ish errors
        raise OnnxFileError(f"{what}: not an ONNX model (truncated or corrupt protobuf: "
                            f"{e})") from None
    if not model.HasField("graph") or not model.graph.node and not model.graph.output:
        raise OnnxFileError(f"{what}: not an ONNX model (no graph in the file; "
                            f"{len(data)} bytes)")
    if what != "<bytes>" and any(t.data_location == onnx.TensorProto.EXTERNAL
                                 for t in model.graph.initializer):
        from onnx.external_data_helper import load_external_data_for_model

        try:  # weights saved beside the model (models over 2 GB, or save_as_external_data)
            load_external_data_for_model(model, os.path.dirname(os.path.abspath(what)))
        except Exception as e:  # OSError, or onnx's checker ValidationError
            raise OnnxFileError(f"{what}: cannot read its external weight data: {e}") from None
    return model


def _opset(model) -> int:
    for imp in model.opset_import:
        if imp.domain in ("", "ai.onnx"):
            return imp.version
    return 1


def _input_shape(vi, overrides, notes) -> tuple[int, ...]:
    if vi.name in overrides:
        return tuple(int(d) for d in overrides[vi.name])
    dims = []
    for d in vi.type.tensor_type.shape.dim:
        if d.HasField("dim_value") and d.dim_value > 0:
            dims.append(d.dim_value)
        else:
            notes.append(f"input {vi.name!r}: dimension {len(dims)} "
                         f"({d.dim_param or 'unknown'}) taken as 1; pass input_shapes to "
                         "choose another")
            dims.append(1)
    return tuple(dims)


def _fold(model, node, consts: dict) -> list[np.ndarray]:
    """Evaluate ``node`` on constants with onnx's reference evaluator."""
    from onnx import helper, numpy_helper
    from onnx.reference import ReferenceEvaluator

    ins = [i for i in node.input if i]
    graph = helper.make_graph(
        [node], "fold", [], [helper.make_tensor_value_info(o, 0, None) for o in node.output
                             if o],
        initializer=[numpy_helper.from_array(np.asarray(consts[i]), i) for i in set(ins)])
    m = helper.make_model(graph, opset_imports=list(model.opset_import),
                          ir_version=model.ir_version or 8)
    return [np.asarray(v) for v in ReferenceEvaluator(m).run(None, {})]


def import_onnx(source, input_shapes: dict | None = None, *, strict: bool = True,
                name: str | None = None) -> ImportResult:
    """Translate an ONNX model into a lite ``Graph`` of registry operators.

    Args:
        source: a path, the file's bytes, or an ``onnx.ModelProto``.
        input_shapes: ``{input name: shape}`` for inputs whose ONNX shape has symbolic or
            unknown dimensions (default: such a dimension is 1, and the report says so).
        strict: raise ``UnsupportedOnnxError`` when a node cannot be translated; with
            False, return the result with ``graph=None`` and the report.
        name: the graph's name (default: the ONNX graph's).
    Returns:
        ``ImportResult``.

    >>> import numpy as np, onnx
    >>> from onnx import helper, TensorProto as T
    >>> g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="act")], "tiny",
    ...                       [helper.make_tensor_value_info("x", T.FLOAT, [2, 3])],
    ...                       [helper.make_tensor_value_info("y", T.FLOAT, [2, 3])])
    >>> r = import_onnx(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]))
    >>> [(n.op, n.inputs, n.outputs) for n in r.graph.nodes]
    [('ReLU', ['x'], ['y'])]
    """
    from onnx import numpy_helper

    source_name = "<model>" if not isinstance(source, (str, os.PathLike)) else os.fspath(source)
    model = load_model(source)
    g = model.graph
    ctx = ImportContext(name or g.name or "onnx_model", _opset(model))
    ctx.model = model  # folding evaluates nodes under the model's opsets
    for init in g.initializer:
        ctx.consts[init.name] = numpy_helper.to_array(init)
    notes: list[str] = []
    for vi in g.input:
        if vi.name in ctx.consts:
            continue
        dtype = _np_dtype(vi.type.tensor_type.elem_type, vi.name)
        v = Value(vi.name, _input_shape(vi, input_shapes or {}, notes), dtype)
        ctx.graph.inputs.append(v)
        ctx.names[vi.name] = vi.name
        ctx._used.add(vi.name)
    used = {x for n in g.node for x in n.input} | {o.name for o in g.output}
    reports: list[NodeReport] = []
    poisoned: dict[str, str] = {}
    for i, node in enumerate(g.node):
        node_name = node.name or f"{node.op_type}_{i}"
        bad = [poisoned[x] for x in node.input if x in poisoned]
        if bad:
            reports.append(NodeReport(node_name, node.op_type, "skipped",
                                      f"needs the output of unsupported node {bad[0]!r}"))
            poisoned.update(dict.fromkeys(node.output, bad[0]))
            continue
        ctx.node = node
        before = len(ctx.graph.nodes)
        try:
            status = translate_node(node, ctx, used)
        except Unsupported as e:
            reports.append(NodeReport(node_name, node.op_type, "unsupported", str(e)))
            poisoned.update(dict.fromkeys(node.output, node_name))
            continue
        ops = [n.op for n in ctx.graph.nodes[before:]]
        reports.append(NodeReport(node_name, node.op_type, status, "", ops))
    result = ImportResult(None, reports, source_name, notes)
    if result.unsupported:
        if strict:
            raise UnsupportedOnnxError(result)
        return result
    for o in g.output:
        gname = ctx.tensor(o.name)
        v = ctx.spec(gname)
        ctx.graph.outputs.append(Value(gname, v.shape, v.dtype))
    result.graph = ctx.graph.validate()
    return result


def translate_node(node, ctx: ImportContext, used: set) -> str:
    """Translate (or fold) one ONNX node into ``ctx``: ``"translated"`` or ``"folded"``;
    ``Unsupported`` with the reason. ``used``: the tensor names something reads (an
    output nobody reads need not be produced). The ``If`` importer calls it for the nodes
    of its branches."""
    from ms_tensor import registry

    if node.domain not in ("", "ai.onnx"):
        raise Unsupported(f"operator domain {node.domain!r} is not the standard ONNX one")
    given = [x for x in node.input if x]
    if node.op_type == "Shape" and given and given[0] in ctx.names:
        shape = np.array(ctx.spec(ctx.names[given[0]]).shape, np.int64)
        start, end = attr(node, "start", 0), attr(node, "end", None)
        ctx.consts[node.output[0]] = shape[start:end]
        return "folded"
    if node.op_type not in _RANDOM | _SUBGRAPH and all(x in ctx.consts for x in given):
        try:
            values = _fold(ctx.model, node, ctx.consts)
        except Exception as e:
            raise Unsupported(f"folding it at import failed: {type(e).__name__}: {e}") from None
        for o, v in zip(node.output, values):
            if o:
                ctx.consts[o] = v
        return "folded"
    reg = registry.load()
    fn = reg.lookup("onnx_importer", node.op_type)
    if fn is None:
        raise Unsupported("no translation is registered for this operator type")
    fn(ctx, node)
    for o in node.output:
        if o and o not in ctx.names and o not in ctx.consts and o in used:
            raise Unsupported(f"its output {o!r} is not produced by the translation")
    return "translated"


def _np_dtype(elem_type: int, what: str) -> str:
    from onnx import helper

    try:
        return np.dtype(helper.tensor_dtype_to_np_dtype(elem_type)).name
    except Exception:
        raise OnnxFileError(f"{what}: ONNX element type {elem_type} has no numpy dtype") from None
