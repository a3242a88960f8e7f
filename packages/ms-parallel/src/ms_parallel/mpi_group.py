"""``MPIGroup``: a communication group over an mpi4py communicator.

Buffers go to MPI as numpy arrays (mpi4py's buffer protocol: no pickling, no copies
beyond making them contiguous). MPI has no 16-bit float type, so float16 and bfloat16
travel as float32 and come back in their own dtype. mpi4py is imported here only, when
``init()`` first needs it.
"""

from __future__ import annotations

import numpy as np

from ms_parallel.groups import Group
from ms_parallel.recycle import PAGE, Recycler, placed

__all__ = ["MPIGroup", "mpi"]

_WIDENED = {"float16", "bfloat16"}
_ndarray = np.ndarray


def mpi():
    """mpi4py's ``MPI`` module (importing it initializes MPI)."""
    from mpi4py import MPI

    return MPI


def _ops():
    MPI = mpi()
    return {"sum": MPI.SUM, "max": MPI.MAX, "min": MPI.MIN, "prod": MPI.PROD}


def _send_buf(x: np.ndarray) -> np.ndarray:
    """A C-contiguous array MPI can read, 16-bit floats widened to float32."""
    if type(x) is _ndarray and x.dtype.itemsize > 2 and x.flags.c_contiguous:
        return x  # the common case, without ``dtype.name`` (slow: microseconds)
    # np.asarray, not np.ascontiguousarray: that one makes a 0-d array 1-d
    if x.dtype.name in _WIDENED:
        return np.asarray(x, dtype=np.float32, order="C")
    if x.dtype == np.bool_:
        return np.asarray(x, dtype=np.uint8, order="C")
    return np.asarray(x, order="C")


def _back(y: np.ndarray, dtype) -> np.ndarray:
    return y if y.dtype == dtype else y.astype(dtype)


class MPIGroup(Group):
    """The ranks of ``comm``; ``world_ranks`` are their ranks in the world."""

    def __init__(self, name: str, comm, world_ranks):
        self.name = name
        self.comm = comm
        self.rank = comm.Get_rank()
        self.size = comm.Get_size()
        self.world_ranks = tuple(world_ranks)
        self._op = _ops()
        self._in_place = mpi().IN_PLACE
        self._results = Recycler()
        self._to_self: list = []  # (request, buffer) of sends to this rank not yet received

    def allreduce(self, x, op, out=None):
        """``out``: an array of x's shape and dtype to reduce into (a compiled graph's
        planned buffer, or ``x`` itself for an in-place reduction), else a new one."""
        buf = _send_buf(x)
        if out is None:  # an eager operator's new result: receive straight into it
            result = self._results.like(buf)
            self.comm.Allreduce(buf, result, self._op[op])
            return result if result.dtype == x.dtype else result.astype(x.dtype)
        if out.dtype == buf.dtype and out.flags.c_contiguous:
            self.comm.Allreduce(self._in_place if out is buf else buf, out, op=self._op[op])
            return out
        result = np.empty_like(buf)
        self.comm.Allreduce(buf, result, op=self._op[op])
        out[...] = _back(result, x.dtype)
        return out

    def allreduce_runner(self, op):
        allreduce, mpi_op, results = self.comm.Allreduce, self._op[op], self._results
        empty, min_bytes = np.empty, results.min_bytes

        def run(x):
            out = empty(x.shape, x.dtype) if x.nbytes < min_bytes else results.like(x)
            allreduce(x, out, mpi_op)
            return out

        return run

    def direct_plan(self, kind, op="sum", root=0):
        """The C path's ``kind`` plan (``"AllReduce"``, ``"AllGather"``,
        ``"ReduceScatter"``, ``"Broadcast"``) over this group: ``plan(t)`` takes a Tensor
        and gives a new one or NotImplemented; None where that path is not available
        (ms_parallel.direct)."""
        from ms_parallel.direct import handle, kernel
        from ms_tensor import Tensor
        from ms_tensor.tensor import wrap

        k = kernel()
        if k is None:
            return None
        results = self._results
        return getattr(k, kind)(handle(self.comm), self.size, self.rank, Tensor, wrap,
                                op=handle(self._op[op]), root=root, recycle=results.like,
                                recycle_bytes=results.min_bytes)

    def iallreduce(self, x, op, in_place=False):
        """Start an allreduce; ``.wait()`` on the result returns the reduced array.
        ``in_place``: ``x`` is the caller's scratch buffer, reduced where it lies when MPI
        reads it as it is (MPI_IN_PLACE: no result array, and less memory traffic)."""
        buf = _send_buf(x)
        return _Pending(self.comm, buf, self._op[op], x.dtype,
                        self._in_place if in_place and buf is x else None)

    def allgather(self, x):
        buf = _send_buf(x)
        out = np.empty((self.size * buf.shape[0],) + buf.shape[1:], buf.dtype)
        self.comm.Allgather(buf, out)
        return _back(out, x.dtype)

    def reduce_scatter(self, x, op):
        buf = _send_buf(x)
        out = np.empty((buf.shape[0] // self.size,) + buf.shape[1:], buf.dtype)
        self.comm.Reduce_scatter_block(buf, out, op=self._op[op])
        return _back(out, x.dtype)

    def broadcast(self, x, root):
        buf = np.array(_send_buf(x), copy=True)
        self.comm.Bcast(buf, root=root)
        return _back(buf, x.dtype)

    def alltoall(self, x):
        """Block ``k`` of ``x`` (split along axis 0) goes to rank ``k``; the result holds
        the blocks received, in rank order."""
        buf = _send_buf(x)
        out = np.empty_like(buf)
        self.comm.Alltoall(buf, out)
        return _back(out, x.dtype)

    def alltoallv(self, x, send_counts, recv_counts):
        """Uneven all-to-all of a flat ``x``: the next ``send_counts[k]`` elements go to
        rank ``k``; the result joins the ``recv_counts[k]`` elements from each rank ``k``."""
        buf = _send_buf(x)
        out = np.empty(sum(recv_counts), buf.dtype)
        self.comm.Alltoallv([buf, (send_counts, _offsets(send_counts))],
                            [out, (recv_counts, _offsets(recv_counts))])
        return _back(out, x.dtype)

    def reduce(self, x, op, root):
        """The reduction on ``root``; other ranks get an unspecified array of shape (1,)
        (MindSpore's Reduce returns such a placeholder there)."""
        buf = _send_buf(x)
        out = np.empty_like(buf) if self.rank == root else np.zeros(1, buf.dtype)
        self.comm.Reduce(buf, out if self.rank == root else None, op=self._op[op], root=root)
        return _back(out, x.dtype)

    def gather(self, x, root):
        """Every rank's x joined along axis 0 on ``root`` (a zero of shape (1,) elsewhere)."""
        buf = _send_buf(x)
        if self.rank != root:
            self.comm.Gather(buf, None, root=root)
            return np.zeros(1, x.dtype)
        out = np.empty((self.size * buf.shape[0],) + buf.shape[1:], buf.dtype)
        self.comm.Gather(buf, out, root=root)
        return _back(out, x.dtype)

    def scatter(self, x, root):
        """Block k (of axis 0) of root's x, on rank k."""
        buf = _send_buf(x)
        out = np.empty((buf.shape[0] // self.size,) + buf.shape[1:], buf.dtype)
        self.comm.Scatter(buf if self.rank == root else None, out, root=root)
        return _back(out, x.dtype)

    def allgatherv(self, x, counts):
        """Every rank's flat x (rank k's has counts[k] elements), joined in rank order."""
        buf = _send_buf(x)
        out = np.empty(sum(counts), buf.dtype)
        self.comm.Allgatherv(buf, [out, (list(counts), _offsets(counts))])
        return _back(out, x.dtype)

    def reduce_scatterv(self, x, counts, op):
        """The reduction of every rank's flat x; rank k keeps its counts[k] elements."""
        buf = _send_buf(x)
        out = np.empty(counts[self.rank], buf.dtype)
        self.comm.Reduce_scatter(buf, out, list(counts), op=self._op[op])
        return _back(out, x.dtype)

    def nonblocking(self, kind, x, out, op="sum", root=0, peer=0, tag=0, counts=None):
        """Start ``kind`` on MPI-native C-contiguous arrays, writing into ``out``: a request
        whose ``wait()`` returns ``out``. ``allreduce`` with ``out is x`` reduces in place;
        ``broadcast`` sends (root) or receives into ``out``; ``alltoallv`` takes
        ``counts=(send, recv)``; ``send``/``recv`` talk to ``peer``."""
        c = self.comm
        if kind == "allreduce":
            req = c.Iallreduce(self._in_place if out is x else x, out, op=self._op[op])
        elif kind == "allgather":
            req = c.Iallgather(x, out)
        elif kind == "reduce_scatter":
            req = c.Ireduce_scatter_block(x, out, op=self._op[op])
        elif kind == "broadcast":
            req = c.Ibcast(out, root=root)
        elif kind == "alltoallv":
            send, recv = counts
            req = c.Ialltoallv([x, (send, _offsets(send))], [out, (recv, _offsets(recv))])
        elif kind == "barrier":
            req = c.Ibarrier()
        elif kind == "send":
            req = c.Isend(x, dest=peer, tag=tag)
        elif kind == "recv":
            req = c.Irecv(out, source=peer, tag=tag)
        else:
            raise ValueError(f"unknown non-blocking collective {kind!r}")
        return _Request(req, out, x)

    def send(self, x, dest, tag):
        buf = _send_buf(x)
        if dest == self.rank:  # MPI may not buffer a blocking send to oneself: it would wait
            self._to_self.append((self.comm.Isend(buf, dest=dest, tag=tag), buf))
            return
        self.comm.Send(buf, dest=dest, tag=tag)

    def recv(self, shape, dtype, src, tag):
        dtype = np.dtype(dtype)
        wire = np.float32 if dtype.name in _WIDENED else np.uint8 if dtype == np.bool_ \
            else dtype
        out = np.empty(shape, wire)
        self.comm.Recv(out, source=src, tag=tag)
        self._to_self = [(r, b) for r, b in self._to_self if not r.Test()]
        return _back(out, dtype)

    def barrier(self):
        self.comm.Barrier()

    def free(self):
        self._results.clear()
        if self.comm != mpi().COMM_WORLD:
            self.comm.Free()


def _offsets(counts):
    return [sum(counts[:k]) for k in range(len(counts))]


class _Request:
    """A non-blocking call in flight; it holds its buffers, which MPI uses until then."""

    def __init__(self, request, out, source):
        self.request = request
        self.out = out
        self.source = source

    def test(self) -> bool:
        return self.request.Test()

    def wait(self):
        self.request.Wait()
        return self.out


class _Pending:
    """An allreduce in flight (MPI_Iallreduce)."""

    def __init__(self, comm, buf, op, dtype, in_place=None):
        self.out = buf if in_place is not None else \
            placed(buf.shape, buf.dtype, buf) if buf.nbytes >= PAGE else np.empty_like(buf)
        self.buf = buf  # MPI reads it until the request completes: keep it alive
        self.dtype = dtype
        self.request = comm.Iallreduce(buf if in_place is None else in_place, self.out, op=op)

    def test(self) -> bool:
        """Whether it has finished; the call itself lets MPI move the data along."""
        return self.request.Test()

    def wait(self):
        self.request.Wait()
        return _back(self.out, self.dtype)
