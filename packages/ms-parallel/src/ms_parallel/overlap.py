"""Whether a compiled data-parallel step overlaps its bucket reductions with the
backward pass (what MindSpore's ``grad_computation_allreduce_overlap`` asks of Ascend).

On by default: each new ``DistributedGradReducer`` (and so each ``TrainOneStepCell``
built in DATA_PARALLEL mode) traces a bucket's reduction as ``AllReduceStart``/
``AllReduceWait``, which ``overlap_pass`` schedules. ``set_compiled_overlap(False)``
makes reducers built from then on trace one blocking ``AllReduce`` per bucket after the
backward pass instead (measured in docs/benchmarks.md); a reducer's own ``overlap``
argument overrides the setting. PyNative steps overlap regardless (``overlapping()``).

>>> set_compiled_overlap(False); compiled_overlap()
False
>>> set_compiled_overlap(True); compiled_overlap()
True
"""

from __future__ import annotations

__all__ = ["compiled_overlap", "set_compiled_overlap"]

_setting = {"on": True}


def compiled_overlap() -> bool:
    """The setting new reducers take."""
    return _setting["on"]


def set_compiled_overlap(on: bool) -> None:
    """Turn the compiled step's overlap on or off for reducers made from now on."""
    if not isinstance(on, bool):
        raise TypeError(f"set_compiled_overlap: expected a bool, got {on!r}")
    _setting["on"] = on
