"""The worker processes of a ``DataLoader`` (``num_workers > 0``).

Each worker has its own request queue and answers on one shared result queue with
``(request id, batch or error)``. A request is a list of indices (map-style datasets) or
``None``: "your next batch" (iterable datasets, one iterator per worker). The main
process keeps ``prefetch_factor`` requests per worker in flight, yields results in
request order, checks that workers are alive while it waits, and honours ``timeout``.
"""

from __future__ import annotations

import multiprocessing
import queue
import signal
import time
import traceback
from dataclasses import dataclass

__all__ = ["WorkerInfo", "get_worker_info", "WorkerSet"]

_POLL = 0.1  # seconds between liveness checks while waiting for a batch
_info = None  # this process's WorkerInfo, in a worker


@dataclass(frozen=True)
class WorkerInfo:
    id: int
    num_workers: int
    seed: int
    dataset: object


def get_worker_info():
    """In a DataLoader worker: its ``WorkerInfo`` (id, num_workers, seed, dataset); else None."""
    return _info


class _Exhausted:
    """An iterable dataset's worker has no more batches."""


def _loop(worker_id, num_workers, seed, dataset, fetch, requests, results, init_fn):
    global _info
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C goes to the main process
    _info = WorkerInfo(worker_id, num_workers, seed, dataset)
    stream = None
    try:
        if init_fn is not None:
            init_fn(worker_id)
    except BaseException as exc:  # noqa: BLE001 -- reported with the first request
        failed = (exc, traceback.format_exc())
    else:
        failed = None
    while True:
        item = requests.get()
        if item is None:  # stop
            return
        rid, indices = item
        try:
            if failed is not None:
                raise RuntimeError(f"worker_init_fn failed: {failed[1]}")
            if indices is None:
                if stream is None:
                    stream = fetch.stream(dataset)
                value = next(stream, _Exhausted)
            else:
                value = fetch(dataset, indices)
            results.put((rid, value, None))
        except BaseException as exc:  # noqa: BLE001 -- re-raised in the main process
            results.put((rid, None, f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}"))



class WorkerSet:
    """``num_workers`` processes running ``fetch`` for one pass over the data."""

    def __init__(self, dataset, fetch, num_workers, context, init_fn, seed, timeout):
        ctx = context if not isinstance(context, (str, type(None))) else \
            multiprocessing.get_context(context)
        self.timeout = timeout
        self.results = ctx.Queue()
        self.requests = [ctx.Queue() for _ in range(num_workers)]
        self.procs = [ctx.Process(target=_loop, daemon=True, name=f"dataloader_worker_{i}",
                                  args=(i, num_workers, seed + i, dataset, fetch,
                                        self.requests[i], self.results, init_fn))
                      for i in range(num_workers)]
        for p in self.procs:
            p.start()
        self._done: dict[int, tuple] = {}

    def send(self, worker: int, rid: int, indices) -> None:
        self.requests[worker].put((rid, indices))

    def result(self, rid: int):
        """The answer to request ``rid``: the batch, or ``_Exhausted``; raises its error."""
        start = time.monotonic()
        while rid not in self._done:
            try:
                got, value, error = self.results.get(timeout=_POLL)
                self._done[got] = (value, error)
                continue
            except queue.Empty:
                pass
            dead = [p for p in self.procs if not p.is_alive()]
            if dead:
                raise RuntimeError(f"DataLoader worker (pid {dead[0].pid}) exited unexpectedly "
                                   f"with exit code {dead[0].exitcode}")
            if self.timeout and time.monotonic() - start > self.timeout:
                raise RuntimeError(f"DataLoader timed out after {self.timeout} seconds")
        value, error = self._done.pop(rid)
        if error is not None:
            raise RuntimeError(f"Caught an exception in a DataLoader worker process:\n{error}")
        return value

    def close(self) -> None:
        for q in self.requests:
            try:
                q.put(None)
            except (OSError, ValueError):
                pass
        deadline = time.monotonic() + 1.0
        for p in self.procs:
            p.join(timeout=max(0.0, deadline - time.monotonic()))
            if p.is_alive():
                p.terminate()
                p.join(timeout=1.0)
        for q in (*self.requests, self.results):
            q.cancel_join_thread()
            q.close()
