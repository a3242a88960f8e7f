"""Collectives with a root rank: Reduce, CollectiveGather, CollectiveScatter (and
Barrier, which has none), as MindSpore 2.10 defines them.

Only the root receives the result of Reduce and CollectiveGather; the other ranks get a
placeholder of shape (1,), as in MindSpore. The gradients are those of the job's
objective: Reduce's is the root's cotangent broadcast to every rank (times the rank's
share for max/min/prod, as AllReduce's), CollectiveGather's scatters the root's
cotangent back, CollectiveScatter's gathers the blocks' cotangents on the root.
``Reduce``'s ``dest_rank`` is a rank of the group; CollectiveGather's ``dest_rank`` and
CollectiveScatter's ``src_rank`` are world ranks (MindSpore documents them so).
"""

from __future__ import annotations

import numpy as np

from ms_ops import Arg, Attr, TensorSpec
from ms_ops import functional as F
from ms_ops.infer import check_dtype
from ms_parallel.collective_def import COMM_DTYPES, CollectiveDef, check_group, check_reduce_op
from ms_parallel.groups import WORLD
from ms_parallel.reduce_ops import Broadcast
from ms_tensor import dtype as mstype

__all__ = ["Reduce", "CollectiveGather", "CollectiveScatter", "Barrier"]


def _rank_in(name, value, ranks):
    if not isinstance(value, int) or isinstance(value, bool) or value not in ranks:
        raise ValueError(f"{name} must be one of the group's ranks {list(ranks)}, "
                         f"got {value!r}")
    return ranks.index(value)


def _reduce_infer(x, dest_rank, op="sum", group=WORLD):
    check_dtype("x", x, COMM_DTYPES)
    check_reduce_op(op)
    g = check_group(group)
    _rank_in("dest_rank", dest_rank, list(range(g.size)))
    return TensorSpec(x.shape if g.rank == dest_rank else (1,), x.dtype)


Reduce = CollectiveDef(
    "Reduce", (Arg("x"),), (Attr("dest_rank"), Attr("op", "sum"), Attr("group", WORLD)),
    infer=_reduce_infer,
    doc="dest_rank gets the elementwise reduction (sum, max, min or prod) of all ranks' x; "
        "the other ranks a placeholder of shape (1,).")


@Reduce.kernel("CPU", dtypes=COMM_DTYPES)
def _reduce_cpu(x, dest_rank, op="sum", group=WORLD, state=None):
    return check_group(group).reduce(x, op, dest_rank)


def _on_root(value, root, like, group):
    """``value`` on the root, zeros shaped like ``like`` elsewhere, broadcast from the root."""
    mine = value if check_group(group).rank == root else F.zeros_like(like)
    return Broadcast(mine, root, group)


@Reduce.bprop
def _reduce_bprop(x, out, dout, dest_rank, op="sum", group=WORLD):
    total = _on_root(dout, dest_rank, x, group)
    if op == "sum":
        return (total,)
    full = _on_root(out, dest_rank, x, group)
    if op == "prod":
        return (F.div(F.mul(total, full), x),)
    return (F.mul(total, F.cast(F.equal(x, full), x.dtype)),)


@Reduce.samples
def _reduce_samples(rng):
    for op in ("sum", "max", "prod"):
        yield (rng.standard_normal((2, 3)),), {"dest_rank": 0, "op": op}


def _gather_infer(x, dest_rank, group=WORLD):
    check_dtype("x", x, COMM_DTYPES)
    g = check_group(group)
    if x.ndim < 1:
        raise ValueError("input 'x' must have at least one dimension (joined along axis 0), "
                         "got a scalar")
    root = _rank_in("dest_rank", dest_rank, list(g.world_ranks))
    if g.rank != root:
        return TensorSpec((1,), x.dtype)
    return TensorSpec((x.shape[0] * g.size,) + tuple(x.shape[1:]), x.dtype)


CollectiveGather = CollectiveDef(
    "CollectiveGather", (Arg("x"),), (Attr("dest_rank"), Attr("group", WORLD)),
    infer=_gather_infer,
    doc="dest_rank (a world rank) gets every rank's x (all of one shape) joined along axis "
        "0, in rank order; the other ranks a placeholder of shape (1,).")


@CollectiveGather.kernel("CPU", dtypes=COMM_DTYPES)
def _gather_cpu(x, dest_rank, group=WORLD, state=None):
    g = check_group(group)
    return g.gather(x, g.world_ranks.index(dest_rank))


@CollectiveGather.bprop
def _gather_bprop(x, out, dout, dest_rank, group=WORLD):
    g = check_group(group)
    if g.rank != g.world_ranks.index(dest_rank):
        dout = F.zeros((x.shape[0] * g.size,) + tuple(x.shape[1:]), x.dtype)
    return (CollectiveScatter(dout, dest_rank, group),)


@CollectiveGather.samples
def _gather_samples(rng):
    yield (rng.standard_normal((2, 3)),), {"dest_rank": 0}


def _scatter_infer(x, src_rank=0, group=WORLD):
    check_dtype("x", x, COMM_DTYPES)
    g = check_group(group)
    _rank_in("src_rank", src_rank, list(g.world_ranks))
    if x.ndim < 1 or x.shape[0] % g.size:
        raise ValueError(f"input 'x' must have a first dimension divisible by the group's "
                         f"{g.size} ranks, got shape {x.shape}")
    return TensorSpec((x.shape[0] // g.size,) + tuple(x.shape[1:]), x.dtype)


CollectiveScatter = CollectiveDef(
    "CollectiveScatter", (Arg("x"),), (Attr("src_rank", 0), Attr("group", WORLD)),
    infer=_scatter_infer,
    doc="Rank k gets block k (of axis 0) of src_rank's x (a world rank); every rank passes "
        "an x of the same shape, and only src_rank's values are read.")


@CollectiveScatter.kernel("CPU", dtypes=COMM_DTYPES)
def _scatter_cpu(x, src_rank=0, group=WORLD, state=None):
    g = check_group(group)
    return g.scatter(x, g.world_ranks.index(src_rank))


@CollectiveScatter.bprop
def _scatter_bprop(x, out, dout, src_rank=0, group=WORLD):
    g = check_group(group)
    got = CollectiveGather(dout, src_rank, group)
    return (got if g.rank == g.world_ranks.index(src_rank) else F.zeros_like(x),)


@CollectiveScatter.samples
def _scatter_samples(rng):
    yield (rng.standard_normal((2, 3)),), {"src_rank": 0}


def _barrier_infer(group=WORLD):
    check_group(group)
    return TensorSpec((1,), mstype.float32)


Barrier = CollectiveDef(
    "Barrier", (), (Attr("group", WORLD),), infer=_barrier_infer, differentiable=False,
    doc="Wait until every rank of the group has called it; returns a float32 placeholder "
        "of shape (1,), as MindSpore's does.")


@Barrier.kernel("CPU")
def _barrier_cpu(group=WORLD, state=None):
    check_group(group).barrier()
    return np.zeros(1, np.float32)


@Barrier.samples
def _barrier_samples(rng):
    yield (), {}
