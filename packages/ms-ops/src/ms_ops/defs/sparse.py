"""MindSpore's sparse functions over COOTensor/CSRTensor/RowTensor (``ms_ops.sparse_tensors``):
``coo_*``/``csr_*`` elementwise forms (applied to the stored values, as MindSpore does,
even where f(0) != 0), ``coo_add``, ``coo_concat``, ``csr_add``/``csr_mul``/``csr_div``,
``csr_mv``/``csr_mm``, ``csr_reduce_sum``, ``csr_softmax``, ``csr_gather``, the COO/CSR
conversions, ``coalesce``, ``SparseToDense`` and the accessors.

Products and sums are gathers and segment sums over the stored entries, so they cost the
number of non-zeros and pass gradients to the values and the dense operand.
"""

from __future__ import annotations

import numpy as np

from ms_ops.opdef import functional, primitive_class
from ms_ops.sparse_tensors import COOTensor, CSRTensor, RowTensor
from ms_tensor import dtype as mstype
from ms_tensor.tensor import Tensor

_UNARY = ("abs acos acosh asin asinh atan atanh ceil cos cosh exp expm1 floor inv isfinite "
          "isinf isnan log log1p neg relu relu6 round sigmoid sin sinh softsign sqrt square tan "
          "tanh").split()


def _ops():
    import ms_ops

    return ms_ops


def _check(name, x, kind):
    if not isinstance(x, kind):
        raise TypeError(f"{name}: expected a {kind.__name__}, got {type(x).__name__}")


def _unary(prefix: str, kind, fn_name: str):
    def fn(x):
        _check(f"{prefix}_{fn_name}", x, kind)
        return x.with_values(getattr(_ops(), fn_name)(x.values))

    fn.__name__ = fn.__qualname__ = f"{prefix}_{fn_name}"
    fn.__doc__ = f"``ops.{prefix}_{fn_name}``: ``{fn_name}`` of the stored values."
    fn.__module__ = __name__
    return functional(f"{prefix}_{fn_name}")(fn)


for _name in _UNARY:
    globals()[f"coo_{_name}"] = _unary("coo", COOTensor, _name)
    globals()[f"csr_{_name}"] = _unary("csr", CSRTensor, _name)


def _accessor(name, kind, attr):
    def fn(x):
        _check(name, x, kind)
        return getattr(x, attr)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``ops.{name}``: the tensor's ``{attr}``."
    fn.__module__ = __name__
    return functional(name)(fn)


for _name, _kind, _attr in (
        ("coo_tensor_get_indices", COOTensor, "indices"),
        ("coo_tensor_get_values", COOTensor, "values"),
        ("coo_tensor_get_dense_shape", COOTensor, "shape"),
        ("csr_tensor_get_indptr", CSRTensor, "indptr"),
        ("csr_tensor_get_indices", CSRTensor, "indices"),
        ("csr_tensor_get_values", CSRTensor, "values"),
        ("csr_tensor_get_dense_shape", CSRTensor, "shape"),
        ("row_tensor_get_indices", RowTensor, "indices"),
        ("row_tensor_get_values", RowTensor, "values"),
        ("row_tensor_get_dense_shape", RowTensor, "dense_shape")):
    globals()[_name] = _accessor(_name, _kind, _attr)


@functional("make_coo_tensor", "make_sparse_tensor")
def make_coo_tensor(indices, values, dense_shape):
    """``ops.make_coo_tensor``: a COOTensor."""
    return COOTensor(indices, values, dense_shape)


@functional("make_csr_tensor")
def make_csr_tensor(indptr, indices, values, dense_shape):
    """``ops.make_csr_tensor``: a CSRTensor."""
    return CSRTensor(indptr, indices, values, dense_shape)


@functional("make_row_tensor", "make_row_tensor_inner")
def make_row_tensor(indices, values, dense_shape):
    """``ops.make_row_tensor``: a RowTensor."""
    return RowTensor(indices, values, dense_shape)


@functional("row_tensor_add")
def row_tensor_add(x, y):
    """``ops.row_tensor_add``: a RowTensor plus a dense tensor broadcast to its rows' shape."""
    _check("row_tensor_add", x, RowTensor)
    return RowTensor(x.indices, _ops().add(x.values, y), x.dense_shape)


@functional("coalesce")
def coalesce(x_indices, x_values, x_shape):
    """``ops.coalesce``: (indices (ndim, M), values, shape) with each coordinate once,
    sorted, the values of repeats summed; ``x_indices`` is (ndim, N)."""
    idx = x_indices.asnumpy()
    if idx.ndim != 2 or idx.shape[1] != x_values.shape[0]:
        raise ValueError(f"coalesce: x_indices must be (ndim, {x_values.shape[0]}), got "
                         f"{idx.shape}")
    unique, inverse = np.unique(idx.T, axis=0, return_inverse=True)
    values = _ops().unsorted_segment_sum(x_values, Tensor(inverse.reshape(-1).astype(np.int64)),
                                         unique.shape[0])
    return Tensor(unique.T.astype(idx.dtype)), values, x_shape


Coalesce = primitive_class("Coalesce", coalesce)


def _sparse_to_dense(indices, values, sparse_shape):
    return _ops().scatter_nd(indices, values, tuple(int(s) for s in (
        sparse_shape.asnumpy() if isinstance(sparse_shape, Tensor) else sparse_shape)))


SparseToDense = primitive_class("SparseToDense", _sparse_to_dense)
SparseGatherV2 = primitive_class("SparseGatherV2", lambda params, indices, axis:
                                 _ops().gather(params, indices, axis))


@functional("coo_add")
def coo_add(x1, x2, thresh):
    """``ops.coo_add``: x1 + x2 with entries whose magnitude is below ``thresh`` dropped;
    the stored entries of both are kept (repeats merge in ``to_dense``)."""
    _check("coo_add", x1, COOTensor)
    _check("coo_add", x2, COOTensor)
    if x1.shape != x2.shape:
        raise ValueError(f"coo_add: shapes {x1.shape} and {x2.shape} differ")
    if x1.indices.shape == x2.indices.shape and np.array_equal(x1.indices.asnumpy(),
                                                               x2.indices.asnumpy()):
        indices, values = x1.indices, _ops().add(x1.values, x2.values)
    else:
        indices = _ops().concat((x1.indices, x2.indices), 0)
        values = _ops().concat((x1.values, x2.values), 0)
        merged = COOTensor(indices, values, x1.shape).coalesce()
        indices, values = merged.indices, merged.values
    keep = np.abs(values.asnumpy()) >= float(thresh.asnumpy() if isinstance(thresh, Tensor)
                                             else thresh)
    picks = Tensor(np.flatnonzero(keep).astype(np.int64))
    return COOTensor(_ops().gather(indices, picks, 0), _ops().gather(values, picks, 0),
                     x1.shape)


@functional("coo_concat")
def coo_concat(sp_input, concat_dim=0):
    """``ops.coo_concat``: COOTensors joined along ``concat_dim``, entries in row-major order."""
    parts = list(sp_input)
    dim = concat_dim % parts[0].ndim
    offset, indices, values = 0, [], []
    for p in parts:
        _check("coo_concat", p, COOTensor)
        shift = np.zeros(p.ndim, p.indices.dtype.np)
        shift[dim] = offset
        indices.append(p.indices.asnumpy() + shift)
        values.append(p.values)
        offset += p.shape[dim]
    coords = np.concatenate(indices)
    order = np.lexsort(coords.T[::-1])
    shape = list(parts[0].shape)
    shape[dim] = offset
    stored = _ops().gather(_ops().concat(tuple(values), 0), Tensor(order.astype(np.int64)), 0)
    return COOTensor(Tensor(coords[order]), stored, tuple(shape))


@functional("csr2coo")
def csr2coo(indptr, length):
    """``ops.csr2coo``: the row index of each of the ``length`` stored values."""
    ptr = indptr.asnumpy()
    rows = np.repeat(np.arange(ptr.shape[0] - 1), np.diff(ptr)).astype(ptr.dtype)
    if rows.shape[0] != length:
        raise ValueError(f"csr2coo: indptr describes {rows.shape[0]} values, length is {length}")
    return Tensor(rows)


@functional("coo2csr")
def coo2csr(coo_row_indices, height):
    """``ops.coo2csr``: the indptr (height + 1) of sorted COO row indices."""
    rows = coo_row_indices.asnumpy()
    return Tensor(np.searchsorted(rows, np.arange(height + 1)).astype(rows.dtype))


@functional("csr_to_coo")
def csr_to_coo(tensor):
    """``ops.csr_to_coo``: the CSRTensor as a COOTensor."""
    _check("csr_to_coo", tensor, CSRTensor)
    return tensor.to_coo()


@functional("csr_to_dense")
def csr_to_dense(csr_tensor):
    """``ops.csr_to_dense``: the dense tensor."""
    _check("csr_to_dense", csr_tensor, CSRTensor)
    return csr_tensor.to_dense()


@functional("dense_to_sparse_coo")
def dense_to_sparse_coo(tensor):
    """``ops.dense_to_sparse_coo``: the non-zeros of a dense tensor as a COOTensor."""
    where = Tensor(np.argwhere(tensor.asnumpy() != 0).astype(np.int64))
    return COOTensor(where, _ops().gather_nd(tensor, where), tuple(tensor.shape))


@functional("dense_to_sparse_csr")
def dense_to_sparse_csr(tensor):
    """``ops.dense_to_sparse_csr``: the non-zeros of a 2-D dense tensor as a CSRTensor."""
    if tensor.ndim != 2:
        raise ValueError(f"dense_to_sparse_csr: needs a 2-D tensor, got shape {tensor.shape}")
    return dense_to_sparse_coo(tensor).to_csr()


@functional(methods="to_coo")
def _to_coo(self):
    return dense_to_sparse_coo(self)


@functional(methods="to_csr")
def _to_csr(self):
    return dense_to_sparse_csr(self)


def _at_entries(x, dense):
    """``dense`` (broadcast to x's shape) read at x's stored coordinates."""
    full = _ops().broadcast_to(dense, x.shape)
    coords = _ops().stack((x.rows(), x.indices), 1)
    return _ops().gather_nd(full, coords)


@functional("csr_mul")
def csr_mul(x, y):
    """``ops.csr_mul``: x * y at x's entries (y dense, broadcast)."""
    _check("csr_mul", x, CSRTensor)
    return x.with_values(_ops().mul(x.values, _at_entries(x, y)))


@functional("csr_div")
def csr_div(x, y):
    """``ops.csr_div``: x / y at x's entries (y dense, broadcast)."""
    _check("csr_div", x, CSRTensor)
    return x.with_values(_ops().div(x.values, _at_entries(x, y)))


@functional("csr_add")
def csr_add(a, b, alpha, beta):
    """``ops.csr_add``: alpha * a + beta * b for two CSRTensors of one shape."""
    _check("csr_add", a, CSRTensor)
    _check("csr_add", b, CSRTensor)
    coo = coo_add(COOTensor(a.to_coo().indices, _ops().mul(a.values, alpha), a.shape),
                  COOTensor(b.to_coo().indices, _ops().mul(b.values, beta), b.shape), 0.0)
    return coo.to_csr()


@functional("csr_gather")
def csr_gather(indptr, indices, dense, sparse_shape):
    """``ops.csr_gather``: the values of ``dense`` at the CSR pattern (indptr, indices)."""
    pattern = CSRTensor(indptr, indices, _ops().zeros(indices.shape, dense.dtype),
                        sparse_shape)
    return _at_entries(pattern, dense)


@functional("csr_mm")
def csr_mm(a, b, trans_a=False, trans_b=False, adjoint_a=False, adjoint_b=False):
    """``ops.csr_mm``: a @ b for a CSRTensor ``a`` and a dense matrix ``b`` (a dense result),
    as a gather of b's rows and a segment sum per row of ``a``."""
    _check("csr_mm", a, CSRTensor)
    if isinstance(b, CSRTensor):
        b = b.to_dense()
    if trans_a or adjoint_a:
        a = a.to_coo()
        a = COOTensor(_ops().stack((a.indices[:, 1], a.indices[:, 0]), 1), a.values,
                      (a.shape[1], a.shape[0])).to_csr()
    if trans_b or adjoint_b:
        b = _ops().transpose(b, (1, 0))
    rows = _ops().gather(b, a.indices, 0)
    scaled = _ops().mul(rows, _ops().expand_dims(a.values, -1))
    return _ops().unsorted_segment_sum(scaled, a.rows(), a.shape[0])


@functional("csr_mv")
def csr_mv(csr_tensor, dense_vector):
    """``ops.csr_mv``: a CSRTensor times a dense (n, 1) vector."""
    return csr_mm(csr_tensor, dense_vector)


@functional("csr_reduce_sum")
def csr_reduce_sum(csr_tensor, axis):
    """``ops.csr_reduce_sum``: the dense sums over ``axis`` (kept as a length-1 axis)."""
    _check("csr_reduce_sum", csr_tensor, CSRTensor)
    axis %= 2
    segments = csr_tensor.rows() if axis == 1 else csr_tensor.indices
    n = csr_tensor.shape[0 if axis == 1 else 1]
    sums = _ops().unsorted_segment_sum(csr_tensor.values, segments, n)
    return _ops().expand_dims(sums, axis)


@functional("csr_softmax")
def csr_softmax(logits, dtype=mstype.float32):
    """``ops.csr_softmax``: the softmax of each row's stored values."""
    _check("csr_softmax", logits, CSRTensor)
    rows = logits.rows()
    top = _ops().gather(_ops().unsorted_segment_max(logits.values, rows, logits.shape[0]),
                        rows, 0)
    e = _ops().exp(_ops().sub(logits.values, top))
    total = _ops().gather(_ops().unsorted_segment_sum(e, rows, logits.shape[0]), rows, 0)
    return logits.with_values(_ops().cast(_ops().div(e, total), dtype))
