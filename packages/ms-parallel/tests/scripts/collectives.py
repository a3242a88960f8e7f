"""Run by test_collectives.py on 1, 2 and 4 ranks: every collective against numpy, its
gradient against finite differences of the job's total objective, and inside a compiled
graph. Any failed check raises, which fails the job with this rank's error."""

import numpy as np
from ms_graph import jit

from ms_autodiff import grad
from ms_parallel import comm_func
from ms_parallel.management import get_group_size, get_rank, init
from ms_parallel.p2p_ops import AlltoAll, AlltoAllV, Receive, Send
from ms_parallel.reduce_ops import AllGather, AllReduce, Broadcast, ReduceScatter
from ms_tensor import Tensor
from ms_tensor import dtype as mstype

init("mpi")
r, n = get_rank(), get_group_size()


def value(k, shape, dtype=np.float64):
    """Rank k's input: every rank can compute every rank's, to build the expectation."""
    return np.random.default_rng(100 + k).standard_normal(shape).astype(dtype)


def every(shape, dtype=np.float64):
    return [value(k, shape, dtype) for k in range(n)]


def close(got, want, what, tol=1e-12):
    got = got.asnumpy() if isinstance(got, Tensor) else np.asarray(got)
    assert got.shape == np.shape(want), f"{what}: shape {got.shape} != {np.shape(want)}"
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=what)


# -- values against numpy ------------------------------------------------------------
xs = every((3, 2))
reduce_np = {"sum": np.sum, "max": np.max, "min": np.min, "prod": np.prod}
for op, fn in reduce_np.items():
    close(AllReduce(Tensor(xs[r]), op), fn(np.stack(xs), axis=0), f"AllReduce {op}")
    close(AllReduce.primitive(op)(Tensor(xs[r])), fn(np.stack(xs), axis=0),
          f"ops.AllReduce({op!r})")
for dt, tol in ((np.float32, 1e-6), (np.int32, 0), (np.float16, 1e-2)):
    ys = [np.round(v * 10).astype(dt) for v in every((5,))]
    out = AllReduce(Tensor(ys[r]))
    assert out.asnumpy().dtype == dt, f"AllReduce keeps {dt}, got {out.asnumpy().dtype}"
    close(out, np.sum(np.stack(ys), axis=0, dtype=np.float64).astype(dt), f"sum {dt}", tol)
close(AllGather(Tensor(xs[r])), np.concatenate(xs), "AllGather")
big = every((2 * n, 3))
for op, fn in reduce_np.items():
    want = fn(np.stack(big), axis=0)[2 * r:2 * r + 2]
    close(ReduceScatter(Tensor(big[r]), op), want, f"ReduceScatter {op}")
close(Broadcast(Tensor(xs[r]), n - 1), xs[n - 1], "Broadcast")
a2a = every((2, 2 * n))  # split along axis 1 into n blocks, join along axis 0
want = np.concatenate([np.split(a2a[k], n, axis=1)[r] for k in range(n)], axis=0)
close(AlltoAll(Tensor(a2a[r]), n, 1, 0), want, "AlltoAll")
# a ring of messages: even ranks send first, so no rank waits on another's send
right, left = (r + 1) % n, (r - 1) % n
if n > 1:
    msg = Tensor(value(r, (4,), np.float32))
    if r % 2 == 0:
        Send(msg, 7, right)
        got = Receive(7, left, [4], mstype.float32)
    else:
        got = Receive(7, left, [4], mstype.float32)
        Send(msg, 7, right)
    close(got, value(left, (4,), np.float32), "Send/Receive ring")

t = Tensor(xs[r].copy())
comm_func.all_reduce(t, "avg")
close(t, np.mean(np.stack(xs), axis=0), "ops.communication.all_reduce avg")

# -- gradients against finite differences ---------------------------------------------
# The job's objective is the sum over ranks of sum(w_r * op(x_r)); its derivative by
# rank q's x is what grad gives on rank q. Finite differences: perturb one element on
# one rank, and every rank evaluates the total (an allreduce of the local terms).
CASES = [
    ("AllReduce sum", lambda x: AllReduce(x, "sum"), (3, 2)),
    ("AllReduce max", lambda x: AllReduce(x, "max"), (3, 2)),
    ("AllReduce prod", lambda x: AllReduce(x, "prod"), (3, 2)),
    ("AllGather", lambda x: AllGather(x), (2, 2)),
    ("ReduceScatter sum", lambda x: ReduceScatter(x, "sum"), (n, 2)),
    ("ReduceScatter min", lambda x: ReduceScatter(x, "min"), (n, 2)),
    ("Broadcast", lambda x: Broadcast(x, n - 1), (2, 2)),
    ("AlltoAll", lambda x: AlltoAll(x, n, 0, 1), (n, 2)),
    ("AlltoAllV", lambda x: AlltoAllV(x, [2] * n, [2] * n), (2 * n,)),
]
eps = 1e-6
for name, f, shape in CASES:
    x = value(r, shape)
    out_shape = f(Tensor(x)).shape
    w = Tensor(value(1000 + r, out_shape))

    def local(t, f=f, w=w):
        return (f(t) * w).sum()

    tape = grad(local)(Tensor(x)).asnumpy()
    for q in range(n):
        fd = np.zeros(shape)
        for k in range(x.size):
            vals = []
            for sign in (1, -1):
                probe = x.copy()
                if r == q:
                    probe.reshape(-1)[k] += sign * eps
                total = AllReduce(Tensor(np.array([float(local(Tensor(probe)).asnumpy())])))
                vals.append(float(total.asnumpy()[0]))
            fd.reshape(-1)[k] = (vals[0] - vals[1]) / (2 * eps)
        if q == r:
            close(tape, fd, f"gradient of {name} on rank {r}", tol=1e-5)

# -- inside a compiled graph ------------------------------------------------------------


@jit
def step(x, y):
    return AllReduce(x * 2.0, "sum") + AllGather(y).sum()


x, y = Tensor(xs[r]), Tensor(value(r, (2,)))
want = 2 * np.sum(np.stack(xs), axis=0) + sum(value(k, (2,)).sum() for k in range(n))
for scale in (1.0, 3.0):  # the compiled graph runs the collectives again on every call
    close(step(x * scale, y * scale), want * scale, "jit AllReduce + AllGather")
w = Tensor(value(1000 + r, (3, 2)))


def objective(x):
    return (AllReduce(x, "sum") * w).sum()


@jit
def in_graph(x):
    return grad(objective)(x)


want = np.sum([value(1000 + k, (3, 2)) for k in range(n)], axis=0)
close(grad(jit(objective))(x), want, "grad of a compiled AllReduce")
close(in_graph(x), want, "grad inside a compiled graph")
print(f"rank {r} of {n}: collectives ok", flush=True)
