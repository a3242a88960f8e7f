"""``SummaryRecord``: MindSpore's writer of summary data, writing TensorBoard event files.

Values given to ``add_value`` and those the summary operators (``ops.ScalarSummary``...)
produced are written by ``record(step)`` as one ``Event`` per step. The event file is
written by tensorboard's own ``EventFileWriter`` (a background thread appends the
records; ``flush`` waits for it), so TensorBoard and ``EventAccumulator`` read it as any
TensorFlow or PyTorch event file.

``record`` itself only queues the step's values: the events are built and handed to the
writer in batches by a worker thread (``ms_insight.summary._batches``), at most once a
second, so a step pays neither the protos nor a thread switch (docs/benchmarks.md);
``flush`` and ``close`` hand over and wait for everything.

Lineage data (``"train_lineage"``, ``"eval_lineage"``, ``"custom_lineage_data"``) go to the
run's ``lineage.json`` (``ms_insight.lineage``).
"""

from __future__ import annotations

import os
import time
import warnings

import numpy as np

from ms_insight.summary import _pending
from ms_insight.summary._batches import BatchedWriter, build_event
from ms_insight.summary.values import KINDS, check_value, recordable

__all__ = ["SummaryRecord"]

_LINEAGE = ("train_lineage", "eval_lineage", "custom_lineage_data")


def _array(kind: str, tag: str, value) -> np.ndarray:
    """A snapshot of ``value``: a Parameter updated in place before ``record`` keeps
    the values it had when it was added."""
    from ms_tensor import Tensor
    from ms_tensor.tensor import array_of

    if isinstance(value, Tensor):
        return np.array(recordable(array_of(value)), copy=True)
    if isinstance(value, (int, float, np.number, np.ndarray, list, tuple)) and \
            not isinstance(value, bool):
        return np.array(recordable(value), copy=True)
    raise TypeError(f"SummaryRecord.add_value: {kind} {tag!r} must be a Tensor, a numpy "
                    f"array or a number, got {type(value).__name__}")


class SummaryRecord:
    """Write summary data of one run into ``log_dir`` (an event file per record).

    Args:
        log_dir: the run's directory (created if missing). A dashboard given the parent
            directory shows each such directory as one run.
        file_prefix: MindSpore's name prefix; TensorBoard only reads files named
            ``events.out.tfevents.*``, so only ``"events"`` is accepted.
        file_suffix: appended to the event file's name (MindSpore's ``"_MS"``).
        max_file_size: the most bytes the event file may take (None: no limit). As in
            MindSpore, an event that would pass it is dropped with a RuntimeWarning, once,
            and nothing more is written to the file.
        raise_exception: accepted for compatibility; errors always raise.
        flush_secs: how often the writer thread flushes to disk on its own.

    >>> import tempfile
    >>> with SummaryRecord(tempfile.mkdtemp()) as record:
    ...     record.add_value("scalar", "loss", 0.25)
    ...     record.record(1)
    True
    """

    def __init__(self, log_dir, file_prefix: str = "events", file_suffix: str = "_MS",
                 num_process: int = 32, max_file_size=None, raise_exception: bool = False,
                 export_options=None, flush_secs: float = 120):
        from tensorboard.summary.writer.event_file_writer import EventFileWriter

        if not isinstance(log_dir, (str, os.PathLike)) or not str(log_dir):
            raise ValueError(f"SummaryRecord: log_dir must be a directory path, got "
                             f"{log_dir!r}")
        if file_prefix != "events":
            raise ValueError(f"SummaryRecord: file_prefix must be 'events' (TensorBoard reads "
                             f"only events.out.tfevents.* files), got {file_prefix!r}")
        if export_options:
            raise ValueError("SummaryRecord: export_options (tensor export to npy) is not "
                             "supported; record the tensor with add_value('tensor', ...)")
        if max_file_size is not None and (not isinstance(max_file_size, int)
                                          or isinstance(max_file_size, bool)
                                          or max_file_size < 0):
            raise ValueError(f"SummaryRecord: max_file_size must be None or an int >= 0, got "
                             f"{max_file_size!r}")
        self._budget = max_file_size  # bytes left, or None
        self._full = False
        self._log_dir = os.fspath(log_dir)
        if os.path.exists(self._log_dir) and not os.path.isdir(self._log_dir):
            raise NotADirectoryError(f"SummaryRecord: log_dir {self._log_dir!r} is a file")
        self._writer = EventFileWriter(self._log_dir, max_queue_size=64,
                                       flush_secs=flush_secs, filename_suffix=file_suffix)
        self._batches = BatchedWriter(self._writer)
        self._values: dict[tuple[str, str], object] = {}
        self._graph_written = False
        self._mode = "train"
        self._closed = False
        _pending.opened()

    @property
    def log_dir(self) -> str:
        return self._log_dir

    @property
    def event_file_name(self) -> str:
        """The path of the event file this record writes."""
        return self._writer._file_name

    @property
    def mode(self) -> str:
        """``"train"`` or ``"eval"`` (``set_mode``)."""
        return self._mode

    def set_mode(self, mode: str) -> None:
        """Mark the phase, ``"train"`` or ``"eval"``, for the code that records; the
        data of both go to the same file alike (summary operators run in eval too)."""
        if mode not in ("train", "eval"):
            raise ValueError(f"SummaryRecord.set_mode: mode must be 'train' or 'eval', got "
                             f"{mode!r}")
        self._mode = mode

    def add_value(self, plugin: str, name: str, value) -> None:
        """Queue ``value`` under tag ``name`` for the next ``record``.

        Args:
            plugin: ``"scalar"``, ``"image"`` (NCHW batch, tiled into one picture),
                ``"histogram"``, ``"tensor"``, ``"graph"`` (an ``ms_graph.ir.Graph`` or a
                ``GraphDef``), or a lineage kind (``"train_lineage"``, ``"eval_lineage"``,
                ``"custom_lineage_data"``: a dict merged into the run's lineage.json).
            name: the tag TensorBoard shows.
            value: a Tensor, numpy array or number (a Graph / dict for those kinds).
        """
        self._check_open("add_value")
        if not isinstance(name, str) or not name:
            raise ValueError(f"SummaryRecord.add_value: name must be a non-empty str, got "
                             f"{name!r}")
        if plugin in _LINEAGE:
            from ms_insight.lineage import update_lineage

            if not isinstance(value, dict):
                raise TypeError(f"SummaryRecord.add_value: {plugin} takes a dict, got "
                                f"{type(value).__name__}")
            update_lineage(self._log_dir, {plugin: value} if plugin == "custom_lineage_data"
                           else value)
            return
        if plugin == "graph":
            self._add_graph(value)
            return
        if plugin not in KINDS:
            raise ValueError(f"SummaryRecord.add_value: unknown plugin {plugin!r}; expected "
                             f"one of {KINDS + ('graph',) + _LINEAGE}")
        array = _array(plugin, name, value)
        check_value(plugin, name, array)  # a bad value fails here, not at record()
        self._values[(plugin, name)] = array

    def _add_graph(self, graph) -> None:
        from tensorboard.compat.proto import event_pb2, graph_pb2

        if not isinstance(graph, graph_pb2.GraphDef):
            from ms_insight.summary.graph import graph_def

            graph = graph_def(graph)
        self._write(event_pb2.Event(wall_time=time.time(), graph_def=graph.SerializeToString()))
        self._graph_written = True

    def record(self, step: int, train_network=None, plugin_filter=None) -> bool:
        """Write everything queued (``add_value`` and the summary operators) as step
        ``step``; returns True (MindSpore's contract). ``plugin_filter(kind) -> bool``
        keeps only some kinds."""
        self._check_open("record")
        if not isinstance(step, (int, np.integer)) or isinstance(step, bool):
            raise TypeError(f"SummaryRecord.record: step must be an int, got {step!r}")
        if train_network is not None and not self._graph_written:
            from ms_insight.summary.network_graph import compiled_graph

            g = compiled_graph(train_network)
            if g is not None:
                self._add_graph(g)
        values = dict(self._values)
        values.update(_pending.take())
        self._values = {}
        kept = [(kind, tag, array) for (kind, tag), array in values.items()
                if plugin_filter is None or plugin_filter(kind)]
        if kept:
            item = (int(step), time.time(), kept)
            if self._budget is None:
                self._batches.add(item, sum(a.nbytes for _, _, a in kept))
            else:  # the size decides now whether it is written
                self._write(build_event(item))
        return True

    def _write(self, event) -> None:
        """Queue ``event`` for the file, within ``max_file_size``: an event costs its bytes
        plus TFRecord's 16 (length, two CRCs)."""
        if self._budget is not None:
            size = event.ByteSize() + 16
            if self._full or size > self._budget:
                if not self._full:
                    self._full = True
                    warnings.warn(f"SummaryRecord: max_file_size reached for "
                                  f"{self.event_file_name}: {self._budget} bytes left, an event "
                                  f"needs {size}; nothing more is written to it",
                                  RuntimeWarning, stacklevel=3)
                return
            self._budget -= size
        self._batches.add(event, event.ByteSize())

    def flush(self) -> None:
        """Wait until everything recorded so far is on disk."""
        self._check_open("flush")
        self._batches.wait()
        self._writer.flush()

    def close(self) -> None:
        """Flush and close the file (idempotent)."""
        if not self._closed:
            self._closed = True
            _pending.closed()
            self._batches.close()

    def _check_open(self, what: str) -> None:
        if self._closed:
            raise RuntimeError(f"SummaryRecord.{what}: the record for {self._log_dir!r} is "
                               "closed")

    def __enter__(self) -> SummaryRecord:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"SummaryRecord({self._log_dir!r}{', closed' if self._closed else ''})"
