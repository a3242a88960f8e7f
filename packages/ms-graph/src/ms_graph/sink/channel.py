"""The device queue of data sink: a bounded queue that a feeder thread fills ahead of the
step, read by the ``GetNext`` operator inside the graph.

On the CPU the "device" is the executor; what the queue removes from the step is the
host's work of producing each batch (the dataset pipeline runs in the feeder thread, in
parallel with the step). A queue starved for longer than its timeout raises
``DataStarvedError`` with MindSpore's diagnosis (data processing too slow), naming the
pipeline stage the feeder was in, instead of hanging. ``close`` stops and joins the
feeder, so no thread outlives a run, also after an error or a KeyboardInterrupt.
"""

from __future__ import annotations

import sys
import threading
import time
from collections import deque

import numpy as np

__all__ = ["DataChannel", "ChannelError", "DataStarvedError", "PipelineError", "get_channel",
           "is_open",
           "DEFAULT_TIMEOUT"]

DEFAULT_TIMEOUT = 60.0  # seconds a GetNext waits for one batch before it diagnoses
_END = object()
_channels: dict[str, DataChannel] = {}
_lock = threading.Lock()
# Modules whose frames are not "the pipeline stage": the framework's queue and threading.
_PLUMBING = ("ms_graph", "threading", "queue")


class ChannelError(RuntimeError):
    """A data channel could not give a batch (raised through GetNext as it is)."""


class DataStarvedError(ChannelError):
    """GetNext waited longer than the channel's timeout for a batch."""


class PipelineError(ChannelError):
    """The dataset pipeline feeding a channel raised; the original error is the cause."""


class _Failure:
    __slots__ = ("error",)

    def __init__(self, error: BaseException):
        self.error = error


def is_open(name: str) -> bool:
    """Whether a channel called ``name`` is open now."""
    return name in _channels


def get_channel(name: str) -> DataChannel:
    """The open channel called ``name`` (what a GetNext's ``shared_name`` names)."""
    ch = _channels.get(name)
    if ch is None:
        raise RuntimeError(f"GetNext: no data channel {name!r} is open (open ones: "
                           f"{sorted(_channels) or 'none'}); a sink graph runs only while "
                           "its dataset is connected (Model.train / data_sink / "
                           "connect_network_with_dataset)")
    return ch


class DataChannel:
    """Batches (tuples of numpy arrays) from ``batches`` through a bounded queue.

    Args:
        name: the queue name GetNext reads (unique among open channels).
        batches: an iterable of tuples of arrays; it runs in the feeder thread.
        capacity: how many batches may wait in the queue (the prefetch depth).
        timeout: seconds one ``get`` waits before raising ``DataStarvedError``.
        describe: the pipeline, in words, for the diagnosis (e.g. the dataset's repr).
    """

    def __init__(self, name: str, batches, *, capacity: int = 16,
                 timeout: float = DEFAULT_TIMEOUT, describe: str = ""):
        if not isinstance(capacity, int) or capacity < 1:
            raise ValueError(f"DataChannel {name!r}: capacity must be a positive int, got "
                             f"{capacity!r}")
        if not timeout > 0:
            raise ValueError(f"DataChannel {name!r}: timeout must be > 0 s, got {timeout!r}")
        self.name = name
        self.timeout = float(timeout)
        self.describe = describe
        self.taken = 0  # batches GetNext has read
        # A deque with two events rather than queue.Queue: the reader takes a batch
        # without a lock, and the feeder wakes only when the queue has drained to half
        # (measured: queue.Queue's handshake on every batch cost ~40 us of a 500 us step
        # on a 2-core machine, in GIL switches).
        self._items: deque = deque()
        self._capacity = capacity
        self._low = capacity // 2
        self._ready = threading.Event()  # set when a batch was added
        self._space = threading.Event()  # set when the feeder may add again
        self._stop = threading.Event()
        self._source = batches
        with _lock:
            if name in _channels:
                raise RuntimeError(f"DataChannel: a channel named {name!r} is already open")
            _channels[name] = self
        self._thread = threading.Thread(target=self._feed, name=f"ms-sink-feeder-{name}",
                                        daemon=True)
        self._thread.start()

    # -- the feeder thread --------------------------------------------------------------
    def _feed(self) -> None:
        try:
            for batch in self._source:
                if not self._put(tuple(np.asarray(a) for a in batch)):
                    return
            self._put(_END)
        except BaseException as e:  # handed to the reader, which raises it
            self._put(_Failure(e))

    def _put(self, item) -> bool:
        """Queue ``item``; with the queue full, sleep until the reader has drained it to
        half (or ``close``): no polling, so a full queue costs the step nothing (each wake
        of this thread needs the GIL the step's Python needs too)."""
        items = self._items
        while len(items) >= self._capacity:
            if self._stop.is_set():
                return False
            self._space.clear()
            if len(items) >= self._capacity and not self._stop.is_set():
                self._space.wait()
        if self._stop.is_set():
            return False
        items.append(item)
        self._ready.set()
        return True

    # -- the reader (GetNext) -----------------------------------------------------------
    def get(self) -> tuple:
        """The next batch; raises ``DataStarvedError`` after ``timeout`` seconds without
        one, ``EOFError`` when the dataset ended, or the error the pipeline raised."""
        items = self._items
        start = None
        while True:
            try:
                item = items.popleft()
                break
            except IndexError:
                pass
            self._ready.clear()
            if items:
                continue
            if start is None:
                start = time.monotonic()
            if self._ready.wait(min(0.1, self.timeout)) or items:
                continue
            waited = time.monotonic() - start
            if not self._thread.is_alive() and not items:
                raise EOFError(f"GetNext: data channel {self.name!r} is closed")
            if waited >= self.timeout:
                raise DataStarvedError(self._diagnosis(waited))
        if len(items) <= self._low and not self._space.is_set():
            self._space.set()
        if type(item) is _Failure:
            raise PipelineError(f"GetNext: the dataset pipeline of channel {self.name!r} "
                               f"failed: {type(item.error).__name__}: {item.error}") \
                from item.error
        if item is _END:
            items.appendleft(_END)  # every later read sees the end too
            raise EOFError(f"GetNext: the dataset of channel {self.name!r} has no more "
                           f"batches (read {self.taken})")
        self.taken += 1
        return item

    def _diagnosis(self, waited: float) -> str:
        stage = self._stage()
        return (f"GetNext: no batch arrived in data channel {self.name!r} for {waited:.1f} s "
                f"(timeout {self.timeout:g} s) after {self.taken} batches. The data "
                f"processing is too slow for the network: {stage}. Check it with "
                "dataset_sink_mode=False, or loop over the dataset alone with "
                "create_dict_iterator() and tune the slow stage (num_parallel_workers, "
                "cheaper transforms); see MindSpore's data processing performance guide."
                + (f" Pipeline: {self.describe}." if self.describe else ""))

    def _stage(self) -> str:
        """Where the feeder thread is now: the innermost frame of the user's code and the
        innermost dataset object on its stack (the stage that keeps the queue empty)."""
        frame = sys._current_frames().get(self._thread.ident)
        if frame is None:
            return "the pipeline's feeder thread has stopped"
        user, stage = None, None
        while frame is not None:
            module = frame.f_globals.get("__name__", "")
            top = module.partition(".")[0]
            owner = frame.f_locals.get("self")
            if stage is None and top == "ms_data" and owner is not None:
                stage = f"{type(owner).__name__} ({frame.f_code.co_name})"
            if user is None and top not in _PLUMBING and not top.startswith("ms_") \
                    and top != "numpy":
                user = f"{frame.f_code.co_qualname} at {frame.f_code.co_filename}:" \
                       f"{frame.f_lineno}"
            frame = frame.f_back
        parts = []
        if stage is not None:
            parts.append(f"the pipeline stage running is {stage}")
        if user is not None:
            parts.append(f"inside {user}")
        return ", ".join(parts) or "the feeder thread is waiting on the dataset iterator"

    # -- ending ---------------------------------------------------------------------------
    def close(self) -> None:
        """Stop the feeder, drop the queued batches and join the thread."""
        self._stop.set()
        self._space.set()
        self._items.clear()
        stop = getattr(self._source, "close", None)
        self._thread.join(timeout=5.0)
        if stop is not None and not self._thread.is_alive():
            stop()  # a generator source: run its finally blocks (the dataset's cleanup)
        with _lock:
            if _channels.get(self.name) is self:
                del _channels[self.name]

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def __enter__(self) -> DataChannel:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<DataChannel {self.name!r} queued={len(self._items)} read={self.taken}>"
