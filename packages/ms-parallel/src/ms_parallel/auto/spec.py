"""How each operator may be cut: an einsum-like letter per tensor dimension.

An operator's inputs and outputs name their dimensions with letters; a strategy gives every
letter a cut count. Letters shared by several tensors are cut alike (MatMul's inner ``k`` in
both inputs), letters in ``fixed`` are never cut (a Softmax axis, LayerNorm's normalized
axes, spatial Conv2D axes), and letters that vanish from the output (MatMul's ``k``, a
ReduceSum axis) leave the output *partial*: each rank holds a summand. ``None`` marks a
dimension that is never cut (a broadcast size-1 dimension, Reshape's merged interior).

An operator this module does not know runs replicated: its letters are all fixed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

__all__ = ["OpSpec", "spec_for", "ELEMENTWISE"]

ELEMENTWISE = frozenset(
    "Abs Add Sub Mul Div RealDiv Maximum Minimum Pow Neg Exp Log Sqrt Rsqrt Square "
    "SquaredDifference ReLU ReLU6 GeLU FastGeLU Tanh Sigmoid SiLU Mish Erf Erfc Cast Sin Cos "
    "Reciprocal Sign Softplus Softsign LeakyReLU Elu HSwish HSigmoid Identity Select Equal "
    "NotEqual Greater Less GreaterEqual LessEqual LogicalAnd LogicalOr LogicalNot FloorDiv "
    "Floor Ceil Round Log1p Expm1 Atan Tan Sinh Cosh ClampTensor".split())

_SUM_REDUCE = frozenset({"ReduceSum", "ReduceMean"})
_REDUCE = _SUM_REDUCE | {"ReduceMax", "ReduceMin", "ReduceProd", "ReduceAll", "ReduceAny"}


@dataclass
class OpSpec:
    """Letters per tensor input (``None`` for a non-tensor input) and per output."""

    op: str
    inputs: tuple
    outputs: tuple
    in_shapes: tuple
    out_shapes: tuple
    fixed: frozenset = frozenset()
    flops_per_element: float = 1.0
    mean_letters: frozenset = field(default_factory=frozenset)  # ReduceMean's axes
    layout: object = None  # a TensorLayout every input and output has (``reshard``)

    @property
    def letters(self) -> tuple[str, ...]:
        """Every letter, in first-appearance order (the op's device-matrix order)."""
        seen: dict[str, None] = {}
        for dims in self.inputs + self.outputs:
            for c in dims or ():
                if c is not None:
                    seen.setdefault(c, None)
        return tuple(seen)

    @property
    def free(self) -> tuple[str, ...]:
        return tuple(c for c in self.letters if c not in self.fixed)

    def sizes(self) -> dict[str, list[int]]:
        """Every size each letter has (Reshape's shared letters can differ in size)."""
        out: dict[str, list[int]] = {}
        for dims, shape in zip(self.inputs + self.outputs, self.in_shapes + self.out_shapes):
            for c, n in zip(dims or (), shape or ()):
                if c is not None:
                    out.setdefault(c, []).append(n)
        return out

    @property
    def contracted(self) -> frozenset:
        """Letters absent from every output: cutting them leaves outputs partial."""
        out = {c for dims in self.outputs for c in dims if c is not None}
        return frozenset(c for c in self.letters if c not in out)

    def flops(self) -> float:
        if self.op in ("MatMul", "BatchMatMul", "Dense", "Conv2D"):
            return 2.0 * math.prod(max(v) for v in self.sizes().values())
        biggest = max((math.prod(s) for s in self.in_shapes + self.out_shapes if s), default=1)
        return self.flops_per_element * biggest


def _letters(n: int, start: int = 0) -> tuple[str, ...]:
    return tuple(f"d{i}" for i in range(start, start + n))


def _elementwise(name, shapes, out_shape):
    out = _letters(len(out_shape))
    ins = []
    for s in shapes:
        if s is None:
            ins.append(None)
            continue
        off = len(out_shape) - len(s)
        ins.append(tuple(None if n == 1 and out_shape[off + i] != 1 else out[off + i]
                         for i, n in enumerate(s)))
    return OpSpec(name, tuple(ins), (out,), tuple(shapes), (tuple(out_shape),))


def _matmul(name, shapes, out_shape, ta, tb):
    x, y = shapes
    batch = _letters(len(out_shape) - 2)
    xb = batch[len(batch) - (len(x) - 2):] if len(x) > 2 else ()
    yb = batch[len(batch) - (len(y) - 2):] if len(y) > 2 else ()
    xl = xb + (("k", "i") if ta else ("i", "k"))
    yl = yb + (("j", "k") if tb else ("k", "j"))
    xl = tuple(None if c in batch and n == 1 and out_shape[batch.index(c)] != 1 else c
               for c, n in zip(xl, x))
    yl = tuple(None if c in batch and n == 1 and out_shape[batch.index(c)] != 1 else c
               for c, n in zip(yl, y))
    return OpSpec(name, (xl, yl), (batch + ("i", "j"),), tuple(shapes), (tuple(out_shape),))


def _reshape(shapes, out_shape):
    """Cut only the first dimension of each group of dimensions that Reshape merges or splits."""
    src, dst = shapes[0], tuple(out_shape)
    ins, outs = [None] * len(src), [None] * len(dst)
    i = j = 0
    k = 0
    while i < len(src) and j < len(dst):
        gi, gj, pi, pj = [i], [j], src[i], dst[j]
        while pi != pj:
            if pi < pj:
                i += 1
                gi.append(i)
                pi *= src[i]
            else:
                j += 1
                gj.append(j)
                pj *= dst[j]
        ins[gi[0]] = outs[gj[0]] = f"r{k}"
        k += 1
        i, j = i + 1, j + 1
    return OpSpec("Reshape", (tuple(ins), None), (tuple(outs),), (src, None), (dst,))


def spec_for(name: str, attrs: dict, args: tuple, in_shapes: tuple, out_shapes: tuple) -> OpSpec:
    """The letters of one operator call (``args`` holds static inputs, ``None`` for tensors)."""
    out0 = out_shapes[0]
    if name in ELEMENTWISE:
        return _elementwise(name, in_shapes, out0)
    if name in ("MatMul", "BatchMatMul"):
        return _matmul(name, in_shapes, out0, attrs.get("transpose_a", False),
                       attrs.get("transpose_b", False))
    if name == "Dense" and in_shapes[1] is not None:
        x = in_shapes[0]
        lead = _letters(len(x) - 1)
        return OpSpec(name, (lead + ("k",), ("j", "k"), None if in_shapes[2] is None else ("j",)),
                      (lead + ("j",),), tuple(in_shapes), tuple(out_shapes))
    if name in _REDUCE:
        x = in_shapes[0]
        axis = args[1]
        axes = range(len(x)) if axis in (None, ()) else \
            [a % len(x) for a in (axis if isinstance(axis, (tuple, list)) else (axis,))]
        xl = _letters(len(x))
        keep = attrs.get("keep_dims", False)
        ol = tuple(None if a in axes else xl[a] for a in range(len(x))) if keep else \
            tuple(xl[a] for a in range(len(x)) if a not in axes)
        red = frozenset(xl[a] for a in axes)
        fixed = frozenset() if name in _SUM_REDUCE else red
        mean = red if name == "ReduceMean" else frozenset()
        return OpSpec(name, (xl, None), (ol,), tuple(in_shapes), tuple(out_shapes), fixed,
                      mean_letters=mean)
    if name in ("Softmax", "LogSoftmax"):
        x = in_shapes[0]
        xl = _letters(len(x))
        axis = attrs.get("axis", -1)
        axes = axis if isinstance(axis, (tuple, list)) else (axis,)
        return OpSpec(name, (xl,), (xl,), tuple(in_shapes), tuple(out_shapes),
                      frozenset(xl[a % len(x)] for a in axes), 5.0)
    if name == "SoftmaxCrossEntropyWithLogits":
        return OpSpec(name, (("b", "c"), ("b", "c")), (("b",), ("b", "c")), tuple(in_shapes),
                      tuple(out_shapes), frozenset({"c"}), 6.0)
    if name == "Transpose":
        xl = _letters(len(in_shapes[0]))
        return OpSpec(name, (xl, None), (tuple(xl[p] for p in args[1]),), tuple(in_shapes),
                      tuple(out_shapes))
    if name == "Reshape":
        return _reshape(in_shapes, out0)
    if name == "Reshard":  # the identity, its layout pinned (ms_parallel.auto.reshard)
        from ms_parallel.auto.reshard import layout_of

        xl = _letters(len(in_shapes[0]))
        return OpSpec(name, (xl,), (xl,), tuple(in_shapes), tuple(out_shapes),
                      flops_per_element=0.0, layout=layout_of(attrs).normalized())
    if name == "LayerNorm":
        x = in_shapes[0]
        xl = _letters(len(x))
        b = attrs.get("begin_norm_axis", 1) % len(x)
        p = attrs.get("begin_params_axis", 1) % len(x)
        stat = tuple(xl[:b]) + (None,) * (len(x) - b)
        return OpSpec(name, (xl, xl[p:], xl[p:]), (xl, stat, stat), tuple(in_shapes),
                      tuple(out_shapes), frozenset(xl[min(b, p):]), 8.0)
    if name == "Conv2D" and attrs.get("group", 1) == 1 and \
            attrs.get("data_format", "NCHW") == "NCHW":
        return OpSpec(name, (("n", "c", "h", "w"), ("o", "c", "kh", "kw")),
                      (("n", "o", "oh", "ow"),), tuple(in_shapes), tuple(out_shapes),
                      frozenset({"h", "w", "kh", "kw", "oh", "ow"}))
    if name in ("Gather", "Embedding") and in_shapes[0] is not None:
        # Cutting the table's gathered axis (a vocab-parallel embedding) leaves the output
        # partial: each rank looks up its rows only (ms_parallel.auto.gather_rows). Gather's
        # batch_dims and Embedding's per-lookup counts need the whole axis.
        p, q = (0, 1) if name == "Gather" else (1, 0)
        axis = (args[2] if name == "Gather" else 0) % len(in_shapes[p])
        table = _letters(len(in_shapes[p]))
        idx = _letters(len(in_shapes[q]), len(table))
        out = table[:axis] + idx + table[axis + 1:]
        ins = [None] * len(in_shapes)
        ins[p], ins[q] = table, idx
        whole = attrs.get("batch_dims", 0) != 0 if name == "Gather" else \
            len(args) > 5 and bool(args[5])
        return OpSpec(name, tuple(ins), (out,), tuple(in_shapes), tuple(out_shapes),
                      frozenset({table[axis]}) if whole else frozenset())
    return _opaque(name, in_shapes, out_shapes)


def _opaque(name, in_shapes, out_shapes):
    ins = tuple(None if s is None else _letters(len(s), 100 * i) for i, s in enumerate(in_shapes))
    outs = tuple(_letters(len(s), 100 * (len(in_shapes) + i)) for i, s in enumerate(out_shapes))
    spec = OpSpec(name, ins, outs, tuple(in_shapes), tuple(out_shapes))
    spec.fixed = frozenset(spec.letters)
    return spec
