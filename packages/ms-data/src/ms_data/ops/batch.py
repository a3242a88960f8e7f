"""``batch``: stack consecutive rows into batches (with ``per_batch_map`` and padding).

A batch leaves this node as a one-row RecordBatch whose cells hold the stacked arrays, so the
operations after ``batch`` see one row per batch, as in MindSpore. A batch that lies inside
one incoming chunk is a slice of it: no copy.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from ms_data.arrow import batch_from_numpy, batch_numpy, concat_columns
from ms_data.bases import UnionBaseDataset
from ms_data.dataset import EpochContext
from ms_data.ops.map import column_list, op_name
from ms_data.workers import ordered_map

__all__ = ["BatchDataset", "BatchInfo", "stack_column", "pad_rows"]


class BatchInfo:
    """What ``per_batch_map`` and a callable ``batch_size`` learn about the current batch."""

    def __init__(self, batch_num: int, epoch_num: int):
        self._batch_num = batch_num
        self._epoch_num = epoch_num

    def get_batch_num(self) -> int:
        return self._batch_num

    def get_epoch_num(self) -> int:
        return self._epoch_num


def _rows_of(col: np.ndarray) -> list[np.ndarray]:
    return [r if isinstance(r, np.ndarray) else np.asarray(r) for r in col]


def pad_rows(name: str, rows: list[np.ndarray], pad_shape, pad_value) -> np.ndarray:
    """Rows padded (at the end of every axis) to ``pad_shape`` and stacked.

    ``None`` as the shape, or as one of its entries, pads to the largest row of the batch.
    """
    ndim = rows[0].ndim
    if any(r.ndim != ndim for r in rows):
        raise ValueError(f"batch: column {name!r} rows have different ranks "
                         f"{sorted({r.ndim for r in rows})}; padding needs one rank")
    biggest = [max(r.shape[d] for r in rows) for d in range(ndim)]
    if pad_shape is None:
        target = biggest
    else:
        if len(pad_shape) != ndim:
            raise ValueError(f"batch: pad_shape {list(pad_shape)} of column {name!r} has "
                             f"{len(pad_shape)} dimensions, its rows have {ndim}")
        target = [b if p is None else p for p, b in zip(pad_shape, biggest)]
    dtype = np.result_type(*[r.dtype for r in rows])
    out = np.full((len(rows), *target), pad_value if pad_value is not None else 0, dtype=dtype)
    for i, r in enumerate(rows):
        # Rows larger than pad_shape are cut to it, as MindSpore's pad does.
        region = tuple(slice(0, min(s, t)) for s, t in zip(r.shape, target))
        out[(i, *region)] = r[region]
    return out


def stack_column(name: str, col: np.ndarray, pad) -> np.ndarray:
    """One batch of a column as an array ``(batch, *row_shape)``; pads when ``pad`` is given."""
    if pad is not None:
        rows = _rows_of(col)
        return pad_rows(name, rows, pad[0], pad[1])
    if col.dtype != object:
        return col
    rows = _rows_of(col)
    first = rows[0]
    for i, r in enumerate(rows):
        if r.shape != first.shape:
            raise ValueError(
                f"batch: inconsistent shapes in column {name!r}: batch expects the same "
                f"shape for each row, got {list(first.shape)} for row 0 and {list(r.shape)} "
                f"for row {i} (use pad_info to pad them)")
    return np.stack(rows)


class BatchDataset(UnionBaseDataset):
    """The node made by ``Dataset.batch``."""

    def __init__(self, child, batch_size, drop_remainder, num_parallel_workers, per_batch_map,
                 input_columns, output_columns, pad_info, python_multiprocessing):
        super().__init__([child], num_parallel_workers)
        if callable(batch_size):
            self._batch_size_info = None
        elif isinstance(batch_size, (int, np.integer)) and not isinstance(batch_size, bool) \
                and batch_size >= 1:
            self._batch_size_info = int(batch_size)
        else:
            raise ValueError(f"batch: batch_size must be a positive int or a callable, "
                             f"got {batch_size!r}")
        if not isinstance(drop_remainder, bool):
            raise TypeError(f"batch: drop_remainder must be a bool, got {drop_remainder!r}")
        if per_batch_map is not None and not callable(per_batch_map):
            raise TypeError(f"batch: per_batch_map must be callable, got {per_batch_map!r}")
        if pad_info is not None and not isinstance(pad_info, dict):
            raise TypeError(f"batch: pad_info must be a dict {{column: (pad_shape, pad_value)}},"
                            f" got {pad_info!r}")
        self.batch_size = batch_size
        self.drop_remainder = drop_remainder
        self.per_batch_map = per_batch_map
        self.python_multiprocessing = bool(python_multiprocessing)
        names = child._column_names()
        self.input_columns = column_list("batch", input_columns, "input_columns")
        if per_batch_map is not None and self.input_columns is None:
            self.input_columns = list(names)
        if self.input_columns is not None:
            missing = [c for c in self.input_columns if c not in names]
            if missing:
                raise ValueError(f"batch: input_columns {missing} not in the dataset's columns "
                                 f"{names}")
        self.output_columns = column_list("batch", output_columns, "output_columns") \
            or self.input_columns
        self.pad_info = self._check_pad(pad_info, names)
        self._names = names if per_batch_map is None else self._mapped_names(names)

    def _check_pad(self, pad_info, names):
        if pad_info is None:
            return None
        out = {}
        for col, spec in pad_info.items():
            if col not in names:
                raise ValueError(f"batch: pad_info column {col!r} not in the dataset's columns "
                                 f"{names}")
            shape, value = (spec if spec is not None else (None, 0))
            out[col] = (None if shape is None else list(shape), value)
        if not out:  # an empty dict pads every column to its longest row with zeros
            out = dict.fromkeys(names, (None, 0))
        return out

    def _mapped_names(self, names):
        ins, outs = self.input_columns, self.output_columns
        if len(ins) == len(outs):
            renamed = dict(zip(ins, outs))
            return [renamed.get(n, n) for n in names]
        return outs + [n for n in names if n not in ins]

    def _column_names(self) -> list[str]:
        return list(self._names)

    def _num_rows(self) -> int | None:
        n = self.children[0]._num_rows()
        if n is None or self._batch_size_info is None:
            return None
        if n == -1:
            return -1
        size = self._batch_size_info
        return n // size if self.drop_remainder else -(-n // size)

    def _raw_batches(self, ctx: EpochContext):
        """Each batch's columns, still unstacked chunk slices, and its BatchInfo."""
        parts: deque = deque()
        have = 0
        batch_num = 0

        def size_now():
            if self._batch_size_info is not None:
                return self._batch_size_info
            size = self.batch_size(BatchInfo(batch_num, ctx.epoch))
            if not isinstance(size, (int, np.integer)) or size < 1:
                raise ValueError(f"batch: the batch_size function returned {size!r}; it must "
                                 f"return a positive int")
            return int(size)

        size = None
        for chunk in self.children[0]._batches(ctx):
            if chunk.num_rows == 0:
                continue
            parts.append(batch_numpy(chunk))
            have += chunk.num_rows
            while True:
                size = size or size_now()
                if have < size:
                    break
                count = self._whole_batches(parts[0], size)
                yield self._take(parts, count * size), BatchInfo(batch_num, ctx.epoch), count
                have -= count * size
                batch_num += count
                size = None
        if have and not self.drop_remainder:
            yield self._take(parts, have), BatchInfo(batch_num, ctx.epoch), 1

    def _whole_batches(self, head: dict, size: int) -> int:
        """How many batches to cut from the head chunk at once (a zero-copy reshape)."""
        if self.per_batch_map is not None or self.pad_info is not None or \
                self._batch_size_info is None:
            return 1
        rows = len(next(iter(head.values())))
        if rows < 2 * size or any(v.dtype == object for v in head.values()):
            return 1
        return rows // size

    @staticmethod
    def _take(parts: deque, size: int) -> dict:
        """Remove the first ``size`` rows from ``parts`` and return them as one column dict."""
        pieces = []
        need = size
        while need:
            head = parts[0]
            n = len(next(iter(head.values())))
            if n <= need:
                pieces.append(parts.popleft())
                need -= n
            else:
                pieces.append({k: v[:need] for k, v in head.items()})
                parts[0] = {k: v[need:] for k, v in head.items()}
                need = 0
        if len(pieces) == 1:
            return pieces[0]
        return {k: concat_columns([p[k] for p in pieces]) for k in pieces[0]}

    def _finish(self, item) -> dict:
        cols, info, count = item
        if count > 1:  # several equal batches of one chunk: one RecordBatch, one per row
            return {n: c.reshape(count, -1, *c.shape[1:]) for n, c in cols.items()}
        if self.per_batch_map is not None:
            cols = self._apply_per_batch(cols, info)
        pad = self.pad_info or {}
        return {n: stack_column(n, c, pad.get(n))[None] for n, c in cols.items()}

    def _apply_per_batch(self, cols: dict, info: BatchInfo) -> dict:
        args = [_rows_of(cols[c]) for c in self.input_columns]
        result = self.per_batch_map(*args, info)
        if not isinstance(result, tuple):
            result = (result,) if len(self.output_columns) == 1 else tuple(result)
        if len(result) != len(self.output_columns):
            raise ValueError(f"per_batch_map returned {len(result)} columns, output_columns "
                             f"has {len(self.output_columns)}: {self.output_columns}")
        produced = {}
        for name, value in zip(self.output_columns, result):
            arr = value if isinstance(value, np.ndarray) else None
            if arr is None:
                rows = [np.asarray(v) for v in value]
                arr = np.empty(len(rows), dtype=object)
                for i, r in enumerate(rows):
                    arr[i] = r
            produced[name] = arr
        ins = self.input_columns
        if len(ins) == len(self.output_columns):
            renamed = dict(zip(ins, self.output_columns))
            return {renamed.get(n, n): produced[renamed[n]] if n in renamed else v
                    for n, v in cols.items()}
        return {**produced, **{n: v for n, v in cols.items() if n not in ins}}

    def _kind(self) -> str:
        return "process" if self.per_batch_map is not None and self.python_multiprocessing \
            else "thread"

    def _open(self, ctx: EpochContext) -> None:
        if self._kind() == "process":
            ctx.pool(self, "process", self._workers(), self._finish)

    def _batches(self, ctx: EpochContext):
        workers = self._workers() if self.per_batch_map is not None else 1
        pool = ctx.pool(self, self._kind(), workers, self._finish)
        what = (f"batch: per_batch_map {op_name(self.per_batch_map)}" if self.per_batch_map
                else "batch")
        for cols in ordered_map(pool, self._finish, self._raw_batches(ctx), what):
            yield batch_from_numpy(cols)
