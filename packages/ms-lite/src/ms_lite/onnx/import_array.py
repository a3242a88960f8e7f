"""ONNX importers for shape and layout operators: Reshape, Flatten, Transpose, Concat,
Squeeze/Unsqueeze, Gather, Slice, Split, Pad, Expand, Tile, Identity, Dropout."""

from __future__ import annotations

import numpy as np

from ms_lite.onnx.context import ImportContext, Unsupported, attr

__all__ = ["reshape", "flatten", "transpose", "concat", "squeeze", "unsqueeze", "gather",
           "slice_", "split", "pad", "expand", "tile", "identity"]


def _reshape_to(ctx: ImportContext, node, shape) -> None:
    """Reshape, or Flatten where it is one (Flatten keeps any batch size)."""
    src = ctx.in_spec(0).shape
    if tuple(shape) == tuple(src):
        ctx.alias(node.output[0], ctx.input(0))
        return
    if len(src) > 2 and tuple(shape) == (src[0], int(np.prod(src[1:]))):
        ctx.emit("Flatten", [ctx.input(0)], out=node.output[0])
        return
    ctx.emit("Reshape", [ctx.input(0)], {"input_shape": tuple(int(d) for d in shape)},
             out=node.output[0])


def reshape(ctx: ImportContext, node) -> None:
    """Reshape with a constant shape; ONNX's 0 (copy that dimension) resolved here."""
    shape = [int(d) for d in ctx.need_const(1, "shape")]
    src = ctx.in_spec(0).shape
    if not attr(node, "allowzero", 0):
        shape = [src[i] if d == 0 else d for i, d in enumerate(shape)]
    if -1 in shape:
        known = int(np.prod([d for d in shape if d != -1]))
        shape[shape.index(-1)] = int(np.prod(src)) // max(known, 1)
    _reshape_to(ctx, node, shape)


def flatten(ctx: ImportContext, node) -> None:
    """Flatten(axis) -> Reshape to (prod(shape[:axis]), prod(shape[axis:]))."""
    src = ctx.in_spec(0).shape
    axis = attr(node, "axis", 1) % (len(src) + 1) if src else 0
    _reshape_to(ctx, node, (int(np.prod(src[:axis])), int(np.prod(src[axis:]))))


def transpose(ctx: ImportContext, node) -> None:
    rank = len(ctx.in_spec(0).shape)
    perm = tuple(attr(node, "perm", list(range(rank))[::-1]))
    if perm == tuple(range(rank)):
        ctx.alias(node.output[0], ctx.input(0))
        return
    ctx.emit("Transpose", [ctx.input(0)], {"input_perm": perm}, out=node.output[0])


def concat(ctx: ImportContext, node) -> None:
    """Concat of n inputs -> a chain of the registry's two-input Concat."""
    names = [ctx.tensor(i) for i in node.input if i]
    rank = len(ctx.spec(names[0]).shape)
    axis = attr(node, "axis") % rank
    acc = names[0]
    for k, other in enumerate(names[1:]):
        acc = ctx.emit("Concat", [acc, other], {"axis": axis},
                       out=node.output[0] if k == len(names) - 2 else None)[0]
    if len(names) == 1:
        ctx.alias(node.output[0], acc)


def _axes(ctx, node) -> list[int] | None:
    if ctx.opset < 13:
        return attr(node, "axes", None)
    return [int(a) for a in ctx.need_const(1, "axes")] if ctx.has(1) else None


def squeeze(ctx: ImportContext, node) -> None:
    src = ctx.in_spec(0).shape
    axes = _axes(ctx, node)
    axes = [i for i, d in enumerate(src) if d == 1] if axes is None \
        else [a % len(src) for a in axes]
    if any(src[a] != 1 for a in axes):
        raise Unsupported(f"squeezing axes {axes} of shape {src}: not all of size 1")
    ctx.emit("Squeeze", [ctx.input(0)], {"axis": tuple(axes)}, out=node.output[0])


def unsqueeze(ctx: ImportContext, node) -> None:
    src = list(ctx.in_spec(0).shape)
    axes = _axes(ctx, node)
    if axes is None:
        raise Unsupported("Unsqueeze without axes")
    rank = len(src) + len(axes)
    axes = sorted(a % rank for a in axes)
    if len(axes) == 1:
        ctx.emit("ExpandDims", [ctx.input(0)], {"axis": axes[0]}, out=node.output[0])
        return
    for a in axes:
        src.insert(a, 1)
    _reshape_to(ctx, node, src)


def gather(ctx: ImportContext, node) -> None:
    """Gather -> Gather(axis); constant negative indices are wrapped here."""
    src = ctx.in_spec(0).shape
    axis = attr(node, "axis", 0) % len(src)
    idx = ctx.const(1)
    if idx is not None:
        idx_name = ctx.add_const(np.where(idx < 0, idx + src[axis], idx).astype(idx.dtype),
                                 ctx.node.input[1])
    else:
        idx_name = ctx.input(1)
    ctx.emit("Gather", [ctx.input(0), idx_name], {"axis": axis}, out=node.output[0])


def slice_(ctx: ImportContext, node) -> None:
    """Slice -> StridedSlice over every dimension, bounds normalized like Python's."""
    src = ctx.in_spec(0).shape
    rank = len(src)
    if ctx.opset < 10:
        starts, ends = attr(node, "starts"), attr(node, "ends")
        axes, steps = attr(node, "axes", list(range(len(starts)))), [1] * len(starts)
    else:
        starts = ctx.need_const(1, "starts").tolist()
        ends = ctx.need_const(2, "ends").tolist()
        axes = ctx.need_const(3, "axes").tolist() if ctx.has(3) else list(range(len(starts)))
        steps = ctx.need_const(4, "steps").tolist() if ctx.has(4) else [1] * len(starts)
    begin, end, stride = [0] * rank, list(src), [1] * rank
    end_mask = 0
    for s, e, a, st in zip(starts, ends, axes, steps):
        a %= rank
        lo, hi, step = slice(int(s), int(e), int(st)).indices(src[a])
        begin[a], end[a], stride[a] = lo, hi, step
        if step < 0 and hi < 0:
            end_mask |= 1 << a
    ctx.emit("StridedSlice", [ctx.input(0)], {"begin": tuple(begin), "end": tuple(end),
                                               "strides": tuple(stride), "end_mask": end_mask},
             out=node.output[0])


def split(ctx: ImportContext, node) -> None:
    """Split -> SplitV with explicit sizes."""
    src = ctx.in_spec(0).shape
    axis = attr(node, "axis", 0) % len(src)
    outs = list(node.output)
    if ctx.opset < 13:
        sizes = attr(node, "split", None)
    else:
        sizes = ctx.need_const(1, "split").tolist() if ctx.has(1) else None
    if sizes is None:
        n = attr(node, "num_outputs", len(outs))
        chunk = -(-src[axis] // n)
        sizes = [min(chunk, src[axis] - k * chunk) for k in range(n)]
    ctx.emit("SplitV", [ctx.input(0)], {"size_splits": tuple(int(s) for s in sizes),
                                        "split_dim": axis, "num_split": len(sizes)}, out=outs)


def pad(ctx: ImportContext, node) -> None:
    """Pad -> Pad (zero), or PadV3 (another constant, reflect, edge)."""
    rank = len(ctx.in_spec(0).shape)
    mode = attr(node, "mode", "constant")
    if ctx.opset < 11:
        pads, value = attr(node, "pads"), attr(node, "value", 0.0)
        axes = list(range(rank))
    else:
        pads = ctx.need_const(1, "pads").tolist()
        value = float(ctx.need_const(2, "constant_value")) if ctx.has(2) else 0.0
        axes = ctx.need_const(3, "axes").tolist() if ctx.has(3) else list(range(rank))
    n = len(axes)
    full = [[0, 0] for _ in range(rank)]
    for k, a in enumerate(axes):
        full[a % rank] = [int(pads[k]), int(pads[k + n])]
    if any(p < 0 for pair in full for p in pair):
        raise Unsupported(f"negative pads {pads} (cropping) are not translated")
    paddings = tuple(tuple(p) for p in full)
    if mode == "constant" and value == 0.0:
        ctx.emit("Pad", [ctx.input(0)], {"paddings": paddings}, out=node.output[0])
        return
    modes = {"constant": "constant", "reflect": "reflect", "edge": "edge"}
    if mode not in modes:
        raise Unsupported(f"pad mode {mode!r} is not translated")
    flat = tuple(p for pair in reversed(full) for p in pair)  # PadV3: last dimension first
    ctx.emit("PadV3", [ctx.input(0)], {"paddings": flat, "constant_value": value,
                                       "mode": modes[mode]}, out=node.output[0])


def expand(ctx: ImportContext, node) -> None:
    shape = ctx.need_const(1, "shape").tolist()
    target = tuple(np.broadcast_shapes(tuple(ctx.in_spec(0).shape), tuple(shape)))
    ctx.emit("BroadcastTo", [ctx.input(0)], {"shape": target}, out=node.output[0])


def tile(ctx: ImportContext, node) -> None:
    reps = tuple(int(r) for r in ctx.need_const(1, "repeats"))
    ctx.emit("Tile", [ctx.input(0)], {"dims": reps}, out=node.output[0])


def identity(ctx: ImportContext, node) -> None:
    """Identity and inference-mode Dropout: the output is the input (no operator)."""
    if node.op_type == "Dropout" and len([o for o in node.output if o]) > 1:
        raise Unsupported("its mask output is not translated (inference only)")
    ctx.alias(node.output[0], ctx.input(0))
