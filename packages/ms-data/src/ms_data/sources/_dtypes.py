"""One dtype per column for rows from Python (GeneratorDataset), or an error naming the rows.

MindSpore keeps each row's own dtype and its ``batch`` then refuses rows of different types;
stacking rows into columns here would instead promote them, chunk by chunk (one int64 row
among float32 rows made that chunk float64 and the others float32). So the first row of a
column fixes its dtype and a row of another dtype is an error that names the column, both
rows and both dtypes; ``column_types`` converts every row instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

import numpy as np
import pyarrow as pa

from ms_data.arrow import VarShapeTensorType
from ms_data.errors import DatasetError

__all__ = ["check_row_dtypes", "check_chunk_dtypes"]

_FIX = "convert the rows in the source, or give column_types to convert them"


def _dtype(value, name: str, row) -> np.dtype:
    dtype = getattr(value, "dtype", None)
    if isinstance(dtype, np.dtype):
        return dtype
    asnumpy = getattr(value, "asnumpy", None)
    if asnumpy is not None:
        return asnumpy().dtype
    try:
        return np.asarray(value).dtype
    except ValueError as exc:
        raise DatasetError(f"GeneratorDataset: column {name!r}: row {row} is a "
                           f"{type(value).__name__} that is not a regular array (nested lists "
                           f"of different lengths?): {exc}") from None


def _same(a: np.dtype, b: np.dtype) -> bool:
    return a == b or (a.kind == b.kind and a.kind in "USO")  # string widths may differ


def _error(name: str, row, dtype, first_row, first_dtype) -> DatasetError:
    return DatasetError(f"GeneratorDataset: column {name!r} has dtype {dtype} in row {row} but "
                     f"{first_dtype} in row {first_row}; a column needs one dtype for all its "
                     f"rows: {_FIX}")


def check_row_dtypes(rows: Sequence[tuple], names: Sequence[str], row_ids: Sequence) -> None:
    """Raise DatasetError unless every column of ``rows`` has one dtype (``row_ids`` name rows)."""
    if not rows:
        return
    for j, name in enumerate(names):
        first = _dtype(rows[0][j], name, row_ids[0])
        for k in range(1, len(rows)):
            dtype = _dtype(rows[k][j], name, row_ids[k])
            if not _same(dtype, first):
                raise _error(name, row_ids[k], dtype, row_ids[0], first)


def _column_dtype(field: pa.Field) -> str:
    meta = field.metadata or {}
    stored = meta.get(b"ms_data.numpy_dtype")
    if stored is not None:
        return stored.decode()
    typ = field.type
    if isinstance(typ, (pa.FixedShapeTensorType, VarShapeTensorType)):
        typ = typ.value_type
    while pa.types.is_list(typ) or pa.types.is_large_list(typ) \
            or pa.types.is_fixed_size_list(typ):
        typ = typ.value_type
    try:  # not to_pandas_dtype: in pyarrow <= 25 it imports pandas
        return pa.array([], typ).to_numpy(zero_copy_only=False).dtype.name
    except (pa.ArrowException, NotImplementedError, TypeError):
        return str(typ)


def check_chunk_dtypes(chunks: Iterable[tuple[pa.RecordBatch, object]]) -> Iterator:
    """The batches of ``(batch, id of its first row)`` pairs, after checking each has the
    first one's column dtypes."""
    first = None
    for batch, start in chunks:
        types = [_column_dtype(f) for f in batch.schema]
        if first is None:
            first = (types, start)
        elif types != first[0]:
            j = next(i for i, (a, b) in enumerate(zip(types, first[0])) if a != b)
            raise _error(batch.schema.names[j], start, types[j], first[1], first[0][j])
        yield batch
