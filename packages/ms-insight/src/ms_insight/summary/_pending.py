"""What the summary operators produced since the last ``SummaryRecord.record``.

MindSpore's summary operators put their values in a process-wide cache that the next
``record(step)`` writes out; so do ours (the last value of a tag wins). The kernels
only add to it while some ``SummaryRecord`` is open, so a network with summary
operators costs one check per operator when nobody records.
"""

from __future__ import annotations

import threading

import numpy as np

from ms_insight.summary.values import recordable

__all__ = ["put", "take", "opened", "closed", "recording"]

_lock = threading.Lock()
_open = 0  # SummaryRecords open in this process
_values: dict[tuple[str, str], np.ndarray] = {}  # (kind, tag) -> the latest value


def recording() -> bool:
    return _open > 0


def put(kind: str, tag: str, array) -> None:
    """Keep a copy of ``array`` (graph mode reuses its buffers) as the latest ``tag``;
    not while a graph capture runs code only to record it (the untaken branch of an
    ``if``), whose values are not the call's."""
    if _open:
        from ms_graph.control_flow_trace import discarded

        if discarded():
            return
        with _lock:
            _values[(kind, tag)] = np.array(recordable(array), copy=True)


def take() -> dict[tuple[str, str], np.ndarray]:
    """Everything put since the last ``take``, in the order first put."""
    global _values
    with _lock:
        values, _values = _values, {}
    return values


def opened() -> None:
    global _open
    with _lock:
        _open += 1


def closed() -> None:
    global _open
    with _lock:
        _open -= 1
        if not _open:
            _values.clear()
