"""ONNX exporters of the shape and layout operators (static inputs become int64
initializers, as opset 17 wants them)."""

from __future__ import annotations

import numpy as np

__all__ = ["reshape", "flatten", "transpose", "expand_dims", "squeeze", "concat", "cast",
           "gather", "strided_slice", "slice_", "tile", "broadcast_to", "pad", "split_v",
           "split", "dropout"]


def reshape(ctx, node) -> None:
    shape = ctx.shape(node.outputs[0]) if node.outputs[0] in ctx.graph.values \
        else node.attrs["input_shape"]
    ctx.add("Reshape", [node.inputs[0], ctx.ints(shape)], list(node.outputs))


def flatten(ctx, node) -> None:
    ctx.add("Flatten", [node.inputs[0]], list(node.outputs), axis=1)


def transpose(ctx, node) -> None:
    ctx.add("Transpose", [node.inputs[0]], list(node.outputs),
            perm=[int(p) for p in node.attrs["input_perm"]])


def expand_dims(ctx, node) -> None:
    axis = int(node.attrs["axis"]) % (ctx.rank(node.inputs[0]) + 1)
    ctx.add("Unsqueeze", [node.inputs[0], ctx.ints([axis], "axes")], list(node.outputs))


def squeeze(ctx, node) -> None:
    axis = node.attrs.get("axis", ())
    axes = [axis] if isinstance(axis, int) else list(axis)
    ins = [node.inputs[0]] + ([ctx.ints(axes, "axes")] if axes else [])
    ctx.add("Squeeze", ins, list(node.outputs))


def concat(ctx, node) -> None:
    ctx.add("Concat", list(node.inputs), list(node.outputs), axis=int(node.attrs.get("axis", 0)))


def cast(ctx, node) -> None:
    from onnx import helper

    to = np.dtype(node.attrs["dtype"].np)
    ctx.add("Cast", [node.inputs[0]], list(node.outputs),
            to=helper.np_dtype_to_tensor_dtype(to))


def gather(ctx, node) -> None:
    if node.attrs.get("batch_dims", 0):
        raise ctx.unsupported("batch_dims != 0")
    ctx.add("Gather", list(node.inputs), list(node.outputs), axis=int(node.attrs["axis"]))


def strided_slice(ctx, node) -> None:
    a = node.attrs
    if any(a.get(m, 0) for m in ("ellipsis_mask", "new_axis_mask", "shrink_axis_mask")):
        raise ctx.unsupported("ellipsis, new-axis and shrink-axis masks")
    begin, end, strides = list(a["begin"]), list(a["end"]), list(a["strides"])
    big = np.iinfo(np.int64).max
    for i, s in enumerate(strides):
        if a.get("begin_mask", 0) >> i & 1:
            begin[i] = 0 if s > 0 else big
        if a.get("end_mask", 0) >> i & 1:
            end[i] = big if s > 0 else -big
    n = len(begin)
    ctx.add("Slice", [node.inputs[0], ctx.ints(begin, "starts"), ctx.ints(end, "ends"),
                      ctx.ints(list(range(n)), "axes"), ctx.ints(strides, "steps")],
            list(node.outputs))


def slice_(ctx, node) -> None:
    begin, size = list(node.attrs["begin"]), list(node.attrs["size"])
    shape = ctx.shape(node.inputs[0])
    end = [shape[i] if s == -1 else b + s for i, (b, s) in enumerate(zip(begin, size))]
    ctx.add("Slice", [node.inputs[0], ctx.ints(begin, "starts"), ctx.ints(end, "ends")],
            list(node.outputs))


def tile(ctx, node) -> None:
    reps = list(node.attrs["dims"])
    rank = ctx.rank(node.inputs[0])
    x = node.inputs[0]
    if len(reps) > rank:  # MindSpore prepends 1s to the input; ONNX wants equal ranks
        x = ctx.add("Reshape", [x, ctx.ints([1] * (len(reps) - rank) + list(ctx.shape(x)))])[0]
    ctx.add("Tile", [x, ctx.ints(reps, "repeats")], list(node.outputs))


def broadcast_to(ctx, node) -> None:
    shape = list(ctx.shape(node.outputs[0])) if node.outputs[0] in ctx.graph.values \
        else list(node.attrs["shape"])
    ctx.add("Expand", [node.inputs[0], ctx.ints(shape)], list(node.outputs))


def pad(ctx, node) -> None:
    pairs = [tuple(p) for p in node.attrs["paddings"]]
    pads = [p[0] for p in pairs] + [p[1] for p in pairs]
    ctx.add("Pad", [node.inputs[0], ctx.ints(pads, "pads")], list(node.outputs))


def split_v(ctx, node) -> None:
    a = node.attrs
    axis = int(a["split_dim"])
    sizes = [int(s) for s in a["size_splits"]]
    if -1 in sizes:  # MindSpore's "the rest"
        sizes[sizes.index(-1)] = ctx.shape(node.inputs[0])[axis] - sum(s for s in sizes if s > 0)
    ctx.add("Split", [node.inputs[0], ctx.ints(sizes, "split")], list(node.outputs), axis=axis)


def split(ctx, node) -> None:
    a = node.attrs
    axis = int(a.get("axis", 0))
    n = int(a.get("output_num", 1))
    size = ctx.shape(node.inputs[0])[axis] // n
    ctx.add("Split", [node.inputs[0], ctx.ints([size] * n, "split")], list(node.outputs),
            axis=axis)


def dropout(ctx, node) -> None:
    """Dropout is the identity in inference (an exported graph is an inference graph)."""
    users = {i for n in ctx.graph.nodes for i in n.inputs} | {v.name for v in ctx.graph.outputs}
    if any(o in users for o in node.outputs[1:]):
        raise ctx.unsupported("its mask output")
    ctx.add("Identity", [node.inputs[0]], [node.outputs[0]])
