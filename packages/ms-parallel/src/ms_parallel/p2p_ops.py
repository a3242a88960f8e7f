"""Collectives that move blocks between chosen ranks: AlltoAll, AlltoAllV (uneven
blocks), Send and Receive.

AlltoAll's gradient is the AlltoAll that moves the blocks back; AlltoAllV's is the
AlltoAllV with the send and receive counts swapped.

Send and Receive have MindSpore's gradient rules: Send's is a Receive from the rank it
sent to (the gradient of what it sent), Receive's is a Send of its cotangent back to the
rank it received from. So the gradient of the job's objective (the sum of every rank's
output) crosses ranks as the values did. Both are marked ``talks_back``: a tape records
them even when no watched tensor flows in (a Receive has no inputs at all) and runs
their rules in every backward pass, with a zero cotangent when none reached them, so
each rank's backward pass sends and receives exactly the messages its peer expects.
Every rank that sent or received under ``grad`` must therefore run its backward pass,
and in the same order of messages (the reverse of the forward one). Compiled, they are
graph nodes with effects, run in the order they were traced: ``jit(grad(f))`` captures
both passes in one graph, and ``grad(jit(f))`` keeps the rules' messages in the backward
graph (ms-graph's split), which exchanges them on every call. Capturing ``grad(jit(f))``
runs the function and its backward once with zero cotangents, so every rank must compile
the same function at the same call, as they do running one script.
"""

from __future__ import annotations

import numpy as np

from ms_ops import Arg, Attr, TensorSpec
from ms_ops.infer import check_dtype
from ms_ops.opdef import STATIC
from ms_parallel.collective_def import COMM_DTYPES, CollectiveDef, check_group
from ms_parallel.groups import WORLD
from ms_tensor import dtype as mstype

__all__ = ["AlltoAll", "AlltoAllV", "Send", "Receive"]


def _axis(name, value, ndim):
    if not isinstance(value, int) or isinstance(value, bool) or not -ndim <= value < ndim:
        raise ValueError(f"{name} must be an axis of the input's {ndim} dimensions, "
                         f"got {value!r}")
    return value % ndim


def _alltoall_infer(x, split_count, split_dim, concat_dim, group=WORLD):
    check_dtype("x", x, COMM_DTYPES)
    n = check_group(group).size
    if split_count != n:
        raise ValueError(f"split_count must equal the group's size {n}, got {split_count!r}")
    s = _axis("split_dim", split_dim, x.ndim)
    c = _axis("concat_dim", concat_dim, x.ndim)
    if x.shape[s] % n:
        raise ValueError(f"input 'x' of shape {x.shape} cannot be split into {n} blocks "
                         f"along split_dim {split_dim}")
    shape = list(x.shape)
    shape[s] //= n
    shape[c] *= n
    return TensorSpec(tuple(shape), x.dtype)


AlltoAll = CollectiveDef(
    "AlltoAll", (Arg("x"),),
    (Attr("split_count"), Attr("split_dim"), Attr("concat_dim"), Attr("group", WORLD)),
    infer=_alltoall_infer,
    doc="Split x into split_count blocks along split_dim, send block k to rank k, and join "
        "the blocks received along concat_dim, in rank order.")


@AlltoAll.kernel("CPU", dtypes=COMM_DTYPES)
def _alltoall_cpu(x, split_count, split_dim, concat_dim, group=WORLD, state=None):
    g = check_group(group)
    s, c = split_dim % x.ndim, concat_dim % x.ndim
    blocks = np.stack(np.split(x, split_count, axis=s))  # (n, *block): block k -> rank k
    got = g.alltoall(blocks)
    return np.concatenate(list(got), axis=c)


@AlltoAll.bprop
def _alltoall_bprop(x, out, dout, split_count, split_dim, concat_dim, group=WORLD):
    return (AlltoAll(dout, split_count, concat_dim, split_dim, group),)


@AlltoAll.samples
def _alltoall_samples(rng):
    yield (rng.standard_normal((2, 3)),), {"split_count": 1, "split_dim": 0, "concat_dim": 1}


def _counts(name, value, n):
    if not isinstance(value, (list, tuple)) or len(value) != n or \
            any(not isinstance(c, int) or isinstance(c, bool) or c < 0 for c in value):
        raise ValueError(f"{name} must be a list of {n} non-negative ints (one per rank of "
                         f"the group), got {value!r}")
    return list(value)


def _alltoallv_infer(x, send_numel_list, recv_numel_list, group=WORLD, block_size=1):
    check_dtype("x", x, COMM_DTYPES)
    n = check_group(group).size
    send = _counts("send_numel_list", send_numel_list, n)
    recv = _counts("recv_numel_list", recv_numel_list, n)
    if not isinstance(block_size, int) or isinstance(block_size, bool) or block_size < 1:
        raise ValueError(f"block_size must be a positive int, got {block_size!r}")
    if x.ndim != 1 or x.shape[0] != sum(send) * block_size:
        raise ValueError(f"input 'x' must be flat with sum(send_numel_list) * block_size = "
                         f"{sum(send) * block_size} elements, got shape {x.shape}")
    return TensorSpec((sum(recv) * block_size,), x.dtype)


AlltoAllV = CollectiveDef(
    "AlltoAllV", (Arg("x"), Arg("send_numel_list", STATIC), Arg("recv_numel_list", STATIC)),
    (Attr("group", WORLD), Attr("block_size", 1)), infer=_alltoallv_infer,
    doc="Uneven AlltoAll of a flat x: the next send_numel_list[k] * block_size elements go "
        "to rank k; the result joins the recv_numel_list[k] * block_size elements each rank "
        "k sent here, in rank order.")


@AlltoAllV.kernel("CPU", dtypes=COMM_DTYPES)
def _alltoallv_cpu(x, send_numel_list, recv_numel_list, group=WORLD, block_size=1,
                   state=None):
    return check_group(group).alltoallv(x, [c * block_size for c in send_numel_list],
                                        [c * block_size for c in recv_numel_list])


@AlltoAllV.bprop
def _alltoallv_bprop(x, send_numel_list, recv_numel_list, out, dout, group=WORLD,
                     block_size=1):
    return (AlltoAllV(dout, recv_numel_list, send_numel_list, group, block_size), None, None)


@AlltoAllV.samples
def _alltoallv_samples(rng):
    yield (rng.standard_normal((6,)), [3], [3]), {"block_size": 2}


def _check_rank(name, value, group):
    n = check_group(group).size
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < n:
        raise ValueError(f"{name} must be a rank of group {group!r}, in [0, {n}), "
                         f"got {value!r}")


def _check_tag(tag):
    if not isinstance(tag, int) or isinstance(tag, bool) or tag < 0:
        raise ValueError(f"sr_tag must be a non-negative int, got {tag!r}")


def _send_infer(x, sr_tag, dest_rank, group=WORLD, group_back=WORLD):
    check_dtype("x", x, COMM_DTYPES)
    _check_tag(sr_tag)
    _check_rank("dest_rank", dest_rank, group)
    return TensorSpec((), x.dtype)


Send = CollectiveDef(
    "Send", (Arg("x"),),
    (Attr("sr_tag"), Attr("dest_rank"), Attr("group", WORLD), Attr("group_back", WORLD)),
    infer=_send_infer,
    doc="Send x to dest_rank (its Receive with the same sr_tag gets it); returns a zero "
        "scalar that keeps the send in a compiled graph.")
Send.talks_back = True


@Send.kernel("CPU", dtypes=COMM_DTYPES)
def _send_cpu(x, sr_tag, dest_rank, group=WORLD, group_back=WORLD, state=None):
    check_group(group).send(x, dest_rank, sr_tag)
    return np.zeros((), x.dtype)


@Send.bprop
def _send_bprop(x, out, dout, sr_tag, dest_rank, group=WORLD, group_back=WORLD):
    return (Receive(sr_tag, dest_rank, list(x.shape), x.dtype, group_back, group_back),)


#: the registry suites call Send's samples with no Receive after them (and Receive's
#: samples send first): their messages go under a tag of their own, so they never reach a
#: Receive of another test
_SAMPLE_TAG = 32000


@Send.samples
def _send_samples(rng):
    yield (rng.standard_normal((2,)),), {"sr_tag": _SAMPLE_TAG, "dest_rank": 0}


def _recv_infer(sr_tag, src_rank, shape, dtype, group=WORLD, group_back=WORLD):
    _check_tag(sr_tag)
    _check_rank("src_rank", src_rank, group)
    if not isinstance(shape, (list, tuple)) or \
            any(not isinstance(d, int) or d < 0 for d in shape):
        raise ValueError(f"shape must be a list of non-negative ints, got {shape!r}")
    if not isinstance(dtype, mstype.DType) or dtype not in COMM_DTYPES:
        raise TypeError(f"dtype must be a number dtype (mstype.float32, ...), got {dtype!r}")
    return TensorSpec(tuple(shape), dtype)


Receive = CollectiveDef(
    "Receive", (),
    (Attr("sr_tag"), Attr("src_rank"), Attr("shape"), Attr("dtype"), Attr("group", WORLD),
     Attr("group_back", WORLD)),
    infer=_recv_infer,
    doc="The tensor src_rank sends with the same sr_tag (of the given shape and dtype).")
Receive.talks_back = True


@Receive.kernel("CPU")
def _recv_cpu(sr_tag, src_rank, shape, dtype, group=WORLD, group_back=WORLD, state=None):
    return check_group(group).recv(tuple(shape), dtype.np, src_rank, sr_tag)


@Receive.bprop
def _recv_bprop(out, dout, sr_tag, src_rank, shape, dtype, group=WORLD, group_back=WORLD):
    Send(dout, sr_tag, src_rank, group_back, group_back)
    return ()


@Receive.samples
def _recv_samples(rng):
    # Something to receive: in a one-process world rank 0 sends to itself (under the
    # samples' own tag, so a suite that stops before receiving leaves nothing for others).
    Send(rng.standard_normal((2,)), _SAMPLE_TAG, 0)
    yield (), {"sr_tag": _SAMPLE_TAG, "src_rank": 0, "shape": [2], "dtype": mstype.float64}
