"""``bucket_batch_by_length``: batch rows of similar length together."""

from __future__ import annotations

import bisect

import numpy as np

from ms_data.arrow import batch_from_numpy, batch_numpy
from ms_data.bases import UnionBaseDataset
from ms_data.dataset import EpochContext
from ms_data.ops.batch import pad_rows, stack_column
from ms_data.ops.map import column_list

__all__ = ["BucketBatchByLengthDataset"]


class BucketBatchByLengthDataset(UnionBaseDataset):
    """Row ``r`` goes to bucket ``bisect_right(bucket_boundaries, length(r))``; a bucket that
    holds its batch size is emitted; leftovers follow at the end, smallest bucket first."""

    def __init__(self, child, column_names, bucket_boundaries, bucket_batch_sizes,
                 element_length_function, pad_info, pad_to_bucket_boundary, drop_remainder):
        super().__init__([child])
        self.columns = column_list("bucket_batch_by_length", column_names, "column_names")
        if not self.columns:
            raise ValueError("bucket_batch_by_length: column_names is empty")
        names = child._column_names()
        missing = [c for c in self.columns if c not in names]
        if missing:
            raise ValueError(f"bucket_batch_by_length: column_names {missing} not in the "
                             f"dataset's columns {names}")
        bounds = list(bucket_boundaries)
        if not bounds or any(not isinstance(b, int) or b < 1 for b in bounds) or \
                any(a >= b for a, b in zip(bounds, bounds[1:])):
            raise ValueError(f"bucket_batch_by_length: bucket_boundaries must be increasing "
                             f"positive ints, got {bucket_boundaries!r}")
        sizes = list(bucket_batch_sizes)
        if len(sizes) != len(bounds) + 1 or any(not isinstance(s, int) or s < 1 for s in sizes):
            raise ValueError(f"bucket_batch_by_length: bucket_batch_sizes needs "
                             f"{len(bounds) + 1} positive ints (one more than the boundaries), "
                             f"got {bucket_batch_sizes!r}")
        if element_length_function is None and len(self.columns) != 1:
            raise ValueError("bucket_batch_by_length: without element_length_function, "
                             "column_names must name exactly one column")
        self.bounds, self.sizes = bounds, sizes
        self.length_fn = element_length_function
        self.pad_info = dict(pad_info) if pad_info is not None else None
        self.pad_to_bucket_boundary = bool(pad_to_bucket_boundary)
        self.drop_remainder = bool(drop_remainder)

    def _num_rows(self) -> None:
        return None

    def _length(self, row: dict) -> int:
        args = [row[c] for c in self.columns]
        if self.length_fn is None:
            return int(np.shape(args[0])[0]) if np.ndim(args[0]) else 1
        return int(self.length_fn(*args))

    def _emit(self, rows: list[dict], bucket: int):
        out = {}
        for name in rows[0]:
            col = [r[name] for r in rows]
            pad = None
            if self.pad_info is not None and (name in self.pad_info or not self.pad_info):
                shape, value = self.pad_info.get(name) or (None, 0)
                shape = None if shape is None else list(shape)
                if self.pad_to_bucket_boundary and bucket < len(self.bounds):
                    ndim = np.ndim(col[0])
                    shape = shape or [None] * ndim
                    if ndim:
                        shape[0] = self.bounds[bucket] - 1
                pad = (shape, value)
            arr = pad_rows(name, [np.asarray(c) for c in col], *pad) if pad else \
                stack_column(name, _object_column(col), None)
            out[name] = arr[None]
        return batch_from_numpy(out)

    def _batches(self, ctx: EpochContext):
        buckets: list[list[dict]] = [[] for _ in self.sizes]
        for chunk in self.children[0]._batches(ctx):
            cols = batch_numpy(chunk)
            for i in range(chunk.num_rows):
                row = {k: np.asarray(v[i]) for k, v in cols.items()}
                b = bisect.bisect_right(self.bounds, self._length(row))
                buckets[b].append(row)
                if len(buckets[b]) == self.sizes[b]:
                    yield self._emit(buckets[b], b)
                    buckets[b] = []
        if not self.drop_remainder:
            for b, rows in enumerate(buckets):
                if rows:
                    yield self._emit(rows, b)


def _object_column(values: list) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    for i, v in enumerate(values):
        out[i] = v
    return out
