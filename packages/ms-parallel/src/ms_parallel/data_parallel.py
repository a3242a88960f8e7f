"""What ms-nn's ``TrainOneStepCell`` gets in a data-parallel run, through the registry
entry ``("train_hook", "grad_reducer")`` (ms-nn never imports ms-parallel).

In ``DATA_PARALLEL`` (or ``HYBRID_PARALLEL``) mode, ``grad_reducer_for(weights)``
broadcasts the weights from rank 0, so every rank starts equal, and returns a
``DistributedGradReducer`` with the context's ``gradients_mean``; otherwise None (the
gradients stay local).
"""

from __future__ import annotations

from ms_parallel.context import ParallelMode, get_auto_parallel_context
from ms_parallel.groups import WORLD

__all__ = ["grad_reducer_for", "broadcast_parameters"]

_REDUCED = (ParallelMode.DATA_PARALLEL, ParallelMode.HYBRID_PARALLEL)


def grad_reducer_for(weights):
    """The gradient reducer for a training step over ``weights``, or None."""
    if get_auto_parallel_context("parallel_mode") not in _REDUCED:
        return None
    from ms_parallel.grad_reducer import DistributedGradReducer

    weights = list(weights)
    broadcast_parameters(weights)
    return DistributedGradReducer(weights, get_auto_parallel_context("gradients_mean"))


def broadcast_parameters(params, root: int = 0, group: str = WORLD) -> None:
    """Overwrite every Parameter with ``root``'s value (MindSpore's parameter_broadcast)."""
    from ms_parallel.groups import group as find_group

    g = find_group(group)
    if g.size == 1:
        return
    for p in params:
        p.set_data(g.broadcast(p.asnumpy(), root))
