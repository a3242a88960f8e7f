"""Iterators over a pipeline: epochs, prefetching on a background thread, Tensor conversion.

An iterator owns one producer thread that runs the epochs one after another and puts their
RecordBatches into a queue of ``config.get_prefetch_size()`` chunks, so the pipeline works
while the training step runs. Each pass of a ``for`` loop over the iterator is one epoch;
after ``num_epochs`` passes, asking for more is an error, as in MindSpore. In debug mode
(``ds.config.set_debug_mode``) there is no thread: rows are produced when asked for, so the
debug hooks show exactly the rows the loop reads.
"""

from __future__ import annotations

import queue
import threading
import weakref

import numpy as np

from ms_data import config
from ms_data.arrow import batch_numpy
from ms_data.dataset import EpochContext
from ms_data.workers import PipelineError, Resources
from ms_tensor import wrap
from ms_tensor.dtype import from_numpy

__all__ = ["DictIterator", "TupleIterator", "count_rows", "first_row"]

_JOIN_BUDGET = 0.5  # seconds stop() gives the producer thread to notice it
_EPOCH_END = object()
_FINISHED = object()
_EOF_MESSAGE = ("EOF buffer encountered. User tries to fetch data beyond the specified number "
                "of epochs.")


class _Producer:
    """The background thread of one iterator; holds no reference to the iterator itself."""

    def __init__(self, dataset, num_epochs: int | None):
        self.dataset = dataset
        self.num_epochs = num_epochs
        self.resources = Resources()
        self.seed = config.pipeline_seed()
        self.stop_event = threading.Event()
        opening = EpochContext(0, self.seed, (), self.resources)
        try:
            for node in dataset._walk():
                node._open(opening)
        except BaseException:
            self.resources.close()
            raise
        if config.get_debug_mode():
            self.queue = _Pull(self._items())
            self.thread = None
            return
        self.queue = queue.Queue(maxsize=config.get_prefetch_size())
        self.thread = threading.Thread(target=self._run, name="ms_data_prefetch", daemon=True)
        self.thread.start()

    def _put(self, item) -> bool:
        while not self.stop_event.is_set():
            try:
                self.queue.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def _items(self):
        """Batches, ``_EPOCH_END`` after each epoch, then ``_FINISHED`` or the exception."""
        try:
            epoch = 0
            while self.num_epochs is None or epoch < self.num_epochs:
                gen = self.dataset._batches(EpochContext(epoch, self.seed, (), self.resources))
                try:
                    yield from gen
                finally:
                    gen.close()
                yield _EPOCH_END
                epoch += 1
            yield _FINISHED
        except GeneratorExit:  # stopped early: nobody reads further
            raise
        except BaseException as exc:  # handed to the consumer, which re-raises it
            yield exc
        finally:
            self.resources.close()

    def _run(self) -> None:
        items = self._items()
        try:
            for item in items:
                if not self._put(item):
                    return
        finally:
            items.close()

    def stop(self) -> None:
        """Stop the thread and its worker pools (idempotent; safe from a finalizer).

        Never waits on pending work: the pools fail it at once, and a producer stuck in a
        user function (which no thread can interrupt) is left to its daemon thread.
        """
        self.stop_event.set()
        self.resources.close()
        while True:  # unblock a producer waiting on a full queue
            try:
                self.queue.get_nowait()
            except queue.Empty:
                break
        if self.thread is not None and self.thread is not threading.current_thread():
            self.thread.join(timeout=_JOIN_BUDGET)


class _Pull:
    """The queue of a thread-less producer: ``get`` computes the next item."""

    def __init__(self, items):
        self.items = items

    def get(self):
        return next(self.items, _FINISHED)

    def get_nowait(self):
        raise queue.Empty


class _Iterator:
    """Rows of a dataset, one epoch per pass; ``num_epochs=-1`` allows any number of passes."""

    def __init__(self, dataset, num_epochs, output_numpy):
        if num_epochs is None or num_epochs == -1:
            num_epochs = None
        elif not isinstance(num_epochs, int) or num_epochs < 1:
            raise ValueError(f"num_epochs must be a positive int or -1, got {num_epochs!r}")
        self.dataset = dataset
        self.output_numpy = output_numpy
        self._producer = _Producer(dataset, num_epochs)
        self._finalizer = weakref.finalize(self, self._producer.stop)
        self._columns: list[np.ndarray] | None = None
        self._names: list[str] = []
        self._row = 0
        self._rows = 0
        self._done = False

    def __iter__(self):
        return self

    def stop(self) -> None:
        """Stop prefetching and release the worker threads and processes now."""
        self._finalizer()

    def _next_columns(self) -> bool:
        """Load the next chunk; False at the end of an epoch."""
        while True:
            item = self._producer.queue.get()
            if item is _EPOCH_END:
                return False
            if item is _FINISHED:
                self._done = True
                self.stop()
                raise RuntimeError(_EOF_MESSAGE)
            if isinstance(item, BaseException):
                self._done = True
                self.stop()
                raise item
            if item.num_rows == 0:
                continue
            cols = batch_numpy(item)
            self._names = list(cols)
            self._columns = list(cols.values())
            self._row, self._rows = 0, item.num_rows
            return True

    def _next_values(self) -> list:
        if self._row >= self._rows:
            if self._done:
                raise RuntimeError(_EOF_MESSAGE)
            if not self._next_columns():
                raise StopIteration
        i = self._row
        self._row += 1
        return [_convert(col[i], self.output_numpy) for col in self._columns]


def _convert(value, output_numpy: bool):
    if not isinstance(value, np.ndarray):
        value = np.asarray(value)
    if output_numpy or value.dtype.kind in "USOV":
        return value
    try:
        from_numpy(value.dtype)
    except TypeError:  # a dtype MindSpore lacks stays numpy
        return value
    return wrap(np.array(value))  # a writable copy, as MindSpore's do_copy=True


class DictIterator(_Iterator):
    """Rows as ``{column: Tensor}`` (numpy arrays with ``output_numpy=True``)."""

    def __next__(self) -> dict:
        values = self._next_values()
        return dict(zip(self._names, values))


class TupleIterator(_Iterator):
    """Rows as ``[Tensor, ...]`` in column order, or in the order of ``columns``."""

    def __init__(self, dataset, columns, num_epochs, output_numpy):
        if columns is not None:
            columns = [columns] if isinstance(columns, str) else list(columns)
            missing = [c for c in columns if c not in dataset.get_col_names()]
            if missing:
                raise ValueError(f"create_tuple_iterator: columns {missing} not in the dataset's "
                                 f"columns {dataset.get_col_names()}")
        self.columns = columns
        super().__init__(dataset, num_epochs, output_numpy)

    def __next__(self) -> list:
        values = self._next_values()
        if self.columns is None:
            return values
        by_name = dict(zip(self._names, values))
        return [by_name[c] for c in self.columns]


def _one_epoch(dataset):
    """The RecordBatches of one epoch, on this thread (for size and shape queries)."""
    resources = Resources()
    ctx = EpochContext(0, None, (), resources)
    try:
        for node in dataset._walk():
            node._open(ctx)
        gen = dataset._batches(ctx)
        try:
            yield from gen
        finally:
            gen.close()
    finally:
        resources.close()


def count_rows(dataset) -> int:
    """Rows of one epoch, by running the pipeline (what MindSpore does when it must)."""
    return sum(b.num_rows for b in _one_epoch(dataset))


def first_row(dataset) -> list[np.ndarray]:
    """The first row's values, as numpy."""
    for batch in _one_epoch(dataset):
        if batch.num_rows:
            return [np.asarray(col[0]) for col in batch_numpy(batch).values()]
    raise PipelineError("the dataset has no rows, so it has no output shapes or types")
