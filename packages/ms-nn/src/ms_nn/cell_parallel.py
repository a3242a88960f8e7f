"""The parallel annotations of a Cell: ``shard`` and ``recompute``.

They record the user's intent on the Cell, as MindSpore's do; ms-parallel (a higher
package) reads them when it plans, partitions or pipelines a run. A single-device run
ignores ``shard``; ``recompute`` takes effect wherever the Cell is differentiated.
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


def recompute(self, *, use_reentrant=True, output_recompute=False, early_stop=True,
              context_fn=None, **kwargs):
    """Keep only this Cell's inputs for the backward pass and run it again there, instead
    of keeping its activations (MindSpore's ``Cell.recompute``): in PyNative, GRAPH_MODE,
    ``jit``, sharded and pipelined runs alike (``ms_nn.cell_recompute``). Returns the Cell.

    ``context_fn`` (with ``use_reentrant=False``, as MindSpore requires) returns the two
    context managers entered around the first run and around the rerun."""
    from ms_nn.cell_recompute import options

    self.__dict__["_recompute"] = options(self, use_reentrant, output_recompute, early_stop,
                                          context_fn, kwargs)
    return self
