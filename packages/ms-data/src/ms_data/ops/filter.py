"""``filter``: keep the rows for which a predicate on some columns is true."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from ms_data.arrow import column_numpy
from ms_data.bases import UnionBaseDataset
from ms_data.dataset import EpochContext
from ms_data.ops.map import column_list, op_name
from ms_data.workers import ordered_map

__all__ = ["FilterDataset"]


class _Mask:
    def __init__(self, predicate, columns):
        self.predicate = predicate
        self.columns = columns

    def __call__(self, chunk) -> np.ndarray:
        cols = [column_numpy(chunk, c) for c in self.columns]
        keep = np.empty(chunk.num_rows, dtype=bool)
        for i in range(chunk.num_rows):
            args = [c[i] if isinstance(c[i], np.ndarray) else np.asarray(c[i]) for c in cols]
            keep[i] = bool(np.asarray(self.predicate(*args)))
        return keep


class FilterDataset(UnionBaseDataset):
    """The node made by ``Dataset.filter``."""

    def __init__(self, child, predicate, input_columns, num_parallel_workers):
        super().__init__([child], num_parallel_workers)
        if not callable(predicate):
            raise TypeError(f"filter: predicate must be callable, got {predicate!r}")
        names = child._column_names()
        self.input_columns = column_list("filter", input_columns, "input_columns") or names
        missing = [c for c in self.input_columns if c not in names]
        if missing:
            raise ValueError(f"filter: input_columns {missing} not in the dataset's columns "
                             f"{names}")
        self.predicate = predicate
        self._mask = _Mask(predicate, self.input_columns)

    def _num_rows(self) -> None:
        return None

    def _batches(self, ctx: EpochContext):
        chunks: list = []

        def items():
            for chunk in self.children[0]._batches(ctx):
                chunks.append(chunk)
                yield chunk

        pool = ctx.pool(self, "thread", self._workers(), self._mask)
        what = f"filter: predicate {op_name(self.predicate)}"
        for keep in ordered_map(pool, self._mask, items(), what):
            chunk = chunks.pop(0)
            if keep.all():
                yield chunk
            elif keep.any():
                yield chunk.take(pa.array(np.flatnonzero(keep)))
