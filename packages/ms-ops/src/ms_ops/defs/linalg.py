"""Matrix products: MatMul (2-D), BatchMatMul (batched, broadcasting), Dense (a fully
connected layer's ``x @ w.T + b`` in one kernel) and ``ops.matmul``."""

from __future__ import annotations

import numpy as np

from ms_ops.blas import matmul as blas_matmul
from ms_ops.defs._grad_util import conj, sum_to, wanted
from ms_ops.infer import broadcast_shapes, check_dtype
from ms_ops.opdef import NUMBERS, Arg, Attr, OpDef, TensorSpec, functional
from ms_tensor import dtype as mstype

_ATTRS = (Attr("transpose_a", False), Attr("transpose_b", False))
_PRODUCT = NUMBERS | {mstype.complex64, mstype.complex128}  # MatMul and BatchMatMul's


def _mat_dims(x, y, transpose_a, transpose_b, min_rank):
    for name, s in (("x", x), ("y", y)):
        check_dtype(name, s, _PRODUCT)
        if s.ndim < min_rank:
            raise ValueError(f"{name} must be at least {min_rank}-d, got shape {s.shape}")
    n, k = (x.shape[-1], x.shape[-2]) if transpose_a else (x.shape[-2], x.shape[-1])
    k2, m = (y.shape[-1], y.shape[-2]) if transpose_b else (y.shape[-2], y.shape[-1])
    if k != k2:
        raise ValueError(f"x shape {x.shape} and y shape {y.shape} cannot be multiplied: "
                         f"{k} != {k2}" + (" (after transpose_a/transpose_b)"
                                           if transpose_a or transpose_b else ""))
    return n, m


def _t(a, flag):
    return a.swapaxes(-1, -2) if flag else a


def matmul_cpu(x, y, transpose_a=False, transpose_b=False, out=None):
    r = blas_matmul(x, y, transpose_a, transpose_b, out)  # MKL, when installed
    if r is not None:
        return r
    return np.dot(x.T if transpose_a else x, y.T if transpose_b else y, out=out)


def _matmul_grads(op, x, y, dout, ta, tb):
    """(dx, dy) of ``op(x, y)``; each is None unless the caller wants it."""
    x, y = conj(x), conj(y)  # complex: dx = dout @ conj(y).T (complex_ops' convention)
    if not ta and not tb:
        gx, gy = (dout, y, False, True), (x, dout, True, False)
    elif not ta:
        gx, gy = (dout, y, False, False), (dout, x, True, False)
    elif not tb:
        gx, gy = (y, dout, False, True), (x, dout, False, False)
    else:
        gx, gy = (y, dout, True, True), (dout, x, True, True)
    return (_product(op, *gx) if wanted(0) else None,
            _product(op, *gy) if wanted(1) else None)


def _product(op, a, b, ta, tb):
    return op(a, b, transpose_a=ta, transpose_b=tb)


# Samples for MatMul and BatchMatMul (every transpose combination) and Dense (with and
# without bias, 1-d to 3-d inputs).
FLAGS = [(False, False), (False, True), (True, False), (True, True)]


def _matmul_infer(x, y, transpose_a=False, transpose_b=False):
    if x.ndim != 2 or y.ndim != 2:
        raise ValueError(f"x and y must be 2-d, got shapes {x.shape} and {y.shape} "
                         "(use BatchMatMul or ops.matmul for batches)")
    n, m = _mat_dims(x, y, transpose_a, transpose_b, 2)
    return TensorSpec((n, m), x.dtype)


MatMul = OpDef("MatMul", (Arg("x"), Arg("y")), _ATTRS, infer=_matmul_infer, promote="common",
               doc="Matrix product of 2-d ``x`` and ``y`` (optionally transposed).")
MatMul.kernel("CPU", dtypes=_PRODUCT, out=True)(matmul_cpu)


@MatMul.bprop
def matmul_bprop(x, y, out, dout, transpose_a=False, transpose_b=False):
    return _matmul_grads(MatMul, x, y, dout, transpose_a, transpose_b)


@MatMul.samples
def _matmul(rng):
    for ta, tb in FLAGS:
        x = rng.standard_normal((4, 3) if ta else (3, 4))
        y = rng.standard_normal((5, 4) if tb else (4, 5))
        yield (x, y), {"transpose_a": ta, "transpose_b": tb}


def _batch_matmul_infer(x, y, transpose_a=False, transpose_b=False):
    n, m = _mat_dims(x, y, transpose_a, transpose_b, 2)
    batch = broadcast_shapes(TensorSpec(x.shape[:-2], x.dtype),
                             TensorSpec(y.shape[:-2], y.dtype), names=("x batch", "y batch"))
    return TensorSpec(batch + (n, m), x.dtype)


BatchMatMul = OpDef("BatchMatMul", (Arg("x"), Arg("y")), _ATTRS, infer=_batch_matmul_infer,
                    promote="common",
                    doc="Matrix product over the last two dims, broadcasting the batch dims.",
                    functional=("bmm", "batch_matmul"))


@BatchMatMul.kernel("CPU", dtypes=_PRODUCT, out=True)
def batch_matmul_cpu(x, y, transpose_a=False, transpose_b=False, out=None):
    return np.matmul(_t(x, transpose_a), _t(y, transpose_b), out=out)


@BatchMatMul.bprop
def batch_matmul_bprop(x, y, out, dout, transpose_a=False, transpose_b=False):
    dx, dy = _matmul_grads(BatchMatMul, x, y, dout, transpose_a, transpose_b)
    return (None if dx is None else sum_to(dx, x.shape),
            None if dy is None else sum_to(dy, y.shape))


@BatchMatMul.samples
def _batch_matmul(rng):
    for ta, tb in FLAGS:
        x = rng.standard_normal((2, 1, 4, 3) if ta else (2, 1, 3, 4))
        y = rng.standard_normal((3, 5, 4) if tb else (3, 4, 5))
        yield (x, y), {"transpose_a": ta, "transpose_b": tb}


def _dense_infer(x, w, b=None):
    for name, spec in (("x", x), ("w", w)) + ((("b", b),) if b is not None else ()):
        check_dtype(name, spec, NUMBERS)
    if x.ndim < 1 or w.ndim != 2:
        raise ValueError(f"x must be at least 1-d and w 2-d (out, in), got shapes {x.shape} "
                         f"and {w.shape}")
    if x.shape[-1] != w.shape[1]:
        raise ValueError(f"x shape {x.shape} and w shape {w.shape} cannot be multiplied: the "
                         f"last dimension of x ({x.shape[-1]}) must be w's second "
                         f"({w.shape[1]})")
    if b is not None and tuple(b.shape) != (w.shape[0],):
        raise ValueError(f"b must have shape ({w.shape[0]},), one value per output of w "
                         f"shape {w.shape}, got {b.shape}")
    return TensorSpec(tuple(x.shape[:-1]) + (w.shape[0],), x.dtype)


Dense = OpDef("Dense", (Arg("x"), Arg("w"), Arg("b", default=None)), infer=_dense_infer,
              promote="common",
              doc="``x @ w.T + b`` over x's last dim (w: (out, in); b optional), one kernel: "
                  "the bias is the product's starting value, not a second pass.",
              functional="dense")


@Dense.kernel("CPU", dtypes=NUMBERS)
def dense_cpu(x, w, b=None):
    x2 = x if x.ndim == 2 else x.reshape(-1, x.shape[-1])
    if b is None:
        y = matmul_cpu(x2, w, transpose_b=True)
    else:
        y = np.empty((x2.shape[0], w.shape[0]), x2.dtype)
        y[...] = b
        if blas_matmul(x2, w, False, True, y, accumulate=True) is None:
            y = np.dot(x2, w.T)
            y += b
    return y if x.ndim == 2 else y.reshape(x.shape[:-1] + (w.shape[0],))


@Dense.bprop
def dense_bprop(x, w, b, out, dout):
    from ms_ops.defs.array import Reshape
    from ms_ops.defs.reduction import ReduceSum

    flat = x.ndim != 2
    d2 = Reshape(dout, (-1, dout.shape[-1])) if flat else dout
    dx = dw = db = None
    if wanted(0):
        dx = MatMul(d2, w)
        dx = Reshape(dx, x.shape) if flat else dx
    if wanted(1):
        dw = MatMul(d2, Reshape(x, (-1, x.shape[-1])) if flat else x, transpose_a=True)
    if b is not None and wanted(2):
        db = ReduceSum(d2, (0,), keep_dims=False)
    return dx, dw, db


@Dense.samples
def _dense(rng):
    w, b = rng.standard_normal((5, 4)), rng.standard_normal(5)
    for shape in ((3, 4), (4,), (2, 3, 4)):
        x = rng.standard_normal(shape)
        yield (x, w, b), {}
        yield (x, w), {}


@functional("matmul")
def matmul(input, other):
    """numpy-style matrix product: 1-d operands are vectors, batch dims broadcast.

    >>> matmul(ops.ones((2, 3)), ops.ones((3, 4))).shape
    (2, 4)
    """
    from ms_ops.defs.array import Reshape

    a_vec, b_vec = input.ndim == 1, other.ndim == 1
    a = Reshape(input, (1, input.shape[0])) if a_vec else input
    b = Reshape(other, (other.shape[0], 1)) if b_vec else other
    out = MatMul(a, b) if a.ndim == 2 and b.ndim == 2 else BatchMatMul(a, b)
    if a_vec or b_vec:
        shape = out.shape[:-2] + (() if a_vec else out.shape[-2:-1]) + \
            (() if b_vec else out.shape[-1:])
        out = Reshape(out, shape)
    return out


@functional(methods="__rmatmul__")
def _rmatmul(self, other):
    from ms_tensor import Tensor

    return matmul(Tensor(other) if not isinstance(other, Tensor) else other, self)


@functional(methods=("__matmul__", "matmul"))
def _matmul_method(self, other):
    from ms_tensor import Tensor

    return matmul(self, other if isinstance(other, Tensor) else Tensor(other))
