"""A MINDIR file (ours, or MindSpore 2.10's for the operators below) -> a lite ``Graph``.

MindSpore's bookkeeping nodes are resolved here: ``Load(param, monad)`` is the parameter,
``Depend(x, ...)`` is ``x``, ``UpdateState``/``MakeTuple`` only order side effects.
``BiasAdd`` becomes ``Add`` (the registry has no BiasAdd). Shapes come from the
registry's inference, as everywhere in ms-lite.
"""

from __future__ import annotations

import os
from types import SimpleNamespace

import numpy as np

from ms_lite.mindir import mind_ir_pb2 as pb
from ms_lite.mindir.attrs import TYPES, from_attr
from ms_lite.mindir.native import OPTIONS, from_mindspore

__all__ = ["MindirFileError", "load_mindir"]

_BOOKKEEPING = {"UpdateState"}
_PLAIN = {"ReLU", "Sigmoid", "Tanh", "Add", "Sub", "Mul", "Div", "Flatten", "Exp", "Log",
          "Sqrt", "Neg", "Abs", "Maximum", "Minimum", "ReLU6", "Erf", "Pow"}


class MindirFileError(ValueError):
    """The file is not a MINDIR model this reader understands; the message names it."""


def _parse(path: str) -> pb.ModelProto:
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise MindirFileError(f"{path}: cannot read the MINDIR file: {e.strerror}") from None
    model = pb.ModelProto()
    try:
        model.ParseFromString(data)
    except Exception as e:
        raise MindirFileError(f"{path}: not a MINDIR model (truncated or corrupt protobuf: "
                              f"{e})") from None
    if not model.HasField("graph") or not model.graph.output:
        raise MindirFileError(f"{path}: not a MINDIR model (no graph with outputs; "
                              f"{len(data)} bytes)")
    return model


def _array(t: pb.TensorProto, path: str) -> np.ndarray:
    if t.data_type not in TYPES:
        raise MindirFileError(f"{path}: parameter {t.name!r} has data type {t.data_type}, "
                              "which microspore does not read")
    dtype = np.dtype(TYPES[t.data_type]).newbyteorder("<")
    count = int(np.prod(t.dims)) if len(t.dims) else 1
    if len(t.raw_data) != count * dtype.itemsize:
        raise MindirFileError(f"{path}: parameter {t.name!r} holds {len(t.raw_data)} bytes "
                              f"for shape {tuple(t.dims)} {dtype.name} (external or "
                              "truncated data is not read)")
    return np.frombuffer(t.raw_data, dtype).astype(dtype.newbyteorder("=")).reshape(
        tuple(t.dims))


def _last2(v) -> tuple:
    v = (v, v) if isinstance(v, int) else tuple(v)
    return tuple(v[-2:])


def _translate(ctx, op: str, prim, ins: list, out: str):
    """Emit the registry form of MINDIR primitive ``op``; ``ins`` are graph names or
    Python constants."""
    attrs = {a.name: from_attr(a) for a in prim.attribute
             if a.name not in ("input_names", "output_names")}
    ins = [ctx.add_const(i, f"{out}_const") if isinstance(i, np.ndarray) else i for i in ins]
    tensors = [i for i in ins if isinstance(i, str)]
    if op in OPTIONS and prim.instance_name != "microspore_generic":
        values = [i for i in ins if not isinstance(i, str)]
        try:
            opts = from_mindspore(op, values)
        except ValueError as e:
            raise MindirFileError(str(e)) from None
        if op == "BatchNorm":
            opts["data_format"] = "NCHW"
        return ctx.emit(op, tensors, opts, out=[out])
    if op == "Concat":
        parts = ins[0] if isinstance(ins[0], tuple) else tuple(tensors)
        acc = parts[0]
        for k, p in enumerate(parts[1:]):
            last = k == len(parts) - 2
            acc = ctx.emit("Concat", [acc, p], {"axis": int(ins[-1])}, out=out if last else None)[0]
        return [acc]
    if op in _PLAIN:
        return ctx.emit(op, tensors, out=out)
    if op == "Conv2D":
        mode = str(attrs.get("pad_mode", "valid")).lower()
        pad = attrs.get("pad_list" if mode == "pad" else "pad", 0)
        return ctx.emit("Conv2D", tensors, {
            "out_channel": attrs["out_channel"], "kernel_size": _last2(attrs["kernel_size"]),
            "mode": attrs.get("mode", 1), "pad_mode": mode,
            "pad": tuple(pad) if isinstance(pad, (tuple, list)) else pad,
            "stride": _last2(attrs.get("stride", 1)), "dilation": _last2(attrs.get("dilation", 1)),
            "group": attrs.get("group", 1)}, out=out)
    if op == "AvgPool" and len(ins) == 5:  # MindSpore 2.x: a primitive function
        modes = {0: "PAD", 1: "SAME", 2: "VALID"}
        if ins[4] != 0 or ins[3] not in (1, 2):
            raise MindirFileError(f"AvgPool with pad_mode {ins[3]} / data_format {ins[4]}")
        return ctx.emit(op, tensors[:1], {"kernel_size": _last2(ins[1]),
                                          "strides": _last2(ins[2]), "pad_mode": modes[ins[3]]},
                        out=out)
    if op in ("MaxPool", "AvgPool"):
        return ctx.emit(op, tensors, {
            "kernel_size": _last2(attrs.get("kernel_size", 1)),
            "strides": _last2(attrs.get("strides", 1)),
            "pad_mode": str(attrs.get("pad_mode", "VALID")).upper()}, out=out)
    if op == "MatMul":
        flags = [i for i in ins if not isinstance(i, str)]
        ta = flags[0] if flags else attrs.get("transpose_a", False)
        tb = flags[1] if len(flags) > 1 else attrs.get("transpose_b", False)
        return ctx.emit("MatMul", tensors, {"transpose_a": bool(ta), "transpose_b": bool(tb)},
                        out=out)
    if op == "BiasAdd":
        x, b = tensors
        rank = len(ctx.spec(x).shape)
        if rank > 2:
            c = ctx.spec(b).shape[0]
            b = ctx.emit("Reshape", [b], {"input_shape": (1, c) + (1,) * (rank - 2)})[0]
        return ctx.emit("Add", [x, b], out=out)
    if op == "Reshape":
        return ctx.emit("Reshape", tensors[:1], {"input_shape": tuple(ins[1])}, out=out)
    if op in ("Softmax", "LogSoftmax"):
        axis = ins[1] if len(ins) > 1 else attrs.get("axis", -1)
        axis = axis[0] if isinstance(axis, (tuple, list)) and len(axis) == 1 else axis
        return ctx.emit(op, tensors[:1], {"axis": axis}, out=out)
    if prim.instance_name == "microspore_generic":
        return _generic(ctx, op, prim, ins, out)
    raise MindirFileError(f"operator {op!r} is not read by microspore's MINDIR reader")


def _generic(ctx, op, prim, ins, out):
    """A node microspore wrote in its generic encoding: attributes and static inputs are
    primitive attributes, every input a tensor (None: an optional one left out)."""
    from ms_tensor import dtype as mstype

    attrs = {}
    for a in prim.attribute:
        v = from_attr(a)
        attrs[a.name] = mstype.from_numpy(np.dtype(v)) if a.doc_string == "dtype" else v
    tensors = ["" if i is None else i for i in ins]
    if any(not isinstance(i, str) for i in tensors):
        raise MindirFileError(f"operator {op!r}: a constant input in the generic encoding")
    return ctx.emit(op, tensors, attrs, out=[out])


def load_mindir(file_name, name: str | None = None):
    """Read a MINDIR file into a lite ``Graph``; ``MindirFileError`` names the file and the
    node for what cannot be read."""
    from ms_lite.ir import Value
    from ms_lite.onnx.context import ImportContext, Unsupported

    path = os.fspath(file_name)
    model = _parse(path)
    g = model.graph
    prefix = f"{g.name}:"

    def short(n: str) -> str:
        return n[len(prefix):] if n.startswith(prefix) else n

    ctx = ImportContext(name or g.name.removesuffix("_graph") or "mindir", 0)
    env: dict[str, object] = {}  # MINDIR name -> graph name (str) or Python value
    for vi in g.input:
        if not vi.tensor:
            raise MindirFileError(f"{path}: input {vi.name!r} has no tensor type")
        t = vi.tensor[0]
        v = Value(short(vi.name), tuple(t.dims), TYPES.get(t.data_type, "float32"))
        ctx.graph.inputs.append(v)
        ctx._used.add(v.name)
        env[vi.name] = v.name
    for t in g.parameter:
        env[t.name] = ctx.add_const(_array(t, path), t.ref_key or short(t.name))
    prims = {p.name: p for p in model.primitives}
    for node in g.node:
        if node.op_type == "Constant":
            a = next(a for a in node.attribute if a.name == "value")
            env[node.output[0]] = None if a.type in (a.UMONAD, a.IOMONAD) else from_attr(a)
            continue
        pname = node.op_type.removeprefix("REF::")
        prim = prims.get(pname)
        op = prim.op_type if prim is not None else pname.split(":")[0]
        if op in _BOOKKEEPING:
            continue
        if op == "MakeTuple":
            env[node.output[0]] = tuple(env[i] for i in node.input)
            continue
        if op == "TupleGetItem":
            env[node.output[0]] = env[node.input[0]][env[node.input[1]]]
            continue
        if op in ("Load", "Depend"):
            env[node.output[0]] = env[node.input[0]]
            continue
        try:
            ins = [env[i] for i in node.input]
        except KeyError as e:
            raise MindirFileError(f"{path}: node {node.name!r} reads {e.args[0]!r}, which is "
                                  "not defined before it") from None
        ctx.node = SimpleNamespace(name=short(node.name), op_type=op, input=[])
        try:
            outs = _translate(ctx, op, prim or pb.PrimitiveProto(), ins, short(node.output[0]))
            env[node.output[0]] = outs[0] if len(outs) == 1 else tuple(outs)
        except (Unsupported, MindirFileError, KeyError, TypeError) as e:
            raise MindirFileError(f"{path}: node {node.name!r} ({op}): {e}") from None
    for vi in g.output:
        out = env.get(vi.name)
        outs = out if isinstance(out, tuple) else (out,)  # a network returning a tuple
        if not all(isinstance(o, str) for o in outs):
            raise MindirFileError(f"{path}: output {vi.name!r} is not a tensor microspore reads")
        for o in outs:
            v = ctx.spec(o)
            ctx.graph.outputs.append(Value(o, v.shape, v.dtype))
    return ctx.graph.validate()
