"""Functional collectives: ``mindspore.ops.communication`` (in place, torch.distributed's
shape: ``all_reduce(tensor)`` overwrites ``tensor``) and the older
``mindspore.communication.comm_func`` (``all_reduce(tensor) -> (result, handle)``).

While ``grad`` or a graph capture records, each runs the registered operator
(``AllReduce`` ...), so it is differentiated and traced like any other operator call.
Otherwise MPI reads and writes the tensors' own buffers with a non-blocking call
(MPI_Iallreduce, MPI_Iallgather, ...): ``async_op=True`` returns at once with a
``CommHandle`` whose ``wait()`` completes the call (until then the output tensor must not
be read, nor the input changed), ``async_op=False`` waits before returning. Tensors MPI
cannot address directly (float16/bfloat16, bool, non-contiguous) take the operator path,
and their handle is already complete. ``"avg"`` is a sum divided by the group size.

>>> import numpy as np
>>> from ms_tensor import Tensor
>>> from ms_parallel.comm_func import all_reduce
>>> t = Tensor(np.ones(3, np.float32))
>>> all_reduce(t) is None, t.asnumpy()  # rank 0 of 1: the sum over one rank
(True, array([1., 1., 1.], dtype=float32))
"""

from __future__ import annotations

import math

import numpy as np

from ms_ops import TensorSpec
from ms_ops import functional as F
from ms_ops.dispatch import get_recorder
from ms_parallel.groups import WORLD, CommError, runners
from ms_parallel.groups import group as find_group
from ms_parallel.p2p_ops import AlltoAllV, Receive, Send
from ms_parallel.reduce_ops import AllGather, AllReduce, Broadcast, ReduceScatter
from ms_tensor import Tensor
from ms_tensor import dtype as mstype
from ms_tensor.tensor import array_of, wrap

__all__ = [
    "CommHandle", "all_reduce", "all_gather_into_tensor", "reduce_scatter_tensor",
    "broadcast", "barrier", "send", "recv", "isend", "irecv", "all_to_all_single",
    "all_to_all_single_with_output_shape", "all_to_all_with_output_shape", "get_rank",
    "get_world_size", "is_initialized", "set_comm_ops_inplace",
    # mindspore.communication.comm_func's spellings
    "comm_all_reduce", "comm_all_gather_into_tensor", "comm_reduce_scatter_tensor",
    "comm_broadcast", "comm_recv", "comm_irecv",
]

_OPS = ("sum", "prod", "min", "max", "avg")
_inplace = dict.fromkeys((
    "all_reduce", "all_gather_into_tensor", "reduce_scatter_tensor", "broadcast",
    # ms_parallel.dist_func's
    "all_gather", "reduce_scatter", "all_to_all", "reduce", "gather_into_tensor",
    "scatter_tensor", "all_gather_into_tensor_uneven", "reduce_scatter_tensor_uneven",
    "all_to_all_v_c"), True)


class CommHandle:
    """What ``async_op=True`` returns: ``wait()`` blocks until the call is complete."""

    def __init__(self, request=None, finish=None):
        self._request = request
        self._finish = finish  # run once, after the request completes

    def wait(self) -> None:
        request, self._request = self._request, None
        if request is not None:
            request.wait()
            if self._finish is not None:
                self._finish()

    def is_completed(self) -> bool:
        if self._request is not None and self._request.test():
            self.wait()
        return self._request is None


def _handle(async_op):
    _check_async(async_op)
    return CommHandle() if async_op else None


def _check_async(async_op):
    if not isinstance(async_op, bool):
        raise TypeError(f"async_op must be a bool, got {type(async_op).__name__}")


_NOT_MPI = {"float16", "bfloat16", "bool"}


def _direct(t, writable=True):
    """``t``'s own array when MPI may use it directly: nothing records (so no operator
    must be seen), a C-contiguous numpy array of an MPI type; else None."""
    if get_recorder() is not None:
        return None
    arr = array_of(t)
    if type(arr) is not np.ndarray or not arr.flags.c_contiguous or \
            (writable and not arr.flags.writeable) or arr.dtype.name in _NOT_MPI:
        return None
    return arr


def _run(group, kind, x, out, async_op, finish=None, **kw):
    """Start ``kind``; its handle (``async_op``), or None once it is done."""
    request = find_group(group).nonblocking(kind, x, out, **kw)
    if async_op:
        return CommHandle(request, finish)
    request.wait()
    if finish is not None:
        finish()
    return None


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

    In place and unrecorded, MPI reduces the tensor's own buffer (MPI_IN_PLACE): no new
    array, no copy. A blocking call with a group and op seen before takes a plan checked
    once (the C path where it is built, ms_parallel.direct)."""
    if _blocking("all_reduce", tensor, op, None, group, async_op):
        return None
    _tensor("all_reduce", "tensor", tensor)
    _check_async(async_op)
    g = _group(group)
    arr = _direct(tensor)
    if _inplace["all_reduce"] and arr is not None and \
            (op != "avg" or arr.dtype.kind == "f"):
        AllReduce.abstract_eval(TensorSpec(tensor.shape, tensor.dtype),
                                op="sum" if op == "avg" else op, group=g)
        size = find_group(g).size
        finish = (lambda: np.divide(arr, size, out=arr)) if op == "avg" else None
        return _run(g, "allreduce", arr, arr, async_op, finish,
                    op="sum" if op == "avg" else op)
    return _finish("all_reduce", tensor, _reduced(tensor, op, g), async_op)


def _blocking(name, tensor, op, src, group, async_op) -> bool:
    """Whether the blocking in-place ``name`` ("all_reduce" or "broadcast") of ``tensor``
    was done by its plan (checked once per op, src and group); False: take the general
    path (recorded, asynchronous, not in place, or a tensor MPI cannot use as it is)."""
    if async_op is not False or get_recorder() is not None or not _inplace[name]:
        return False
    try:
        plan = runners[name, op, src, group]
    except KeyError:
        plan = _blocking_plan(name, op, src, group)
    except TypeError:  # unhashable: the general path says what is wrong
        return False
    return plan is not None and plan(tensor)


def _blocking_plan(name, op, src, group):
    """``plan(t) -> bool`` for ``_blocking``; None where there is none ("avg", arguments
    the operator's inference rejects: the general path divides or raises)."""
    g = _group(group)
    try:
        grp = find_group(g)
        if name == "all_reduce":
            if type(op) is not str or op == "avg":
                return None
            AllReduce.abstract_eval(TensorSpec((1,), mstype.float32), op=op, group=g)
            kind, kw = "AllReduce", {"op": op}
        else:
            if type(src) is not int:
                return None
            root = grp.world_ranks.index(src) if src in grp.world_ranks else src
            Broadcast.abstract_eval(TensorSpec((1,), mstype.float32), root_rank=root,
                                    group=g)
            kind, kw = "Broadcast", {"root": root}
    except (TypeError, ValueError, CommError):
        return None
    plan = grp.direct_plan(kind, **kw)
    if plan is not None:
        plan = plan.inplace  # the C path (ms_parallel.direct)
    else:
        def plan(t):
            arr = _direct(t) if type(t) is Tensor else None
            if arr is None:
                return False
            _run(g, name.replace("_", ""), arr, arr, False, **kw)
            return True

    runners[name, op, src, group] = plan
    return plan


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Every rank's ``input_tensor`` joined along axis 0, into ``output_tensor``."""
    _tensor("all_gather_into_tensor", "input_tensor", input_tensor)
    _check_async(async_op)
    g = _group(group)
    if _inplace["all_gather_into_tensor"]:
        spec = AllGather.abstract_eval(TensorSpec(input_tensor.shape, input_tensor.dtype),
                                       group=g)
        _same_shape("all_gather_into_tensor", output_tensor, spec)
        x, out = _direct(input_tensor, writable=False), _direct(output_tensor)
        if x is not None and out is not None and out.dtype == x.dtype:
            return _run(g, "allgather", x, out, async_op)
    result = AllGather(input_tensor, g)
    return _finish("all_gather_into_tensor", output_tensor, result, async_op)


def reduce_scatter_tensor(output, input, op="sum", group=None, async_op=False):
    """Reduce ``input`` over the ranks and keep this rank's block of axis 0 in ``output``."""
    _tensor("reduce_scatter_tensor", "input", input)
    _check_async(async_op)
    g = _group(group)
    if _inplace["reduce_scatter_tensor"]:
        spec = ReduceScatter.abstract_eval(TensorSpec(input.shape, input.dtype), op=op,
                                           group=g)
        _same_shape("reduce_scatter_tensor", output, spec)
        x, out = _direct(input, writable=False), _direct(output)
        if x is not None and out is not None and out.dtype == x.dtype:
            return _run(g, "reduce_scatter", x, out, async_op, op=op)
    result = ReduceScatter(input, op, g)
    return _finish("reduce_scatter_tensor", output, result, async_op)


def _same_shape(fn, out, result):
    _tensor(fn, "output", out)
    if tuple(out.shape) != tuple(result.shape):
        raise ValueError(f"{fn}: the output tensor has shape {tuple(out.shape)}, but the "
                         f"result has shape {tuple(result.shape)}")


def broadcast(tensor, src, group=None, async_op=False):
    """``src``'s ``tensor`` on every rank (``src`` is a world rank)."""
    if _blocking("broadcast", tensor, None, src, group, async_op):
        return None
    _tensor("broadcast", "tensor", tensor)
    _check_async(async_op)
    g = _group(group)
    ranks = find_group(g).world_ranks
    root = ranks.index(src) if src in ranks else src
    arr = _direct(tensor)
    if _inplace["broadcast"] and arr is not None:
        Broadcast.abstract_eval(TensorSpec(tensor.shape, tensor.dtype), root_rank=root,
                                group=g)
        return _run(g, "broadcast", arr, arr, async_op, root=root)
    return _finish("broadcast", tensor, Broadcast(tensor, root, g), async_op)


def barrier(group=None, async_op=False, device_ids=None):
    """Wait until every rank of the group arrives (``async_op``: a handle to wait on)."""
    _check_async(async_op)
    return _run(_group(group), "barrier", None, None, async_op)


def send(tensor, dst=0, group=None, tag=0):
    """Send ``tensor`` to rank ``dst`` (its ``recv`` with the same ``tag`` gets it)."""
    _tensor("send", "tensor", tensor)
    Send(tensor, tag, dst, _group(group))


def recv(tensor, src=0, group=None, tag=0):
    """Receive into ``tensor`` (of the sent shape and dtype) from rank ``src``; returns 0."""
    _tensor("recv", "tensor", tensor)
    tensor.assign_value(Receive(tag, src, list(tensor.shape), tensor.dtype, _group(group)))
    return 0


def isend(tensor, dst=0, group=None, tag=0):
    """Start sending ``tensor`` to ``dst``; ``wait()`` on the handle before changing it."""
    _tensor("isend", "tensor", tensor)
    g = _group(group)
    Send.abstract_eval(TensorSpec(tensor.shape, tensor.dtype), sr_tag=tag, dest_rank=dst,
                       group=g)
    x = _direct(tensor, writable=False)
    if x is None:
        send(tensor, dst, group, tag)
        return CommHandle()
    return _run(g, "send", x, None, True, peer=dst, tag=tag)


def irecv(tensor, src=0, group=None, tag=0):
    """Start receiving into ``tensor`` from ``src``; it holds the message after ``wait()``."""
    _tensor("irecv", "tensor", tensor)
    g = _group(group)
    Receive.abstract_eval(sr_tag=tag, src_rank=src, shape=list(tensor.shape),
                          dtype=tensor.dtype, group=g)
    out = _direct(tensor)
    if out is None:
        recv(tensor, src, group, tag)
        return CommHandle()
    return _run(g, "recv", None, out, True, peer=src, tag=tag)


def _splits(fn, name, sizes, dim, n):
    """Rows per rank along axis 0: ``sizes``, or ``dim`` split evenly when None."""
    if sizes is None:
        if dim % n:
            raise ValueError(f"{fn}: axis 0 of size {dim} cannot be split evenly over {n} "
                             f"ranks; give {name}")
        return [dim // n] * n
    if not isinstance(sizes, (list, tuple)) or len(sizes) != n or \
            any(not isinstance(c, int) or isinstance(c, bool) or c < 0 for c in sizes):
        raise ValueError(f"{fn}: {name} must be a list of {n} non-negative ints (one per "
                         f"rank), got {sizes!r}")
    if sum(sizes) != dim:
        raise ValueError(f"{fn}: {name} {list(sizes)} adds up to {sum(sizes)}, but axis 0 "
                         f"has size {dim}")
    return list(sizes)


def _all_to_all(fn, output_shape, input, output_split_sizes, input_split_sizes, group,
                into=None, async_op=False):
    """``(result, handle)``: rows ``input_split_sizes[k]`` of ``input`` go to rank ``k``;
    the result (of ``output_shape``, written into ``into`` if given) joins the rows each
    rank sent here, ``output_split_sizes[k]`` from rank ``k``, in rank order."""
    _tensor(fn, "input", input)
    g = _group(group)
    n = find_group(g).size
    shape = tuple(input.shape)
    output_shape = tuple(output_shape)
    if not shape or output_shape[1:] != shape[1:]:
        raise ValueError(f"{fn}: input of shape {shape} and output of shape {output_shape} "
                         f"must have axis 0 and the same other dimensions")
    row = math.prod(shape[1:])
    send = [c * row for c in _splits(fn, "input_split_sizes", input_split_sizes, shape[0], n)]
    recv = [c * row for c in _splits(fn, "output_split_sizes", output_split_sizes,
                                     output_shape[0], n)]
    x = _direct(input, writable=False)
    out = _direct(into) if into is not None else None
    if x is not None and (into is None or (out is not None and out.dtype == x.dtype)):
        AlltoAllV.abstract_eval(TensorSpec((x.size,), input.dtype), send, recv, group=g)
        if out is None:
            out = np.empty(output_shape, x.dtype)
        handle = _run(g, "alltoallv", x.reshape(-1), out.reshape(-1), async_op,
                      counts=(send, recv))
        return (into if into is not None else wrap(out)), handle
    result = F.reshape(AlltoAllV(F.reshape(input, (-1,)), send, recv, g), output_shape)
    if into is not None:
        into.assign_value(result)
        result = into
    return result, _handle(async_op)


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None,
                      group=None, async_op=False):
    """Rows ``input_split_sizes[k]`` of ``input`` (axis 0; even blocks when None) go to
    rank ``k``; ``output`` gets the rows received, ``output_split_sizes[k]`` from rank
    ``k``, in rank order."""
    _tensor("all_to_all_single", "output", output)
    _check_async(async_op)
    return _all_to_all("all_to_all_single", output.shape, input, output_split_sizes,
                       input_split_sizes, group, into=output, async_op=async_op)[1]


def all_to_all_single_with_output_shape(output_shape, tensor, output_split_sizes=None,
                                        input_split_sizes=None, group=None,
                                        async_op=False):
    """``all_to_all_single`` returning ``(output, handle)`` (comm_func's spelling)."""
    _check_async(async_op)
    if isinstance(output_shape, Tensor):
        output_shape = output_shape.shape
    return _all_to_all("all_to_all_single_with_output_shape", output_shape, tensor,
                       output_split_sizes, input_split_sizes, group, async_op=async_op)


def all_to_all_with_output_shape(output_shape_list, input_tensor_list, group=None,
                                 async_op=False):
    """Tensor ``k`` of ``input_tensor_list`` goes to rank ``k``; returns ``(outputs,
    handle)``, output ``k`` (of ``output_shape_list[k]``) being what rank ``k`` sent."""
    g = _group(group)
    n = find_group(g).size
    if len(output_shape_list) != n or len(input_tensor_list) != n:
        raise ValueError(f"all_to_all_with_output_shape: give one output shape and one "
                         f"input tensor per rank ({n}), got {len(output_shape_list)} and "
                         f"{len(input_tensor_list)}")
    for t in input_tensor_list:
        _tensor("all_to_all_with_output_shape", "input_tensor_list[k]", t)
    shapes = [tuple(s.shape if isinstance(s, Tensor) else s) for s in output_shape_list]
    flat = F.concat([F.reshape(t, (-1,)) for t in input_tensor_list])
    send = [math.prod(t.shape) for t in input_tensor_list]
    recv = [math.prod(s) for s in shapes]
    got = AlltoAllV(flat, send, recv, g)
    pieces = F.split(got, recv) if n > 1 else (got,)
    return tuple(F.reshape(p, s) for p, s in zip(pieces, shapes)), _handle(async_op)


def get_rank(group=None) -> int:
    return find_group(_group(group)).rank


def get_world_size(group=None) -> int:
    return find_group(_group(group)).size


def is_initialized() -> bool:
    from ms_parallel.management import is_initialized as inited

    return inited()


# -- mindspore.communication.comm_func: results returned, never written in place -------
def _returned(fn, name, tensor, group, async_op, kind, spec, **kw):
    """``(result, handle)``: unrecorded, MPI writes a new array in the background."""
    _tensor(fn, name, tensor)
    _check_async(async_op)
    x = _direct(tensor, writable=False)
    if x is None:
        return None
    out = np.empty(spec.shape, x.dtype)
    return wrap(out), _run(group, kind, x, out, async_op, **kw)


def comm_all_reduce(tensor, op="sum", group=WORLD, async_op=False):
    _tensor("all_reduce", "tensor", tensor)
    if op in ("sum", "max", "min", "prod"):
        spec = AllReduce.abstract_eval(TensorSpec(tensor.shape, tensor.dtype), op=op,
                                       group=group)
        done = _returned("all_reduce", "tensor", tensor, group, async_op, "allreduce",
                         spec, op=op)
        if done is not None:
            return done
    return _reduced(tensor, op, group), _handle(async_op)


def comm_all_gather_into_tensor(tensor, group=WORLD, async_op=False):
    _tensor("all_gather_into_tensor", "tensor", tensor)
    spec = AllGather.abstract_eval(TensorSpec(tensor.shape, tensor.dtype), group=group)
    done = _returned("all_gather_into_tensor", "tensor", tensor, group, async_op,
                     "allgather", spec)
    return done if done is not None else (AllGather(tensor, group), _handle(async_op))


def comm_reduce_scatter_tensor(tensor, op="sum", group=WORLD, async_op=False):
    _tensor("reduce_scatter_tensor", "tensor", tensor)
    spec = ReduceScatter.abstract_eval(TensorSpec(tensor.shape, tensor.dtype), op=op,
                                       group=group)
    done = _returned("reduce_scatter_tensor", "tensor", tensor, group, async_op,
                     "reduce_scatter", spec, op=op)
    return done if done is not None else (ReduceScatter(tensor, op, group),
                                          _handle(async_op))


def comm_recv(tensor, src=0, group=WORLD, tag=0):
    """The tensor ``src`` sends (of ``tensor``'s shape and dtype; ``tensor`` is unchanged)."""
    _tensor("recv", "tensor", tensor)
    return Receive(tag, src, list(tensor.shape), tensor.dtype, group)


def comm_irecv(tensor, src=0, group=WORLD, tag=0):
    """``(received, handle)``: a new tensor that holds the message after ``wait()``."""
    _tensor("irecv", "tensor", tensor)
    into = Tensor(np.empty(tensor.shape, tensor.dtype.np))
    return into, irecv(into, src, group, tag)


def comm_broadcast(tensor, src=0, group=WORLD):
    _tensor("broadcast", "tensor", tensor)
    return Broadcast(tensor, src, group)
