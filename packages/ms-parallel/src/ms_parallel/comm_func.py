"""Functional collectives: ``mindspore.ops.communication`` (in place, torch.distributed's
shape: ``all_reduce(tensor)`` overwrites ``tensor``) and the older
``mindspore.communication.comm_func`` (``all_reduce(tensor) -> (result, handle)``).

Each runs the registered operator (``AllReduce`` ...), so it is recorded by ``grad`` and
traced into graphs like any other operator call. ``async_op=True`` returns a handle
whose ``wait()`` is a no-op: the operator has already finished (an MPI collective run by a
kernel completes before the kernel returns). ``"avg"`` is a sum divided by the group size.

>>> import numpy as np
>>> from ms_tensor import Tensor
>>> from ms_parallel.comm_func import all_reduce
>>> t = Tensor(np.ones(3, np.float32))
>>> all_reduce(t) is None, t.asnumpy()  # rank 0 of 1: the sum over one rank
(True, array([1., 1., 1.], dtype=float32))
"""

from __future__ import annotations

from ms_ops import TensorSpec
from ms_ops import functional as F
from ms_ops.dispatch import get_recorder
from ms_parallel.groups import WORLD
from ms_parallel.groups import group as find_group
from ms_parallel.p2p_ops import AlltoAll, Receive, Send
from ms_parallel.reduce_ops import AllGather, AllReduce, Broadcast, ReduceScatter
from ms_tensor import Tensor
from ms_tensor.tensor import array_of

__all__ = [
    "CommHandle", "all_reduce", "all_gather_into_tensor", "reduce_scatter_tensor",
    "broadcast", "barrier", "send", "recv", "all_to_all_single", "get_rank",
    "get_world_size", "is_initialized", "set_comm_ops_inplace",
    # mindspore.communication.comm_func's spellings
    "comm_all_reduce", "comm_all_gather_into_tensor", "comm_reduce_scatter_tensor",
    "comm_broadcast",
]

_OPS = ("sum", "prod", "min", "max", "avg")
_inplace = {"all_reduce": True, "all_gather_into_tensor": True,
            "reduce_scatter_tensor": True, "broadcast": True}


class CommHandle:
    """What ``async_op=True`` returns; the work is done, so ``wait()`` returns at once."""

    def wait(self) -> None:
        return None

    def is_completed(self) -> bool:
        return True


def _handle(async_op):
    if not isinstance(async_op, bool):
        raise TypeError(f"async_op must be a bool, got {type(async_op).__name__}")
    return CommHandle() if async_op else None


def _tensor(fn, name, t):
    if not isinstance(t, Tensor):
        raise TypeError(f"{fn}: {name} must be a Tensor, got {type(t).__name__}")
    return t


def _group(g):
    return WORLD if g is None else g


def set_comm_ops_inplace(is_enable: bool, func_list=None) -> None:
    """Choose whether the functions in ``func_list`` (all by default) write their result
    into their tensor argument (True, the default) or return ``(result, handle)``."""
    if not isinstance(is_enable, bool):
        raise TypeError(f"set_comm_ops_inplace: is_enable must be a bool, got {is_enable!r}")
    names = list(_inplace) if func_list is None else list(func_list)
    for n in names:
        if n not in _inplace:
            raise ValueError(f"set_comm_ops_inplace: unknown function {n!r}; one of "
                             f"{', '.join(_inplace)}")
        _inplace[n] = is_enable


def _reduced(tensor, op, group):
    if op not in _OPS:
        raise TypeError(f"all_reduce: op must be one of {', '.join(_OPS)}, got {op!r}")
    if op == "avg":
        total = AllReduce(tensor, "sum", group)
        return F.div(total, F.cast(find_group(group).size, total.dtype))
    return AllReduce(tensor, op, group)


def _finish(name, target, result, async_op):
    handle = _handle(async_op)
    if _inplace[name]:
        target.assign_value(result)
        return handle
    return result, handle


def all_reduce(tensor, op="sum", group=None, async_op=False):
    """Reduce ``tensor`` over the group's ranks: in place (returns a handle or None), or,
    after ``set_comm_ops_inplace(False)``, ``(result, handle)``.

    In place and unrecorded (no ``grad`` tape or graph capture), MPI reduces the tensor's
    own buffer (MPI_IN_PLACE): no new array, no copy."""
    _tensor("all_reduce", "tensor", tensor)
    g = _group(group)
    if _inplace["all_reduce"] and op != "avg" and get_recorder() is None:
        AllReduce.abstract_eval(TensorSpec(tensor.shape, tensor.dtype), op=op, group=g)
        arr = array_of(tensor)
        if arr.flags.c_contiguous and arr.flags.writeable:
            find_group(g).allreduce(arr, op, out=arr)
            return _handle(async_op)
    return _finish("all_reduce", tensor, _reduced(tensor, op, g), async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Every rank's ``input_tensor`` joined along axis 0, into ``output_tensor``."""
    _tensor("all_gather_into_tensor", "input_tensor", input_tensor)
    result = AllGather(input_tensor, _group(group))
    if _inplace["all_gather_into_tensor"]:
        _same_shape("all_gather_into_tensor", output_tensor, result)
    return _finish("all_gather_into_tensor", output_tensor, result, async_op)


def reduce_scatter_tensor(output, input, op="sum", group=None, async_op=False):
    """Reduce ``input`` over the ranks and keep this rank's block of axis 0 in ``output``."""
    _tensor("reduce_scatter_tensor", "input", input)
    result = ReduceScatter(input, op, _group(group))
    if _inplace["reduce_scatter_tensor"]:
        _same_shape("reduce_scatter_tensor", output, result)
    return _finish("reduce_scatter_tensor", output, result, async_op)


def _same_shape(fn, out, result):
    _tensor(fn, "output", out)
    if tuple(out.shape) != tuple(result.shape):
        raise ValueError(f"{fn}: the output tensor has shape {tuple(out.shape)}, but the "
                         f"result has shape {tuple(result.shape)}")


def broadcast(tensor, src, group=None, async_op=False):
    """``src``'s ``tensor`` on every rank (``src`` is a world rank)."""
    _tensor("broadcast", "tensor", tensor)
    g = _group(group)
    root = find_group(g).world_ranks.index(src) if src in find_group(g).world_ranks else src
    return _finish("broadcast", tensor, Broadcast(tensor, root, g), async_op)


def barrier(group=None, async_op=False, device_ids=None):
    """Wait until every rank of the group arrives."""
    find_group(_group(group)).barrier()
    return _handle(async_op)


def send(tensor, dst=0, group=None, tag=0):
    """Send ``tensor`` to rank ``dst`` (its ``recv`` with the same ``tag`` gets it)."""
    _tensor("send", "tensor", tensor)
    Send(tensor, tag, dst, _group(group))


def recv(tensor, src=0, group=None, tag=0):
    """Receive into ``tensor`` (of the sent shape and dtype) from rank ``src``; returns 0."""
    _tensor("recv", "tensor", tensor)
    tensor.assign_value(Receive(tag, src, list(tensor.shape), tensor.dtype, _group(group)))
    return 0


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None,
                      group=None, async_op=False):
    """Block ``k`` of ``input``'s axis 0 goes to rank ``k``; ``output`` gets the blocks
    received, in rank order (equal splits only)."""
    _tensor("all_to_all_single", "input", input)
    if output_split_sizes is not None or input_split_sizes is not None:
        raise NotImplementedError("all_to_all_single: uneven splits are not supported; "
                                  "leave output_split_sizes and input_split_sizes None")
    g = _group(group)
    result = AlltoAll(input, find_group(g).size, 0, 0, g)
    _same_shape("all_to_all_single", output, result)
    output.assign_value(result)
    return _handle(async_op)


def get_rank(group=None) -> int:
    return find_group(_group(group)).rank


def get_world_size(group=None) -> int:
    return find_group(_group(group)).size


def is_initialized() -> bool:
    from ms_parallel.management import is_initialized as inited

    return inited()


# -- mindspore.communication.comm_func: results returned, never written in place -------
def comm_all_reduce(tensor, op="sum", group=WORLD, async_op=False):
    _tensor("all_reduce", "tensor", tensor)
    return _reduced(tensor, op, group), _handle(async_op)


def comm_all_gather_into_tensor(tensor, group=WORLD, async_op=False):
    _tensor("all_gather_into_tensor", "tensor", tensor)
    return AllGather(tensor, group), _handle(async_op)


def comm_reduce_scatter_tensor(tensor, op="sum", group=WORLD, async_op=False):
    _tensor("reduce_scatter_tensor", "tensor", tensor)
    return ReduceScatter(tensor, op, group), _handle(async_op)


def comm_broadcast(tensor, src=0, group=WORLD):
    _tensor("broadcast", "tensor", tensor)
    return Broadcast(tensor, src, group)
