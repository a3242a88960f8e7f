"""MindSpore's sparse tensors: COOTensor, CSRTensor and RowTensor.

Each holds ordinary Tensors (indices, values, ...) and a dense shape; arithmetic works on
the ``values`` tensor with the usual operators, so gradients reach the values, and
``to_dense`` scatters them (repeated coordinates add up, as in MindSpore). Index
conversions (COO <-> CSR) read the index tensors, so they run eagerly, not inside a
compiled graph.
"""

from __future__ import annotations

import numpy as np

from ms_tensor import dtype as mstype
from ms_tensor.tensor import Tensor


def _ops():
    import ms_ops

    return ms_ops


def _shape(shape) -> tuple[int, ...]:
    if isinstance(shape, Tensor):
        shape = shape.asnumpy().tolist()
    return tuple(int(s) for s in shape)


class COOTensor:
    """``indices`` (N, ndim) int, ``values`` (N,), dense ``shape``: the non-zeros by
    coordinates."""

    def __init__(self, indices=None, values=None, shape=None, coo_tensor=None):
        if coo_tensor is not None:
            indices, values, shape = coo_tensor.indices, coo_tensor.values, coo_tensor.shape
        if indices is None or values is None or shape is None:
            raise ValueError("COOTensor: give indices, values and shape (or coo_tensor)")
        shape = _shape(shape)
        if indices.ndim != 2 or indices.shape[1] != len(shape):
            raise ValueError(f"COOTensor: indices must have shape (N, {len(shape)}) for dense "
                             f"shape {shape}, got {indices.shape}")
        if values.ndim != 1 or values.shape[0] != indices.shape[0]:
            raise ValueError(f"COOTensor: values must have shape ({indices.shape[0]},), got "
                             f"{values.shape}")
        if indices.dtype not in (mstype.int32, mstype.int64, mstype.int16):
            raise TypeError(f"COOTensor: indices must be int16/int32/int64, got {indices.dtype}")
        self.indices, self.values, self.shape = indices, values, shape

    dtype = property(lambda self: self.values.dtype)
    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: self.values.shape[0])
    itemsize = property(lambda self: np.dtype(self.values.dtype.np).itemsize)

    def __repr__(self) -> str:
        return f"COOTensor(shape={list(self.shape)}, dtype={self.dtype}, nnz={self.size})"

    def with_values(self, values) -> COOTensor:
        return COOTensor(self.indices, values, self.shape)

    def to_dense(self) -> Tensor:
        return _ops().scatter_nd(self.indices, self.values, self.shape)

    def to_tuple(self):
        return self.indices, self.values, self.shape

    def astype(self, dtype) -> COOTensor:
        return self.with_values(_ops().cast(self.values, dtype))

    def abs(self) -> COOTensor:
        return self.with_values(_ops().abs(self.values))

    def add(self, other, thresh) -> COOTensor:
        return _ops().coo_add(self, other, thresh)

    def coalesce(self) -> COOTensor:
        """Sorted coordinates, each once, with the values of repeats summed."""
        idx, values, _ = _ops().coalesce(_ops().transpose(self.indices, (1, 0)), self.values,
                                         Tensor(np.array(self.shape, np.int64)))
        return COOTensor(_ops().transpose(idx, (1, 0)), values, self.shape)

    def to_csr(self) -> CSRTensor:
        if len(self.shape) != 2:
            raise ValueError(f"COOTensor.to_csr: needs a 2-D tensor, got shape {self.shape}")
        rows = self.indices.asnumpy()
        order = np.lexsort((rows[:, 1], rows[:, 0]))
        indptr = np.searchsorted(rows[order, 0], np.arange(self.shape[0] + 1)).astype(
            rows.dtype)
        values = _ops().gather(self.values, Tensor(order.astype(np.int64)), 0)
        return CSRTensor(Tensor(indptr), Tensor(rows[order, 1].copy()), values, self.shape)


class CSRTensor:
    """Compressed rows: ``indptr`` (rows + 1), column ``indices`` and ``values`` (nnz,)."""

    def __init__(self, indptr=None, indices=None, values=None, shape=None, csr_tensor=None):
        if csr_tensor is not None:
            indptr, indices = csr_tensor.indptr, csr_tensor.indices
            values, shape = csr_tensor.values, csr_tensor.shape
        if indptr is None or indices is None or values is None or shape is None:
            raise ValueError("CSRTensor: give indptr, indices, values and shape (or csr_tensor)")
        shape = _shape(shape)
        if len(shape) != 2:
            raise ValueError(f"CSRTensor: only 2-D shapes are supported, got {shape}")
        if indptr.ndim != 1 or indptr.shape[0] != shape[0] + 1:
            raise ValueError(f"CSRTensor: indptr must have shape ({shape[0] + 1},) for "
                             f"{shape[0]} rows, got {indptr.shape}")
        if indices.shape != values.shape or values.ndim != 1:
            raise ValueError(f"CSRTensor: indices {indices.shape} and values {values.shape} "
                             "must be 1-D of the same length")
        self.indptr, self.indices, self.values, self.shape = indptr, indices, values, shape

    dtype = property(lambda self: self.values.dtype)
    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: self.values.shape[0])
    itemsize = property(lambda self: np.dtype(self.values.dtype.np).itemsize)

    def __repr__(self) -> str:
        return f"CSRTensor(shape={list(self.shape)}, dtype={self.dtype}, nnz={self.size})"

    def with_values(self, values) -> CSRTensor:
        return CSRTensor(self.indptr, self.indices, values, self.shape)

    def rows(self) -> Tensor:
        """The row of every stored value (COO row indices)."""
        return _ops().csr2coo(self.indptr, self.size)

    def to_coo(self) -> COOTensor:
        coords = _ops().stack((self.rows(), self.indices), 1)
        return COOTensor(coords, self.values, self.shape)

    def to_dense(self) -> Tensor:
        return self.to_coo().to_dense()

    def to_tuple(self):
        return self.indptr, self.indices, self.values, self.shape

    def astype(self, dtype) -> CSRTensor:
        return self.with_values(_ops().cast(self.values, dtype))

    def abs(self) -> CSRTensor:
        return self.with_values(_ops().abs(self.values))

    def add(self, b, alpha, beta) -> CSRTensor:
        return _ops().csr_add(self, b, alpha, beta)

    def mv(self, dense_vector) -> Tensor:
        return _ops().csr_mv(self, dense_vector)

    def mm(self, matrix) -> Tensor:
        return _ops().csr_mm(self, matrix)

    def sum(self, axis) -> Tensor:
        return _ops().csr_reduce_sum(self, axis)


class RowTensor:
    """Rows of a dense tensor: ``values[i]`` is row ``indices[i]`` of ``dense_shape``
    (the gradient of a Gather); the others are zero."""

    def __init__(self, indices=None, values=None, dense_shape=None, row_tensor=None):
        if row_tensor is not None:
            indices, values = row_tensor.indices, row_tensor.values
            dense_shape = row_tensor.dense_shape
        self.indices, self.values = indices, values
        self.dense_shape = _shape(dense_shape)
        if values.shape[0] != indices.shape[0] or tuple(values.shape[1:]) != \
                self.dense_shape[1:]:
            raise ValueError(f"RowTensor: values shape {values.shape} must be "
                             f"({indices.shape[0]},) + {self.dense_shape[1:]}")

    dtype = property(lambda self: self.values.dtype)

    def __repr__(self) -> str:
        return f"RowTensor(dense_shape={list(self.dense_shape)}, rows={self.indices.shape[0]})"

    def to_dense(self) -> Tensor:
        return _ops().unsorted_segment_sum(self.values, self.indices, self.dense_shape[0])


SparseTensor = COOTensor  # MindSpore 1.x's name (deprecated there in favour of COOTensor)
