"""Numpy <-> pyarrow conversion for the RecordBatches that move between pipeline stages.

A pipeline stage sees a chunk of rows as a ``pa.RecordBatch``; the first axis of every numpy
array here is the row axis. Column layouts:

- rows that are scalars (1-D numpy columns): plain primitive arrays (``int64``, ``float32``, ...),
  strings as ``pa.string()`` and bytes as ``pa.binary()``;
- rows that are arrays of one shape (ndim >= 2 columns): ``pa.fixed_shape_tensor(type, row_shape)``
  extension arrays over the contiguous numpy buffer, without a copy either way;
- rows that are arrays of different shapes (an object array or list of arrays): the
  ``ms_data.var_shape_tensor`` extension type, storage ``struct<data: large_list<type>,
  shape: fixed_size_list<int64, ndim>>``; ``column_numpy`` gives an object array of row arrays.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pyarrow as pa

from ms_data.errors import DatasetError

__all__ = [
    "VarShapeTensorType",
    "batch_from_numpy",
    "column_numpy",
    "batch_numpy",
    "rows_to_batch",
    "stack_rows",
    "concat_columns",
    "num_rows",
]


class VarShapeTensorType(pa.ExtensionType):
    """Rows that are arrays of one dtype and rank but different shapes."""

    def __init__(self, value_type: pa.DataType, ndim: int):
        self.ndim = ndim
        storage = pa.struct([
            ("data", pa.large_list(value_type)),
            ("shape", pa.list_(pa.int64(), ndim)),
        ])
        super().__init__(storage, "ms_data.var_shape_tensor")

    @property
    def value_type(self) -> pa.DataType:
        return self.storage_type.field("data").type.value_type

    def __arrow_ext_serialize__(self) -> bytes:
        return str(self.ndim).encode()

    @classmethod
    def __arrow_ext_deserialize__(cls, storage_type, serialized):
        return cls(storage_type.field("data").type.value_type, int(serialized.decode()))


try:
    pa.register_extension_type(VarShapeTensorType(pa.int8(), 1))
except pa.ArrowKeyError:  # already registered by an earlier import of this module
    pass


def _var_shape_array(rows: list[np.ndarray]) -> pa.Array:
    dtype = rows[0].dtype
    ndim = rows[0].ndim
    for r in rows:
        if r.ndim != ndim:
            raise ValueError(f"rows of one column must have the same rank, got ranks {ndim} "
                             f"and {r.ndim} (shapes {rows[0].shape} and {r.shape})")
    dtype = np.result_type(*[r.dtype for r in rows]) if any(r.dtype != dtype for r in rows) \
        else dtype
    value_type = pa.from_numpy_dtype(dtype)
    flat = np.concatenate([np.asarray(r, dtype=dtype).reshape(-1) for r in rows]) if rows \
        else np.empty(0, dtype)
    sizes = np.array([r.size for r in rows], dtype=np.int64)
    offsets = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    data = pa.LargeListArray.from_arrays(pa.array(offsets), pa.array(flat, type=value_type))
    shapes = np.array([r.shape for r in rows], dtype=np.int64).reshape(len(rows), ndim)
    shape = pa.FixedSizeListArray.from_arrays(pa.array(shapes.reshape(-1)), ndim)
    storage = pa.StructArray.from_arrays([data, shape], names=["data", "shape"])
    return pa.ExtensionArray.from_storage(VarShapeTensorType(value_type, ndim), storage)


def _is_rows_of_arrays(values: np.ndarray) -> bool:
    return values.dtype == object and len(values) > 0 and isinstance(values[0], np.ndarray)


def _concrete(name: str, values: np.ndarray, what: str) -> np.ndarray:
    """An object array of numbers or strings as a typed array; anything else is an error."""
    flat = values.reshape(-1)
    families = {"str" if isinstance(v, str) else "bytes" if isinstance(v, bytes)
                else "number" if isinstance(v, (int, float, np.number, np.bool_)) else "other"
                for v in flat}
    typed = values
    if len(families) == 1 and "other" not in families:  # one kind: no lossy mixing
        typed = np.array(flat.tolist()).reshape(values.shape)
    if typed.dtype == object:
        kinds = sorted({type(v).__name__ for v in flat[:100]})
        raise DatasetError(f"column {name!r}: {what} is a numpy object array of shape "
                           f"{values.shape} holding {', '.join(kinds) or 'nothing'}; a column "
                           f"holds arrays of numbers, strings or bytes: convert it in the source")
    return typed


def _to_arrow(name: str, values) -> pa.Array:
    if isinstance(values, np.ndarray) and values.dtype == object and values.ndim >= 2:
        values = _concrete(name, values, "the column")
    if isinstance(values, (list, tuple)):
        if values and all(isinstance(v, np.ndarray) for v in values):
            rows = [_concrete(name, r, f"row {i}") if r.dtype == object and r.ndim else r
                    for i, r in enumerate(values)]
            if all(r.shape == rows[0].shape and r.dtype == rows[0].dtype for r in rows):
                return _to_arrow(name, np.stack(rows))
            return _var_shape_array(rows)
        values = np.asarray(values)
    if not isinstance(values, np.ndarray):
        raise TypeError(f"column {name!r}: expected a numpy array or a list of arrays, "
                        f"got {type(values).__name__}")
    if _is_rows_of_arrays(values):
        return _to_arrow(name, list(values))
    if values.dtype == object:
        return pa.array(list(values))
    if values.ndim == 0:
        raise ValueError(f"column {name!r}: a column needs a row axis, got a 0-d array")
    if values.ndim == 1:
        if values.dtype.kind == "U":
            return pa.array(values, type=pa.string())
        if values.dtype.kind == "S":
            return pa.array(values, type=pa.binary())
        return pa.array(values)
    if values.dtype.kind in "US":
        if values.ndim != 2:
            raise TypeError(f"column {name!r}: string rows must be scalars or 1-D, got rows of "
                            f"shape {values.shape[1:]}")
        return pa.array(values.tolist(), type=pa.list_(
            pa.string() if values.dtype.kind == "U" else pa.binary()))
    values = np.ascontiguousarray(values)
    ext = _tensor_type(values.dtype, values.shape[1:])
    value_type = ext.value_type
    size = math.prod(values.shape[1:])
    if size == 0:
        storage = pa.array([[]] * values.shape[0], type=pa.list_(value_type, 0))
    else:  # a flat view of the contiguous buffer: no copy
        storage = pa.FixedSizeListArray.from_arrays(pa.array(values.reshape(-1)), size)
    return pa.ExtensionArray.from_storage(ext, storage)


_DTYPE_KEY = "ms_data.numpy_dtype"
_VIEWS = {np.dtype(np.bool_): np.dtype(np.uint8)}
try:
    import ml_dtypes

    _VIEWS[np.dtype(ml_dtypes.bfloat16)] = np.dtype(np.uint16)
except ImportError:  # ms-tensor brings ml_dtypes; without it there is no bfloat16 to store
    pass
_BY_NAME = {d.name: d for d in _VIEWS}


@functools.lru_cache(maxsize=256)
def _tensor_type(dtype: np.dtype, row_shape: tuple) -> pa.FixedShapeTensorType:
    return pa.fixed_shape_tensor(pa.from_numpy_dtype(dtype), list(row_shape))


def batch_from_numpy(columns: dict[str, np.ndarray]) -> pa.RecordBatch:
    """A RecordBatch from numpy columns (first axis = rows), zero-copy where the layout allows.

    >>> batch_from_numpy({"x": np.zeros((4, 2, 2), np.float32), "y": np.arange(4)}).num_rows
    4
    """
    arrays, fields = [], []
    for name, values in columns.items():
        stored = _VIEWS.get(getattr(values, "dtype", None)) if getattr(values, "ndim", 0) >= 2 \
            else None
        if stored is None:
            arr = _to_arrow(name, values)
            fields.append(pa.field(name, arr.type))
        else:  # Arrow tensors lack this dtype: store a same-size view, remember the dtype
            arr = _to_arrow(name, values.view(stored))
            fields.append(pa.field(name, arr.type, metadata={_DTYPE_KEY: values.dtype.name}))
        arrays.append(arr)
    lengths = {len(a) for a in arrays}
    if len(lengths) > 1:
        detail = ", ".join(f"{n}: {len(a)}" for n, a in zip(columns, arrays))
        raise ValueError(f"columns must have the same number of rows, got {detail}")
    return pa.RecordBatch.from_arrays(arrays, schema=pa.schema(fields))


def _array_numpy(arr: pa.Array) -> np.ndarray:
    typ = arr.type
    if isinstance(typ, pa.FixedShapeTensorType):
        shape = tuple(typ.shape)
        if len(arr) == 0 or 0 in shape:
            dtype = pa.array([], typ.value_type).to_numpy().dtype  # to_pandas_dtype: pandas
            return np.empty((len(arr), *shape), dtype=dtype)
        return arr.to_numpy_ndarray()
    if isinstance(typ, VarShapeTensorType):
        storage = arr.storage
        data = storage.field("data")
        shapes = storage.field("shape").flatten().to_numpy().reshape(len(arr), typ.ndim)
        flat = data.flatten().to_numpy(zero_copy_only=False)
        offsets = data.offsets.to_numpy() - data.offsets[0].as_py()
        out = np.empty(len(arr), dtype=object)
        for i in range(len(arr)):
            out[i] = flat[offsets[i]:offsets[i + 1]].reshape(shapes[i])
        return out
    if pa.types.is_string(typ) or pa.types.is_large_string(typ):
        return np.array(arr.to_pylist(), dtype=str)
    if pa.types.is_binary(typ) or pa.types.is_large_binary(typ):
        return np.array(arr.to_pylist(), dtype=bytes)
    if pa.types.is_fixed_size_list(typ) and pa.types.is_primitive(typ.value_type):
        return arr.flatten().to_numpy(zero_copy_only=False).reshape(len(arr), typ.list_size)
    if pa.types.is_list(typ) or pa.types.is_large_list(typ):
        out = np.empty(len(arr), dtype=object)
        strings = pa.types.is_string(typ.value_type) or pa.types.is_binary(typ.value_type)
        for i, v in enumerate(arr):
            out[i] = np.array(v.values.to_pylist(), dtype=str if pa.types.is_string(
                typ.value_type) else bytes) if strings else v.values.to_numpy(
                zero_copy_only=False)
        return out
    return arr.to_numpy(zero_copy_only=False)


def column_numpy(batch: pa.RecordBatch, name: str) -> np.ndarray:
    """Column ``name`` as numpy of shape ``(rows, *row_shape)``; zero-copy for fixed shapes.

    Variable-shape columns come back as an object array holding one array per row.
    Zero-copy arrays are read-only views of the Arrow buffers.
    """
    index = batch.schema.get_field_index(name)
    if index < 0:
        raise KeyError(f"column {name!r} not found; columns: {batch.schema.names}")
    return _field_numpy(batch, index)


def _field_numpy(batch: pa.RecordBatch, index: int) -> np.ndarray:
    out = _array_numpy(batch.column(index))
    meta = batch.schema.field(index).metadata
    if meta and _DTYPE_KEY.encode() in meta:
        out = out.view(_BY_NAME[meta[_DTYPE_KEY.encode()].decode()])
    return out


def batch_numpy(batch: pa.RecordBatch) -> dict[str, np.ndarray]:
    """Every column of ``batch`` as numpy (see :func:`column_numpy`)."""
    return {name: _field_numpy(batch, i) for i, name in enumerate(batch.schema.names)}


def _as_row_array(value, name: str, i: int) -> np.ndarray:
    if isinstance(value, np.ndarray):
        return value
    asnumpy = getattr(value, "asnumpy", None)
    if asnumpy is not None:  # ms_tensor.Tensor (or a MindSpore Tensor)
        return asnumpy()
    try:
        return np.asarray(value)
    except ValueError as exc:
        raise DatasetError(f"column {name!r}: row {i} is a {type(value).__name__} that is not "
                           f"a regular array (nested lists of different lengths?): "
                           f"{exc}") from None


def stack_rows(name: str, rows: list) -> np.ndarray:
    """Rows of one column as ``(rows, *row_shape)`` numpy, or an object array if shapes differ."""
    arrays = [_as_row_array(v, name, i) for i, v in enumerate(rows)]
    if not arrays:
        return np.empty(0)
    first = arrays[0]
    if all(a.shape == first.shape and a.dtype == first.dtype for a in arrays):
        return np.stack(arrays)
    if all(a.ndim == 0 for a in arrays):
        return np.array(arrays)
    out = np.empty(len(arrays), dtype=object)
    for i, a in enumerate(arrays):
        out[i] = a
    return out


def rows_to_batch(rows: list[tuple], names) -> pa.RecordBatch:
    """A RecordBatch from per-row tuples (one value per column), as generators produce them.

    >>> rows_to_batch([(np.ones(2), 1), (np.zeros(2), 2)], ["x", "y"]).num_rows
    2
    """
    names = list(names)
    for i, row in enumerate(rows):
        if len(row) != len(names):
            raise ValueError(f"row {i} has {len(row)} values but there are {len(names)} "
                             f"columns {names}")
    return batch_from_numpy({n: stack_rows(n, [r[j] for r in rows]) for j, n in enumerate(names)})


def concat_columns(parts: list[np.ndarray]) -> np.ndarray:
    """Concatenate row arrays of one column; object rows when row shapes or dtypes differ."""
    parts = [p for p in parts if len(p)] or parts[:1]
    if len(parts) == 1:
        return parts[0]
    first = parts[0]
    if all(p.dtype == first.dtype and p.shape[1:] == first.shape[1:] for p in parts) \
            and first.dtype != object:
        return np.concatenate(parts)
    rows = [r for p in parts for r in (p if p.dtype == object else list(p))]
    return stack_rows("", rows)


def num_rows(columns: dict[str, np.ndarray]) -> int:
    """Rows in a dict of numpy columns (0 when it has none)."""
    for v in columns.values():
        return len(v)
    return 0
