"""Tensor methods that are spellings of existing operators (``x.multiply``, ``x.where``,
``x.select``, ``x.clone``, ``x.sum_to_size``...), plus ``kthvalue``, ``logit`` and
``soft_shrink`` in both their functional and method forms.
"""

from __future__ import annotations

import numpy as np

from ms_ops.defs import array, comparison, math_unary
from ms_ops.defs.arithmetic import Div, Mul, Neg, Sub
from ms_ops.defs.array_reorder import Select
from ms_ops.defs.indexing import GatherD, GatherNd, TensorScatterElements
from ms_ops.defs.reduction_arg import ArgMaxWithValue, ArgMinWithValue
from ms_ops.defs.sort import Sort
from ms_ops.opdef import functional, primitive_class
from ms_tensor import dtype as mstype
from ms_tensor.tensor import Tensor


def _ops():
    import ms_ops

    return ms_ops


@functional(methods="clone")
def clone(self):
    """``x.clone()``: a copy (gradients flow through it)."""
    return array.Identity(self)


@functional(methods="multiply")
def multiply(self, value):
    """``x.multiply(y)``: x * y."""
    return Mul(self, value)


@functional(methods="negative")
def negative(self):
    """``x.negative()``: -x."""
    return Neg(self)


@functional(methods="subtract")
def subtract(self, other, *, alpha=1):
    """``x.subtract(y, alpha=1)``: x - alpha * y."""
    return Sub(self, other if alpha == 1 else Mul(other, alpha))


@functional(methods="bitwise_not")
def bitwise_not(self):
    """``x.bitwise_not()``: ~x for integers and bools."""
    return _ops().invert(self)


@functional(methods="bmm")
def bmm(self, mat2):
    """``x.bmm(y)``: batched matrix product."""
    return _ops().bmm(self, mat2)


@functional(methods="where")
def where(self, condition, y):
    """``x.where(condition, y)``: x where condition holds, else y."""
    return Select(condition, self, y)


@functional(methods="select")
def select(self, dim, index):
    """``x.select(dim, index)``: the slice at ``index`` along ``dim``, that axis removed."""
    dim %= self.ndim
    index %= self.shape[dim]
    return array.Squeeze(_ops().narrow(self, dim, index, 1), (dim,))


@functional(methods="expand")
def expand(self, *size):
    """``x.expand(*size)``: x broadcast to ``size`` (-1 keeps an axis)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list, Tensor)):
        size = size[0]
    return _ops().expand(self, size)


@functional(methods="fills")
def fills(self, value):
    """``x.fills(value)``: a tensor of x's shape and dtype filled with ``value``."""
    return _ops().fills(self, value)


@functional(methods="reverse")
def reverse(self, axis):
    """``x.reverse(axis)``: x flipped along ``axis``."""
    return _ops().reverse(self, axis)


@functional(methods="reverse_sequence")
def reverse_sequence(self, seq_lengths, seq_dim=0, batch_dim=0):
    """``x.reverse_sequence(seq_lengths, seq_dim, batch_dim)``."""
    return _ops().reverse_sequence(self, seq_lengths, seq_dim, batch_dim)


@functional(methods="gather_nd")
def gather_nd(self, indices):
    """``x.gather_nd(indices)``: the elements or slices at N-d ``indices``."""
    return GatherNd(self, indices)


@functional(methods="index_add")
def index_add(self, indices, y, axis, use_lock=True, check_index_bound=True):
    """``x.index_add(indices, y, axis)``: y's slices added into x at ``indices`` along
    ``axis``, in place (as MindSpore's, which updates x), and x returned."""
    return self.index_add_(axis, indices, y)


@functional(methods="index_put")
def index_put(self, indices, values, accumulate=False):
    """``x.index_put(indices, values, accumulate=False)``: a copy of x with ``values``
    written (or added) at the positions ``indices`` (a tuple of index tensors)."""
    return _ops().IndexPut(int(accumulate))(self, values, indices)


@functional(methods="scatter_add")
def scatter_add(self, dim, index, src):
    """``x.scatter_add(dim, index, src)``: a copy of x with src added at index along dim."""
    return TensorScatterElements(self, index, src, axis=dim, reduction="add")


@functional(methods="inplace_update")
def inplace_update(self, v, indices):
    """``x.inplace_update(v, indices)``: a copy of x with the rows ``indices`` set to v."""
    return _ops().inplace_update(self, v, indices)


@functional(methods="fill_diagonal")
def fill_diagonal(self, fill_value, wrap=False):
    """``x.fill_diagonal(value, wrap=False)``: a copy with the main diagonal set."""
    return _ops().FillDiagonal(fill_value, wrap)(self)


@functional(methods="allclose")
def allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``x.allclose(y)``: whether every element is close, as a Python bool."""
    close = comparison.IsClose(self, other, rtol=rtol, atol=atol, equal_nan=equal_nan)
    return bool(np.all(close.asnumpy()))


@functional(methods="choose")
def choose(self, choices, mode="clip"):
    """``x.choose(choices, mode)``: element i from ``choices[x[i]]`` (numpy's choose;
    ``mode`` "clip" or "wrap" for out-of-range indices, "raise" to refuse them)."""
    from ms_ops.defs.array_join import stack

    picked = stack(tuple(choices), 0) if isinstance(choices, (tuple, list)) else choices
    n = picked.shape[0]
    index = self.asnumpy().astype(np.int64)
    if mode == "raise" and (index.min() < 0 or index.max() >= n):
        raise ValueError(f"choose: indices must lie in [0, {n}), got {index.min()}..{index.max()}")
    index = np.clip(index, 0, n - 1) if mode == "clip" else np.mod(index, n)
    shape = np.broadcast_shapes(index.shape, tuple(picked.shape[1:]))
    full = array.BroadcastTo(picked, (n,) + shape)
    where = Tensor(np.broadcast_to(index, shape)[None].copy())
    return array.Squeeze(GatherD(full, 0, where), (0,))


@functional(methods="sum_to_size")
def sum_to_size(self, *size):
    """``x.sum_to_size(*size)``: x summed down to ``size`` (the inverse of broadcasting)."""
    from ms_ops.defs._grad_util import sum_to

    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    size = tuple(int(s) for s in size)
    try:
        np.broadcast_shapes(size, tuple(self.shape))
    except ValueError:
        raise ValueError(f"sum_to_size: size {size} must broadcast to the tensor's shape "
                         f"{self.shape}") from None
    return sum_to(self, size)


@functional(methods="argmax_with_value")
def argmax_with_value(self, axis=0, keep_dims=False):
    """``x.argmax_with_value(axis, keep_dims)``: (value, index) of the maximum (the
    method's order; the ArgMaxWithValue primitive gives (index, value))."""
    index, value = ArgMaxWithValue(self, axis=axis, keep_dims=keep_dims)
    return value, index


@functional(methods="argmin_with_value")
def argmin_with_value(self, axis=0, keep_dims=False):
    """``x.argmin_with_value(axis, keep_dims)``: (value, index) of the minimum."""
    index, value = ArgMinWithValue(self, axis=axis, keep_dims=keep_dims)
    return value, index


@functional("kthvalue", methods="kthvalue")
def kthvalue(input, k, dim=-1, keepdim=False):
    """``ops.kthvalue``: (the k-th smallest value along ``dim`` (1-based), its int64 index)."""
    dim %= max(input.ndim, 1)
    n = input.shape[dim] if input.ndim else 1
    if not 1 <= k <= n:
        raise ValueError(f"kthvalue: k must lie in [1, {n}] for dim {dim} of shape "
                         f"{input.shape}, got {k}")
    values, indices = Sort(input, axis=dim)
    shape = list(input.shape)
    shape[dim] = 1
    at = Tensor(np.full(shape, k - 1, np.int64))
    v, i = GatherD(values, dim, at), array.Cast(GatherD(indices, dim, at), mstype.int64)
    if not keepdim:
        v, i = array.Squeeze(v, (dim,)), array.Squeeze(i, (dim,))
    return v, i


@functional("logit", methods="logit")
def logit(input, eps=None):
    """``ops.logit``: log(x / (1 - x)), x first clamped to [eps, 1 - eps] when eps is given."""
    x = input if eps is None or eps < 0 else _ops().clamp(input, eps, 1.0 - eps)
    return math_unary.Log(Div(x, Sub(1.0, x)))


Logit = primitive_class("Logit", lambda x, eps=-1.0: logit(x, eps), ("eps",))


@functional("soft_shrink", methods="soft_shrink")
def soft_shrink(input, lambd=0.5):
    """``ops.soft_shrink``: :func:`ops.softshrink`."""
    return _ops().softshrink(input, lambd)


@functional(methods="triangular_solve")
def triangular_solve(self, A, upper=True, transpose=False, unitriangular=False):
    """``b.triangular_solve(A, upper, transpose, unitriangular)``: (x, A) with
    op(A) @ x = b, A triangular (its diagonal taken as ones when ``unitriangular``)."""
    from ms_ops.defs.linalg_decomp import MatrixTriangularSolve

    a = A
    if unitriangular:
        eye = Tensor(np.eye(A.shape[-1], dtype=A.dtype.np).astype(bool))
        a = Select(eye, 1.0, A)
    return MatrixTriangularSolve(a, self, lower=not upper, adjoint=transpose), A


def _no_generator(generator):
    if generator is not None:
        raise ValueError("generator objects are not supported; seed with ms.set_seed")


@functional(methods="bernoulli")
def bernoulli(self, *, generator=None):
    """``p.bernoulli()``: 1 with probability p[i] (p holds probabilities), else 0."""
    _no_generator(generator)
    return array.Cast(comparison.Less(_ops().rand_like(self), self), self.dtype)


@functional(methods="uniform")
def uniform(self, from_=0.0, to=1.0, generator=None):
    """``x.uniform(from_, to)``: a new tensor like x drawn from U[from_, to)."""
    _no_generator(generator)
    return _ops().add(Mul(_ops().rand_like(self), to - from_), from_)


@functional(methods="cauchy")
def cauchy(self, median=0.0, sigma=1.0):
    """``x.cauchy(median, sigma)``: a new tensor like x drawn from Cauchy(median, sigma)."""
    shifted = _ops().sub(_ops().rand_like(self), 0.5)
    return _ops().add(Mul(math_unary.Tan(Mul(shifted, np.pi)), sigma), median)


@functional(methods="log_normal")
def log_normal(self, mean=1.0, std=2.0):
    """``x.log_normal(mean, std)``: exp of N(mean, std ** 2) samples, shaped like x."""
    return math_unary.Exp(_ops().add(Mul(_ops().randn_like(self), std), mean))
