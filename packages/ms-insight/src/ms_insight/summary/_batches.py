"""How ``SummaryRecord`` hands its events to tensorboard's ``EventFileWriter``, cheaply
for the training thread.

``record`` runs in the training loop, every step if asked. Two things there cost more
than the values themselves: waking the event writer's thread (a thread switch and a GIL
hand-over in the middle of the next step, which on a busy machine measured more than the
write) and building the protos (a scalar's ``Summary``/``Event`` is tens of
microseconds of Python). So ``record`` only appends the step's values to a batch; a
batch goes to a worker thread at most every ``HAND_OVER_S`` seconds (or at
``HAND_OVER_ITEMS`` steps / ``HAND_OVER_BYTES``), and that thread builds the events
(PNG encoding of images included) and gives them to the ``EventFileWriter``, while the
training thread runs its kernels. The worker runs the batches in order, so the file
holds the events in the order recorded. A record reaches the disk at most a second
later than before, which the writer's own ``flush_secs`` (120 s) dwarfs.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

__all__ = ["BatchedWriter", "HAND_OVER_S", "HAND_OVER_ITEMS", "HAND_OVER_BYTES"]

HAND_OVER_S = 1.0
HAND_OVER_ITEMS = 32
HAND_OVER_BYTES = 1 << 20


def build_event(item):
    """An ``Event`` from a batch item: an Event, or ``(step, wall_time, values)`` with
    ``values`` a list of ``(kind, tag, array)``."""
    from tensorboard.compat.proto import event_pb2, summary_pb2

    from ms_insight.summary.values import make_value

    if isinstance(item, event_pb2.Event):
        return item
    step, wall_time, values = item
    summary = summary_pb2.Summary(value=[make_value(k, t, a) for k, t, a in values])
    return event_pb2.Event(wall_time=wall_time, step=step, summary=summary)


class BatchedWriter:
    """Batches of events for ``writer`` (an ``EventFileWriter``), built on a worker."""

    def __init__(self, writer):
        self.writer = writer
        self._batch: list = []
        self._bytes = 0
        self._handed = time.perf_counter()
        self._worker = ThreadPoolExecutor(max_workers=1,
                                          thread_name_prefix="SummaryRecord")
        self._pending: list = []  # futures of the batches handed over

    def add(self, item, nbytes: int) -> None:
        """Queue an ``Event`` or a ``(step, wall_time, values)`` of about ``nbytes``."""
        self._batch.append(item)
        self._bytes += nbytes
        if len(self._batch) >= HAND_OVER_ITEMS or self._bytes >= HAND_OVER_BYTES \
                or time.perf_counter() - self._handed >= HAND_OVER_S:
            self.hand_over()

    def hand_over(self) -> None:
        """Give the worker the batch so far (it wakes once for all of it)."""
        self._handed = time.perf_counter()
        self._pending = [f for f in self._pending if not f.done() or f.result()]
        if self._batch:
            batch, self._batch, self._bytes = self._batch, [], 0
            self._pending.append(self._worker.submit(self._write, batch))

    def _write(self, batch) -> None:
        for item in batch:
            self.writer.add_event(build_event(item))

    def wait(self) -> None:
        """Hand over and wait until the worker has given every event to the writer;
        an error of the worker is raised here."""
        self.hand_over()
        pending, self._pending = self._pending, []
        for f in pending:
            f.result()

    def close(self) -> None:
        try:
            self.wait()
        finally:
            self._worker.shutdown(wait=True)
            self.writer.close()
