"""``vmap`` (``mindspore.vmap``): a function mapped over an axis of its inputs.

Each slice along the mapped axes is passed to ``fn`` and the results are stacked along
``out_axes``. The slices run one after another through the ordinary operators, so the
result, its gradients and its compiled form are exactly those of the per-example code;
this is the semantics of MindSpore's vmap, not its batched kernels.
"""

from __future__ import annotations

from ms_ops.defs import array
from ms_ops.defs.array_join import stack
from ms_tensor.tensor import Tensor

__all__ = ["vmap"]


def _broadcast_axes(in_axes, args):
    if isinstance(in_axes, (tuple, list)):
        if len(in_axes) != len(args):
            raise ValueError(f"vmap: in_axes has {len(in_axes)} entries for {len(args)} inputs")
        return list(in_axes)
    return [in_axes] * len(args)


def _take(x, axis, k):
    if axis is None:
        return x
    if isinstance(x, (tuple, list)):
        return type(x)(_take(v, axis, k) for v in x)
    if not isinstance(x, Tensor):
        raise TypeError(f"vmap: a mapped input must be a Tensor, got {type(x).__name__}")
    index = [slice(None)] * x.ndim
    index[axis % x.ndim] = k
    return x[tuple(index)]


def _size(args, axes):
    sizes = set()
    for x, a in zip(args, axes):
        if a is None:
            continue
        first = x[0] if isinstance(x, (tuple, list)) else x
        sizes.add(first.shape[a % first.ndim])
    if len(sizes) != 1:
        raise ValueError(f"vmap: the mapped axes must have one size, got {sorted(sizes)}")
    return sizes.pop()


def vmap(fn, in_axes=0, out_axes=0):
    """``fn`` vectorised over ``in_axes`` of its inputs (None: not mapped), the results
    stacked along ``out_axes``."""
    def mapped(*args):
        axes = _broadcast_axes(in_axes, args)
        if all(a is None for a in axes):
            raise ValueError("vmap: at least one input must be mapped (in_axes all None)")
        results = [fn(*[_take(x, a, k) for x, a in zip(args, axes)])
                   for k in range(_size(args, axes))]
        if isinstance(results[0], tuple):
            outs = _broadcast_axes(out_axes, results[0])
            return tuple(_stack([r[i] for r in results], outs[i])
                         for i in range(len(results[0])))
        return _stack(results, out_axes)

    return mapped


def _stack(values, axis):
    if axis is None:
        return values[0]
    out = stack(tuple(values), 0)
    if axis % out.ndim:
        perm = list(range(1, out.ndim))
        perm.insert(axis % out.ndim, 0)
        out = array.Transpose(out, tuple(perm))
    return out
