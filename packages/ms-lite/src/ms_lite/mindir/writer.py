"""A lite ``Graph`` -> a MINDIR file that MindSpore 2.10's ``ms.load`` + ``nn.GraphCell``
runs.

The layout follows what MindSpore 2.10 exports: one ``GraphProto`` whose weights are
``parameter`` tensors (named ``<graph>:<name>`` with ``ref_key`` the Parameter's name),
nodes whose ``op_type`` is ``REF::<Op>:<id>`` pointing into ``ModelProto.primitives``,
Python values as ``Constant`` nodes, ``mind_ir_version`` 3. Operators that MindSpore 2.x
defines as *primitive functions* take their options as inputs (``MatMul(x, w, False,
True)``); the older ones keep them as primitive attributes (``Conv2D``, ``MaxPool``).
"""

from __future__ import annotations

import os

import numpy as np

from ms_lite.mindir import mind_ir_pb2 as pb
from ms_lite.mindir.attrs import DTYPES, to_attr
from ms_lite.mindir.native import MULTI, OPTIONS, to_mindspore

__all__ = ["MindirExportError", "to_mindir", "save_mindir", "WRITERS", "mindspore_native"]

A = pb.AttributeProto
PF, PRIM = pb.PrimitiveProto.PRIMITIVE_FUNCTION, pb.PrimitiveProto.PRIMITIVE


class MindirExportError(ValueError):
    """A node has no MINDIR form here; the message names it."""


class _Writer:
    def __init__(self, graph):
        self.graph = graph
        # model_version: the MindSpore release whose encoding the file follows.
        self.model = pb.ModelProto(ir_version="1.1", producer_name="microspore",
                                   model_version="2.10.0", little_endian=True,
                                   mind_ir_version=3)
        self.g = self.model.graph
        self.g.name = f"{graph.name}_graph"
        self.names: dict[str, str] = {}
        self.count = 0
        self.node = None

    def full(self, name: str) -> str:
        return f"{self.g.name}:{name}"

    def ref(self, name: str) -> str:
        return self.names[name]

    def const(self, value) -> str:
        self.count += 1
        name = f"ValueNode_{self.count}"
        self.g.node.add(output=[name], name=name, op_type="Constant",
                        attribute=[to_attr("value", value)])
        return name

    def none(self) -> str:
        """A Constant None: an optional tensor input left out."""
        self.count += 1
        name = f"ValueNode_{self.count}"
        self.g.node.add(output=[name], name=name, op_type="Constant",
                        attribute=[A(name="value", type=A.NONE)])
        return name

    def prim(self, op: str, inputs: list[str], out: str | None = None, attrs=None,
             kind=PF, out_value=None) -> str:
        """A node calling primitive ``op``; returns its output's name."""
        self.count += 1
        pname = f"{op}:{self.count}"
        self.model.primitives.add(name=pname, op_type=op, prim_type=kind, instance_name="",
                                  attribute=[to_attr(k, v) for k, v in (attrs or {}).items()])
        out_name = self.full(f"{op}_{self.count}")
        node = self.g.node.add(input=inputs, output=[out_name], name=out_name,
                               op_type=f"REF::{pname}", domain=f"Default/{op}-op{self.count}")
        v = self.graph.values.get(out_value or out) if (out_value or out) else None
        if v is not None and v.dtype in DTYPES:
            node.attribute.append(A(name="shape", type=A.TENSORS, tensors=[
                pb.TensorProto(dims=list(v.shape), data_type=DTYPES[v.dtype])]))
        if out is not None:
            self.names[out] = out_name
        return out_name

    def fail(self, why: str) -> MindirExportError:
        n = self.node
        return MindirExportError(f"node {n.name!r} ({n.op}) cannot be written to MINDIR: {why}")


def _quad(v) -> tuple:
    v = (v, v) if isinstance(v, int) else tuple(v)
    return (1, 1) + tuple(v[-2:])


def _conv2d(w, node):
    a = node.attrs
    pad = a.get("pad", 0)
    pad = (pad,) * 4 if isinstance(pad, int) else tuple(pad)
    mode = str(a.get("pad_mode", "valid")).lower()
    attrs = {"kernel_size": tuple(a["kernel_size"]), "mode": int(a.get("mode", 1)),
             "out_channel": int(a["out_channel"]), "input_names": ["x", "w"], "pad": pad,
             "pad_mode": mode, "format": "NCHW", "pad_list": pad if mode == "pad" else (0,) * 4,
             "groups": int(a.get("group", 1)), "stride": _quad(a.get("stride", 1)),
             "group": int(a.get("group", 1)), "dilation": _quad(a.get("dilation", 1)),
             "output_names": ["output"]}
    w.prim("Conv2D", [w.ref(i) for i in node.inputs], node.outputs[0], attrs, PRIM)


def _pool(w, node):
    a = node.attrs
    attrs = {"pad_mode": str(a.get("pad_mode", "VALID")).upper(), "output_names": ["output"],
             "kernel_size": _quad(a.get("kernel_size", 1)), "format": "NCHW",
             "strides": _quad(a.get("strides", 1)), "input_names": ["x"]}
    w.prim(node.op, [w.ref(node.inputs[0])], node.outputs[0], attrs, PRIM)


_PAD_MODE = {"PAD": 0, "SAME": 1, "VALID": 2}  # MindSpore's PadMode enum


def _avg_pool(w, node):
    """AvgPool is a primitive function in MindSpore 2.x: (x, kernel_size, strides,
    pad_mode as PadMode, data_format as Format (0: NCHW))."""
    a = node.attrs
    if a.get("data_format", "NCHW") != "NCHW":
        raise w.fail(f"data_format {a['data_format']!r}")
    ins = [w.ref(node.inputs[0]), w.const(_last2(a.get("kernel_size", 1))),
           w.const(_last2(a.get("strides", 1))),
           w.const(_PAD_MODE[str(a.get("pad_mode", "VALID")).upper()]), w.const(0)]
    w.prim("AvgPool", ins, node.outputs[0])


def _last2(v) -> tuple:
    v = (v, v) if isinstance(v, int) else tuple(v)
    return tuple(int(x) for x in v[-2:])


def _plain(w, node):
    w.prim(node.op, [w.ref(i) for i in node.inputs], node.outputs[0])


def _reshape(w, node):
    shape = tuple(w.graph.values[node.outputs[0]].shape) if node.outputs[0] in w.graph.values \
        else tuple(node.attrs["input_shape"])
    w.prim("Reshape", [w.ref(node.inputs[0]), w.const(shape)], node.outputs[0])


def _softmax(w, node):
    """Softmax takes its axis as a tuple, LogSoftmax as an int (MindSpore 2.10)."""
    axis = node.attrs.get("axis", -1)
    if node.op == "Softmax":
        axis = tuple(axis) if isinstance(axis, (tuple, list)) else (int(axis),)
    elif isinstance(axis, (tuple, list)):
        if len(axis) != 1:
            raise w.fail(f"LogSoftmax over axes {axis}")
        axis = int(axis[0])
    w.prim(node.op, [w.ref(node.inputs[0]), w.const(axis)], node.outputs[0])


def _matmul(w, node):
    ta, tb = bool(node.attrs.get("transpose_a")), bool(node.attrs.get("transpose_b"))
    w.prim("MatMul", [w.ref(i) for i in node.inputs] + [w.const(ta), w.const(tb)],
           node.outputs[0])


def _dense(w, node):
    """Dense as MindSpore's nn.Dense is exported: MatMul(x, w, False, True), BiasAdd."""
    x, wt = w.ref(node.inputs[0]), w.ref(node.inputs[1])
    has_b = len(node.inputs) > 2 and node.inputs[2]
    y = w.prim("MatMul", [x, wt, w.const(False), w.const(True)],
               None if has_b else node.outputs[0], out_value=node.outputs[0])
    if has_b:
        w.prim("BiasAdd", [y, w.ref(node.inputs[2]), w.const(0)], node.outputs[0])


def _generic(w, node):
    """An operator MindSpore 2.10's encoding is not written for here: a PRIMITIVE node of
    the registry's (MindSpore's) name with every attribute and static input as a primitive
    attribute. microspore reads it back; MindSpore may not run it."""
    from ms_tensor.dtype import DType

    protos = []
    for k, v in node.attrs.items():
        if isinstance(v, DType):
            a = to_attr(k, np.dtype(v.np).name)
            a.doc_string = "dtype"
        else:
            try:
                a = to_attr(k, v)
            except TypeError as e:
                raise w.fail(str(e)) from None
        protos.append(a)
    from ms_lite.onnx.pygen import n_outputs

    ins = [w.ref(i) if i else w.none() for i in node.inputs]
    several = n_outputs(w.graph, node) > 1
    out = w.prim(node.op, ins, None if several else node.outputs[0], kind=PRIM,
                 out_value=node.outputs[0])
    w.model.primitives[-1].attribute.extend(protos)
    w.model.primitives[-1].instance_name = "microspore_generic"
    if several:  # a tuple: each output the graph names through TupleGetItem
        for j, o in enumerate(node.outputs):
            w.prim("TupleGetItem", [out, w.const(j)], o, kind=PRIM)


def _options(w, node):
    """A primitive function whose options are Constant inputs (``native.OPTIONS``)."""
    from ms_tensor import registry

    op = registry.load().primitive(node.op)
    defaults = {a.name: a.default for a in list(op.attrs) + list(op.inputs)}
    consts = [w.const(v) for v in to_mindspore(node.op, node.attrs, defaults)]
    tensors = [w.ref(i) for i in node.inputs if i]
    if node.op not in MULTI:
        w.prim(node.op, tensors + consts, node.outputs[0])
        return
    out = w.prim(node.op, tensors + consts)  # a tuple: no one tensor shape to state
    w.prim("TupleGetItem", [out, w.const(0)], node.outputs[0], kind=PRIM)


def _concat(w, node):
    """Concat((a, b), axis): its tensors arrive as one MakeTuple."""
    pair = w.prim("MakeTuple", [w.ref(i) for i in node.inputs], kind=PRIM)
    w.prim("Concat", [pair, w.const(int(node.attrs.get("axis", 0)))], node.outputs[0])


WRITERS = {
    **dict.fromkeys(OPTIONS, _options), "Concat": _concat,
    "Conv2D": _conv2d, "MaxPool": _pool, "AvgPool": _avg_pool, "Reshape": _reshape,
    "Softmax": _softmax, "LogSoftmax": _softmax, "MatMul": _matmul, "Dense": _dense,
    **dict.fromkeys(("ReLU", "Sigmoid", "Tanh", "Add", "Sub", "Mul", "Div", "Flatten",
                     "Exp", "Log", "Sqrt", "Neg", "Abs", "Maximum", "Minimum", "ReLU6", "Erf",
                     "Pow"), _plain),
}


def mindspore_native(graph) -> bool:
    """Whether every node of ``graph`` is written in MindSpore 2.10's own encoding (so
    MindSpore's ``ms.load`` runs the file), not microspore's generic one."""
    return all(n.op in WRITERS for n in graph.nodes)


def to_mindir(graph) -> pb.ModelProto:
    """The ``ModelProto`` of ``graph``; ``MindirExportError`` names an unsupported node."""
    from ms_tensor import registry

    reg = registry.load()
    missing = sorted({n.op for n in graph.nodes
                      if n.op not in WRITERS and reg.primitive(n.op) is None})
    if missing:
        first = next(n for n in graph.nodes if n.op in missing)
        raise MindirExportError(f"graph {graph.name!r}: no MINDIR form for operator(s) "
                                f"{', '.join(missing)} (first at node {first.name!r}): not "
                                "registry primitives")
    w = _Writer(graph)
    for v in graph.inputs:
        if v.dtype not in DTYPES:
            reader = next((n for n in graph.nodes if v.name in n.inputs), None)
            raise MindirExportError(
                f"input {v.name!r}" + (f" of {reader.op} node {reader.name!r}" if reader
                                      else "") + f": dtype {v.dtype} has no MINDIR type")
        w.names[v.name] = w.full(v.name)
        w.g.input.add(name=w.full(v.name), tensor=[pb.TensorProto(
            dims=list(v.shape), data_type=DTYPES[v.dtype])])
    for name, array in graph.constants.items():
        array = np.ascontiguousarray(array)
        if array.dtype.name not in DTYPES:
            raise MindirExportError(f"constant {name!r}: dtype {array.dtype} has no MINDIR type")
        w.names[name] = w.full(name)
        w.g.parameter.add(name=w.full(name), ref_key=name, dims=list(array.shape),
                          data_type=DTYPES[array.dtype.name],
                          raw_data=array.astype(array.dtype.newbyteorder("<")).tobytes())
    for node in graph.nodes:
        w.node = node
        WRITERS.get(node.op, _generic)(w, node)
    for v in graph.outputs:
        if v.dtype not in DTYPES:
            raise MindirExportError(f"graph {graph.name!r}: output {v.name!r}: dtype {v.dtype} "
                                    "has no MINDIR type")
        w.g.output.add(name=w.ref(v.name), tensor=[pb.TensorProto(
            dims=list(v.shape), data_type=DTYPES[v.dtype])])
    return w.model


def save_mindir(graph, file_name) -> str:
    """Write ``graph`` to ``file_name`` (``.mindir`` is added, as ``ms.export`` does);
    returns the path written."""
    path = os.fspath(file_name)
    if not path.endswith(".mindir"):
        path += ".mindir"
    data = to_mindir(graph).SerializeToString()
    with open(path, "wb") as f:
        f.write(data)
    return path
