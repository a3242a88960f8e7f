"""The rest of ``mindspore.ops.communication``'s torch-style functions: list collectives
(``all_gather``, ``reduce_scatter``, ``all_to_all``), rooted ones (``reduce``,
``gather_into_tensor``, ``scatter_tensor``), uneven ones (``all_gather_into_tensor_uneven``,
``reduce_scatter_tensor_uneven``, ``all_to_all_v_c``) and batched point-to-point
(``P2POp``, ``batch_isend_irecv``), as MindSpore 2.10 spells them.

Each runs the registered operators (AllGather, Reduce, AllGatherV ...), so it is
differentiated and traced like them, and writes its result into the output tensors given
(MindSpore's in-place mode; after ``set_comm_ops_inplace(False, [name])`` they raise as
MindSpore's do, except ``all_to_all``, which then returns ``(outputs, handle)``). The call
is complete when it returns: an ``async_op=True`` handle is already done. ``src``/``dst``
are world ranks, as in torch.distributed.

>>> import numpy as np
>>> from ms_tensor import Tensor
>>> out = [Tensor(np.zeros(2, np.float32))]
>>> all_gather(out, Tensor(np.ones(2, np.float32)))  # rank 0 of 1
>>> out[0].asnumpy()
array([1., 1.], dtype=float32)
"""

from __future__ import annotations

import math

from ms_ops import functional as F
from ms_parallel.comm_func import (
    _OPS,
    _check_async,
    _group,
    _handle,
    _inplace,
    _tensor,
    all_to_all_with_output_shape,
    irecv,
    isend,
)
from ms_parallel.groups import WORLD
from ms_parallel.groups import group as find_group
from ms_parallel.reduce_ops import AllGather, ReduceScatter
from ms_parallel.rooted_ops import CollectiveGather, CollectiveScatter, Reduce
from ms_parallel.uneven_ops import AllGatherV, AlltoAllVC, ReduceScatterV
from ms_tensor import Tensor

__all__ = ["all_gather", "reduce_scatter", "all_to_all", "reduce", "gather_into_tensor",
           "scatter_tensor", "all_gather_into_tensor_uneven", "reduce_scatter_tensor_uneven",
           "all_to_all_v_c", "P2POp", "batch_isend_irecv",
           # mindspore.communication.comm_func's spellings
           "comm_reduce", "comm_gather_into_tensor", "comm_scatter_tensor"]

def _start(fn, group, async_op):
    """The group's name; checks async_op and that ``fn`` runs in place."""
    _check_async(async_op)
    if not _inplace[fn]:
        raise ValueError(f"{fn}: non-inplace mode is not supported (set_comm_ops_inplace"
                         f"(True, ['{fn}']))")
    return _group(group)


def _tensors(fn, name, ts, n):
    if not isinstance(ts, (list, tuple)) or len(ts) != n:
        raise ValueError(f"{fn}: {name} must be a list of {n} tensors (one per rank of the "
                         f"group), got {ts!r}")
    for t in ts:
        _tensor(fn, f"{name}[k]", t)
    if len({t.dtype for t in ts}) > 1 or len({tuple(t.shape) for t in ts}) > 1:
        raise ValueError(f"{fn}: the tensors of {name} must share one shape and dtype")
    return list(ts)


def _write(fn, out, result):
    if tuple(out.shape) != tuple(result.shape) or out.dtype != result.dtype:
        raise ValueError(f"{fn}: the output tensor has shape {tuple(out.shape)} and dtype "
                         f"{out.dtype}, the result shape {tuple(result.shape)} and dtype "
                         f"{result.dtype}")
    out.assign_value(result)


def _root(fn, name, rank, g):
    ranks = find_group(g).world_ranks
    if not isinstance(rank, int) or rank not in ranks:
        raise ValueError(f"{fn}: {name} must be a world rank of group {g!r} {list(ranks)}, "
                         f"got {rank!r}")
    return ranks.index(rank)


def _op(fn, op, allowed=_OPS):
    if op not in allowed:
        raise TypeError(f"{fn}: op must be one of {', '.join(allowed)}, got {op!r}")
    return op


def _avg(result, op, g):
    return F.div(result, F.cast(find_group(g).size, result.dtype)) if op == "avg" else result


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Rank k's ``tensor`` into ``tensor_list[k]``, on every rank."""
    g = _start("all_gather", group, async_op)
    _tensor("all_gather", "tensor", tensor)
    outs = _tensors("all_gather", "tensor_list", tensor_list, find_group(g).size)
    got = AllGather(F.expand_dims(tensor, 0), g)
    for k, out in enumerate(outs):
        _write("all_gather", out, got[k])
    return _handle(async_op)


def reduce_scatter(output, input_list, op="sum", group=None, async_op=False):
    """``output`` on rank k: the reduction over ranks of their ``input_list[k]``."""
    g = _start("reduce_scatter", group, async_op)
    _tensor("reduce_scatter", "output", output)
    ins = _tensors("reduce_scatter", "input_list", input_list, find_group(g).size)
    _op("reduce_scatter", op)
    got = ReduceScatter(F.stack(ins), "sum" if op == "avg" else op, g)
    _write("reduce_scatter", output, _avg(F.squeeze(got, 0), op, g))
    return _handle(async_op)


def all_to_all(output_tensor_list, input_tensor_list, group=None, async_op=False):
    """``input_tensor_list[k]`` goes to rank k; ``output_tensor_list[k]`` gets what rank k
    sent here. Out of place (``set_comm_ops_inplace(False)``) the output list may hold
    shapes, and ``(outputs, handle)`` is returned."""
    _check_async(async_op)
    outs, handle = all_to_all_with_output_shape(output_tensor_list, input_tensor_list,
                                                group, async_op)
    if not _inplace["all_to_all"]:
        return outs, handle
    for out, got in zip(output_tensor_list, outs):
        _tensor("all_to_all", "output_tensor_list[k]", out)
        _write("all_to_all", out, got)
    return handle


def reduce(tensor, dst, op="sum", group=None, async_op=False):
    """The reduction of every rank's ``tensor`` into ``dst``'s (others keep theirs)."""
    g = _start("reduce", group, async_op)
    _tensor("reduce", "tensor", tensor)
    root = _root("reduce", "dst", dst, g)
    _op("reduce", op)
    got = Reduce(tensor, root, "sum" if op == "avg" else op, g)
    if find_group(g).rank == root:
        _write("reduce", tensor, _avg(got, op, g))
    return _handle(async_op)


def gather_into_tensor(output_tensor, input_tensor, dst=0, group=None, async_op=False):
    """Every rank's ``input_tensor`` joined along axis 0 into ``dst``'s ``output_tensor``."""
    g = _start("gather_into_tensor", group, async_op)
    _tensor("gather_into_tensor", "input_tensor", input_tensor)
    _tensor("gather_into_tensor", "output_tensor", output_tensor)
    root = _root("gather_into_tensor", "dst", dst, g)
    got = CollectiveGather(input_tensor, dst, g)
    if find_group(g).rank == root:
        _write("gather_into_tensor", output_tensor, got)
    return _handle(async_op)


def scatter_tensor(output_tensor, input_tensor, src=0, group=None, async_op=False):
    """Block k (of axis 0) of ``src``'s ``input_tensor`` into rank k's ``output_tensor``."""
    g = _start("scatter_tensor", group, async_op)
    _tensor("scatter_tensor", "input_tensor", input_tensor)
    _tensor("scatter_tensor", "output_tensor", output_tensor)
    _root("scatter_tensor", "src", src, g)
    _write("scatter_tensor", output_tensor, CollectiveScatter(input_tensor, src, g))
    return _handle(async_op)


def _rows(fn, name, sizes, n, shape, total):
    """Rows per rank (``sizes``, or equal), and the elements of one row."""
    row = math.prod(shape[1:]) if len(shape) > 1 else 1
    if sizes is None or (isinstance(sizes, (list, tuple)) and not sizes):
        if total % n:
            raise ValueError(f"{fn}: axis 0 of size {total} cannot be split evenly over {n} "
                             f"ranks; give {name}")
        sizes = [total // n] * n
    if not isinstance(sizes, (list, tuple)) or len(sizes) != n or \
            any(not isinstance(c, int) or c < 0 for c in sizes) or sum(sizes) != total:
        raise ValueError(f"{fn}: {name} must be {n} non-negative ints adding up to {total}, "
                         f"got {sizes!r}")
    return list(sizes), row


def all_gather_into_tensor_uneven(output, input, output_split_sizes=None, group=None,
                                  async_op=False):
    """Every rank's ``input`` (rank k's with ``output_split_sizes[k]`` rows) joined along
    axis 0 into ``output``."""
    fn = "all_gather_into_tensor_uneven"
    g = _start(fn, group, async_op)
    _tensor(fn, "input", input)
    _tensor(fn, "output", output)
    n, me = find_group(g).size, find_group(g).rank
    sizes, row = _rows(fn, "output_split_sizes", output_split_sizes, n, output.shape,
                       output.shape[0])
    if tuple(input.shape) != (sizes[me],) + tuple(output.shape[1:]):
        raise ValueError(f"{fn}: input of shape {tuple(input.shape)} must have "
                         f"{sizes[me]} rows of the output's {tuple(output.shape[1:])}")
    got = AllGatherV(F.reshape(input, (-1,)), [c * row for c in sizes], g)
    _write(fn, output, F.reshape(got, tuple(output.shape)))
    return _handle(async_op)


def reduce_scatter_tensor_uneven(output, input, input_split_sizes=None, op="sum",
                                 group=None, async_op=False):
    """Reduce every rank's ``input``; rank k keeps its ``input_split_sizes[k]`` rows."""
    fn = "reduce_scatter_tensor_uneven"
    g = _start(fn, group, async_op)
    _tensor(fn, "input", input)
    _tensor(fn, "output", output)
    _op(fn, op, ("sum", "min", "max", "avg"))
    n, me = find_group(g).size, find_group(g).rank
    sizes, row = _rows(fn, "input_split_sizes", input_split_sizes, n, input.shape,
                       input.shape[0])
    got = ReduceScatterV(F.reshape(input, (-1,)), [c * row for c in sizes],
                         "sum" if op == "avg" else op, g)
    _write(fn, output, _avg(F.reshape(got, (sizes[me],) + tuple(input.shape[1:])), op, g))
    return _handle(async_op)


def all_to_all_v_c(output, input, send_count_matrix, group=None, async_op=False):
    """``send_count_matrix[i * n + j]`` elements of rank i's flat ``input`` go to rank j;
    ``output`` gets what every rank sent here, in rank order."""
    fn = "all_to_all_v_c"
    g = _start(fn, group, async_op)
    _tensor(fn, "input", input)
    _tensor(fn, "output", output)
    if not isinstance(send_count_matrix, list):
        raise TypeError(f"{fn}: send_count_matrix must be a list, got "
                        f"{type(send_count_matrix).__name__}")
    got = AlltoAllVC(F.reshape(input, (-1,)), send_count_matrix, g)
    _write(fn, output, F.reshape(got, tuple(output.shape)))
    return _handle(async_op)


class P2POp:
    """One send or receive of ``batch_isend_irecv``: ``op`` is ``"isend"``/``"irecv"`` (or
    the functions), ``peer`` a world rank."""

    def __init__(self, op, tensor, peer, group=None, tag=0):
        name = op if isinstance(op, str) else getattr(op, "__name__", None)
        if name not in ("isend", "irecv"):
            raise TypeError(f"P2POp: op must be isend or irecv, got {op!r}")
        if not isinstance(tensor, Tensor):
            raise TypeError(f"P2POp: tensor must be a Tensor, got {type(tensor).__name__}")
        if not isinstance(peer, int) or isinstance(peer, bool):
            raise TypeError(f"P2POp: peer must be an int, got {peer!r}")
        self.op, self.tensor, self.peer, self.group, self.tag = name, tensor, peer, group, tag


class _All:
    """One handle over several: ``wait()`` waits for each."""

    def __init__(self, handles):
        self._handles = handles

    def wait(self) -> None:
        for h in self._handles:
            h.wait()

    def is_completed(self) -> bool:
        return all(h.is_completed() for h in self._handles)


def batch_isend_irecv(p2p_op_list):
    """Start every send and receive of the list (one group); returns ``[handle]``, whose
    ``wait()`` completes them all (received tensors hold their messages after it)."""
    if not isinstance(p2p_op_list, (list, tuple)) or not p2p_op_list or \
            not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise TypeError("batch_isend_irecv: p2p_op_list must be a non-empty list of P2POp")
    if len({p.group for p in p2p_op_list}) > 1:
        raise TypeError("batch_isend_irecv: every P2POp must use the same group")
    handles = []
    for p in p2p_op_list:
        g = _group(p.group)
        peer = _root("batch_isend_irecv", "peer", p.peer, g)
        start = isend if p.op == "isend" else irecv
        handles.append(start(p.tensor, peer, g, p.tag))
    return [_All(handles)]


# -- mindspore.communication.comm_func's spellings: the result returned -----------------
def comm_reduce(tensor, dst, op="sum", group=WORLD):
    """The reduction on ``dst`` (a world rank); a placeholder of shape (1,) elsewhere."""
    _tensor("reduce", "tensor", tensor)
    return Reduce(tensor, _root("reduce", "dst", dst, group), op, group)


def comm_gather_into_tensor(tensor, dst=0, group=WORLD):
    """Every rank's ``tensor`` joined along axis 0 on ``dst``; a placeholder elsewhere."""
    _tensor("gather_into_tensor", "tensor", tensor)
    return CollectiveGather(tensor, dst, group)


def comm_scatter_tensor(tensor, src=0, group=WORLD):
    """Block k (of axis 0) of ``src``'s ``tensor``, on rank k."""
    _tensor("scatter_tensor", "tensor", tensor)
    return CollectiveScatter(tensor, src, group)
