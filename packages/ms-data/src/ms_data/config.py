"""Pipeline-wide settings (``ds.config``): the seed, worker count, prefetch depth, timeouts,
debug mode and what a failing sample does."""

from __future__ import annotations

import enum
import os
import sys

import numpy as np

__all__ = [
    "set_seed", "get_seed", "set_num_parallel_workers", "get_num_parallel_workers",
    "set_prefetch_size", "get_prefetch_size", "set_multiprocessing_start_method",
    "get_multiprocessing_start_method", "ErrorSamplesMode", "set_error_samples_mode",
    "get_error_samples_mode", "set_callback_timeout", "get_callback_timeout",
    "set_enable_watchdog", "get_enable_watchdog", "set_multiprocessing_timeout_interval",
    "get_multiprocessing_timeout_interval", "set_video_backend", "get_video_backend",
    "set_debug_mode", "get_debug_mode", "debug_hooks",
]

# MindSpore's defaults: std::mt19937's default seed, up to 8 workers, 16 prefetched rows.
_DEFAULT_SEED = 5489
_seed = _DEFAULT_SEED
_seed_set = False
_num_parallel_workers = min(8, os.cpu_count() or 1)
_prefetch_size = 16
# MindSpore forks on Linux; elsewhere fork is unsafe (macOS) or missing (Windows).
_START_METHODS = ("fork", "spawn")
_start_method = "fork" if sys.platform.startswith("linux") else "spawn"


def _check_int(name: str, value, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{name}: expected an int, got {type(value).__name__} {value!r}")
    if not low <= value <= high:
        raise ValueError(f"{name}: expected a value in [{low}, {high}], got {value}")
    return value


def set_seed(seed: int) -> None:
    """Seed every random choice of later iterators: shuffles, samplers, random transforms."""
    global _seed, _seed_set
    _seed = _check_int("set_seed", seed, 0, 2**32 - 1)
    _seed_set = True


def get_seed() -> int:
    return _seed


def pipeline_seed() -> int:
    """The seed for one new iterator: the user's seed, or fresh entropy if none was set.

    MindSpore shuffles differently in every run until ``set_seed`` is called, although
    ``get_seed`` reports its default meanwhile.
    """
    if _seed_set:
        return _seed
    return int(np.random.SeedSequence().entropy % 2**32)


def set_num_parallel_workers(num: int) -> None:
    """Default worker count for ``map``, ``batch`` and sources that do not give one."""
    global _num_parallel_workers
    _num_parallel_workers = _check_int("set_num_parallel_workers", num, 1, 1024)


def get_num_parallel_workers() -> int:
    return _num_parallel_workers


def set_prefetch_size(size: int) -> None:
    """How many row chunks the background thread of an iterator reads ahead."""
    global _prefetch_size
    _prefetch_size = _check_int("set_prefetch_size", size, 1, 2**31 - 1)


def get_prefetch_size() -> int:
    return _prefetch_size


def set_multiprocessing_start_method(start_method: str = "fork") -> None:
    """How worker processes start (``"fork"`` or ``"spawn"``), for sources, map and batch.

    ``"spawn"`` starts a fresh interpreter per worker (slower to start, nothing inherited)
    and needs operations that pickle; ``"fork"`` copies the parent and runs anything.
    """
    global _start_method
    if not isinstance(start_method, str):
        raise TypeError(f"set_multiprocessing_start_method: expected a str, got "
                        f"{type(start_method).__name__} {start_method!r}")
    if start_method not in _START_METHODS:
        raise ValueError(f"set_multiprocessing_start_method: expected one of {_START_METHODS}, "
                         f"got {start_method!r}")
    _start_method = start_method


def get_multiprocessing_start_method() -> str:
    return _start_method


class ErrorSamplesMode(enum.IntEnum):
    """What ``map`` does with a row whose operations raise: RETURN raises the error,
    REPLACE repeats the last good row of that map in its place, SKIP drops the row."""

    RETURN = 0
    REPLACE = 1
    SKIP = 2


_error_samples_mode = ErrorSamplesMode.RETURN
_callback_timeout = 60
_enable_watchdog = True
_timeout_interval = 300
_video_backend = "CPU"
_debug_mode = False
_debug_hooks: list = []


def set_error_samples_mode(error_samples_mode: ErrorSamplesMode) -> None:
    """Choose how ``map`` treats a row its operations fail on (``ErrorSamplesMode``)."""
    global _error_samples_mode
    if not isinstance(error_samples_mode, ErrorSamplesMode):
        raise TypeError(f"set_error_samples_mode: expected an ErrorSamplesMode, got "
                        f"{type(error_samples_mode).__name__} {error_samples_mode!r}")
    _error_samples_mode = error_samples_mode


def get_error_samples_mode() -> ErrorSamplesMode:
    return _error_samples_mode


def set_callback_timeout(timeout: int) -> None:
    """Seconds a ``WaitedDSCallback`` waits for the training step or epoch to end."""
    global _callback_timeout
    _callback_timeout = _check_int("set_callback_timeout", timeout, 1, 2**32 - 1)


def get_callback_timeout() -> int:
    return _callback_timeout


def set_enable_watchdog(enable: bool) -> None:
    """Whether map/source worker processes exit by themselves once the main process is gone
    (killed before it could stop them); applies to pools created afterwards."""
    global _enable_watchdog
    if not isinstance(enable, bool):
        raise TypeError(f"set_enable_watchdog: expected a bool, got {enable!r}")
    _enable_watchdog = enable


def get_enable_watchdog() -> bool:
    return _enable_watchdog


def set_multiprocessing_timeout_interval(interval: int) -> None:
    """Seconds the main process waits on a worker process before each warning that it is slow."""
    global _timeout_interval
    _timeout_interval = _check_int("set_multiprocessing_timeout_interval", interval, 1,
                                   2**31 - 1)


def get_multiprocessing_timeout_interval() -> int:
    return _timeout_interval


def set_video_backend(backend: str) -> None:
    """The device that decodes video. Only ``"CPU"`` exists here; ``"Ascend"`` (MindSpore's
    DVPP decoder) is refused by name rather than accepted and ignored."""
    global _video_backend
    if not isinstance(backend, str):
        raise TypeError(f"set_video_backend: expected a str, got {type(backend).__name__} "
                        f"{backend!r}")
    if backend == "Ascend":
        raise ValueError("set_video_backend: the Ascend (DVPP) video decoder is not available "
                         "in microspore; only 'CPU' is")
    if backend != "CPU":
        raise ValueError(f"set_video_backend: expected one of ['CPU', 'Ascend'], got {backend!r}")
    _video_backend = backend


def get_video_backend() -> str:
    return _video_backend


def set_debug_mode(debug_mode_flag: bool, debug_hook_list: list | None = None) -> None:
    """Debug mode: every ``map`` runs on the iterating thread, one row at a time, and calls
    the ``debug_hook_list`` hooks (``ms_data.debug.DebugHook``; default: print the
    shape and dtype) before the first operation and after each one."""
    global _debug_mode, _debug_hooks
    if not isinstance(debug_mode_flag, bool):
        raise TypeError(f"set_debug_mode: debug_mode_flag must be a bool, got {debug_mode_flag!r}")
    from ms_data.debug import DebugHook, PrintMetaDataHook

    hooks = list(debug_hook_list) if debug_hook_list is not None else [PrintMetaDataHook()]
    if not all(isinstance(h, DebugHook) for h in hooks):
        raise TypeError("set_debug_mode: all items in debug_hook_list must be DebugHook objects")
    _debug_mode, _debug_hooks = debug_mode_flag, hooks if debug_mode_flag else []


def get_debug_mode() -> bool:
    return _debug_mode


def debug_hooks() -> list:
    """The hooks of debug mode (empty when it is off)."""
    return list(_debug_hooks)
