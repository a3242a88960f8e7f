"""Per-thread recording of eager operators, on ms-ops' one dispatch hook.

ms-ops' dispatch calls a single process-wide recorder after every eager operator. Tapes
(ms-autodiff) and tracers (ms-graph) belong to the thread that opened them, so they
install their recorders here: ``set_recorder`` sets the calling thread's recorder, and
while any thread has one, dispatch's hook is ``_route``, which hands each operator to the
recorder of the thread that ran it. Two threads differentiating at once then each see
their own operators only. With no recorder anywhere the hook is None and eager code pays
nothing for this.

Code that records must use this module, never ``ms_ops.set_recorder`` directly (that
would replace ``_route`` for every thread; ``tests/test_threads.py`` checks the tree).
"""

from __future__ import annotations

import threading

from ms_ops import dispatch

__all__ = ["set_recorder", "get_recorder", "thread_state"]

_local = threading.local()
_lock = threading.Lock()
_threads = [0]  # how many threads have a recorder


def get_recorder():
    """The calling thread's recorder, or None."""
    return getattr(_local, "recorder", None)


def set_recorder(recorder) -> object:
    """Install ``recorder(op, inputs, attrs, outputs)`` for the calling thread (None:
    stop recording in it); returns the thread's previous recorder."""
    previous = getattr(_local, "recorder", None)
    _local.recorder = recorder
    if (previous is None) != (recorder is None):
        with _lock:
            _threads[0] += 1 if recorder is not None else -1
            dispatch.set_recorder(_route if _threads[0] else None)
    return previous


def _route(op, values, attrs, out) -> None:
    recorder = getattr(_local, "recorder", None)
    if recorder is not None:
        recorder(op, values, attrs, out)


def thread_state(factory):
    """A function returning the calling thread's own value of ``factory()`` (made on
    its first use in each thread): the stacks of active tapes, traces and captures."""
    local = threading.local()

    def get():
        try:
            return local.value
        except AttributeError:
            local.value = factory()
            return local.value

    return get
