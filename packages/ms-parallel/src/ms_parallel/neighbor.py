"""``NeighborExchange`` and ``BatchISendIRecv``: MindSpore's exchanges of tensors with
chosen ranks. NeighborExchange is one AlltoAllV over the group (every rank of the group
calls it, as in MindSpore).

Each rank sends ``input_x[i]`` to ``send_rank_ids[i]`` and receives a tensor of
``recv_shapes[i]`` from ``recv_rank_ids[i]``; AlltoAllV moves every block at once, so no
ordering of sends and receives can deadlock, and its gradient (the AlltoAllV with the
counts swapped) sends each cotangent back to where its value came from. A rank appears
at most once in each list.

>>> import numpy as np
>>> from ms_tensor import Tensor, dtype as mstype
>>> swap = NeighborExchange([0], [0], ([2],), ([2],), mstype.float32)  # rank 0 of 1
>>> swap((Tensor(np.ones(2, np.float32)),))[0].asnumpy()
array([1., 1.], dtype=float32)
"""

from __future__ import annotations

import math

import numpy as np

from ms_ops import functional as F
from ms_parallel.groups import WORLD
from ms_parallel.groups import group as find_group
from ms_parallel.p2p_ops import AlltoAllV
from ms_tensor import Tensor
from ms_tensor import dtype as mstype

__all__ = ["NeighborExchange", "BatchISendIRecv"]


def _shapes(name, value, n, fn="NeighborExchange"):
    if not isinstance(value, (list, tuple)) or len(value) != n or any(
            not isinstance(s, (list, tuple)) or
            any(not isinstance(d, int) or d < 0 for d in s) for s in value):
        raise ValueError(f"{fn}: {name} must hold {n} shapes (lists of "
                         f"non-negative ints), got {value!r}")
    return [tuple(s) for s in value]


def _ranks(name, value):
    if not isinstance(value, (list, tuple)) or len(set(value)) != len(value) or any(
            not isinstance(r, int) or isinstance(r, bool) or r < 0 for r in value):
        raise ValueError(f"NeighborExchange: {name} must be distinct non-negative ranks, "
                         f"got {value!r}")
    return list(value)


class NeighborExchange:
    """``ops.NeighborExchange(send_rank_ids, recv_rank_ids, recv_shapes, send_shapes,
    recv_type, group)(input_x)``: a tuple of the tensors received, in recv_rank_ids order."""

    def __init__(self, send_rank_ids, recv_rank_ids, recv_shapes, send_shapes, recv_type,
                 group=WORLD):
        self.send_rank_ids = _ranks("send_rank_ids", send_rank_ids)
        self.recv_rank_ids = _ranks("recv_rank_ids", recv_rank_ids)
        self.send_shapes = _shapes("send_shapes", send_shapes, len(self.send_rank_ids))
        self.recv_shapes = _shapes("recv_shapes", recv_shapes, len(self.recv_rank_ids))
        if not isinstance(recv_type, mstype.DType):
            raise TypeError(f"NeighborExchange: recv_type must be a dtype (mstype.float32, "
                            f"...), got {recv_type!r}")
        if not isinstance(group, str):
            raise TypeError(f"NeighborExchange: group must be a str, got {group!r}")
        self.recv_type, self.group = recv_type, group

    def __call__(self, input_x):
        n = find_group(self.group).size
        for name, ranks in (("send_rank_ids", self.send_rank_ids),
                            ("recv_rank_ids", self.recv_rank_ids)):
            if any(r >= n for r in ranks):
                raise ValueError(f"NeighborExchange: {name} {ranks} must be ranks of group "
                                 f"{self.group!r}, in [0, {n})")
        xs = list(input_x) if isinstance(input_x, (list, tuple)) else None
        if xs is None or len(xs) != len(self.send_rank_ids) or any(
                not isinstance(x, Tensor) or tuple(x.shape) != s or x.dtype != self.recv_type
                for x, s in zip(xs, self.send_shapes)):
            raise ValueError(f"NeighborExchange: input_x must be a tuple of "
                             f"{len(self.send_shapes)} {self.recv_type} tensors of shapes "
                             f"{self.send_shapes}, got {input_x!r}")
        send, recv = [0] * n, [0] * n
        by_rank = sorted(zip(self.send_rank_ids, xs), key=lambda p: p[0])
        for r, x in by_rank:
            send[r] = math.prod(x.shape)
        for r, s in zip(self.recv_rank_ids, self.recv_shapes):
            recv[r] = math.prod(s)
        pieces = [F.reshape(x, (-1,)) for _, x in by_rank]
        flat = F.concat(pieces) if pieces else F.zeros((0,), self.recv_type)
        got = AlltoAllV(flat, send, recv, self.group)
        offsets = [sum(recv[:r]) for r in range(n)]
        return tuple(F.reshape(got[offsets[r]:offsets[r] + recv[r]], s)
                     for r, s in zip(self.recv_rank_ids, self.recv_shapes))

    def __repr__(self) -> str:
        return (f"Prim[NeighborExchange]<send_rank_ids={self.send_rank_ids}, "
                f"recv_rank_ids={self.recv_rank_ids}>")


class BatchISendIRecv:
    """``ops.BatchISendIRecv(op_types, remote_ranks, receive_shapes, receive_dtypes,
    group)(input_x)``: ``input_x`` holds the tensors of the ``"isend"`` entries, in order;
    the result has a zero scalar at each ``"isend"`` and the received tensor at each
    ``"irecv"``. Unrecorded, every send and receive starts at once (MPI_Isend/Irecv) and
    all are waited for, so no order deadlocks; under ``grad`` or in a graph they are the
    Send/Receive operators in list order (differentiable; MPI buffers small messages, a
    large one sent before its peer's receive waits for it)."""

    def __init__(self, op_types, remote_ranks, receive_shapes=None, receive_dtypes=None,
                 group=WORLD):
        receive_shapes = list(receive_shapes or ())
        receive_dtypes = list(receive_dtypes or ())
        if not isinstance(op_types, (list, tuple)) or \
                any(t not in ("isend", "irecv") for t in op_types):
            raise TypeError(f"BatchISendIRecv: op_types must be a list of 'isend'/'irecv', "
                            f"got {op_types!r}")
        if not isinstance(remote_ranks, (list, tuple)) or len(remote_ranks) != len(op_types):
            raise ValueError("BatchISendIRecv: op_types and remote_ranks must have the same "
                             f"length, got {op_types!r} and {remote_ranks!r}")
        n_recv = list(op_types).count("irecv")
        if len(receive_shapes) != n_recv or len(receive_dtypes) != n_recv:
            raise ValueError(f"BatchISendIRecv: give one receive shape and dtype per 'irecv' "
                             f"({n_recv}), got {receive_shapes!r} and {receive_dtypes!r}")
        self.op_types, self.remote_ranks = list(op_types), list(remote_ranks)
        self.receive_shapes = _shapes("receive_shapes", receive_shapes, n_recv,
                                      "BatchISendIRecv")
        self.receive_dtypes, self.group = receive_dtypes, group

    def __call__(self, input_x):
        from ms_ops.dispatch import get_recorder
        from ms_parallel.comm_func import irecv, isend
        from ms_parallel.p2p_ops import Receive, Send

        xs = list(input_x) if isinstance(input_x, (list, tuple)) else [input_x]
        if len(xs) != self.op_types.count("isend") or \
                any(not isinstance(x, Tensor) for x in xs):
            raise ValueError(f"BatchISendIRecv: input_x must hold one tensor per 'isend' "
                             f"({self.op_types.count('isend')}), got {input_x!r}")
        sends, recvs = iter(xs), iter(zip(self.receive_shapes, self.receive_dtypes))
        out, handles = [], []
        recorded = get_recorder() is not None
        for kind, peer in zip(self.op_types, self.remote_ranks):
            if kind == "isend":
                x = next(sends)
                if recorded:
                    out.append(Send(x, 0, peer, self.group))
                else:
                    handles.append(isend(x, peer, self.group))
                    out.append(Tensor(np.zeros((), x.dtype.np)))
            else:
                shape, dtype = next(recvs)
                if recorded:
                    out.append(Receive(0, peer, list(shape), dtype, self.group))
                else:
                    t = Tensor(np.zeros(shape, dtype.np))
                    handles.append(irecv(t, peer, self.group))
                    out.append(t)
        for h in handles:
            h.wait()
        return tuple(out)
