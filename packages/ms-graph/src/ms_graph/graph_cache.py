"""The graphs one compiled function keeps, by signature: bounded, shared by threads.

A signature includes the Python values of non-Tensor arguments (as MindSpore, which
treats every top-level input but a Tensor as a constant of the graph), so a function
called with a changing Python float compiles once per value. The cache keeps the
``MAX_GRAPHS`` most recently used graphs and drops the least recently used one beyond
that, so memory stays bounded; pass the number as a Tensor to get one graph for all.

The first time a function needs more, a ``RuntimeWarning`` says so: compiling on every
call is slow, and the usual cause is a changing Python number.

``lock`` serializes captures: the first call of a signature captures while other
threads calling with it wait, then run the graph it made.
"""

from __future__ import annotations

import threading
import warnings
from collections import OrderedDict

__all__ = ["GraphCache", "MAX_GRAPHS"]

MAX_GRAPHS = 64


class GraphCache:
    """Signature -> compiled entry, least recently used dropped past ``size``.

    Attributes:
        size: the most entries kept.
        evictions: how many entries were dropped for room.
        lock: held while a signature is captured (re-entrant: a capture may call the
            function again, which then becomes part of the graph).
    """

    def __init__(self, size: int = MAX_GRAPHS, name: str = "function"):
        self.size = size
        self.name = name
        self.evictions = 0
        self.lock = threading.RLock()
        self._entries: OrderedDict = OrderedDict()

    def get(self, key):
        entry = self._entries.get(key)
        if entry is not None:
            try:
                self._entries.move_to_end(key)
            except KeyError:  # dropped by another thread meanwhile; still usable here
                pass
        return entry

    def put(self, key, entry) -> None:
        with self.lock:
            self._entries[key] = entry
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)
                self.evictions += 1
                if self.evictions == 1:
                    warnings.warn(
                        f"jit: {self.name} needed more than {self.size} graphs, one per "
                        "signature; a Python number argument or Cell attribute that changes "
                        "on every call compiles on every call. Pass it as a Tensor (or keep "
                        "it in a Parameter) to use one graph", RuntimeWarning, stacklevel=4)

    def values(self) -> list:
        return list(self._entries.values())

    def __len__(self) -> int:
        return len(self._entries)
