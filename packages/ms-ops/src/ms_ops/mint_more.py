"""More of ``mindspore.mint``: PyTorch-shaped adapters over ``ops`` for scatter/index,
reductions with ``dim``/``correction``, ``median``, ``empty``, ``randint_like``, ``cdist``
and ``conv2d``. (``ms_ops.mint`` re-exports these.)"""

from __future__ import annotations

import ms_ops as _ops
from ms_ops import mint_nn_functional as _F
from ms_tensor import dtype as mstype

# mint names whose ops function has mint's arguments and meaning.
FORWARDED_MORE = ("einsum", "bincount", "searchsorted", "unique_consecutive", "erfinv", "sinc",
                  "xlogy", "kthvalue", "histc", "cummax", "cummin", "scatter", "real", "imag",
                  "polar")

__all__ = ["index_add", "scatter_add", "nansum", "std_mean", "var_mean", "median", "empty",
           "empty_like", "randint_like", "cdist", "conv2d"]


def index_add(input, dim, index, source, *, alpha=1):
    """``input`` with ``alpha * source`` added at ``index`` along ``dim``.

    >>> index_add(ops.zeros((2, 2)), 0, Tensor([1, 1]), ops.ones((2, 2))).asnumpy().tolist()
    [[0.0, 0.0], [2.0, 2.0]]
    """
    return _ops.index_add(input, index, source * alpha if alpha != 1 else source, dim)


def scatter_add(input, dim, index, src):
    """``input`` with ``src[i]`` added at ``index[i]`` along ``dim`` (repeats accumulate).

    >>> scatter_add(ops.zeros(3), 0, Tensor([0, 0, 2]), ops.ones(3)).asnumpy().tolist()
    [2.0, 0.0, 1.0]
    """
    return _ops.tensor_scatter_elements(input, index, src, axis=dim, reduction="add")


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """The sum along ``dim`` with NaN counted as zero."""
    return _ops.nansum(input, dim, keepdim, dtype=dtype)


def std_mean(input, dim=None, *, correction=1, keepdim=False):
    """(standard deviation with ``correction``, mean) along ``dim``."""
    return _ops.std_mean(input, dim, correction, keepdim)


def var_mean(input, dim=None, *, correction=1, keepdim=False):
    """(variance with ``correction``, mean) along ``dim``."""
    return _ops.var_mean(input, dim, correction, keepdim)


def median(input, dim=None, keepdim=False):
    """``median(x)``: the lower median of all values; ``median(x, dim)``: (values,
    indices) along ``dim``.

    >>> median(Tensor([3.0, 1.0, 2.0, 4.0])).asnumpy()
    array(2., dtype=float32)
    """
    if dim is None:
        return _ops.median(_ops.reshape(input, (-1,)), 0)[0]
    return _ops.median(input, dim, keepdim)


def _size(size):
    return tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size


def empty(*size, dtype=None, device=None, pin_memory=False):
    """A new tensor of ``size`` (zero-filled here: the contents of ``empty`` are
    unspecified)."""
    return _ops.zeros(_size(size), dtype)


def empty_like(input, *, dtype=None, device=None, pin_memory=False):
    """A new tensor shaped like ``input`` (zero-filled)."""
    return _ops.zeros(input.shape, dtype or input.dtype)


def randint_like(input, low=0, high=None, *, dtype=None, device=None):
    """Random integers in [low, high) shaped like ``input``, in ``dtype`` (``input``'s by
    default, as PyTorch's); one bound means [0, bound)."""
    if high is None:
        low, high = 0, low
    out = _ops.randint_like(input, low, high, dtype=mstype.int64)
    return _ops.cast(out, dtype or input.dtype)


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The p-norm distances between the rows of ``x1`` and of ``x2`` (the mode is a speed
    hint, the numbers are the same)."""
    return _ops.cdist(x1, x2, p)


conv2d = _F.conv2d
