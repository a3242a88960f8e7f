"""Collectives that combine every rank's tensor: AllReduce, AllGather, ReduceScatter,
Broadcast, each with its inference, MPI kernel, gradient rule (written with operators, so
it runs eagerly, traces into graphs and differentiates again) and samples.

Gradients are those of the job's total objective, the sum of every rank's loss: the
gradient reaching a rank's input gathers what every rank's output received.
"""

from __future__ import annotations

import numpy as np

from ms_ops import Arg, Attr, TensorSpec
from ms_ops import functional as F
from ms_ops.infer import check_dtype
from ms_parallel.collective_def import (
    COMM_DTYPES,
    CollectiveDef,
    check_group,
    check_reduce_op,
)
from ms_parallel.groups import WORLD
from ms_tensor import dtype as mstype

__all__ = ["AllReduce", "AllGather", "ReduceScatter", "Broadcast", "ReduceOp"]


class ReduceOp:
    """How a reduction combines the ranks' values (MindSpore's ``ops.ReduceOp``)."""

    SUM = "sum"
    MAX = "max"
    MIN = "min"
    PROD = "prod"


def _allreduce_infer(x, op="sum", group=WORLD):
    check_dtype("x", x, COMM_DTYPES)
    check_reduce_op(op)
    check_group(group)
    return TensorSpec(x.shape, x.dtype)


AllReduce = CollectiveDef(
    "AllReduce", (Arg("x"),), (Attr("op", "sum"), Attr("group", WORLD)),
    infer=_allreduce_infer,
    doc="Every rank gets the elementwise reduction (sum, max, min or prod) of all ranks' x.")


@AllReduce.kernel("CPU", dtypes=COMM_DTYPES, out=True)
def _allreduce_cpu(x, op="sum", group=WORLD, state=None, out=None):
    return check_group(group).allreduce(x, op, out)


# The dtypes MPI reduces as they are (16-bit floats travel widened: the generic path).
_FAST = frozenset(np.dtype(c) for c in "bhilqBHILQfd"
                  if mstype.from_numpy(np.dtype(c)) in COMM_DTYPES)


def _chosen(x, out):
    """1 where this rank's value is the reduction's result (max/min), else 0."""
    return F.cast(F.equal(x, out), x.dtype)


@AllReduce.bprop
def _allreduce_bprop(x, out, dout, op="sum", group=WORLD):
    total = AllReduce(dout, "sum", group)
    if op == "sum":
        return (total,)
    if op == "prod":
        return (F.div(F.mul(total, out), x),)
    return (F.mul(total, _chosen(x, out)),)


@AllReduce.samples
def _allreduce_samples(rng):
    for op in ("sum", "max", "min", "prod"):
        yield (rng.standard_normal((2, 3)),), {"op": op}
    yield (rng.standard_normal((4,)).astype(np.float32),), {}


def _allgather_infer(x, group=WORLD):
    check_dtype("x", x, COMM_DTYPES)
    if x.ndim < 1:
        raise ValueError("input 'x' must have at least one dimension (ranks' tensors are "
                         "joined along axis 0), got a scalar")
    n = check_group(group).size
    return TensorSpec((x.shape[0] * n,) + x.shape[1:], x.dtype)


AllGather = CollectiveDef(
    "AllGather", (Arg("x"),), (Attr("group", WORLD),), infer=_allgather_infer,
    doc="Every rank gets all ranks' x joined along axis 0, in rank order.")


@AllGather.kernel("CPU", dtypes=COMM_DTYPES)
def _allgather_cpu(x, group=WORLD, state=None):
    return check_group(group).allgather(x)


@AllGather.bprop
def _allgather_bprop(x, out, dout, group=WORLD):
    return (ReduceScatter(dout, "sum", group),)


@AllGather.samples
def _allgather_samples(rng):
    yield (rng.standard_normal((2, 3)),), {}


def _reduce_scatter_infer(x, op="sum", group=WORLD):
    check_dtype("x", x, COMM_DTYPES)
    check_reduce_op(op)
    n = check_group(group).size
    if x.ndim < 1 or x.shape[0] % n:
        raise ValueError(f"input 'x' must have a first dimension divisible by the group's "
                         f"{n} ranks, got shape {x.shape}")
    return TensorSpec((x.shape[0] // n,) + x.shape[1:], x.dtype)


ReduceScatter = CollectiveDef(
    "ReduceScatter", (Arg("x"),), (Attr("op", "sum"), Attr("group", WORLD)),
    infer=_reduce_scatter_infer,
    doc="Reduce all ranks' x elementwise, then rank k keeps block k of axis 0.")


@ReduceScatter.kernel("CPU", dtypes=COMM_DTYPES)
def _reduce_scatter_cpu(x, op="sum", group=WORLD, state=None):
    return check_group(group).reduce_scatter(x, op)


@ReduceScatter.bprop
def _reduce_scatter_bprop(x, out, dout, op="sum", group=WORLD):
    total = AllGather(dout, group)
    if op == "sum":
        return (total,)
    full = AllGather(out, group)
    if op == "prod":
        return (F.div(F.mul(total, full), x),)
    return (F.mul(total, _chosen(x, full)),)


@ReduceScatter.samples
def _reduce_scatter_samples(rng):
    for op in ("sum", "max", "prod"):
        yield (rng.standard_normal((4, 2)),), {"op": op}


def _broadcast_infer(x, root_rank=0, group=WORLD):
    check_dtype("x", x, COMM_DTYPES)
    n = check_group(group).size
    if not isinstance(root_rank, int) or isinstance(root_rank, bool) or \
            not 0 <= root_rank < n:
        raise ValueError(f"root_rank must be a rank of the group, in [0, {n}), "
                         f"got {root_rank!r}")
    return TensorSpec(x.shape, x.dtype)


Broadcast = CollectiveDef(
    "Broadcast", (Arg("x"),), (Attr("root_rank", 0), Attr("group", WORLD)),
    infer=_broadcast_infer,
    doc="Every rank gets root_rank's x.")


@Broadcast.kernel("CPU", dtypes=COMM_DTYPES)
def _broadcast_cpu(x, root_rank=0, group=WORLD, state=None):
    return check_group(group).broadcast(x, root_rank)


@Broadcast.bprop
def _broadcast_bprop(x, out, dout, root_rank=0, group=WORLD):
    total = AllReduce(dout, "sum", group)
    if check_group(group).rank == root_rank:
        return (total,)
    return (F.zeros_like(total),)


@Broadcast.samples
def _broadcast_samples(rng):
    yield (rng.standard_normal((3, 2)),), {}


# The eager paths of these four (a plan per attributes, kept in groups.runners).
import ms_parallel.eager  # noqa: E402, F401
