"""``mindspore.mint``: the PyTorch-shaped functional API, on the same operators as ``ops``.

mint's functions take ``dim``/``keepdim``/``correction`` where ``ops`` takes
``axis``/``keep_dims``/``ddof``, and a few differ in what they return (``mint.max(x)`` is
the maximum, ``mint.max(x, dim)`` a (values, indices) pair). Names whose ``ops`` function
has mint's signature and meaning are forwarded as they are (``FORWARDED``); the others are
adapters below, each calling the one operator definition.

Random functions take ``generator=None`` only: microspore draws from the global seed
(``ms.set_seed``), not from generator objects.
"""

from __future__ import annotations

import numpy as np

import ms_ops as _ops
from ms_ops import mint_more as _more
from ms_ops.mint_more import *  # noqa: F403  (re-exported: mint's other adapters)
from ms_tensor import dtype as mstype
from ms_tensor.tensor import Tensor

# mint names with the ops function of the same name, same arguments and meaning.
FORWARDED = (
    "abs", "acos", "acosh", "add", "addbmm", "addcdiv", "addcmul", "addmm", "addmv",
    "arange", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctan2", "arctanh",
    "argmax", "asin", "asinh", "atan", "atan2", "atanh", "baddbmm", "bitwise_and",
    "bitwise_or", "bitwise_xor", "bmm", "broadcast_to", "ceil", "clamp", "clip", "cos",
    "cosh", "cross", "cumprod", "div", "divide", "dot", "dstack", "eq", "equal", "erf",
    "erfc", "exp", "exp2", "expm1", "eye", "flip", "float_power", "floor", "floor_divide",
    "fmod", "frac", "full", "full_like", "gcd", "ge", "greater", "greater_equal", "gt",
    "hstack", "inverse", "isclose", "isfinite", "isinf", "isnan", "isneginf", "le", "lerp",
    "less", "less_equal", "log", "log10", "log1p", "log2", "logaddexp", "logaddexp2",
    "logical_and", "logical_not", "logical_or", "logical_xor", "logsumexp", "lt",
    "masked_select", "matmul", "maximum", "minimum", "mm", "mul", "nan_to_num", "ne", "neg",
    "negative", "nonzero", "not_equal", "ones_like", "outer", "pow", "ravel", "reciprocal",
    "remainder", "repeat_interleave", "reshape", "roll", "round", "rsqrt", "sigmoid",
    "sign", "sin", "sinh", "sqrt", "square", "sub", "sum", "swapaxes", "t", "take", "tan",
    "tanh", "tile", "trace", "tril", "triu", "trunc", "unbind", "unsqueeze",
    "where", "zeros", "zeros_like",
)

__all__ = [*FORWARDED, "all", "any", "amax", "amin", "argmin", "argsort", "cat", "chunk",
           "concat", "count_nonzero", "cumsum", "diag", "diff", "flatten", "gather",
           "index_select", "linspace", "max", "mean", "meshgrid", "min", "mv", "narrow",
           "norm", "ones", "permute", "prod", "select", "softmax", "sort", "split",
           "squeeze", "stack", "std", "topk", "transpose", "var", "bitwise_not", "clone", "fix",
           "item", "allclose", "vdot", "rand", "randn", "randint", "randperm",
           "rand_like", "randn_like", "normal", "bernoulli", "multinomial",
           *_more.__all__, *_more.FORWARDED_MORE]


def __getattr__(name):
    if name in FORWARDED or name in _more.FORWARDED_MORE:
        value = getattr(_ops, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'mint' has no attribute {name!r}")


def __dir__():
    return sorted(__all__)


def _axes(dim):
    return () if dim is None else dim


def all(input, dim=None, keepdim=False):
    """True where every entry along ``dim`` (all when None) is non-zero."""
    return _ops.all(input, _axes(dim), keepdim)


def any(input, dim=None, keepdim=False):
    """True where some entry along ``dim`` (all when None) is non-zero."""
    return _ops.any(input, _axes(dim), keepdim)


def amax(input, dim=(), keepdim=False):
    """The maximum along ``dim`` (every axis when empty)."""
    return _ops.amax(input, dim if dim != () else None, keepdim)


def amin(input, dim=(), keepdim=False):
    """The minimum along ``dim`` (every axis when empty)."""
    return _ops.amin(input, dim if dim != () else None, keepdim)


def argmin(input, dim=None, keepdim=False):
    """The index of the first minimum along ``dim`` (of the flattened input when None),
    int64 as PyTorch's."""
    out = _ops.argmin(input, dim, keepdim)
    return out if out.dtype is mstype.int64 else _ops.cast(out, mstype.int64)


def max(input, dim=None, keepdim=False):
    """``max(x)``: the maximum; ``max(x, dim)``: (values, indices); ``max(x, other)``:
    the elementwise maximum."""
    if isinstance(dim, Tensor):
        return _ops.maximum(input, dim)
    if dim is None:
        return _ops.amax(input)
    return _ops.max(input, dim, keepdim)


def min(input, dim=None, keepdim=False):
    """``min(x)``: the minimum; ``min(x, dim)``: (values, indices); ``min(x, other)``:
    the elementwise minimum."""
    if isinstance(dim, Tensor):
        return _ops.minimum(input, dim)
    if dim is None:
        return _ops.amin(input)
    return _ops.min(input, dim, keepdim)


def _typed(input, dtype):
    return input if dtype is None or input.dtype is dtype else _ops.cast(input, dtype)


def mean(input, dim=None, keepdim=False, *, dtype=None):
    """The mean along ``dim`` (every axis when None), in ``dtype`` if given."""
    return _ops.mean(_typed(input, dtype), _axes(dim), keepdim)


def prod(input, dim=None, keepdim=False, *, dtype=None):
    """The product along ``dim`` (every axis when None), in ``dtype`` if given."""
    return _ops.prod(input, dim, keepdim, dtype)


def std(input, dim=None, *, correction=1, keepdim=False):
    """The standard deviation with ``correction`` (Bessel's by default)."""
    return _ops.std(input, dim, correction, keepdim)


def var(input, dim=None, *, correction=1, keepdim=False):
    """The variance with ``correction`` (Bessel's by default)."""
    return _ops.var(input, dim, correction, keepdim)


def cumsum(input, dim, dtype=None):
    """The running sum along ``dim``."""
    return _ops.cumsum(input, dim, dtype)


def count_nonzero(input, dim=None):
    """How many entries along ``dim`` (all when None) are non-zero, int64."""
    return _ops.count_nonzero(input, _axes(dim), False, mstype.int64)


def softmax(input, dim, dtype=None):
    """Softmax along ``dim``, in ``dtype`` if given."""
    return _ops.softmax(_typed(input, dtype), dim)


def cat(tensors, dim=0):
    """Join tensors along ``dim``."""
    return _ops.concat(tensors, dim)


concat = cat


def stack(tensors, dim=0):
    """Join tensors of one shape along a new axis ``dim``."""
    return _ops.stack(tensors, dim)


def split(tensor, split_size_or_sections, dim=0):
    """Parts of ``split_size_or_sections`` each, or of the listed sizes, along ``dim``."""
    return _ops.split(tensor, split_size_or_sections, dim)


def chunk(input, chunks, dim=0):
    """``chunks`` parts along ``dim`` (the last may be shorter)."""
    return _ops.chunk(input, chunks, dim)


def sort(input, *, dim=-1, descending=False, stable=False):
    """(values, indices) sorted along ``dim``; always stable here; int64 indices."""
    values, indices = _ops.sort(input, dim, descending)
    return values, _ops.cast(indices, mstype.int64)


def topk(input, k, dim=-1, largest=True, sorted=True):
    """(values, int64 indices) of the ``k`` largest (or smallest) entries along ``dim``."""
    values, indices = _ops.topk(input, k, dim, largest, sorted)
    return values, _ops.cast(indices, mstype.int64)


def argsort(input, dim=-1, descending=False, stable=False):
    """The int64 indices that sort ``input`` along ``dim`` (stable)."""
    return _ops.cast(_ops.argsort(input, dim, descending), mstype.int64)


def index_select(input, dim, index):
    """The entries at the 1-d ``index`` along ``dim``."""
    return _ops.index_select(input, dim, index)


def narrow(input, dim, start, length):
    """``length`` entries of ``dim`` from ``start``."""
    return _ops.narrow(input, dim, start, length)


def gather(input, dim, index):
    """out[i][j] = input[index[i][j]][j] for dim 0, and so on (torch.gather)."""
    return _ops.gather_elements(input, dim, index)


def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The n-th difference along ``dim``."""
    return _ops.diff(input, n, dim, prepend, append)


def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """A vector or matrix norm (``p="fro"`` over every entry is the 2-norm)."""
    if p == "fro" and (dim is None or isinstance(dim, int)):
        p = None
    return _ops.norm(input, p, dim, keepdim, dtype=dtype)


def transpose(input, dim0, dim1):
    """``input`` with axes ``dim0`` and ``dim1`` exchanged."""
    return _ops.swapaxes(input, dim0, dim1)


def permute(input, dims):
    """``input`` with its axes in the order ``dims``."""
    return _ops.permute(input, tuple(dims))


def flatten(input, start_dim=0, end_dim=-1):
    """Axes ``start_dim`` to ``end_dim`` merged into one."""
    return _ops.flatten(input, start_dim=start_dim, end_dim=end_dim)


def squeeze(input, dim=None):
    """Size-1 axes removed (only ``dim`` when given)."""
    return _ops.squeeze(input, dim)


def ones(size, dtype=None):
    """Ones of ``size`` (float32 unless ``dtype``)."""
    return _ops.ones(size, dtype)


def linspace(start, end, steps, *, dtype=None):
    """``steps`` evenly spaced values from ``start`` to ``end``, in ``dtype`` if given."""
    return _typed(_ops.linspace(start, end, steps), dtype)


def diag(input, diagonal=0):
    """A 1-d input as the ``diagonal`` of a matrix; a 2-d input's ``diagonal``."""
    if input.ndim == 1:
        return _ops.diagflat(input, diagonal)
    if input.ndim == 2:
        return _ops.diagonal(input, diagonal)
    raise ValueError(f"diag: input must be 1-d or 2-d, got shape {input.shape}")


def meshgrid(*tensors, indexing=None):
    """Coordinate grids of 1-d tensors (``indexing`` "ij" by default, as PyTorch)."""
    return _ops.meshgrid(*tensors, indexing="ij" if indexing is None else indexing)


def select(input, dim, index):
    """The slice at ``index`` of axis ``dim`` (that axis removed)."""
    return _ops.squeeze(_ops.narrow(input, dim, index % input.shape[dim], 1), dim)


def mv(input, vec):
    """Matrix times vector."""
    return _ops.mv(input, vec)


def bitwise_not(input):
    """Bitwise NOT of an integer or bool tensor."""
    return _ops.invert(input)


def clone(input):
    """A copy of ``input`` that does not share its data."""
    from ms_ops.defs.array import Identity

    return Identity(input)


def fix(input):
    """Rounded toward zero (``trunc``)."""
    return _ops.trunc(input)


def item(input):
    """The value of a one-element tensor as a Python number."""
    return input.item()


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every entry is close (``isclose``) to ``other``'s."""
    return bool(_ops.isclose(input, other, rtol, atol, equal_nan).all())


def vdot(input, other):
    """The dot product of two 1-d tensors."""
    if input.ndim != 1 or other.ndim != 1:
        raise ValueError(f"vdot: inputs must be 1-d, got {input.shape} and {other.shape}")
    return _ops.inner(input, other)


def _no_generator(name, generator):
    if generator is not None:
        raise TypeError(f"mint.{name}: generator objects are not supported; microspore "
                        "draws from the global seed (ms.set_seed)")


def rand(*size, generator=None, dtype=None):
    """Uniform [0, 1) samples of ``size``."""
    _no_generator("rand", generator)
    return _ops.rand(*size, dtype=dtype)


def randn(*size, generator=None, dtype=None):
    """Standard normal samples of ``size``."""
    _no_generator("randn", generator)
    return _ops.randn(*size, dtype=dtype)


def randint(low, high, size, *, generator=None, dtype=None):
    """Integers in [low, high) of ``size``."""
    _no_generator("randint", generator)
    return _ops.randint(low, high, size, dtype=dtype)


def randperm(n, *, generator=None, dtype=mstype.int64):
    """A random permutation of 0..n-1."""
    _no_generator("randperm", generator)
    return _ops.randperm(n, dtype=dtype)


def rand_like(input, *, dtype=None):
    """Uniform [0, 1) samples of ``input``'s shape."""
    return _ops.rand_like(input, dtype=dtype)


def randn_like(input, *, dtype=None):
    """Standard normal samples of ``input``'s shape."""
    return _ops.randn_like(input, dtype=dtype)


def normal(mean=0.0, std=1.0, size=None, generator=None):
    """Normal samples with ``mean`` and ``std`` (tensors broadcast; numbers need ``size``)."""
    _no_generator("normal", generator)
    shapes = [tuple(v.shape) for v in (mean, std) if isinstance(v, Tensor)]
    if size is None and not shapes:
        raise ValueError("mint.normal: give size when mean and std are numbers")
    shape = tuple(size) if size is not None else np.broadcast_shapes(*shapes)
    return _ops.normal(shape, mean, std)


def bernoulli(input, *, generator=None):
    """1 with probability ``input``, else 0, in ``input``'s dtype."""
    _no_generator("bernoulli", generator)
    return _ops.bernoulli(input, input)


def multinomial(input, num_samples, replacement=False, *, generator=None):
    """Indices drawn from the rows of ``input`` taken as weights."""
    _no_generator("multinomial", generator)
    return _ops.multinomial(input, num_samples, replacement)
