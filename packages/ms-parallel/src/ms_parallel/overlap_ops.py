"""``AllReduceStart``/``AllReduceWait``: a sum allreduce split into two graph nodes, so
that a compiled training step can start reducing a gradient bucket as soon as the
backward pass has produced it and wait only where the optimizer needs the sum
(``overlap_pass`` moves each start up; ``DistributedGradReducer`` emits the pair when
its ``overlap`` is on).

The start begins MPI_Iallreduce into a new array (from 1 MB, one that an earlier step
has dropped: ``ms_parallel.recycle``) and returns that array, whose contents are undefined
until the wait; the wait completes the request (unless a progress call already has) and
returns the same array, now the sum. The input stays referenced by the request until
then, and a compiled graph's memory plan keeps it too: it treats the start's output as a
possible view of its input, so the input's buffer is not reused while the output lives.
A dtype MPI does not reduce as it is (16-bit floats travel widened) or a non-contiguous
input is reduced at once by the start (the wait then has nothing to finish).

MPICH moves a non-blocking collective's data only inside MPI calls: ``progress()`` tests
every request in flight, and the compiled graph calls it between the backward pass's
kernels (``overlap_pass`` inserts ``CommProgress`` nodes); each start calls it too.

Gradients: the pair is AllReduce(x, "sum") split in two, so the start's rule is AllReduce's
sum rule (the cotangent summed over the ranks) and the wait's passes the cotangent on.

>>> import numpy as np
>>> from ms_tensor import Tensor
>>> AllReduceWait(AllReduceStart(Tensor(np.arange(3.0)))).asnumpy()  # one rank
array([0., 1., 2.])
"""

from __future__ import annotations

import numpy as np

from ms_ops import Arg, Attr, TensorSpec
from ms_ops.infer import check_dtype
from ms_parallel.collective_def import COMM_DTYPES, CollectiveDef, check_group
from ms_parallel.groups import WORLD
from ms_parallel.recycle import Recycler
from ms_parallel.reduce_ops import AllReduce

__all__ = ["AllReduceStart", "AllReduceWait", "progress", "in_flight"]

_pending: dict = {}  # id(result array) -> its request (which holds both arrays)
_results = Recycler()  # a step's bucket sums, reused by the next step once dropped


def progress() -> None:
    """Let MPI move the data of every allreduce in flight (MPI_Test on each)."""
    for key in [k for k, request in _pending.items() if request.test()]:
        del _pending[key]  # done: its wait has nothing left to finish


def in_flight() -> int:
    """How many started allreduces are still running (tests)."""
    return len(_pending)


def _native(dtype) -> bool:
    """Whether MPI reduces arrays of ``dtype`` as they are (16-bit floats are widened)."""
    return dtype.kind in "iuc" or (dtype.kind == "f" and dtype.itemsize > 2)


def _infer(x, group=WORLD):
    check_dtype("x", x, COMM_DTYPES)
    check_group(group)
    return TensorSpec(x.shape, x.dtype)


AllReduceStart = CollectiveDef(
    "AllReduceStart", (Arg("x"),), (Attr("group", WORLD),), infer=_infer,
    doc="Start summing x over the group's ranks; the result is valid after AllReduceWait.")


@AllReduceStart.kernel("CPU", dtypes=COMM_DTYPES)
def _start_cpu(x, group=WORLD, state=None):
    g = check_group(group)
    progress()
    if type(x) is not np.ndarray or not _native(x.dtype) or not x.flags.c_contiguous:
        return g.allreduce(x, "sum")  # widened or copied on the way: done at once
    out = _results.like(x)
    request = g.nonblocking("allreduce", x, out, op="sum")
    if not request.test():  # (one rank's is done at once)
        _pending[id(out)] = request
    return out


@AllReduceStart.bprop
def _start_bprop(x, out, dout, group=WORLD):
    return (AllReduce(dout, "sum", group),)


@AllReduceStart.samples
def _start_samples(rng):
    yield (rng.standard_normal((2, 3)),), {}
    yield (rng.standard_normal((4,)).astype(np.float32),), {}


AllReduceWait = CollectiveDef(
    "AllReduceWait", (Arg("y"),), (Attr("group", WORLD),), infer=_infer,
    doc="Finish the AllReduceStart whose result is y; returns y, now the sum.")


@AllReduceWait.kernel("CPU", dtypes=COMM_DTYPES)
def _wait_cpu(y, group=WORLD, state=None):
    request = _pending.pop(id(y), None)
    if request is not None:
        request.wait()
    return y


@AllReduceWait.bprop
def _wait_bprop(y, out, dout, group=WORLD):
    return (dout,)


@AllReduceWait.samples
def _wait_samples(rng):
    yield (rng.standard_normal((2, 3)),), {}
    yield (rng.standard_normal((4,)).astype(np.float32),), {}
