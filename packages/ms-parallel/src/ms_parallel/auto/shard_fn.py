"""``mindspore.shard(fn, in_strategy, out_strategy=None, parameter_plan=None)``: the
functional form of ``Cell.shard``.

A Cell is annotated in place and returned (its strategies reach the planner when it is the
network a sharded step or ``capture`` plans). A plain function becomes a Cell calling it,
so annotated (it holds no Parameters). In a world of one rank the function comes back as it
is, as MindSpore's does.
"""

from __future__ import annotations

__all__ = ["shard"]


def shard(fn, in_strategy, out_strategy=None, parameter_plan=None, device="Ascend", level=0):
    """``fn`` with its inputs' (and Parameters') strategies recorded; see the module doc."""
    from ms_nn import Cell

    if isinstance(fn, Cell):
        return fn.shard(in_strategy, out_strategy, parameter_plan)
    if not callable(fn):
        raise TypeError(f"shard: fn must be a Cell or a function, got {type(fn).__name__}")
    if parameter_plan:
        raise ValueError("shard: parameter_plan needs a Cell (a function holds no "
                         "Parameters)")
    from ms_parallel.management import get_group_size

    if get_group_size() == 1:
        return fn

    class Sharded(Cell):
        def construct(self, *args):
            return fn(*args)

    cell = Sharded()
    cell.__dict__["__wrapped__"] = fn
    return cell.shard(in_strategy, out_strategy)
