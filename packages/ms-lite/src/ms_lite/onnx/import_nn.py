"""ONNX importers for the layer operators: Conv, Gemm/MatMul, pooling, normalization.

Each is ``fn(ctx, node)`` (see ``ms_lite.onnx.context``): it reads the node's inputs,
emits registry operators with MindSpore's attribute conventions (NCHW, pads as
``(top, bottom, left, right)``) and binds the node's outputs.
"""

from __future__ import annotations

import math

import numpy as np

from ms_lite.onnx.context import ImportContext, Unsupported, attr

__all__ = ["conv", "conv_transpose", "gemm", "matmul", "max_pool", "average_pool",
           "global_average_pool", "global_max_pool", "batch_normalization", "layer_normalization"]


def _explicit_pads(node, spatial, kernel, strides, dilations) -> list[int]:
    """ONNX ``pads`` (begins then ends) with ``auto_pad`` resolved for these sizes."""
    auto = attr(node, "auto_pad", "NOTSET")
    n = len(spatial)
    if auto in ("NOTSET", ""):
        pads = list(attr(node, "pads", [0] * 2 * n))
    elif auto == "VALID":
        pads = [0] * 2 * n
    elif auto in ("SAME_UPPER", "SAME_LOWER"):
        pads = [0] * 2 * n
        for i, (size, k, s, d) in enumerate(zip(spatial, kernel, strides, dilations)):
            total = max((math.ceil(size / s) - 1) * s + (k - 1) * d + 1 - size, 0)
            small, big = total // 2, total - total // 2
            pads[i], pads[i + n] = (small, big) if auto == "SAME_UPPER" else (big, small)
    else:
        raise Unsupported(f"auto_pad {auto!r} is not an ONNX value")
    if any(p < 0 for p in pads):
        raise Unsupported(f"negative pads {pads} are not translated")
    return pads


def _bias4d(ctx: ImportContext, i: int, channels: int) -> str:
    b = ctx.const(i)
    if b is not None:
        return ctx.add_const(b.reshape(1, channels, 1, 1), f"{ctx.node.input[i]}_nchw")
    return ctx.emit("Reshape", [ctx.input(i)], {"input_shape": (1, channels, 1, 1)})[0]


def conv(ctx: ImportContext, node) -> None:
    """Conv (2-d) -> Conv2D with explicit pads, then Add of the bias."""
    x, w = ctx.in_spec(0), ctx.in_spec(1)
    if len(w.shape) != 4:
        raise Unsupported(f"only 2-d convolution is translated; the weight has shape {w.shape}")
    kernel = tuple(w.shape[2:])
    strides = tuple(attr(node, "strides", [1, 1]))
    dilations = tuple(attr(node, "dilations", [1, 1]))
    pads = _explicit_pads(node, x.shape[2:], kernel, strides, dilations)
    top, left, bottom, right = pads
    attrs = {"out_channel": w.shape[0], "kernel_size": kernel, "mode": 1,
             "pad_mode": "pad" if any(pads) else "valid", "pad": (top, bottom, left, right),
             "stride": strides, "dilation": dilations, "group": attr(node, "group", 1)}
    if not ctx.has(2):
        ctx.emit("Conv2D", [ctx.input(0), ctx.input(1)], attrs, out=node.output[0])
        return
    y = ctx.emit("Conv2D", [ctx.input(0), ctx.input(1)], attrs)[0]
    ctx.emit("Add", [y, _bias4d(ctx, 2, w.shape[0])], out=node.output[0])


def conv_transpose(ctx: ImportContext, node) -> None:
    """ConvTranspose (2-d) -> Conv2DBackpropInput (MindSpore's Conv2DTranspose): the input
    gradient of the convolution whose weight ONNX's W is, at the output size ONNX states."""
    x, w = ctx.in_spec(0), ctx.in_spec(1)
    if len(w.shape) != 4:
        raise Unsupported(f"only 2-d transposed convolution is translated; weight {w.shape}")
    group = attr(node, "group", 1)
    kernel = tuple(w.shape[2:])
    strides = tuple(attr(node, "strides", [1, 1]))
    dilations = tuple(attr(node, "dilations", [1, 1]))
    extra = tuple(attr(node, "output_padding", [0, 0]))
    if attr(node, "output_shape") is not None or attr(node, "auto_pad", "NOTSET") != "NOTSET":
        raise Unsupported("output_shape / auto_pad forms are not translated (give pads)")
    pads = list(attr(node, "pads", [0, 0, 0, 0]))
    size = [s * (i - 1) + e + (k - 1) * d + 1 - pads[j] - pads[j + 2]
            for j, (i, s, e, k, d) in enumerate(zip(x.shape[2:], strides, extra, kernel,
                                                     dilations))]
    top, left, bottom, right = pads[0], pads[1], pads[2] - extra[0], pads[3] - extra[1]
    if bottom < 0 or right < 0:
        raise Unsupported(f"output_padding {extra} larger than the end pads {pads[2:]}")
    attrs = {"out_channel": w.shape[0], "kernel_size": kernel, "pad_mode": "pad",
             "pad": (top, bottom, left, right), "stride": strides, "dilation": dilations,
             "group": group, "input_size": (x.shape[0], w.shape[1] * group, *size)}
    out = None if ctx.has(2) else node.output[0]
    y = ctx.emit("Conv2DBackpropInput", [ctx.input(0), ctx.input(1)], attrs, out=out)[0]
    if ctx.has(2):
        ctx.emit("Add", [y, _bias4d(ctx, 2, w.shape[1] * group)], out=node.output[0])


def gemm(ctx: ImportContext, node) -> None:
    """Gemm -> Dense when it is one (``x @ w.T + b``), else MatMul, Mul and Add."""
    alpha, beta = attr(node, "alpha", 1.0), attr(node, "beta", 1.0)
    ta, tb = bool(attr(node, "transA", 0)), bool(attr(node, "transB", 0))
    out = node.output[0]
    c = ctx.in_spec(2) if ctx.has(2) else None
    if tb and not ta and alpha == 1.0 and c is not None and (beta == 1.0 or ctx.const(2)
                                                                is not None):
        n = ctx.in_spec(1).shape[0]
        bias = ctx.const(2)
        if bias is not None and bias.size in (1, n) and bias.ndim <= 1:
            b = ctx.add_const(np.broadcast_to(bias * np.asarray(beta, bias.dtype), (n,)),
                              ctx.node.input[2])
            ctx.emit("Dense", [ctx.input(0), ctx.input(1), b], out=out)
            return
    y = ctx.emit("MatMul", [ctx.input(0), ctx.input(1)],
                 {"transpose_a": ta, "transpose_b": tb}, out=out if c is None and alpha == 1
                 else None)[0]
    if alpha != 1.0:
        a = ctx.add_const(np.asarray(alpha, ctx.spec(y).dtype), f"{node.name}_alpha")
        y = ctx.emit("Mul", [y, a], out=out if c is None else None)[0]
    if c is not None:
        cc = ctx.const(2)
        if cc is not None:
            cn = ctx.add_const(cc * np.asarray(beta, cc.dtype), ctx.node.input[2])
        elif beta == 1.0:
            cn = ctx.input(2)
        else:
            b = ctx.add_const(np.asarray(beta, c.dtype), f"{node.name}_beta")
            cn = ctx.emit("Mul", [ctx.input(2), b])[0]
        ctx.emit("Add", [y, cn], out=out)


def matmul(ctx: ImportContext, node) -> None:
    """MatMul -> MatMul for 2-d operands, BatchMatMul (broadcast batches) otherwise."""
    a, b = ctx.in_spec(0), ctx.in_spec(1)
    if len(a.shape) < 2 or len(b.shape) < 2:
        raise Unsupported(f"1-d matmul operands {a.shape} @ {b.shape} are not translated")
    op = "MatMul" if len(a.shape) == len(b.shape) == 2 else "BatchMatMul"
    ctx.emit(op, [ctx.input(0), ctx.input(1)], out=node.output[0])


def _pool_geometry(ctx, node):
    x = ctx.in_spec(0)
    if len(x.shape) != 4:
        raise Unsupported(f"only 2-d pooling (NCHW input) is translated; input shape {x.shape}")
    kernel = tuple(attr(node, "kernel_shape"))
    strides = tuple(attr(node, "strides", [1, 1]))
    dilations = tuple(attr(node, "dilations", [1, 1]))
    pads = _explicit_pads(node, x.shape[2:], kernel, strides, dilations)
    return x, kernel, strides, dilations, pads


def _out_size(size, k, s, d, pb, pe, ceil):
    span = size + pb + pe - (k - 1) * d - 1
    return (-(-span // s) if ceil else span // s) + 1


def _same_pads(x, kernel, strides):
    """The pads MindSpore's 'SAME' pooling uses (extra at the end), begins then ends."""
    pads = [0] * 4
    for i, (size, k, s) in enumerate(zip(x.shape[2:], kernel, strides)):
        total = max((math.ceil(size / s) - 1) * s + k - size, 0)
        pads[i], pads[i + 2] = total // 2, total - total // 2
    return pads


def max_pool(ctx: ImportContext, node) -> None:
    """MaxPool -> MaxPool (no padding, or SAME) or MaxPoolWithArgmaxV2 (symmetric pads,
    dilation, ceil_mode)."""
    if len([o for o in node.output if o]) > 1:
        raise Unsupported("its Indices output is not translated")
    x, kernel, strides, dilations, pads = _pool_geometry(ctx, node)
    ceil = bool(attr(node, "ceil_mode", 0))
    plain = dilations == (1, 1) and not ceil
    if plain and not any(pads):
        ctx.emit("MaxPool", [ctx.input(0)], {"kernel_size": kernel, "strides": strides,
                                             "pad_mode": "VALID"}, out=node.output[0])
    elif plain and pads == _same_pads(x, kernel, strides):
        ctx.emit("MaxPool", [ctx.input(0)], {"kernel_size": kernel, "strides": strides,
                                             "pad_mode": "SAME"}, out=node.output[0])
    elif dilations != (1, 1):
        raise Unsupported(f"dilated max pooling {dilations} is not translated (no CPU kernel)")
    elif pads[:2] == pads[2:]:
        ctx.emit("MaxPoolWithArgmaxV2", [ctx.input(0)],
                 {"kernel_size": kernel, "strides": strides, "pads": tuple(pads[:2]),
                  "dilation": dilations, "ceil_mode": ceil}, out=[node.output[0]])
    else:
        raise Unsupported(f"asymmetric pads {pads} with max pooling are not translated")


def average_pool(ctx: ImportContext, node) -> None:
    """AveragePool -> AvgPool (VALID, SAME, or explicit zero padding counted in)."""
    x, kernel, strides, dilations, pads = _pool_geometry(ctx, node)
    if dilations != (1, 1):
        raise Unsupported(f"dilated average pooling {dilations} is not translated")
    ceil = bool(attr(node, "ceil_mode", 0))
    if ceil and any(_out_size(n, k, s, 1, pads[i], pads[i + 2], True)
                    != _out_size(n, k, s, 1, pads[i], pads[i + 2], False)
                    for i, (n, k, s) in enumerate(zip(x.shape[2:], kernel, strides))):
        raise Unsupported("ceil_mode=1 changes the output size here; not translated")
    attrs = {"kernel_size": kernel, "strides": strides, "pad_mode": "VALID"}
    src = ctx.input(0)
    if any(pads):
        if pads == _same_pads(x, kernel, strides) and not attr(node, "count_include_pad", 0):
            attrs["pad_mode"] = "SAME"
        elif attr(node, "count_include_pad", 0):
            t, left, b, r = pads
            src = ctx.emit("Pad", [src], {"paddings": ((0, 0), (0, 0), (t, b), (left, r))})[0]
        else:
            raise Unsupported(f"pads {pads} without count_include_pad are not translated "
                              "(only MindSpore's SAME padding excludes the pad from the mean)")
    ctx.emit("AvgPool", [src], attrs, out=node.output[0])


def global_average_pool(ctx: ImportContext, node) -> None:
    rank = len(ctx.in_spec(0).shape)
    ctx.emit("ReduceMean", [ctx.input(0)], {"axis": tuple(range(2, rank)), "keep_dims": True},
             out=node.output[0])


def global_max_pool(ctx: ImportContext, node) -> None:
    rank = len(ctx.in_spec(0).shape)
    ctx.emit("ReduceMax", [ctx.input(0)], {"axis": tuple(range(2, rank)), "keep_dims": True},
             out=node.output[0])


def batch_normalization(ctx: ImportContext, node) -> None:
    """BatchNormalization (inference) -> BatchNorm(is_training=False)."""
    if attr(node, "training_mode", 0) or len([o for o in node.output if o]) > 1:
        raise Unsupported("training-mode batch normalization (running statistics outputs) is "
                          "not translated")
    ins = [ctx.input(i) for i in range(5)]
    ctx.emit("BatchNorm", ins, {"is_training": False, "epsilon": attr(node, "epsilon", 1e-5)},
             out=[node.output[0]])


def layer_normalization(ctx: ImportContext, node) -> None:
    """LayerNormalization -> LayerNorm over the axes from ``axis`` on."""
    if len([o for o in node.output if o]) > 1:
        raise Unsupported("its Mean / InvStdDev outputs are not translated")
    x = ctx.in_spec(0)
    axis = attr(node, "axis", -1) % len(x.shape)
    if ctx.has(2):
        beta = ctx.input(2)
    else:
        beta = ctx.add_const(np.zeros(x.shape[axis:], x.dtype), f"{node.name}_beta")
    scale = ctx.input(1)
    if tuple(ctx.spec(scale).shape) != tuple(x.shape[axis:]):
        raise Unsupported(f"scale of shape {ctx.spec(scale).shape} is not the normalized "
                          f"shape {x.shape[axis:]}")
    ctx.emit("LayerNorm", [ctx.input(0), scale, beta],
             {"begin_norm_axis": axis, "begin_params_axis": axis,
              "epsilon": attr(node, "epsilon", 1e-5)}, out=[node.output[0]])
