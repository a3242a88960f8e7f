"""Joining and splitting: Concat, Stack, Unstack, Split, SplitV; ``ops.cat``/``split``/``chunk``.

An operator's tensor inputs are a fixed list, so ``Concat`` is defined on two tensors;
``ops.Concat(axis)((a, b, c))`` and ``ops.concat`` join any number of them as a
balanced tree of pairs (about log2(n) copies of each element) and ``Stack`` is
ExpandDims plus that join. Splits return views of their input.
"""

from __future__ import annotations

import numpy as np

from ms_ops.defs.array import ExpandDims, Identity
from ms_ops.infer import check_int, normalize_axis
from ms_ops.opdef import ALL, Arg, Attr, OpDef, TensorSpec, functional
from ms_tensor.tensor import Tensor


def check_joinable(shapes, dtypes, axis: int, what: str = "tensors") -> int:
    """Check tensors to concatenate along ``axis``; return it non-negative.

    Every shape must match the first outside ``axis`` and every dtype must be the
    first's (MindSpore does not promote here).
    """
    first = shapes[0]
    if len(first) == 0:
        raise ValueError(f"cannot concatenate 0-d tensors ({what}[0] has shape ())")
    a = normalize_axis(axis, len(first))
    for i, (s, d) in enumerate(zip(shapes, dtypes)):
        if d is not dtypes[0]:
            raise TypeError(f"{what}[{i}] has dtype {d}, expected {dtypes[0]} like "
                            f"{what}[0]")
        if len(s) != len(first) or any(x != y for j, (x, y) in enumerate(zip(s, first))
                                        if j != a):
            raise ValueError(f"{what}[{i}] shape {s} does not match {what}[0] shape "
                             f"{first} outside axis {a}")
    return a


def split_sizes(size_splits, length: int) -> tuple:
    """``size_splits`` with its (at most one) -1 filled in, checked to sum to ``length``."""
    sizes = tuple(size_splits)
    for s in sizes:
        check_int("size_splits", s, minimum=-1)
    unknown = sizes.count(-1)
    known = sum(s for s in sizes if s != -1)
    if unknown > 1:
        raise ValueError(f"size_splits {sizes} may contain at most one -1")
    if unknown:
        if known > length:
            raise ValueError(f"size_splits {sizes} exceed the axis length {length}")
        return tuple(length - known if s == -1 else s for s in sizes)
    if known != length:
        raise ValueError(f"size_splits {sizes} sum to {known}, but the axis has length "
                         f"{length}")
    return sizes


def _split_parts(x, a, sizes):
    return tuple(TensorSpec(x.shape[:a] + (s,) + x.shape[a + 1:], x.dtype) for s in sizes)


def _filled(douts, parts):
    """The output gradients, with zeros for outputs that received none."""
    from ms_ops.defs.array_create import ZerosLike

    return [ZerosLike(p) if d is None else d for d, p in zip(douts, parts)]


def split_bprop(x, out, dout, **attrs):
    a = normalize_axis(attrs.get("axis", attrs.get("split_dim", 0)), x.ndim)
    return (concat(_filled(dout, out), a),)


def _tensors(tensors, name):
    if isinstance(tensors, Tensor):
        raise TypeError(f"{name}: tensors must be a non-empty list or tuple of Tensors, got "
                        f"one Tensor of shape {tensors.shape}; wrap it in a list")
    if not isinstance(tensors, (list, tuple)) or not tensors:
        raise TypeError(f"{name}: tensors must be a non-empty list or tuple of Tensors, got "
                        f"{type(tensors).__name__}" + ("" if tensors else " (empty)"))
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"{name}: tensors[{i}] must be a Tensor, got {type(t).__name__}")
    return list(tensors)


def _concat_infer(x, y, axis=0):
    a = check_joinable((x.shape, y.shape), (x.dtype, y.dtype), axis, "inputs")
    shape = list(x.shape)
    shape[a] += y.shape[a]
    return TensorSpec(tuple(shape), x.dtype)


Concat = OpDef("Concat", (Arg("x"), Arg("y")), (Attr("axis", 0),), infer=_concat_infer,
               doc="Join two tensors along ``axis`` (the class joins a tuple of them).")


@Concat.kernel("CPU", dtypes=ALL)
def concat_cpu(x, y, axis=0):
    return np.concatenate((x, y), axis=axis)


@Concat.bprop
def concat_bprop(x, y, out, dout, axis=0):
    a = normalize_axis(axis, x.ndim)
    dx, dy = SplitV(dout, size_splits=(x.shape[a], y.shape[a]), split_dim=a, num_split=2)
    return dx, dy


@Concat.samples
def _concat(rng):
    yield (rng.standard_normal((2, 3)), rng.standard_normal((1, 3))), {"axis": 0}
    yield (rng.standard_normal((2, 2)), rng.standard_normal((2, 3))), {"axis": -1}


def _unstack_infer(x, axis=0, num=None):
    if x.ndim == 0:
        raise ValueError("cannot unstack a 0-d tensor")
    a = normalize_axis(axis, x.ndim)
    if num is not None and num != x.shape[a]:
        raise ValueError(f"num {num} does not match axis {a} of input shape {x.shape}")
    part = TensorSpec(x.shape[:a] + x.shape[a + 1:], x.dtype)
    return (part,) * x.shape[a]


Unstack = OpDef("Unstack", (Arg("input_x"),), (Attr("axis", 0), Attr("num", None)),
                infer=_unstack_infer, doc="Split along ``axis`` into tensors without it.")


@Unstack.kernel("CPU", dtypes=ALL)
def unstack_cpu(x, axis=0, num=None):
    return tuple(np.moveaxis(x, axis, 0))


@Unstack.bprop
def unstack_bprop(x, out, dout, axis=0, num=None):
    if not out:  # an empty axis: x has no elements
        from ms_ops.defs.array_create import ZerosLike

        return (ZerosLike(x),)
    return (stack(_filled(dout, out), axis),)


@Unstack.samples
def _unstack(rng):
    yield (rng.standard_normal((3, 2, 2)),), {"axis": 0}
    yield (rng.standard_normal((3, 2, 2)),), {"axis": -1, "num": 2}


def _split_infer(x, axis=0, output_num=1):
    a = normalize_axis(axis, x.ndim)
    check_int("output_num", output_num, minimum=1)
    if x.shape[a] % output_num:
        raise ValueError(f"axis {a} of input shape {x.shape} (length {x.shape[a]}) cannot be "
                         f"split into {output_num} equal parts")
    return _split_parts(x, a, (x.shape[a] // output_num,) * output_num)


Split = OpDef("Split", (Arg("input_x"),), (Attr("axis", 0), Attr("output_num", 1)),
              infer=_split_infer, doc="Split along ``axis`` into ``output_num`` equal parts.")


@Split.kernel("CPU", dtypes=ALL)
def split_cpu(x, axis=0, output_num=1):
    return tuple(np.split(x, output_num, axis=axis))


Split.bprop(split_bprop)


@Split.samples
def _split(rng):
    yield (rng.standard_normal((4, 3)),), {"axis": 0, "output_num": 2}
    yield (rng.standard_normal((2, 3)),), {"axis": 1, "output_num": 3}


def _split_v_infer(x, size_splits, split_dim, num_split):
    a = normalize_axis(split_dim, x.ndim, "split_dim")
    if len(size_splits) != num_split:
        raise ValueError(f"size_splits {tuple(size_splits)} has {len(size_splits)} entries, "
                         f"num_split is {num_split}")
    return _split_parts(x, a, split_sizes(size_splits, x.shape[a]))


SplitV = OpDef("SplitV", (Arg("input_x"),),
               (Attr("size_splits"), Attr("split_dim"), Attr("num_split")),
               infer=_split_v_infer, doc="Split along ``split_dim`` into parts of "
                                         "``size_splits`` (one may be -1).")


@SplitV.kernel("CPU", dtypes=ALL)
def split_v_cpu(x, size_splits, split_dim, num_split):
    sizes = split_sizes(size_splits, x.shape[split_dim])
    return tuple(np.split(x, np.cumsum(sizes)[:-1], axis=split_dim))


SplitV.bprop(split_bprop)


@SplitV.samples
def _split_v(rng):
    yield (rng.standard_normal((5, 2)),), {"size_splits": (2, -1), "split_dim": 0,
                                           "num_split": 2}
    yield (rng.standard_normal((2, 6)),), {"size_splits": (1, 2, 3), "split_dim": -1,
                                           "num_split": 3}


@functional("concat", "cat")
def concat(tensors, axis=0):
    """``ops.concat``/``ops.cat``: join tensors along ``axis``.

    >>> ops.concat((ops.ones((2, 1)), ops.zeros((2, 2))), 1).shape
    (2, 3)
    """
    ts = _tensors(tensors, "Concat")
    try:
        a = check_joinable([t.shape for t in ts], [t.dtype for t in ts], axis)
    except (TypeError, ValueError) as e:
        raise type(e)(f"Concat: {e}") from None
    if len(ts) == 1:
        return Identity(ts[0])
    while len(ts) > 1:
        pairs = [Concat(ts[i], ts[i + 1], axis=a) for i in range(0, len(ts) - 1, 2)]
        ts = pairs + ts[len(pairs) * 2:]
    return ts[0]


@functional("stack")
def stack(tensors, axis=0):
    """``ops.stack``: join tensors of one shape along a new axis ``axis`` (one Tensor is
    a sequence of one, as in MindSpore)."""
    ts = _tensors([tensors] if isinstance(tensors, Tensor) else tensors, "Stack")
    first = ts[0]
    for i, t in enumerate(ts):
        if t.shape != first.shape:
            raise ValueError(f"Stack: tensors[{i}] shape {t.shape} does not match tensors[0] "
                             f"shape {first.shape}")
        if t.dtype is not first.dtype:
            raise TypeError(f"Stack: tensors[{i}] has dtype {t.dtype}, expected "
                            f"{first.dtype} like tensors[0]")
    try:
        a = normalize_axis(axis, first.ndim + 1)
    except (TypeError, ValueError) as e:
        raise type(e)(f"Stack: {e}") from None
    return concat([ExpandDims(t, a) for t in ts], a)


class _ConcatPrimitive(Concat.primitive):
    """``ops.Concat(axis)(tensors)``: MindSpore's class takes one tuple of tensors."""

    def __call__(self, tensors, *more):
        if more:  # the operator's own two-tensor form
            return super().__call__(tensors, *more)
        return concat(tensors, self.attrs["axis"])


_ConcatPrimitive.__name__ = _ConcatPrimitive.__qualname__ = "Concat"
Concat._primitive = _ConcatPrimitive  # what registration (and ``ops.Concat``) will hand out


@functional("Stack")
class Stack:
    """``ops.Stack(axis)(tensors)``: :func:`stack` in MindSpore's class form."""

    def __init__(self, axis=0):
        self.axis = axis

    def __call__(self, tensors):
        return stack(tensors, self.axis)

    def __repr__(self) -> str:
        return f"Prim[Stack]<axis={self.axis!r}>"


@functional("unstack")
def unstack(input_x, axis=0):
    """``ops.unstack``: the slices along ``axis`` as a tuple of tensors."""
    return Unstack(input_x, axis=axis)


@functional("split", methods="split")
def split(tensor, split_size_or_sections, axis=0):
    """``ops.split``: parts of ``split_size_or_sections`` each (the last may be shorter),
    or of the listed sizes.

    >>> [t.shape for t in ops.split(ops.ones((5,)), 2)]
    [(2,), (2,), (1,)]
    """
    a = normalize_axis(axis, tensor.ndim)
    n = tensor.shape[a]
    if isinstance(split_size_or_sections, int) and not isinstance(split_size_or_sections, bool):
        size = check_int("split_size_or_sections", split_size_or_sections, minimum=1)
        sizes = (size,) * (n // size) + ((n % size,) if n % size else ())
    else:
        sizes = tuple(split_size_or_sections)
    return SplitV(tensor, size_splits=sizes or (0,), split_dim=a, num_split=len(sizes) or 1)


@functional("chunk", methods="chunk")
def chunk(input, chunks, axis=0):
    """``ops.chunk``: at most ``chunks`` parts of ceil(n / chunks) elements along ``axis``."""
    check_int("chunks", chunks, minimum=1)
    n = input.shape[normalize_axis(axis, input.ndim)]
    return split(input, max(-(-n // chunks), 1), axis)


