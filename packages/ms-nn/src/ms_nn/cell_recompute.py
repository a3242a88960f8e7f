"""``Cell.recompute()``: a marked Cell keeps its inputs, not its activations, for backward.

Whenever a tape records (``grad``, ``value_and_grad``, ``TrainOneStepCell``, ``Model.train``,
in PyNative or while ms-graph captures a GRAPH_MODE or ``jit`` step), a marked Cell runs as
one ``ms_autodiff.recompute`` call: its operators are not recorded, and its gradient rule
runs the Cell again and differentiates that rerun. ms-graph puts the rerun's nodes in the
backward graph, so a compiled step recomputes the region too (docs/recompute.md). Without
a recording tape (evaluation, inference) the Cell runs as written.

MindSpore's keyword arguments are checked here, when the Cell is marked: those whose
behaviour microspore has are accepted, the others refused by name with the reason.
``recompute(block, *args)`` is MindSpore's functional form (``ms.recompute``) for one call.
"""

from __future__ import annotations

__all__ = ["options", "call", "recompute"]

_KWARGS = ("mp_comm_recompute", "parallel_optimizer_comm_recompute",
           "recompute_slice_activation")


def options(cell, use_reentrant, output_recompute, early_stop, context_fn, kwargs) -> dict:
    """The checked arguments of ``cell.recompute(...)`` (see ``Cell.recompute``)."""
    who = f"{type(cell).__name__}.recompute"
    for key in kwargs:
        if key not in _KWARGS:
            raise ValueError(f"For 'recompute', keyword {key!r} is not recognized; {who} "
                             f"takes {', '.join(map(repr, _KWARGS))}")
    flags = dict(use_reentrant=use_reentrant, output_recompute=output_recompute,
                 early_stop=early_stop, **kwargs)
    for key, value in flags.items():
        if not isinstance(value, bool):
            raise TypeError(f"{who}: {key} must be a bool, got {value!r}")
    if output_recompute:
        raise ValueError(f"{who}: output_recompute=True (merging adjacent recomputed cells "
                         "so the first one's output is not kept either) is not supported; "
                         "the cell's output is kept, as with output_recompute=False")
    if context_fn is not None and use_reentrant:
        raise ValueError(f"{who}: context_fn is only supported when use_reentrant=False")
    if context_fn is not None and not callable(context_fn):
        raise TypeError(f"{who}: context_fn must be callable, got {context_fn!r}")
    if not kwargs.get("mp_comm_recompute", True):
        raise ValueError(f"{who}: mp_comm_recompute=False (keep the outputs of the cell's "
                         "model-parallel communication) is not supported; the rerun repeats "
                         "the cell's collectives with its operators")
    if kwargs.get("recompute_slice_activation", False):
        raise ValueError(f"{who}: recompute_slice_activation=True (keep the cell's output "
                         "sliced across model-parallel ranks) is not supported; each rank "
                         "keeps its whole output")
    # parallel_optimizer_comm_recompute: MindSpore itself only logs for it; the AllGather of
    # a Parameter kept in parts is part of the rerun either way.
    return dict(flags, context_fn=context_fn)


def call(cell, run, args, kwargs):
    """``run(args, kwargs, False)`` (the Cell's construct) as one recomputed call."""
    from ms_autodiff.recompute import recompute

    params = list(cell.get_parameters())
    return recompute(lambda *a, **k: run(a, k, False), *args,
                     weights=[p for p in params if p.requires_grad],
                     restore=[p for p in params if not p.requires_grad],
                     name=type(cell).__name__,
                     context_fn=cell.__dict__["_recompute"]["context_fn"], **kwargs)


def recompute(block, *args, use_reentrant=True, output_recompute=False, early_stop=True,
              context_fn=None, **kwargs):
    """``block(*args, **kwargs)`` with its activations recomputed in the backward pass
    (MindSpore's ``mindspore.recompute``): as a Cell marked with ``recompute()``, for this
    call only.

    >>> import numpy as np
    >>> from ms_autodiff import grad
    >>> from ms_nn import Dense
    >>> from ms_tensor import Tensor
    >>> dense = Dense(2, 2, weight_init="ones", bias_init="zeros")
    >>> grad(lambda x: recompute(dense, x).sum())(Tensor(np.ones((1, 2), np.float32)))
    Tensor(shape=[1, 2], dtype=Float32, value=
    [[ 2.00000000e+00,  2.00000000e+00]])
    """
    from ms_autodiff.recompute import recompute as run
    from ms_nn.cell import Cell

    if not isinstance(block, Cell):
        raise TypeError(f"recompute: block must be a Cell, got {type(block).__name__}")
    options(block, use_reentrant, output_recompute, early_stop, context_fn, {})
    params = list(block.get_parameters())
    return run(block, *args, weights=[p for p in params if p.requires_grad],
               restore=[p for p in params if not p.requires_grad],
               name=type(block).__name__, context_fn=context_fn, **kwargs)
