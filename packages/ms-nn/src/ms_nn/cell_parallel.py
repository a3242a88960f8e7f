"""The parallel annotation of a Cell: ``shard``.

It only records the user's intent on the Cell, as MindSpore's does; ms-parallel (a higher
package) reads it when it plans or partitions a run. A single-device run ignores it.
"""

from __future__ import annotations

__all__ = ["shard"]


def shard(self, in_strategy, out_strategy=None, parameter_plan=None, device="CPU", level=0):
    """Strategies of this Cell's inputs (one tuple, or ``ms.Layout`` call, per input) and of
    named Parameters (``parameter_plan={"dense.weight": (4, 1)}``); the planner propagates
    them to the operators inside (MindSpore's ``Cell.shard``). Returns the Cell."""
    if not isinstance(in_strategy, (tuple, list)):
        raise TypeError(f"{type(self).__name__}.shard: in_strategy must be a tuple with one "
                        f"entry per input, got {in_strategy!r}")
    if parameter_plan is not None and not isinstance(parameter_plan, dict):
        raise TypeError(f"{type(self).__name__}.shard: parameter_plan must be a dict of "
                        f"parameter name -> strategy, got {parameter_plan!r}")
    self.__dict__["_shard_plan"] = (tuple(in_strategy),
                                    None if out_strategy is None else tuple(out_strategy),
                                    dict(parameter_plan or {}))
    return self

