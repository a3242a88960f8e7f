"""ONNX exporters of the layer and math operators: ``fn(ctx, node)`` writes ONNX nodes
computing ``node.outputs`` from ``node.inputs`` (see ``ms_lite.onnx.export``)."""

from __future__ import annotations

import math

import numpy as np

from ms_lite.onnx.export_ops_names import RENAMED

__all__ = ["same", "conv2d", "conv2d_transpose", "pool", "dense", "matmul",
           "batch_matmul", "batch_norm", "layer_norm", "softmax", "leaky_relu", "elu", "relu6",
           "hsigmoid", "gelu", "prelu", "clamp", "argmax", "reduce", "adaptive_avg_pool", "silu",
           "square", "rsqrt", "floor_mod", "shrink", "gather_d"]

def same(ctx, node) -> None:
    if node.op == "Softplus" and (node.attrs.get("beta", 1), node.attrs.get("threshold", 20)) \
            != (1, 20):
        _softplus(ctx, node, node.attrs.get("beta", 1), node.attrs.get("threshold", 20))
        return
    ctx.add(RENAMED.get(node.op, node.op), list(node.inputs), list(node.outputs))


def _softplus(ctx, node, beta, threshold) -> None:
    """softplus(beta * x) / beta, and x itself where beta * x > threshold (ONNX's Softplus
    has beta 1 and no threshold)."""
    x = node.inputs[0]
    bx = ctx.add("Mul", [x, _scalar(ctx, x, beta)])[0]
    y = ctx.add("Div", [ctx.add("Softplus", [bx])[0], _scalar(ctx, x, beta)])[0]
    linear = ctx.add("Greater", [bx, _scalar(ctx, x, threshold)])[0]
    ctx.add("Where", [linear, x, y], list(node.outputs))


def _pair(v, what, ctx) -> list[int]:
    """MindSpore's int, (h, w) or (1, 1, h, w) -> [h, w]."""
    v = (v, v) if isinstance(v, int) else tuple(v)
    if len(v) == 4:
        v = v[2:]
    if len(v) != 2:
        raise ctx.unsupported(f"{what}={v!r} is not 2-d")
    return [int(x) for x in v]


def conv2d(ctx, node) -> None:
    a = node.attrs
    if a.get("data_format", "NCHW") != "NCHW":
        raise ctx.unsupported(f"data_format {a['data_format']!r} (ONNX Conv is NCHW)")
    mode = str(a.get("pad_mode", "valid")).lower()
    kw = {"kernel_shape": _pair(a["kernel_size"], "kernel_size", ctx),
          "strides": _pair(a.get("stride", 1), "stride", ctx),
          "dilations": _pair(a.get("dilation", 1), "dilation", ctx),
          "group": int(a.get("group", 1))}
    if mode == "same":
        kw["auto_pad"] = "SAME_UPPER"
    elif mode == "pad":
        p = a.get("pad", 0)
        top, bottom, left, right = (p,) * 4 if isinstance(p, int) else tuple(p)
        kw["pads"] = [top, left, bottom, right]
    ctx.add("Conv", list(node.inputs), list(node.outputs), **kw)


def conv2d_transpose(ctx, node) -> None:
    """Conv2DBackpropInput (Conv2DTranspose) -> ConvTranspose: the pads of the forward
    convolution it inverts, and output_padding for the rows ONNX's formula leaves out."""
    a = node.attrs
    if a.get("data_format", "NCHW") != "NCHW":
        raise ctx.unsupported(f"data_format {a['data_format']!r}")
    kernel = _pair(a["kernel_size"], "kernel_size", ctx)
    strides, dil = _pair(a.get("stride", 1), "stride", ctx), _pair(a.get("dilation", 1),
                                                                    "dilation", ctx)
    out_hw = list(a["input_size"])[-2:]
    in_hw = ctx.shape(node.inputs[0])[-2:]
    mode = str(a.get("pad_mode", "valid")).lower()
    pad_list = a.get("pad_list")
    if mode == "pad" or (pad_list is not None and any(pad_list)):
        p = pad_list if pad_list is not None and any(pad_list) else a.get("pad", 0)
        top, bottom, left, right = (p,) * 4 if isinstance(p, int) else tuple(p)
    elif mode == "same":
        spans = [max((math.ceil(o / s) - 1) * s + (k - 1) * d + 1 - o, 0)
                 for o, s, k, d in zip(out_hw, strides, kernel, dil)]
        top, bottom = spans[0] // 2, spans[0] - spans[0] // 2
        left, right = spans[1] // 2, spans[1] - spans[1] // 2
    else:
        top = bottom = left = right = 0
    begins, ends = (top, left), (bottom, right)
    extra = [o - (s * (i - 1) + (k - 1) * d + 1 - b - e)
             for o, i, s, k, d, b, e in zip(out_hw, in_hw, strides, kernel, dil, begins, ends)]
    if any(x < 0 or x >= max(s, d) for x, s, d in zip(extra, strides, dil)):
        raise ctx.unsupported(f"output size {tuple(out_hw)} has no ONNX output_padding here")
    ctx.add("ConvTranspose", list(node.inputs[:2]), list(node.outputs), kernel_shape=kernel,
            strides=strides, dilations=dil, group=int(a.get("group", 1)),
            pads=[top, left, bottom, right], output_padding=extra)


def pool(ctx, node) -> None:
    """MaxPool / AvgPool (VALID or SAME; SAME's mean leaves the padding out, as ONNX's
    default count_include_pad=0 does)."""
    a = node.attrs
    if a.get("data_format", "NCHW") != "NCHW":
        raise ctx.unsupported(f"data_format {a['data_format']!r}")
    kw = {"kernel_shape": _pair(a.get("kernel_size", 1), "kernel_size", ctx),
          "strides": _pair(a.get("strides", 1), "strides", ctx)}
    if str(a.get("pad_mode", "VALID")).upper() == "SAME":
        kw["auto_pad"] = "SAME_UPPER"
    ctx.add("MaxPool" if node.op == "MaxPool" else "AveragePool", list(node.inputs),
            list(node.outputs), **kw)


def dense(ctx, node) -> None:
    """Dense(x, w, b) = x @ w.T + b: Gemm for 2-d x, MatMul and Add otherwise."""
    x, w = node.inputs[0], node.inputs[1]
    b = node.inputs[2] if len(node.inputs) > 2 and node.inputs[2] else None
    if ctx.rank(x) == 2:
        ctx.add("Gemm", [x, w] + ([b] if b else []), list(node.outputs), transB=1)
        return
    wt = ctx.add("Transpose", [w], perm=[1, 0])[0]
    y = ctx.add("MatMul", [x, wt], None if b else list(node.outputs))[0]
    if b:
        ctx.add("Add", [y, b], list(node.outputs))


def _swap_last(ctx, name) -> str:
    r = ctx.rank(name)
    return ctx.add("Transpose", [name], perm=list(range(r - 2)) + [r - 1, r - 2])[0]


def matmul(ctx, node) -> None:
    ta, tb = bool(node.attrs.get("transpose_a")), bool(node.attrs.get("transpose_b"))
    ctx.add("Gemm", list(node.inputs), list(node.outputs), transA=int(ta), transB=int(tb))


def batch_matmul(ctx, node) -> None:
    x, y = node.inputs
    if node.attrs.get("transpose_a"):
        x = _swap_last(ctx, x)
    if node.attrs.get("transpose_b"):
        y = _swap_last(ctx, y)
    ctx.add("MatMul", [x, y], list(node.outputs))


def _first_output_only(ctx, node) -> list[str]:
    users = {i for n in ctx.graph.nodes for i in n.inputs} | {v.name for v in ctx.graph.outputs}
    if any(o in users for o in node.outputs[1:]):
        raise ctx.unsupported("only its first output has an ONNX form")
    return [node.outputs[0]]


def batch_norm(ctx, node) -> None:
    if node.attrs.get("is_training"):
        raise ctx.unsupported("training-mode batch normalization")
    if node.attrs.get("data_format", "NCHW") != "NCHW":
        raise ctx.unsupported(f"data_format {node.attrs['data_format']!r}")
    ctx.add("BatchNormalization", list(node.inputs), _first_output_only(ctx, node),
            epsilon=float(node.attrs.get("epsilon", 1e-5)))


def layer_norm(ctx, node) -> None:
    a = node.attrs
    rank = ctx.rank(node.inputs[0])
    axis, params = a.get("begin_norm_axis", 1) % rank, a.get("begin_params_axis", 1) % rank
    if axis != params:
        raise ctx.unsupported(f"begin_norm_axis {axis} != begin_params_axis {params}")
    ctx.add("LayerNormalization", list(node.inputs), _first_output_only(ctx, node),
            axis=axis, epsilon=float(a.get("epsilon", 1e-7)))


def softmax(ctx, node) -> None:
    axis = node.attrs.get("axis", -1)
    if isinstance(axis, (tuple, list)):
        if len(axis) != 1:
            raise ctx.unsupported(f"softmax over several axes {axis}")
        axis = axis[0]
    ctx.add(node.op, list(node.inputs), list(node.outputs), axis=int(axis))


def leaky_relu(ctx, node) -> None:
    ctx.add("LeakyRelu", list(node.inputs), list(node.outputs),
            alpha=float(node.attrs.get("alpha", 0.2)))


def elu(ctx, node) -> None:
    ctx.add("Elu", list(node.inputs), list(node.outputs), alpha=float(node.attrs.get("alpha", 1)))


def _scalar(ctx, name, value) -> str:
    return ctx.const(value, np.dtype(ctx.graph.value(name).dtype))


def relu6(ctx, node) -> None:
    x = node.inputs[0]
    ctx.add("Clip", [x, _scalar(ctx, x, 0), _scalar(ctx, x, 6)], list(node.outputs))


def hsigmoid(ctx, node) -> None:
    ctx.add("HardSigmoid", list(node.inputs), list(node.outputs), alpha=1 / 6, beta=0.5)


def gelu(ctx, node) -> None:
    """GeLU in opset-17 operators: the erf form, or the tanh approximation."""
    x = node.inputs[0]
    if node.attrs.get("approximate", "tanh") in ("none", False):
        t = ctx.add("Div", [x, _scalar(ctx, x, math.sqrt(2.0))])[0]
        t = ctx.add("Erf", [t])[0]
    else:
        cube = ctx.add("Mul", [x, ctx.add("Mul", [x, x])[0]])[0]
        inner = ctx.add("Add", [x, ctx.add("Mul", [cube, _scalar(ctx, x, 0.044715)])[0]])[0]
        scaled = ctx.add("Mul", [inner, _scalar(ctx, x, math.sqrt(2 / math.pi))])[0]
        t = ctx.add("Tanh", [scaled])[0]
    t = ctx.add("Add", [t, _scalar(ctx, x, 1.0)])[0]
    half = ctx.add("Mul", [x, _scalar(ctx, x, 0.5)])[0]
    ctx.add("Mul", [half, t], list(node.outputs))


def prelu(ctx, node) -> None:
    """PReLU's (C,) slope, shaped (C, 1, ..., 1) to broadcast over NC... as ONNX does."""
    x, w = node.inputs
    rank = ctx.rank(x)
    if rank > 2:
        w = ctx.add("Reshape", [w, ctx.ints([-1] + [1] * (rank - 2))])[0]
    ctx.add("PRelu", [x, w], list(node.outputs))


def clamp(ctx, node) -> None:
    x, lo, hi = (list(node.inputs) + ["", ""])[:3]
    y = x
    if lo:
        y = ctx.add("Max", [y, lo], None if hi else list(node.outputs))[0]
    if hi:
        ctx.add("Min", [y, hi], list(node.outputs))


def argmax(ctx, node) -> None:
    """Argmax / Argmin (ONNX gives int64; a Cast follows for another output_type)."""
    from onnx import helper

    out_dtype = np.dtype(ctx.graph.value(node.outputs[0]).dtype) \
        if node.outputs[0] in ctx.graph.values else np.dtype(np.int64)
    op = "ArgMax" if node.op == "Argmax" else "ArgMin"
    kw = {"axis": int(node.attrs.get("axis", -1)), "keepdims": 0}
    if out_dtype == np.int64:
        ctx.add(op, list(node.inputs), list(node.outputs), **kw)
        return
    y = ctx.add(op, list(node.inputs), **kw)[0]
    ctx.add("Cast", [y], list(node.outputs), to=helper.np_dtype_to_tensor_dtype(out_dtype))


def reduce(ctx, node) -> None:
    """Reduce*: opset 17 takes ReduceSum's axes as an input, the others' as an attribute."""
    axis = node.attrs.get("axis", ())
    axes = [int(axis)] if isinstance(axis, int) else [int(a) for a in axis]
    keep = int(bool(node.attrs.get("keep_dims", False)))
    x = node.inputs[0]
    if not axes:
        axes = list(range(ctx.rank(x)))
    if node.op == "ReduceSum":
        ctx.add("ReduceSum", [x, ctx.ints(axes, "axes")], list(node.outputs), keepdims=keep)
    else:
        ctx.add(node.op, [x], list(node.outputs), axes=axes, keepdims=keep)


def silu(ctx, node) -> None:
    x = node.inputs[0]
    ctx.add("Mul", [x, ctx.add("Sigmoid", [x])[0]], list(node.outputs))


def square(ctx, node) -> None:
    ctx.add("Mul", [node.inputs[0], node.inputs[0]], list(node.outputs))


def rsqrt(ctx, node) -> None:
    ctx.add("Reciprocal", [ctx.add("Sqrt", [node.inputs[0]])[0]], list(node.outputs))


def floor_mod(ctx, node) -> None:
    """FloorMod is ONNX's Mod(fmod=0) for integers; floats need fmod=1, so x - floor(x/y)*y."""
    x, y = node.inputs
    if np.dtype(ctx.graph.value(x).dtype).kind in "iu":
        ctx.add("Mod", [x, y], list(node.outputs), fmod=0)
        return
    q = ctx.add("Floor", [ctx.add("Div", [x, y])[0]])[0]
    ctx.add("Sub", [x, ctx.add("Mul", [q, y])[0]], list(node.outputs))


def shrink(ctx, node) -> None:
    lambd = float(node.attrs.get("lambd", 0.5))
    bias = lambd if node.op == "SoftShrink" else 0.0
    ctx.add("Shrink", list(node.inputs), list(node.outputs), lambd=lambd, bias=bias)


def gather_d(ctx, node) -> None:
    ctx.add("GatherElements", list(node.inputs), list(node.outputs),
            axis=int(node.attrs["dim"]))


def adaptive_avg_pool(ctx, node) -> None:
    """GlobalAveragePool for a 1x1 output; AveragePool where the output size divides the
    input's (every window then has the same size)."""
    x = node.inputs[0]
    in_hw = ctx.shape(x)[-2:]
    out_hw = ctx.shape(node.outputs[0])[-2:]
    if tuple(out_hw) == (1, 1):
        ctx.add("GlobalAveragePool", [x], list(node.outputs))
        return
    if ctx.rank(x) != 4 or any(i % o for i, o in zip(in_hw, out_hw)):
        raise ctx.unsupported(f"output size {tuple(out_hw)} does not divide the input's "
                              f"{tuple(in_hw)} (ONNX has no adaptive pooling)")
    k = [i // o for i, o in zip(in_hw, out_hw)]
    ctx.add("AveragePool", [x], list(node.outputs), kernel_shape=k, strides=k)
