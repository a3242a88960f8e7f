"""Sources from Python objects: ``GeneratorDataset`` and ``NumpySlicesDataset``."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice

import numpy as np

from ms_data.arrow import batch_from_numpy, rows_to_batch
from ms_data.bases import UnionBaseDataset
from ms_data.sources._dtypes import check_chunk_dtypes, check_row_dtypes
from ms_data.sources.base import MappableSource
from ms_data.workers import PipelineError, call_named, ordered_map, ramp

__all__ = ["GeneratorDataset", "NumpySlicesDataset"]

# Rows per chunk pulled from an iterable source, at most; the first chunks are smaller still
# (``ramp``), so a slow generator's first row leaves at once.
_ITER_CHUNK = 64


def _names(op: str, column_names, schema) -> list[str]:
    if column_names is None and schema is not None:
        column_names = getattr(schema, "columns", None) or list(schema)
    if column_names is None:
        raise ValueError(f"{op}: column_names is required")
    names = [column_names] if isinstance(column_names, str) else list(column_names)
    if not names or not all(isinstance(n, str) and n for n in names):
        raise ValueError(f"{op}: column_names must be non-empty strings, got {column_names!r}")
    if len(set(names)) != len(names):
        raise ValueError(f"{op}: duplicate column names in {names}")
    return names


def _as_row(item, ncols: int) -> tuple:
    if isinstance(item, tuple):
        return item
    if isinstance(item, list) and ncols > 1 and len(item) == ncols:
        return tuple(item)
    if ncols == 1:
        return (item,)
    raise TypeError(f"a row must be a tuple of {ncols} values (one per column), "
                    f"got {type(item).__name__}")


class GeneratorDataset(MappableSource, UnionBaseDataset):
    """Rows from a Python generator function, an iterable, or a random-access object.

    A source with ``__getitem__`` and ``__len__`` is random access: it accepts ``shuffle``
    (default: shuffled), samplers and shards, and with ``num_parallel_workers > 1`` its rows
    are read in worker processes (``python_multiprocessing=True``) or threads. A generator
    function is called once per epoch; an iterable is iterated once per epoch.

    >>> def gen():
    ...     for i in range(3):
    ...         yield (np.array([i, i]),)
    >>> [x[0].shape for x in GeneratorDataset(gen, ["data"])]
    [(2,), (2,), (2,)]
    """

    def __init__(self, source, column_names=None, column_types=None, schema=None,
                 num_samples=None, num_parallel_workers=1, shuffle=None, sampler=None,
                 num_shards=None, shard_id=None, python_multiprocessing=True, max_rowsize=None):
        self.names = _names("GeneratorDataset", column_names, schema)
        self.column_types = None
        if column_types is not None:
            from ms_tensor.dtype import to_numpy
            if len(column_types) != len(self.names):
                raise ValueError(f"GeneratorDataset: {len(column_types)} column_types for "
                                 f"{len(self.names)} columns {self.names}")
            self.column_types = [to_numpy(t) for t in column_types]
        self.source = source
        self.random_access = hasattr(source, "__getitem__") and not isinstance(source, (str,
                                                                                       bytes))
        if self.random_access:
            if not hasattr(source, "__len__"):
                raise TypeError("GeneratorDataset: a random-access source needs __len__ too")
            super().__init__(num_samples, shuffle, sampler, num_shards, shard_id,
                             num_parallel_workers)
            if python_multiprocessing and self._workers() > 1:
                self._read_kind = "process"
        else:
            if not callable(source) and not hasattr(source, "__iter__"):
                raise TypeError(f"GeneratorDataset: source must be a generator function, an "
                                f"iterable or a random-access object, got "
                                f"{type(source).__name__}")
            if sampler is not None or num_shards is not None or shuffle:
                raise ValueError("GeneratorDataset: sampler, shuffle and num_shards need a "
                                 "random-access source (__getitem__ and __len__)")
            super().__init__(num_samples, False, None, None, None, num_parallel_workers)
            self.num_samples = num_samples or None

    def _column_names(self) -> list[str]:
        return list(self.names)

    def _length(self) -> int:
        return len(self.source)

    def _num_rows(self) -> int | None:
        if self.random_access:
            return super()._num_rows()
        try:
            n = len(self.source)
        except TypeError:
            return None
        return n if self.num_samples is None else min(n, self.num_samples)

    def _to_batch(self, items: list, row_ids):
        rows = [_as_row(item, len(self.names)) for item in items]
        if self.column_types is None:
            check_row_dtypes(rows, self.names, row_ids)
        batch = rows_to_batch(rows, self.names)
        if self.column_types is None:
            return batch
        from ms_data.arrow import batch_numpy
        cols = batch_numpy(batch)
        return batch_from_numpy({n: _cast(c, t) for (n, c), t in zip(cols.items(),
                                                                      self.column_types)})

    def _read(self, indices: np.ndarray):
        return self._to_batch([self.source[int(i)] for i in indices], indices)

    def _batches(self, ctx) -> Iterator:
        if self.random_access:
            chunks = self._index_chunks(ctx)
            pool = ctx.pool(self, self._read_kind, self._workers(), self._read)
            batches = ordered_map(pool, self._read, chunks, "reading GeneratorDataset")
            yield from check_chunk_dtypes(zip(batches, (int(c[0]) for c in chunks)))
            return
        what = "GeneratorDataset: the source"
        try:
            rows = iter(self.source() if callable(self.source) else self.source)
        except Exception as exc:
            raise PipelineError(f"{what} could not be started: {type(exc).__name__}: "
                                f"{exc}") from exc
        # Each chunk's islice calls iter() on what it is given; an iterator whose __iter__
        # restarts itself would then repeat its first rows forever. One islice made here
        # calls it once, and its own iter() is itself.
        rows = islice(rows, self.num_samples)
        yield from check_chunk_dtypes(self._iterated(rows, what))

    def _iterated(self, rows, what: str) -> Iterator:
        position = 0
        while True:
            size = ramp(position, _ITER_CHUNK, _ITER_CHUNK)[0]
            items = call_named(lambda it, n=size: list(islice(it, n)), rows, what)
            if not items:
                return
            ids = range(position, position + len(items))
            position += len(items)
            yield call_named(lambda args: self._to_batch(*args), (items, ids),
                             "GeneratorDataset: converting rows"), ids[0]


def _cast(col: np.ndarray, dtype: np.dtype) -> np.ndarray:
    if col.dtype == object:
        out = np.empty(len(col), dtype=object)
        for i, v in enumerate(col):
            out[i] = np.asarray(v).astype(dtype)
        return out
    return col.astype(dtype, copy=False)


class NumpySlicesDataset(MappableSource, UnionBaseDataset):
    """Rows sliced from arrays along their first axis (a list, tuple, dict or numpy array).

    A dict gives one column per key; a tuple one column per element (``column_0``, ...); a
    list or array one column.

    >>> [int(x[0]) for x in NumpySlicesDataset({"a": [3, 4]}, shuffle=False)]
    [3, 4]
    """

    def __init__(self, data, column_names=None, num_samples=None, num_parallel_workers=1,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None):
        if isinstance(data, dict):
            names, arrays = list(data), list(data.values())
        elif isinstance(data, tuple):
            names, arrays = [f"column_{i}" for i in range(len(data))], list(data)
        elif isinstance(data, (list, np.ndarray)):
            names, arrays = ["column_0"], [data]
        else:
            raise TypeError(f"NumpySlicesDataset: data must be a list, tuple, dict or numpy "
                            f"array, got {type(data).__name__}")
        if column_names is not None:
            given = [column_names] if isinstance(column_names, str) else list(column_names)
            if len(given) != len(arrays):
                raise ValueError(f"NumpySlicesDataset: {len(given)} column_names for "
                                 f"{len(arrays)} columns")
            names = given
        self.names = _names("NumpySlicesDataset", names, None)
        self.arrays = []
        for name, a in zip(self.names, arrays):
            try:
                arr = np.asarray(a)
            except ValueError as exc:
                raise ValueError(f"NumpySlicesDataset: column {name!r} is not a regular array "
                                 f"(rows of different shapes?): {exc}") from None
            if arr.ndim == 0:
                raise ValueError(f"NumpySlicesDataset: column {name!r} is a scalar; it needs "
                                 f"a first axis to slice rows from")
            self.arrays.append(arr)
        lengths = {len(a) for a in self.arrays}
        if len(lengths) > 1:
            raise ValueError(f"NumpySlicesDataset: columns have different lengths "
                             f"{[len(a) for a in self.arrays]}")
        super().__init__(num_samples, shuffle, sampler, num_shards, shard_id,
                         num_parallel_workers)

    def _column_names(self) -> list[str]:
        return list(self.names)

    def _length(self) -> int:
        return len(self.arrays[0]) if self.arrays else 0

    def _read(self, indices: np.ndarray):
        return batch_from_numpy({n: a[indices] for n, a in zip(self.names, self.arrays)})
