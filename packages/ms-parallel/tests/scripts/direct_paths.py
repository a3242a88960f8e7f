"""Run by test_direct.py: the eager collectives on the C path (``c``, ms_parallel.direct)
or on mpi4py (``mpi4py``, as where the C module is not built or the MPI is not MPICH's
ABI) give numpy's values for every dtype MPI reads as it is, several shapes, every op
and root, as new tensors and in place; inputs the C path declines (float16, strided,
read-only) give the same values through the general path."""

import sys

import numpy as np

from ms_parallel import comm_func, direct, groups
from ms_parallel.management import create_group, destroy_group, get_group_size, get_rank, init
from ms_parallel.reduce_ops import AllGather, AllReduce, Broadcast, ReduceScatter
from ms_tensor import Tensor

init("mpi")
r, n = get_rank(), get_group_size()
path = sys.argv[1]
if path == "mpi4py":
    direct._bound[:] = [None]
    groups.runners.clear()
else:
    assert direct.kernel() is not None, "the C module is built but was not bound"

REDUCE = {"sum": np.sum, "max": np.max, "min": np.min, "prod": np.prod}


def value(k, shape, dtype):
    rng = np.random.default_rng(10 + k)
    if np.dtype(dtype).kind in "iu":
        return rng.integers(1, 4, shape).astype(dtype)  # small: prod stays in range
    return rng.standard_normal(shape).astype(dtype)


def same(got, want, what):
    got = got.asnumpy() if isinstance(got, Tensor) else got
    assert got.dtype == want.dtype and got.shape == want.shape, \
        f"{what}: {got.dtype}{got.shape} != {want.dtype}{want.shape}"
    tol = 1e-5 if want.dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=what)


def check(dtype, shape):
    xs = [value(k, shape, dtype) for k in range(n)]
    x = Tensor(xs[r])
    what = f"{np.dtype(dtype)}{shape}"
    for op in REDUCE:
        want = REDUCE[op](np.stack(xs), axis=0).astype(dtype)
        same(AllReduce(x, op), want, f"AllReduce {op} {what}")
        same(AllReduce.primitive(op)(x), want, f"ops.AllReduce({op}) {what}")
        t = Tensor(xs[r].copy())
        assert comm_func.all_reduce(t, op) is None
        same(t, want, f"all_reduce {op} in place {what}")
    for root in range(n):
        same(Broadcast(x, root), xs[root], f"Broadcast root {root} {what}")
        t = Tensor(xs[r].copy())
        comm_func.broadcast(t, root)
        same(t, xs[root], f"broadcast root {root} in place {what}")
    if shape:
        same(AllGather(x), np.concatenate(xs), f"AllGather {what}")
        if shape[0] % n == 0:
            rows = shape[0] // n
            for op in ("sum", "max"):
                full = REDUCE[op](np.stack(xs), axis=0).astype(dtype)
                same(ReduceScatter(x, op), full[r * rows:(r + 1) * rows],
                     f"ReduceScatter {op} {what}")
    assert not np.shares_memory(AllReduce(x).asnumpy(), xs[r])
    # Results still held are never reused (a dropped one may be): each keeps its values.
    scaled = [[(v * k).astype(dtype) for v in xs] for k in (1, 2, 3)]
    held = [(AllReduce(Tensor(v[r])), AllGather(Tensor(v[r])) if shape else None,
             Broadcast(Tensor(v[r]), n - 1)) for v in scaled]
    for v, (reduced, gathered, cast) in zip(scaled, held):
        same(reduced, np.sum(np.stack(v), axis=0).astype(dtype), f"held AllReduce {what}")
        if shape:
            same(gathered, np.concatenate(v), f"held AllGather {what}")
        same(cast, v[n - 1], f"held Broadcast {what}")


for dtype in direct.DTYPES:
    for shape in [(), (0,), (2 * n,), (3 * n, 2, 2)]:
        check(dtype, shape)
check(np.float32, (1 << 19,))  # 2 MB: results from the recycler


def compiled(plan):  # a plan of the C module (an in-place one is a bound method of it)
    return type(getattr(plan, "__self__", plan)).__module__ == "ms_parallel.kernels._mpi_direct"


on_c = {key[0] for key, plan in groups.runners.items() if compiled(plan)}
want = {"AllReduce", "AllGather", "ReduceScatter", "Broadcast", "all_reduce", "broadcast"}
assert on_c == (want if path == "c" else set()), f"path {path}: C plans for {on_c}"

# A group whose ranks run in reverse world order: its own communicator and numbering.
create_group("direct_reversed", list(range(n))[::-1])
xs = [value(k, (2, 3), np.float64) for k in range(n)]
x = Tensor(xs[r])
same(AllGather(x, "direct_reversed"), np.concatenate(xs[::-1]), "AllGather, reversed group")
same(Broadcast(x, 0, "direct_reversed"), xs[n - 1], "Broadcast, reversed group")
same(AllReduce(x, "max", "direct_reversed"), np.max(np.stack(xs), 0), "AllReduce, reversed")
t = Tensor(xs[r].copy())
comm_func.broadcast(t, 0, "direct_reversed")  # src: a world rank
same(t, xs[0], "broadcast in place from world rank 0, reversed group")


# Inputs the C path declines: the general path converts them, values unchanged.
xs = [value(k, (4, 2 * n), np.float64) for k in range(n)]
total = np.sum(np.stack(xs), axis=0)
same(AllReduce(Tensor(xs[r].T)), total.T, "AllReduce of a transposed array")
halves = np.stack([v.astype(np.float16) for v in xs])  # reduced widened to float32
same(AllReduce(Tensor(halves[r])), halves.astype(np.float32).sum(0).astype(np.float16),
     "AllReduce float16")
for bad in (AllReduce, AllGather, Broadcast):  # not an operator dtype: inference says so
    try:
        bad(Tensor(xs[r].astype(np.complex64)))
        raise AssertionError(f"{bad.name} took a complex64 tensor")
    except TypeError as e:
        assert "has dtype Complex64" in str(e), e
frozen = xs[r].copy()
frozen.flags.writeable = False
t = Tensor(frozen)
comm_func.all_reduce(t)
same(t, total, "all_reduce of a read-only array")
same(AllGather(Tensor(xs[r].T)), np.concatenate([v.T for v in xs]), "AllGather, transposed")
destroy_group("direct_reversed")
assert not groups.runners  # plans never outlive their group
same(AllReduce(Tensor(xs[r])), total, "AllReduce after destroy_group")
print(f"rank {r} of {n}: {path} path ok")
