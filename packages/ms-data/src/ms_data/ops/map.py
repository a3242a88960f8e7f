"""``map``: apply a list of operations to columns, chunk by chunk, on worker threads or processes.

Each operation runs on the whole chunk at once (``batch_call``) when it offers one and its
input is a single fixed-shape column; otherwise row by row. Incoming chunks are cut into
pieces that start at one row and double (``ms_data.workers.ramp``), so the first row comes
out after one call and every worker gets work at once. A random operation draws from
``ctx.rng("map", depth, op_index, chunk_index)``: pieces are fixed by row positions, not by
the workers, so the rows come out the same for any ``num_parallel_workers``.

With ``callbacks`` (``ms_data.callback``) or in debug mode (``ds.config.set_debug_mode``)
the map runs one row at a time on the iterating thread. Under
``ds.config.set_error_samples_mode`` SKIP or REPLACE a chunk that fails is redone row by
row and the failing rows are dropped (SKIP), or (REPLACE) dropped and made up for at the
end of the epoch with copies of the epoch's first good rows, as MindSpore does.
"""

from __future__ import annotations

import traceback
import weakref
from collections import deque

import numpy as np

from ms_data import config
from ms_data.arrow import batch_from_numpy, batch_numpy, stack_rows
from ms_data.bases import UnionBaseDataset
from ms_data.callback.ds_callback import CallbackRunner, check_callbacks
from ms_data.dataset import EpochContext
from ms_data.workers import PipelineError, ordered_map, ramp

__all__ = ["MapDataset", "column_list", "op_name"]

_REPLACE_CACHE = 16  # good rows kept per epoch to stand in for failed ones (REPLACE)


def column_list(op: str, arg, what: str) -> list[str] | None:
    """``None``, a name, or a list of names -> list of names (None stays None)."""
    if arg is None:
        return None
    names = [arg] if isinstance(arg, str) else list(arg)
    if not names or not all(isinstance(n, str) for n in names):
        raise TypeError(f"{op}: {what} must be a column name or a list of them, got {arg!r}")
    if len(set(names)) != len(names):
        raise ValueError(f"{op}: {what} has duplicates: {names}")
    return names


def op_name(op) -> str:
    name = getattr(op, "__name__", None)
    if name is None or name == "<lambda>":
        name = type(op).__name__ if name is None else "lambda"
    return name


def _python_callable(op) -> bool:
    return getattr(op, "python_callable", not hasattr(op, "batch_call"))


def _is_pil(v) -> bool:
    return hasattr(v, "getbands")


def _row_value(col: np.ndarray, i: int):
    v = col[i]
    return v if isinstance(v, np.ndarray) or _is_pil(v) else np.asarray(v)


def _column(values: list) -> np.ndarray:
    """One output column: PIL images stay objects between the operations of a map, as in
    MindSpore (the next vision operation takes its Pillow path); anything else is stacked."""
    if values and all(_is_pil(v) for v in values):
        out = np.empty(len(values), dtype=object)
        out[:] = values
        return out
    return stack_rows("", values)


def _materialize(col: np.ndarray) -> np.ndarray:
    """A column leaving the map: PIL images become arrays."""
    if col.dtype == object and len(col) and any(_is_pil(v) for v in col):
        return stack_rows("", [np.asarray(v) if _is_pil(v) else v for v in col])
    return col


def _outputs(result) -> tuple:
    return tuple(result) if isinstance(result, tuple) else (result,)


class _Apply:
    """The chunk function of one map: picklable state only, so it can run in a process."""

    def __init__(self, operations, input_columns, rng_key):
        self.operations = operations
        self.input_columns = input_columns
        self.rng_key = rng_key

    def _rng(self, ctx_state, op_index, chunk_index):
        seed, epoch, keys, _ = ctx_state
        return EpochContext(epoch, seed, keys).rng(*self.rng_key, op_index, chunk_index)

    def __call__(self, item):
        """``(output columns, rows kept)``; rows kept is None when no row failed."""
        ctx_state, chunk_index, columns = item
        try:
            return self._run(ctx_state, chunk_index, columns), None
        except PipelineError:
            if ctx_state[3] == config.ErrorSamplesMode.RETURN or len(columns[0]) < 1:
                raise
        good, outs = [], []
        for i in range(len(columns[0])):
            try:
                outs.append(self._run(ctx_state, chunk_index, tuple(c[i:i + 1] for c in columns)))
            except PipelineError:
                continue
            good.append(i)
        if not outs:
            return None, np.zeros(0, np.int64)
        return (tuple(stack_rows("", [o[j][0] for o in outs]) for j in range(len(outs[0]))),
                np.asarray(good, np.int64))

    def _run(self, ctx_state, chunk_index, columns):
        for k, op in enumerate(self.operations):
            rng = self._rng(ctx_state, k, chunk_index) if getattr(op, "is_random", False) \
                else None
            try:
                columns = self._one(op, columns, rng)
            except PipelineError:
                raise
            except Exception as exc:
                tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
                raise PipelineError(
                    f"map: operation {op_name(op)} (operation {k} of {len(self.operations)}) "
                    f"on input_columns {self.input_columns} failed: {type(exc).__name__}: "
                    f"{exc}\n\nOriginal traceback:\n{tb.strip()}") from None
        return tuple(_materialize(c) for c in columns)

    @staticmethod
    def _one(op, columns: tuple, rng) -> tuple:
        rows = len(columns[0])
        batch_call = getattr(op, "batch_call", None)
        if batch_call is not None and len(columns) == 1 and columns[0].dtype != object:
            out = batch_call(columns[0], rng)
            if len(out) != rows:
                raise ValueError(f"batch_call returned {len(out)} rows for {rows}")
            return (out,)
        row_call = getattr(op, "_row", None) if rng is not None and len(columns) == 1 else None
        results = []
        for i in range(rows):
            args = [_row_value(c, i) for c in columns]
            if row_call is not None and _is_pil(args[0]):  # the operation's Pillow path
                pil_call = getattr(op, "_pil", None)
                results.append(_outputs(pil_call(args[0], rng) if pil_call is not None
                                        else row_call(np.asarray(args[0]), rng)))
            elif row_call is not None:
                results.append(_outputs(row_call(args[0], rng)))
            else:
                results.append(_outputs(op(*args)))
        if not results:
            return columns
        width = len(results[0])
        if any(len(r) != width for r in results):
            raise ValueError("returned different numbers of outputs for different rows")
        return tuple(_column([r[j] for r in results]) for j in range(width))


class MapDataset(UnionBaseDataset):
    """The node made by ``Dataset.map``."""

    def __init__(self, child, operations, input_columns, output_columns, num_parallel_workers,
                 python_multiprocessing, callbacks=None, cache=None):
        super().__init__([child], num_parallel_workers)
        self.cache = _check_cache(cache)
        self.callbacks = check_callbacks(callbacks)
        self._runners: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        ops = list(operations) if isinstance(operations, (list, tuple)) else [operations]
        if not ops:
            raise ValueError("map: operations is empty")
        for op in ops:
            if not callable(op):
                raise TypeError(f"map: operations must be callable, got {type(op).__name__}")
        self.operations = ops
        names = child._column_names()
        self.input_columns = column_list("map", input_columns, "input_columns") or names[:1]
        missing = [c for c in self.input_columns if c not in names]
        if missing:
            raise ValueError(f"map: input_columns {missing} not in the dataset's columns "
                             f"{names}")
        self.output_columns = column_list("map", output_columns, "output_columns") \
            or list(self.input_columns)
        self.python_multiprocessing = bool(python_multiprocessing)
        self._names = self._output_names(names)
        # Consecutive Resize/Rescale/Normalize/HWC2CHW/TypeCast become one Cython pass.
        from ms_data.vision import fuse

        self._apply = _Apply(fuse(ops), self.input_columns, ("map", self._depth))

    @classmethod
    def merged(cls, child, operations, input_columns, output_columns, num_parallel_workers,
               python_multiprocessing):
        """``child.map(...)`` as one map with ``child``'s operations, or None if it differs.

        Scripts like MindSpore's LeNet tutorial call ``map`` once per transform on the same
        column; chaining them in one node lets ``fuse`` see the whole sequence.
        """
        if type(child) is not cls or len(child.input_columns) != 1 or child.callbacks:
            return None
        column = child.input_columns
        ins = column_list("map", input_columns, "input_columns") or child._names[:1]
        outs = column_list("map", output_columns, "output_columns") or ins
        same = (ins == outs == column and child.output_columns == column
                and child.num_parallel_workers == num_parallel_workers
                and child.python_multiprocessing == bool(python_multiprocessing))
        if not same:
            return None
        ops = list(operations) if isinstance(operations, (list, tuple)) else [operations]
        return cls(child.children[0], child.operations + ops, column, column,
                   num_parallel_workers, python_multiprocessing)

    def _output_names(self, names: list[str]) -> list[str]:
        ins, outs = self.input_columns, self.output_columns
        if len(ins) == len(outs):  # outputs take the places of the inputs
            renamed = dict(zip(ins, outs))
            result = [renamed.get(n, n) for n in names]
        else:  # MindSpore puts the outputs first, then the untouched columns
            result = outs + [n for n in names if n not in ins]
        if len(set(result)) != len(result):
            raise ValueError(f"map: output_columns {outs} clash with the other columns: "
                             f"{result}")
        return result

    def _column_names(self) -> list[str]:
        return list(self._names)

    def _kind(self) -> str:
        if self.python_multiprocessing and any(_python_callable(op) for op in self.operations):
            return "process"
        return "thread"

    def _open(self, ctx: EpochContext) -> None:
        if self.callbacks and ctx.resources is not None:
            self._runners[ctx.resources] = CallbackRunner(self.callbacks)
        if self._kind() == "process" and not config.get_debug_mode():
            ctx.pool(self, "process", self._workers(), self._apply)

    def _debug_apply(self) -> _Apply:
        """The operations with the debug hooks before the first and after each one."""
        ops = []
        for k, op in enumerate(self.operations):
            for hook in config.debug_hooks() if k == 0 else ():
                ops.append(_hooked(hook, op, True))
            ops.append(op)
            ops.extend(_hooked(hook, op, False) for hook in config.debug_hooks())
        return _Apply(ops, self.input_columns, self._apply.rng_key)

    def _batches(self, ctx: EpochContext):
        if self.cache is not None:
            from ms_data.cache import cached_batches

            yield from cached_batches(self.cache, self, lambda: self._mapped(ctx))
        else:
            yield from self._mapped(ctx)

    def _mapped(self, ctx: EpochContext):
        mode = config.get_error_samples_mode()
        state = (ctx.seed, ctx.epoch, ctx.keys, int(mode))
        ins, outs = self.input_columns, self.output_columns
        debug = config.get_debug_mode()
        apply = self._debug_apply() if debug else self._apply
        runner = self._runners.get(ctx.resources) if self.callbacks else None
        if self.callbacks and runner is None:  # iterated without _open (a size query)
            runner = CallbackRunner(self.callbacks)
        one_row = debug or runner is not None

        def items():
            position = index = 0
            for batch in self.children[0]._batches(ctx):
                cols = batch_numpy(batch)
                start = 0
                for size in [1] * batch.num_rows if one_row else ramp(position, batch.num_rows):
                    part = {n: c[start:start + size] for n, c in cols.items()}
                    yield part, (state, index, tuple(part[c] for c in ins))
                    index += 1
                    start += size
                position += batch.num_rows

        pool = None if one_row else ctx.pool(self, self._kind(), self._workers(), self._apply)
        pending: deque = deque()

        def tagged():
            for cols, item in items():
                pending.append(cols)
                if runner is not None:
                    runner.step_begin()
                yield item

        what = f"map on input_columns {ins}"
        failed, cache = 0, []  # for ErrorSamplesMode.REPLACE
        if runner is not None:
            runner.epoch_begin(ctx.epoch)
        for result, good in ordered_map(pool, apply, tagged(), what):
            cols = pending.popleft()
            if runner is not None:
                runner.step_end()
            if result is not None and len(result) != len(outs):
                raise PipelineError(f"map: the operations returned {len(result)} columns but "
                                    f"output_columns has {len(outs)}: {outs}")
            if good is not None:
                failed += len(next(iter(cols.values()))) - len(good)
                cols = {n: c[good] for n, c in cols.items()}
            if result is None:
                continue
            merged = self._merge(cols, result)
            if mode == config.ErrorSamplesMode.REPLACE and len(cache) < _REPLACE_CACHE:
                rows = len(next(iter(merged.values())))
                cache += [{n: c[i:i + 1] for n, c in merged.items()}
                          for i in range(min(rows, _REPLACE_CACHE - len(cache)))]
            yield batch_from_numpy(merged)
        for i in range(failed if cache else 0):
            yield batch_from_numpy(cache[i % len(cache)])
        if runner is not None:
            runner.epoch_end()

    def _merge(self, cols: dict, result: tuple) -> dict:
        """The chunk's columns with the map's outputs in place of its inputs."""
        produced = dict(zip(self.output_columns, result))
        if len(self.input_columns) == len(self.output_columns):
            renamed = dict(zip(self.input_columns, self.output_columns))
            return {renamed.get(n, n): produced[renamed[n]] if n in renamed else v
                    for n, v in cols.items()}
        rest = {n: v for n, v in cols.items() if n not in self.input_columns}
        return {**produced, **rest}


def _check_cache(cache):
    from ms_data.cache import DatasetCache

    if cache is not None and not isinstance(cache, DatasetCache):
        raise TypeError(f"cache must be a DatasetCache, got {type(cache).__name__}")
    return cache


class _hooked:
    """A debug hook placed before (``first``) or after ``op`` in a map."""

    def __init__(self, hook, op, first: bool):
        self.hook, self.first, self.__name__ = hook, first, type(hook).__name__
        self.op_name = getattr(op, "__name__", type(op).__name__)

    def __call__(self, *args):
        self.hook.set_previous_op_name(self.op_name)
        self.hook.set_is_first(self.first)
        out = self.hook(*args)
        return out if len(out) != 1 else out[0]
