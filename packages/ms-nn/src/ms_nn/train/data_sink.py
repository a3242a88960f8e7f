"""MindSpore's data-sink entry points besides ``Model``: ``data_sink`` (the functional
form of MindSpore 2.x), ``DatasetHelper`` and ``connect_network_with_dataset``.

All three feed a step through the same device queue and ``GetNext`` as ``Model.train``
(``ms_nn.train.sink.SinkRunner``). A sink object owns a feeder thread: it stops when the
object is closed (``close()``, or leaving its ``with`` block) or garbage-collected.
"""

from __future__ import annotations

import weakref

from ms_nn.train.data import Batches
from ms_nn.train.sink import SinkRunner

__all__ = ["data_sink", "DataSinkFunction", "DatasetHelper", "connect_network_with_dataset"]


def _check_sink_size(who: str, sink_size, allow_all: bool):
    ok = isinstance(sink_size, int) and not isinstance(sink_size, bool) and \
        (sink_size > 0 or (allow_all and sink_size == -1))
    if not ok:
        raise ValueError(f"{who}: sink_size must be {'-1 or ' if allow_all else ''}a positive "
                         f"int, got {sink_size!r}")


class DataSinkFunction:
    """What ``data_sink`` returns: each call runs ``sink_size`` steps, returns the last."""

    def __init__(self, fn, dataset, sink_size, jit_config):
        self.fn = fn
        self.sink_size = sink_size
        self._data = Batches(dataset, "data_sink")
        graph = None
        if jit_config is not None:
            from ms_graph import jit

            fn = jit(fn, jit_config=jit_config)  # checks jit_config; AST capture inline
            graph = True
        self._runner = SinkRunner(fn, self._data.stream(None), "data_sink",
                                  describe=repr(dataset), graph=graph)
        self._finalizer = weakref.finalize(self, _close, self._runner, self._data)

    def __call__(self, *args):
        if args:
            raise TypeError(f"data_sink: the sink function takes no arguments (its inputs "
                            f"come from the dataset), got {len(args)}")
        return self._runner.run(self.sink_size)

    def close(self) -> None:
        """Stop the feeder thread (also done when this object is collected)."""
        self._finalizer()

    def __enter__(self) -> DataSinkFunction:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _close(runner, data) -> None:
    runner.close()
    data.close()


def data_sink(fn, dataset, sink_size=1, jit_config=None, input_signature=None):
    """MindSpore's ``mindspore.data_sink``: a function that runs ``fn`` on the next
    ``sink_size`` batches of ``dataset`` (repeated without end) per call and returns the
    last step's result. With ``jit_config`` (a ``JitConfig`` or a dict) the ``sink_size``
    steps compile into one graph whatever the mode; without, the context's mode decides.

    >>> # sink_process = data_sink(train_step, dataset, sink_size=4)
    >>> # for _ in range(epochs): loss = sink_process()
    """
    if not callable(fn):
        raise TypeError(f"data_sink: fn must be callable, got {type(fn).__name__}")
    _check_sink_size("data_sink", sink_size, allow_all=False)
    if input_signature is not None:
        raise ValueError("data_sink: input_signature is not supported: the inputs' shapes "
                         "come from the dataset (sink needs every batch the same shape)")
    return DataSinkFunction(fn, dataset, sink_size, jit_config)


class DatasetHelper:
    """MindSpore's ``DatasetHelper``: iterates a dataset for a training loop.

    Without sink each iteration yields one batch. With sink, each iteration yields ``()``
    and stands for one sink of ``sink_size`` steps (the whole dataset with -1) that the
    network from ``connect_network_with_dataset`` runs; an epoch has
    ``dataset_size // sink_size`` sinks (at least one).
    """

    def __init__(self, dataset, dataset_sink_mode=True, sink_size=-1, epoch_num=1):
        _check_sink_size("DatasetHelper", sink_size, allow_all=True)
        if not isinstance(epoch_num, int) or epoch_num < 1:
            raise ValueError(f"DatasetHelper: epoch_num must be a positive int, got "
                             f"{epoch_num!r}")
        self.dataset = dataset
        self.dataset_sink_mode = bool(dataset_sink_mode)
        self.epoch_num = epoch_num
        self._data = Batches(dataset, "DatasetHelper")
        size = self._data.size
        if self.dataset_sink_mode and sink_size == -1 and size is None:
            raise ValueError("DatasetHelper: sink_size=-1 needs a dataset of known size "
                             "(get_dataset_size); give a positive sink_size")
        self.sink_size = size if sink_size == -1 else sink_size
        self._stream = None
        self._owned = [self._data]  # closed with the helper (no reference to it)
        self._finalizer = weakref.finalize(self, _close_all, self._owned)

    def sink_count(self) -> int:
        """Sinks per epoch."""
        size = self._data.size
        return 1 if size is None else max(1, size // self.sink_size)

    def __iter__(self):
        if not self.dataset_sink_mode:
            yield from self._data.epoch(self.epoch_num)
            return
        for _ in range(self.sink_count()):
            yield ()

    def __len__(self) -> int:
        return self.sink_count() if self.dataset_sink_mode else (self._data.size or 0)

    def runner(self, network) -> SinkRunner:
        """The sink runner of ``network`` on this helper's data (made once)."""
        if self._stream is None:
            size = self._data.size
            epochs = None if size is None else -(-self.epoch_num * self.sink_count() *
                                                 self.sink_size // size)
            self._stream = SinkRunner(network, self._data.stream(epochs), "DatasetHelper",
                                      describe=repr(self.dataset))
            self._owned.insert(0, self._stream)
        elif self._stream.network is not network:
            raise ValueError("DatasetHelper: its data is already connected to another "
                             "network; make one DatasetHelper per network")
        return self._stream

    def stop_send(self) -> None:
        """Stop feeding the device queue (MindSpore's name for ending the sink)."""
        self._finalizer()

    def release(self) -> None:
        self._finalizer()


def _close_all(owned) -> None:
    for x in owned:
        x.close()


def connect_network_with_dataset(network, dataset_helper):
    """MindSpore's ``connect_network_with_dataset``: in sink mode, a network that takes no
    inputs, reads its batches with ``GetNext`` and runs one sink (``sink_size`` steps) per
    call, returning the last step's outputs; without sink, ``network`` itself."""
    if not isinstance(dataset_helper, DatasetHelper):
        raise TypeError(f"connect_network_with_dataset: dataset_helper must be a "
                        f"DatasetHelper, got {type(dataset_helper).__name__}")
    if not dataset_helper.dataset_sink_mode:
        return network
    from ms_nn.cell import Cell

    class _DataWrapper(Cell):
        """``network`` fed from the helper's device queue."""

        def __init__(self):
            super().__init__(auto_prefix=False)
            self.network = network

        def __call__(self, *inputs):
            if inputs:
                raise TypeError(f"connect_network_with_dataset: the connected network "
                                f"reads its inputs from the dataset; got {len(inputs)} "
                                "arguments")
            return dataset_helper.runner(network).run(dataset_helper.sink_size)

        def construct(self, *inputs):
            return self(*inputs)

    return _DataWrapper()
