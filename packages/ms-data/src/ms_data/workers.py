"""Worker pools for pipeline stages: threads for GIL-free kernels, processes for Python code.

Work is split into row chunks that are independent of the worker count, and results come
back in submission order, so a pipeline gives the same rows with 1 or 8 workers. Pools
belong to one iterator (``Resources``) and are shut down when it finishes, fails or is
garbage-collected.

Process pools fork on Linux (so lambdas and closures work without pickling) and spawn
elsewhere (then operations must be picklable, as in MindSpore). They are created and started
on the thread that creates the iterator, before its prefetch thread runs.
"""

from __future__ import annotations

import multiprocessing
import sys
import threading
import traceback
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool

__all__ = ["PipelineError", "Resources", "ordered_map", "call_named"]


class PipelineError(RuntimeError):
    """An operation of a dataset pipeline failed; the message names it and has the traceback."""


def _traceback_text(exc: BaseException) -> str:
    cause = exc.__cause__
    remote = getattr(cause, "tb", None)  # concurrent.futures' _RemoteTraceback from a process
    if isinstance(remote, str):
        return remote.strip()
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)).strip()


def _wrap(exc: BaseException, what: str) -> PipelineError:
    if isinstance(exc, PipelineError):
        return exc
    if isinstance(exc, BrokenProcessPool):
        return PipelineError(f"{what}: a worker process died unexpectedly ({exc})")
    return PipelineError(f"{what} failed: {type(exc).__name__}: {exc}\n\n"
                         f"Original traceback (from the user function):\n"
                         f"{_traceback_text(exc)}")


def call_named(fn: Callable, item, what: str):
    """``fn(item)`` with any exception re-raised as a PipelineError naming ``what``."""
    try:
        return fn(item)
    except Exception as exc:
        raise _wrap(exc, what) from exc


# -- process workers ---------------------------------------------------------------------------
_installed: dict[int, Callable] = {}


def _install(token: int, fn: Callable) -> None:
    _installed[token] = fn


def _call_installed(token: int, item):
    return _installed[token](item)


def _noop() -> None:
    return None


def _process_context():
    if sys.platform.startswith("linux"):
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


class _ProcessPool:
    """A process pool running one function; tasks ship only the chunk, not the function."""

    def __init__(self, fn: Callable, workers: int):
        self.token = id(self)
        self.executor = ProcessPoolExecutor(workers, mp_context=_process_context(),
                                            initializer=_install, initargs=(self.token, fn))
        # Start every worker now, on this thread, rather than later from the prefetch thread.
        self.executor.submit(_noop).result()

    def submit(self, item):
        return self.executor.submit(_call_installed, self.token, item)

    def shutdown(self) -> None:
        processes = list((getattr(self.executor, "_processes", None) or {}).values())
        self.executor.shutdown(wait=False, cancel_futures=True)
        for p in processes:  # a worker still busy in a user function is stopped, not awaited
            p.join(timeout=1.0)
            if p.is_alive():
                p.terminate()
                p.join(timeout=1.0)
        self.executor.shutdown(wait=True)


class _ThreadPool:
    def __init__(self, fn: Callable, workers: int):
        self.fn = fn
        self.executor = ThreadPoolExecutor(workers, thread_name_prefix="ms_data_worker")

    def submit(self, item):
        return self.executor.submit(self.fn, item)

    def shutdown(self) -> None:
        self.executor.shutdown(wait=True, cancel_futures=True)


class Resources:
    """The worker pools of one iterator, keyed by (node, kind); closed together."""

    def __init__(self):
        self._pools: dict = {}
        self._lock = threading.Lock()
        self._closed = False

    def pool(self, owner, kind: str, workers: int, fn: Callable):
        """The pool running ``fn`` for ``owner``, created on first use (kind: thread/process)."""
        key = (id(owner), kind)
        with self._lock:
            if self._closed:
                raise PipelineError("the iterator was closed")
            pool = self._pools.get(key)
            if pool is None:
                cls = _ProcessPool if kind == "process" else _ThreadPool
                pool = self._pools[key] = (owner, cls(fn, workers))
            return pool[1]

    def close(self) -> None:
        with self._lock:
            self._closed = True
            pools, self._pools = list(self._pools.values()), {}
        for _, pool in pools:
            pool.shutdown()


def ordered_map(pool, fn: Callable, items: Iterable, what: str,
                window: int | None = None) -> Iterator:
    """``fn(item)`` for each item, in order; on ``pool`` (from ``Resources.pool``) when given.

    At most ``window`` items (default: twice the workers) are in flight, so a long or endless
    input is consumed lazily. Exceptions from ``fn`` become PipelineErrors naming ``what``;
    exceptions from ``items`` itself pass through unchanged.
    """
    if pool is None:
        for item in items:
            yield call_named(fn, item, what)
        return
    window = window or 2 * pool.executor._max_workers
    pending: deque = deque()
    try:
        for item in items:
            pending.append(pool.submit(item))
            if len(pending) >= window:
                yield _result(pending.popleft(), what)
        while pending:
            yield _result(pending.popleft(), what)
    finally:
        for f in pending:
            f.cancel()


def _result(future, what: str):
    try:
        return future.result()
    except Exception as exc:
        raise _wrap(exc, what) from exc
