"""ONNX importers for elementwise math, activations, softmax, casts and reductions."""

from __future__ import annotations

import numpy as np

from ms_lite.onnx.context import ImportContext, Unsupported, attr

__all__ = ["UNARY", "BINARY", "unary", "binary", "variadic", "leaky_relu", "elu", "gelu",
           "hard_sigmoid", "prelu", "clip", "softmax", "cast", "reduce", "arg_reduce",
           "where", "not_", "is_inf", "mod", "shrink", "gather_elements"]

# ONNX op type -> registry operator of one tensor input, no attributes.
UNARY = {
    "Relu": "ReLU", "Sigmoid": "Sigmoid", "Tanh": "Tanh", "Exp": "Exp", "Log": "Log",
    "Sqrt": "Sqrt", "Abs": "Abs", "Neg": "Neg", "Floor": "Floor", "Ceil": "Ceil",
    "Sin": "Sin", "Cos": "Cos", "Erf": "Erf", "Reciprocal": "Reciprocal", "Sign": "Sign",
    "Softsign": "Softsign", "HardSwish": "HSwish", "Mish": "Mish", "Softplus": "Softplus",
    "Tan": "Tan", "Asin": "Asin", "Acos": "ACos", "Atan": "Atan", "Sinh": "Sinh",
    "Cosh": "Cosh", "Asinh": "Asinh", "Acosh": "Acosh", "Atanh": "Atanh", "IsNaN": "IsNan",
}
# ONNX op type -> registry operator of two broadcasting tensor inputs.
BINARY = {
    "Add": "Add", "Sub": "Sub", "Mul": "Mul", "Div": "Div", "Pow": "Pow",
    "Max": "Maximum", "Min": "Minimum", "Sum": "Add", "Equal": "Equal",
    "Greater": "Greater", "Less": "Less", "GreaterOrEqual": "GreaterEqual",
    "LessOrEqual": "LessEqual", "And": "LogicalAnd", "Or": "LogicalOr", "Xor": "LogicalXor",
}


def unary(ctx: ImportContext, node) -> None:
    ctx.emit(UNARY[node.op_type], [ctx.input(0)], out=node.output[0])


def binary(ctx: ImportContext, node) -> None:
    op = BINARY[node.op_type]
    if node.op_type == "Div" and np.dtype(ctx.in_spec(0).dtype).kind in "iu":
        raise Unsupported("integer Div (truncating) is not translated")
    ctx.emit(op, [ctx.input(0), ctx.input(1)], out=node.output[0])


def variadic(ctx: ImportContext, node) -> None:
    """Max / Min / Sum / Mean of any number of inputs, as a chain of binary operators."""
    names = [ctx.tensor(i) for i in node.input if i]
    op = BINARY.get(node.op_type, "Add")
    acc = names[0]
    for k, other in enumerate(names[1:]):
        last = k == len(names) - 2 and node.op_type != "Mean"
        acc = ctx.emit(op, [acc, other], out=node.output[0] if last else None)[0]
    if node.op_type == "Mean":
        n = ctx.add_const(np.asarray(len(names), ctx.spec(acc).dtype), f"{node.name}_count")
        ctx.emit("Div", [acc, n], out=node.output[0])
    elif len(names) == 1:
        ctx.alias(node.output[0], acc)


def leaky_relu(ctx: ImportContext, node) -> None:
    ctx.emit("LeakyReLU", [ctx.input(0)], {"alpha": attr(node, "alpha", 0.01)},
             out=node.output[0])


def elu(ctx: ImportContext, node) -> None:
    ctx.emit("Elu", [ctx.input(0)], {"alpha": attr(node, "alpha", 1.0)}, out=node.output[0])


def gelu(ctx: ImportContext, node) -> None:
    ctx.emit("GeLU", [ctx.input(0)], {"approximate": attr(node, "approximate", "none")},
             out=node.output[0])


def hard_sigmoid(ctx: ImportContext, node) -> None:
    """HardSigmoid -> HSigmoid for MindSpore's constants (1/6, 1/2), else Mul, Add, clamp."""
    alpha, beta = attr(node, "alpha", 0.2), attr(node, "beta", 0.5)
    if abs(alpha - 1 / 6) < 1e-7 and beta == 0.5:
        ctx.emit("HSigmoid", [ctx.input(0)], out=node.output[0])
        return
    dt = ctx.in_spec(0).dtype
    a = ctx.add_const(np.asarray(alpha, dt), f"{node.name}_alpha")
    y = ctx.emit("Mul", [ctx.input(0), a])[0]
    y = ctx.emit("Add", [y, ctx.add_const(np.asarray(beta, dt), f"{node.name}_beta")])[0]
    y = ctx.emit("Maximum", [y, ctx.add_const(np.asarray(0, dt), f"{node.name}_zero")])[0]
    ctx.emit("Minimum", [y, ctx.add_const(np.asarray(1, dt), f"{node.name}_one")],
             out=node.output[0])


def prelu(ctx: ImportContext, node) -> None:
    """PRelu -> PReLU with a per-channel (C,) slope."""
    x = ctx.in_spec(0)
    slope = ctx.const(1)
    channels = x.shape[1] if len(x.shape) > 1 else 1
    if slope is None or slope.size not in (1, channels):
        raise Unsupported("only a constant per-channel or scalar slope is translated")
    w = ctx.add_const(np.broadcast_to(slope.reshape(-1), (channels,)), ctx.node.input[1])
    ctx.emit("PReLU", [ctx.input(0), w], out=node.output[0])


def clip(ctx: ImportContext, node) -> None:
    """Clip -> ReLU / ReLU6 where it is one, else Maximum and Minimum with constants."""
    dt = np.dtype(ctx.in_spec(0).dtype)
    if ctx.opset < 11:
        lo, hi = attr(node, "min", None), attr(node, "max", None)
    else:
        lo = ctx.need_const(1, "min") if ctx.has(1) else None
        hi = ctx.need_const(2, "max") if ctx.has(2) else None
    lo = None if lo is None else float(np.asarray(lo))
    hi = None if hi is None else float(np.asarray(hi))
    if lo == 0.0 and hi is None:
        ctx.emit("ReLU", [ctx.input(0)], out=node.output[0])
        return
    if lo == 0.0 and hi == 6.0:
        ctx.emit("ReLU6", [ctx.input(0)], out=node.output[0])
        return
    y = ctx.input(0)
    if lo is None and hi is None:
        ctx.alias(node.output[0], y)
        return
    if lo is not None:
        y = ctx.emit("Maximum", [y, ctx.add_const(np.asarray(lo, dt), f"{node.name}_min")],
                     out=node.output[0] if hi is None else None)[0]
    if hi is not None:
        ctx.emit("Minimum", [y, ctx.add_const(np.asarray(hi, dt), f"{node.name}_max")],
                 out=node.output[0])


def softmax(ctx: ImportContext, node) -> None:
    """Softmax / LogSoftmax; before opset 13 the input is coerced to 2-d at ``axis``."""
    op = "Softmax" if node.op_type == "Softmax" else "LogSoftmax"
    shape = ctx.in_spec(0).shape
    rank = len(shape)
    if ctx.opset >= 13:
        ctx.emit(op, [ctx.input(0)], {"axis": attr(node, "axis", -1)}, out=node.output[0])
        return
    axis = attr(node, "axis", 1) % max(rank, 1)
    if axis == rank - 1:
        ctx.emit(op, [ctx.input(0)], {"axis": -1}, out=node.output[0])
        return
    flat = (int(np.prod(shape[:axis])), int(np.prod(shape[axis:])))
    y = ctx.emit("Reshape", [ctx.input(0)], {"input_shape": flat})[0]
    y = ctx.emit(op, [y], {"axis": -1})[0]
    ctx.emit("Reshape", [y], {"input_shape": tuple(shape)}, out=node.output[0])


def cast(ctx: ImportContext, node) -> None:
    from onnx import helper

    from ms_tensor import dtype as mstype

    to = np.dtype(helper.tensor_dtype_to_np_dtype(attr(node, "to")))
    try:
        dt = mstype.from_numpy(to)
    except Exception:
        raise Unsupported(f"cast to {to} has no microspore dtype") from None
    ctx.emit("Cast", [ctx.input(0)], {"dtype": dt}, out=node.output[0])


def _axes(ctx: ImportContext, node, since: int) -> list[int] | None:
    """The ``axes`` attribute (before opset ``since``) or input 1 (from it on)."""
    if ctx.opset < since:
        return attr(node, "axes", None)
    if not ctx.has(1):
        return None
    return [int(a) for a in ctx.need_const(1, "axes")]


_REDUCE = {"ReduceMean": "ReduceMean", "ReduceSum": "ReduceSum", "ReduceMax": "ReduceMax",
           "ReduceMin": "ReduceMin", "ReduceProd": "ReduceProd"}


def reduce(ctx: ImportContext, node) -> None:
    """Reduce* -> the registry's reduction with ``axis`` and ``keep_dims``."""
    axes = _axes(ctx, node, 13 if node.op_type == "ReduceSum" else 18)
    if not axes and attr(node, "noop_with_empty_axes", 0):
        ctx.alias(node.output[0], ctx.input(0))
        return
    rank = len(ctx.in_spec(0).shape)
    axis = tuple(range(rank)) if not axes else tuple(a % rank for a in axes)
    ctx.emit(_REDUCE[node.op_type], [ctx.input(0)],
             {"axis": axis, "keep_dims": bool(attr(node, "keepdims", 1))}, out=node.output[0])


def arg_reduce(ctx: ImportContext, node) -> None:
    """ArgMax / ArgMin -> Argmax / Argmin (int64), with ExpandDims for keepdims."""
    from ms_tensor import dtype as mstype

    if attr(node, "select_last_index", 0):
        raise Unsupported("select_last_index=1 is not translated")
    axis = attr(node, "axis", 0)
    op = "Argmax" if node.op_type == "ArgMax" else "Argmin"
    keep = attr(node, "keepdims", 1)
    attrs = {"axis": axis, "output_type": mstype.int64}
    y = ctx.emit(op, [ctx.input(0)], attrs, out=None if keep else node.output[0])[0]
    if keep:
        rank = len(ctx.in_spec(0).shape)
        ctx.emit("ExpandDims", [y], {"axis": axis % rank}, out=node.output[0])


def where(ctx: ImportContext, node) -> None:
    """Where -> Select, its three inputs broadcast to one shape first."""
    shapes = [ctx.in_spec(i).shape for i in range(3)]
    target = tuple(np.broadcast_shapes(*shapes))
    ins = []
    for i, s in enumerate(shapes):
        name = ctx.input(i)
        if tuple(s) != target:
            name = ctx.emit("BroadcastTo", [name], {"shape": target})[0]
        ins.append(name)
    ctx.emit("Select", ins, out=node.output[0])


def is_inf(ctx: ImportContext, node) -> None:
    if not (attr(node, "detect_positive", 1) and attr(node, "detect_negative", 1)):
        raise Unsupported("IsInf of one sign only is not translated")
    ctx.emit("IsInf", [ctx.input(0)], out=node.output[0])


def mod(ctx: ImportContext, node) -> None:
    """Mod: Python's remainder (fmod=0, the divisor's sign) is FloorMod; C's fmod is Mod."""
    op = "Mod" if attr(node, "fmod", 0) else "FloorMod"
    ctx.emit(op, [ctx.input(0), ctx.input(1)], out=node.output[0])


def shrink(ctx: ImportContext, node) -> None:
    """Shrink is SoftShrink when bias == lambd and HShrink when bias == 0."""
    lambd, bias = attr(node, "lambd", 0.5), attr(node, "bias", 0.0)
    if bias == lambd:
        ctx.emit("SoftShrink", [ctx.input(0)], {"lambd": lambd}, out=node.output[0])
    elif bias == 0:
        ctx.emit("HShrink", [ctx.input(0)], {"lambd": lambd}, out=node.output[0])
    else:
        raise Unsupported(f"bias {bias} is neither 0 nor lambd {lambd}")


def gather_elements(ctx: ImportContext, node) -> None:
    rank = len(ctx.in_spec(0).shape)
    ctx.emit("GatherD", [ctx.input(0), ctx.input(1)], {"dim": attr(node, "axis", 0) % rank},
             out=node.output[0])


def not_(ctx: ImportContext, node) -> None:
    ctx.emit("LogicalNot", [ctx.input(0)], out=node.output[0])
