"""Whether a compiled data-parallel step overlaps its bucket reductions with the
backward pass (what MindSpore's ``grad_computation_allreduce_overlap`` asks of Ascend).

Off by default, as MindSpore's option is: on this project's only test machine (2 ranks
sharing 2 cores, where the communication is the ranks' own memory copies) it made a quiet
compiled step 1-3% slower (6-9% before result arrays were placed at their input's page
offset) and a loaded one about 10% faster (docs/benchmarks.md); it is meant for ranks
whose communication has resources of its own (another node, a NIC).
``set_compiled_overlap(True)`` makes each new ``DistributedGradReducer`` (and so each
``TrainOneStepCell`` built in DATA_PARALLEL mode) trace a bucket's reduction as
``AllReduceStart``/``AllReduceWait``, which ``overlap_pass`` schedules during the backward
pass; otherwise a reducer traces one blocking ``AllReduce`` per bucket after it. A
reducer's own ``overlap`` argument overrides the setting. PyNative steps overlap
regardless (``overlapping()``).

>>> set_compiled_overlap(True); compiled_overlap()
True
>>> set_compiled_overlap(False); compiled_overlap()
False
"""

from __future__ import annotations

__all__ = ["compiled_overlap", "set_compiled_overlap"]

_setting = {"on": False}


def compiled_overlap() -> bool:
    """The setting new reducers take."""
    return _setting["on"]


def set_compiled_overlap(on: bool) -> None:
    """Turn the compiled step's overlap on or off for reducers made from now on."""
    if not isinstance(on, bool):
        raise TypeError(f"set_compiled_overlap: expected a bool, got {on!r}")
    _setting["on"] = on
