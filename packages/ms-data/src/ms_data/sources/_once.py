"""A value computed once on first use, shared by threads, and not pickled."""

from __future__ import annotations

import threading


class Once:
    """Holds what ``get(make)`` computed first; later calls return it.

    Sources keep their decoded files in one, so that making a dataset stays cheap and a source
    sent to a worker process carries only its paths (the worker reads the files again).
    """

    def __init__(self):
        self._value = None
        self._lock = threading.Lock()

    def get(self, make):
        with self._lock:
            if self._value is None:
                self._value = make()
            return self._value

    def __getstate__(self):
        return {}

    def __setstate__(self, state):
        self.__init__()
