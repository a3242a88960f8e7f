"""The parallel annotations of a Cell: ``shard`` and ``recompute``.

They only record the user's intent on the Cell, as MindSpore's do; ms-parallel (a higher
package) reads them when it plans, partitions or pipelines a run. A single-device run
ignores them.
"""

from __future__ import annotations

__all__ = ["shard", "recompute"]


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


def recompute(self, **kwargs):
    """Keep only this Cell's input for the backward pass and run it again there, instead of
    keeping its activations (MindSpore's ``Cell.recompute``; ms-parallel's pipeline stages
    honour it). Returns the Cell."""
    self.__dict__["_recompute"] = True
    return self
