"""The two worker pools behind ``ms_data.workers``: daemon threads and daemon processes.

Neither pool ever makes its owner wait for a task it no longer needs: ``shutdown`` fails
every pending task at once, stops idle workers, terminates busy worker processes and
leaves a busy worker thread (which cannot be killed) to finish on its own. Both use daemon
workers, so the interpreter exits without joining them; ``concurrent.futures`` pools join
their workers at exit, which hung forever on a user function that never returns.

A process pool sends each task to an idle worker over its own pipe and watches every busy
worker's process sentinel: a worker that dies (killed, segfault, ``os._exit``) fails its
task with an error naming the exit code instead of leaving the pipeline waiting. Workers
ignore SIGINT, so Ctrl-C reaches only the main process, which then stops them. With the
watchdog (``ds.config.set_enable_watchdog``, on by default) a worker whose main process
died without stopping it (SIGKILL) exits by itself; a task that runs longer than
``ds.config.get_multiprocessing_timeout_interval()`` seconds gets a warning each interval.
"""

from __future__ import annotations

import os
import pickle
import queue
import signal
import threading
import time
import traceback
import warnings
from collections import deque
from multiprocessing.connection import wait

__all__ = ["Task", "ThreadPool", "ProcessPool", "PoolClosed", "WorkerDied"]

_JOIN_BUDGET = 0.25  # seconds shutdown waits for workers that are about to finish
_FINISH = threading.Lock()
_WATCHDOG_PERIOD = 0.5  # seconds between a worker's checks that its main process lives


class PoolClosed(RuntimeError):
    """The pool was shut down while a task was pending (the iterator stopped)."""


class WorkerDied(RuntimeError):
    """A worker process exited while it held a task."""


class Task:
    """One submitted item: filled in by a worker, read by ``pool.result``."""

    __slots__ = ("item", "done", "value", "error", "remote_tb")

    def __init__(self, item):
        self.item = item
        self.done = threading.Event()
        self.value = None
        self.error: BaseException | None = None
        self.remote_tb: str | None = None

    def finish(self, value=None, error=None, remote_tb=None) -> None:
        with _FINISH:  # a worker and a shutdown may race to finish one task: first one wins
            if self.done.is_set():
                return
            self.value, self.error, self.remote_tb = value, error, remote_tb
            self.item = None
            self.done.set()


def _join_all(things, deadline: float) -> None:
    for t in things:
        t.join(timeout=max(0.0, deadline - time.monotonic()))


class ThreadPool:
    """``workers`` daemon threads running ``fn`` on submitted items."""

    def __init__(self, fn, workers: int):
        self.fn = fn
        self.workers = workers
        self.closed = False
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._pending: set[Task] = set()
        self._running = 0
        self._threads = [threading.Thread(target=self._work, name=f"ms_data_worker_{i}",
                                          daemon=True) for i in range(workers)]
        for t in self._threads:
            t.start()

    def _work(self) -> None:
        while True:
            task = self._queue.get()
            if task is None:
                return
            with self._lock:
                if task.done.is_set():  # cancelled, or failed by shutdown
                    continue
                self._running += 1
            try:
                task.finish(self.fn(task.item))
            except BaseException as exc:  # noqa: BLE001 -- handed to the waiting consumer
                task.finish(error=exc)
            with self._lock:
                self._running -= 1
                self._pending.discard(task)
            del task

    def submit(self, item) -> Task:
        task = Task(item)
        with self._lock:
            if self.closed:
                raise PoolClosed("the worker pool was shut down")
            self._pending.add(task)
        self._queue.put(task)
        return task

    def result(self, task: Task):
        task.done.wait()
        return task

    def cancel(self, task: Task) -> None:
        """Drop a task nobody will read; a thread skips it if it has not started it."""
        task.finish(error=PoolClosed("cancelled"))
        with self._lock:
            self._pending.discard(task)

    def shutdown(self) -> None:
        with self._lock:
            self.closed = True
            pending, self._pending = self._pending, set()
            busy = self._running
        for task in pending:
            task.finish(error=PoolClosed("the worker pool was shut down"))
        for _ in self._threads:
            self._queue.put(None)
        if not busy:  # idle threads exit at once; a busy one is not waited for at all
            _join_all(self._threads, time.monotonic() + _JOIN_BUDGET)


def _watch(parent: int) -> None:
    """Exit this worker once its main process is gone (it is then re-parented)."""
    while os.getppid() == parent:
        time.sleep(_WATCHDOG_PERIOD)
    os._exit(0)


def _serve(conn, fn, watchdog_parent: int | None = None) -> None:
    """A worker process: run ``fn`` on each item received, send back the result or error."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops us
    if watchdog_parent is not None:
        threading.Thread(target=_watch, args=(watchdog_parent,), daemon=True).start()
    while True:
        try:
            item = conn.recv()
        except Exception:  # noqa: BLE001 -- EOF, or a message cut by a shutdown: stop
            return
        if item is None:  # stop (EOF alone is not enough: forked siblings share our pipe)
            return
        try:
            reply = ("ok", fn(item), None)
        except BaseException as exc:  # noqa: BLE001 -- reported to the parent
            tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
            try:
                pickle.dumps(exc)
            except Exception:  # noqa: BLE001 -- an unpicklable exception travels as text
                exc = RuntimeError(f"{type(exc).__name__}: {exc}")
            reply = ("err", exc, tb.strip())
        del item
        try:
            conn.send(reply)
        except (EOFError, OSError):
            return
        except Exception as exc:  # noqa: BLE001 -- the result itself does not pickle
            conn.send(("err", RuntimeError(f"the result could not be sent back to the main "
                                           f"process: {type(exc).__name__}: {exc}"), None))


class _Worker:
    __slots__ = ("process", "conn", "task")

    def __init__(self, process, conn):
        self.process, self.conn, self.task = process, conn, None


class ProcessPool:
    """``workers`` daemon processes of ``context`` running ``fn``; driven by ``result``.

    Only the thread that iterates the pipeline calls ``submit`` and ``result``; ``shutdown``
    may come from any thread.
    """

    def __init__(self, fn, workers: int, context, watchdog: bool = False,
                 warn_after: float | None = None):
        self.workers = workers
        self.warn_after = warn_after
        self.closed = False
        self._backlog: deque[Task] = deque()
        self._lock = threading.Lock()
        self._workers: list[_Worker] = []
        try:
            for i in range(workers):
                parent, child = context.Pipe()
                process = context.Process(
                    target=_serve, args=(child, fn, os.getpid() if watchdog else None),
                    daemon=True, name=f"ms_data_worker_{i}")
                process.start()
                child.close()
                self._workers.append(_Worker(process, parent))
        except BaseException:
            self.shutdown()
            raise

    def submit(self, item) -> Task:
        if self.closed:
            raise PoolClosed("the worker pool was shut down")
        task = Task(item)
        self._backlog.append(task)
        self._dispatch()
        return task

    def _dispatch(self) -> None:
        for w in self._workers:
            if not self._backlog:
                return
            if w.task is None:
                task = self._backlog.popleft()
                w.task = task
                try:
                    w.conn.send(task.item)
                except (OSError, EOFError):  # died while idle: reported by _collect
                    pass
                except Exception as exc:  # noqa: BLE001 -- the item does not pickle
                    w.task = None
                    task.finish(error=exc)

    def cancel(self, task: Task) -> None:
        """Drop a task nobody will read; a busy worker's result is discarded on arrival."""
        try:
            self._backlog.remove(task)
        except ValueError:
            pass
        task.finish(error=PoolClosed("cancelled"))

    def result(self, task: Task):
        start = time.monotonic()
        warned = 0
        while not task.done.is_set():
            waited = time.monotonic() - start
            if self.warn_after is not None and waited >= (warned + 1) * self.warn_after:
                warned += 1
                pids = [w.process.pid for w in self._workers if w.task is not None]
                warnings.warn(f"ms_data: the main process has waited {waited:.0f} s for a "
                              f"worker process (pids {pids}); its operation may hang "
                              f"(ds.config.set_multiprocessing_timeout_interval)",
                              RuntimeWarning, stacklevel=2)
            if self.closed:
                raise PoolClosed("the worker pool was shut down")
            busy = [w for w in self._workers if w.task is not None]
            if not busy:
                if not self._backlog:  # nothing holds the task: never spin on it
                    raise PoolClosed("the task was dropped")
                self._dispatch()
                continue
            try:
                ready = wait([w.conn for w in busy] + [w.process.sentinel for w in busy], 0.1)
            except (OSError, ValueError):  # shutdown closed a pipe under us
                ready = []
            if ready:
                for w in busy:
                    self._collect(w, ready)
            self._dispatch()
        return task

    def _collect(self, w: _Worker, ready) -> None:
        if w.conn in ready:
            try:
                status, value, tb = w.conn.recv()
            except (EOFError, OSError):
                status = None
            if status is not None:
                task, w.task = w.task, None
                if status == "ok":
                    task.finish(value)
                else:
                    task.finish(error=value, remote_tb=tb)
                return
        if w.process.sentinel in ready or not w.process.is_alive():
            w.process.join(timeout=1.0)
            if self.closed:
                raise PoolClosed("the worker pool was shut down")
            raise WorkerDied(f"a worker process died unexpectedly (exit code "
                             f"{w.process.exitcode}) while running a task")

    def shutdown(self) -> None:
        with self._lock:
            self.closed = True
        for task in [w.task for w in self._workers if w.task is not None] + list(self._backlog):
            task.finish(error=PoolClosed("the worker pool was shut down"))
        self._backlog.clear()
        for w in self._workers:
            if w.task is None:
                try:
                    w.conn.send(None)  # an idle worker exits
                except (OSError, ValueError):
                    pass
            else:  # a busy one is stopped, not awaited
                w.process.terminate()
        deadline = time.monotonic() + _JOIN_BUDGET
        _join_all([w.process for w in self._workers], deadline)
        for w in self._workers:
            if w.process.is_alive():
                w.process.kill()
                w.process.join(timeout=1.0)
            try:
                w.conn.close()
            except OSError:
                pass

