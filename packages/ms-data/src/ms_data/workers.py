"""Worker pools for pipeline stages: threads for GIL-free kernels, processes for Python code.

Work is split into row chunks that are independent of the worker count, and results come
back in submission order, so a pipeline gives the same rows with 1 or 8 workers. Chunks
start small and grow (``ramp``): the first row leaves a stage after about one call of its
function, and a short dataset is still spread over every worker. Pools belong to one
iterator (``Resources``) and are shut down when it finishes, fails, is stopped or is
garbage-collected; shutting down never waits on a busy worker (see ``ms_data._pools``).

Process workers start with ``config.get_multiprocessing_start_method()``: ``"fork"`` by
default on Linux, as in MindSpore (lambdas and closures work without pickling), else
``"spawn"`` (then operations must pickle, and a clear error says which does not). A forked
child inherits no dead thread pool of ms-ops: ms-ops' ``os.register_at_fork`` handler
releases its OpenMP pool before every fork. Pools are created on the thread that creates
the iterator, before its prefetch thread runs.
"""

from __future__ import annotations

import multiprocessing
import pickle
import threading
import traceback
from collections import deque
from collections.abc import Callable, Iterable, Iterator

from ms_data import config
from ms_data._pools import PoolClosed, ProcessPool, ThreadPool, WorkerDied
from ms_data.errors import DatasetError, PipelineError

__all__ = ["PipelineError", "Resources", "ordered_map", "call_named", "ramp", "RAMP_CAP"]

# Largest chunk a stage hands one worker: big enough that vectorized transforms amortize
# their per-call cost.
RAMP_CAP = 256


def ramp(position: int, rows: int, cap: int = RAMP_CAP) -> list[int]:
    """Sizes that split ``rows`` rows starting at row ``position`` of a stage's stream.

    A chunk starting at row ``p`` has ``min(cap, max(1, p))`` rows: 1, 1, 2, 4, 8, ... so
    the first result needs one call and chunks double up to ``cap``. The sizes depend only
    on positions, never on the worker count, so random operations keyed by chunk give the
    same rows for any ``num_parallel_workers``.

    >>> ramp(0, 10)
    [1, 1, 2, 4, 2]
    """
    sizes = []
    while rows > 0:
        n = min(rows, cap, max(1, position))
        sizes.append(n)
        position += n
        rows -= n
    return sizes


def _wrap(exc: BaseException, what: str, remote_tb: str | None = None) -> PipelineError:
    if isinstance(exc, (PipelineError, DatasetError)):  # already say what and where
        return exc
    if isinstance(exc, PoolClosed):
        return PipelineError(f"{what}: the iterator was stopped")
    if isinstance(exc, WorkerDied):
        return PipelineError(f"{what}: {exc}")
    tb = remote_tb or "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return PipelineError(f"{what} failed: {type(exc).__name__}: {exc}\n\n"
                         f"Original traceback (from the user function):\n{tb.strip()}")


def call_named(fn: Callable, item, what: str):
    """``fn(item)`` with any exception re-raised as a PipelineError naming ``what``."""
    try:
        return fn(item)
    except Exception as exc:
        raise _wrap(exc, what) from exc


def _process_pool(owner, fn: Callable, workers: int) -> ProcessPool:
    method = config.get_multiprocessing_start_method()
    if method != "fork":
        try:
            pickle.dumps(fn)
        except Exception as exc:
            raise PipelineError(
                f"{type(owner).__name__}: python_multiprocessing with start method {method!r} "
                f"sends the operation to each worker by pickling it, and it does not pickle "
                f"({type(exc).__name__}: {exc}). Define it at module level, or use "
                f"ds.config.set_multiprocessing_start_method('fork'), or "
                f"python_multiprocessing=False.") from None
    return ProcessPool(fn, workers, multiprocessing.get_context(method),
                       watchdog=config.get_enable_watchdog(),
                       warn_after=config.get_multiprocessing_timeout_interval())


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
                raise PipelineError("the iterator was stopped")
            entry = self._pools.get(key)
            if entry is None:
                made = _process_pool(owner, fn, workers) if kind == "process" \
                    else ThreadPool(fn, workers)
                entry = self._pools[key] = (owner, made)
            return entry[1]

    def close(self) -> None:
        """Shut every pool down now (from any thread); pending work is dropped, not awaited."""
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
    window = window or 2 * pool.workers
    pending: deque = deque()
    try:
        for item in items:
            pending.append(pool.submit(item))
            if len(pending) >= window:
                yield _result(pool, pending.popleft(), what)
        while pending:
            yield _result(pool, pending.popleft(), what)
    except (PoolClosed, WorkerDied) as exc:
        raise _wrap(exc, what) from None
    finally:
        for task in pending:
            pool.cancel(task)


def _result(pool, task, what: str):
    pool.result(task)
    if task.error is None:
        return task.value
    raise _wrap(task.error, what, task.remote_tb) from task.error
