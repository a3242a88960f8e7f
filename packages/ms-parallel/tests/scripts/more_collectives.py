"""Run by test_more_collectives.py on 1, 2 and 4 ranks: MindSpore 2.10's other
communication operators (Reduce, CollectiveGather, CollectiveScatter, AllGatherV,
ReduceScatterV, AlltoAllVC, Barrier) against numpy, their gradients against finite
differences of the job's objective and inside a compiled graph; then the torch-style
functions (lists, rooted, uneven, objects, process groups, batched p2p). A failed check
raises, which fails the job naming this rank."""

import numpy as np
from ms_graph import jit

from ms_autodiff import grad
from ms_parallel import dist_func as D
from ms_parallel import object_collectives as O
from ms_parallel import process_group as P
from ms_parallel.management import get_group_size, get_rank, init
from ms_parallel.neighbor import BatchISendIRecv, NeighborExchange
from ms_parallel.reduce_ops import AllReduce
from ms_parallel.rooted_ops import Barrier, CollectiveGather, CollectiveScatter, Reduce
from ms_parallel.uneven_ops import AllGatherV, AlltoAllVC, ReduceScatterV
from ms_tensor import Tensor
from ms_tensor import dtype as mstype

P.init_process_group()
init()
r, n = get_rank(), get_group_size()
last = n - 1


def value(k, shape):
    return np.random.default_rng(100 + k).standard_normal(shape)


def close(got, want, what, tol=1e-12):
    got = got.asnumpy() if isinstance(got, Tensor) else np.asarray(got)
    assert got.shape == np.shape(want), f"{what}: shape {got.shape} != {np.shape(want)}"
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol, err_msg=f"rank {r}: {what}")


xs = [value(k, (2, 3)) for k in range(n)]
counts = [k + 1 for k in range(n)]                      # rank k's AllGatherV block
flat = [value(50 + k, (counts[k],)) for k in range(n)]
matrix = [(i + j) % 3 for i in range(n) for j in range(n)]  # rank i sends matrix[i*n+j] to j
a2a = [value(70 + i, (sum(matrix[i * n:(i + 1) * n]),)) for i in range(n)]
vlen = sum(counts)
vin = [value(90 + k, (vlen,)) for k in range(n)]


def a2a_want(i):
    """What rank i receives: from each rank j, its block for i."""
    parts = []
    for j in range(n):
        start = sum(matrix[j * n:j * n + i])
        parts.append(a2a[j][start:start + matrix[j * n + i]])
    return np.concatenate(parts)


# -- values against numpy ------------------------------------------------------------
for op, fn in (("sum", np.sum), ("max", np.max), ("prod", np.prod)):
    got = Reduce(Tensor(xs[r]), last, op)
    close(got, fn(np.stack(xs), axis=0) if r == last else np.zeros(1), f"Reduce {op}")
got = CollectiveGather(Tensor(xs[r]), 0)
close(got, np.concatenate(xs) if r == 0 else np.zeros(1), "CollectiveGather")
big = [value(30 + k, (2 * n, 3)) for k in range(n)]
close(CollectiveScatter(Tensor(big[r]), last), big[last][2 * r:2 * r + 2], "CollectiveScatter")
close(AllGatherV(Tensor(flat[r]), counts), np.concatenate(flat), "AllGatherV")
offs = np.cumsum([0] + counts)
for op, fn in (("sum", np.sum), ("max", np.max), ("min", np.min)):
    close(ReduceScatterV(Tensor(vin[r]), counts, op),
          fn(np.stack(vin), axis=0)[offs[r]:offs[r + 1]], f"ReduceScatterV {op}")
close(AlltoAllVC(Tensor(a2a[r]), matrix), a2a_want(r), "AlltoAllVC")
close(Barrier(), np.zeros(1, np.float32), "Barrier")
# NeighborExchange: send to the right and left neighbours, a (2, sender+1) block each
nbrs = list(dict.fromkeys([(r + 1) % n, (r - 1) % n]))


def exchange(rank_ids, x=None):
    """The NeighborExchange of this rank (``x``, else its own values, to each neighbour)."""
    ex = NeighborExchange(rank_ids, rank_ids, [[2, k + 1] for k in rank_ids],
                          [[2, r + 1]] * len(rank_ids), mstype.float64)
    return ex(tuple(x if x is not None else Tensor(value(200 + 10 * r + j, (2, r + 1)))
                    for j in rank_ids))


for k, got in zip(nbrs, exchange(nbrs)):
    close(got, value(200 + 10 * k + r, (2, k + 1)), f"NeighborExchange from {k}")

if n > 1:  # a ring: send right, receive from the left, eagerly and compiled
    right, left = (r + 1) % n, (r - 1) % n
    ring = BatchISendIRecv(("isend", "irecv"), [right, left], [(3,)], (mstype.float64,))

    def ring_fn(t):
        return ring(t)

    for run in (ring, jit(ring_fn)):
        sent, got = run((Tensor(value(300 + r, (3,))),))
        close(sent, 0.0, "BatchISendIRecv's isend placeholder")
        close(got, value(300 + left, (3,)), "BatchISendIRecv ring")

# -- gradients against finite differences ---------------------------------------------
CASES = [  # (name, op, every rank's input: each rank probes rank q's elements in turn)
    ("Reduce sum", lambda x: Reduce(x, last, "sum"), xs),
    ("Reduce max", lambda x: Reduce(x, last, "max"), xs),
    ("CollectiveGather", lambda x: CollectiveGather(x, 0), xs),
    ("CollectiveScatter", lambda x: CollectiveScatter(x, last), big),
    ("AllGatherV", lambda x: AllGatherV(x, counts), flat),
    ("ReduceScatterV sum", lambda x: ReduceScatterV(x, counts, "sum"), vin),
    ("ReduceScatterV min", lambda x: ReduceScatterV(x, counts, "min"), vin),
    ("AlltoAllVC", lambda x: AlltoAllVC(x, matrix), a2a),
    ("NeighborExchange", lambda x: exchange(nbrs, x)[-1], [value(k, (2, k + 1))
                                                          for k in range(n)]),
]
eps = 1e-6
for name, f, every in CASES:
    x = every[r]
    w = Tensor(value(1000 + r, f(Tensor(x)).shape))

    def local(t, f=f, w=w):
        return (f(t) * w).sum()

    tape = grad(local)(Tensor(x)).asnumpy()
    compiled = grad(jit(local))(Tensor(x)).asnumpy()
    for q in range(n):
        fd = np.zeros(every[q].shape)
        for k in range(fd.size):
            vals = []
            for sign in (1, -1):
                probe = x.copy()
                if r == q:
                    probe.reshape(-1)[k] += sign * eps
                mine = float(local(Tensor(probe)).asnumpy())
                vals.append(float(AllReduce(Tensor(np.array([mine]))).asnumpy()[0]))
            fd.reshape(-1)[k] = (vals[0] - vals[1]) / (2 * eps)
        if q == r:
            close(tape, fd, f"gradient of {name}", tol=1e-5)
            close(compiled, tape, f"gradient of {name}, compiled", tol=1e-12)

# -- the torch-style functions ---------------------------------------------------------
outs = [Tensor(np.zeros((2, 3))) for _ in range(n)]
assert D.all_gather(outs, Tensor(xs[r])) is None
for k in range(n):
    close(outs[k], xs[k], f"all_gather [{k}]")
ins = [Tensor(value(10 * k + r, (3,))) for k in range(n)]  # rank r's input for rank k
out = Tensor(np.zeros(3))
D.reduce_scatter(out, ins, "avg")
close(out, np.mean([value(10 * r + j, (3,)) for j in range(n)], axis=0), "reduce_scatter avg")
outs = [Tensor(np.zeros(3)) for _ in range(n)]
assert D.all_to_all(outs, ins, async_op=True).is_completed()
for k in range(n):
    close(outs[k], value(10 * r + k, (3,)), f"all_to_all [{k}]")
t = Tensor(xs[r].copy())
D.reduce(t, last, "max")
close(t, np.max(np.stack(xs), axis=0) if r == last else xs[r], "reduce max")
out = Tensor(np.zeros((2 * n, 3)))
D.gather_into_tensor(out, Tensor(xs[r]), dst=0)
close(out, np.concatenate(xs) if r == 0 else np.zeros((2 * n, 3)), "gather_into_tensor")
out = Tensor(np.zeros((2, 3)))
D.scatter_tensor(out, Tensor(big[r]), src=last)
close(out, big[last][2 * r:2 * r + 2], "scatter_tensor")
rows = [value(40 + k, (counts[k], 2)) for k in range(n)]
out = Tensor(np.zeros((vlen, 2)))
D.all_gather_into_tensor_uneven(out, Tensor(rows[r]), counts)
close(out, np.concatenate(rows), "all_gather_into_tensor_uneven")
full = [value(60 + k, (vlen, 2)) for k in range(n)]
out = Tensor(np.zeros((counts[r], 2)))
D.reduce_scatter_tensor_uneven(out, Tensor(full[r]), counts, "sum")
close(out, np.sum(np.stack(full), axis=0)[offs[r]:offs[r + 1]], "reduce_scatter_tensor_uneven")
out = Tensor(np.zeros(a2a_want(r).shape))
D.all_to_all_v_c(out, Tensor(a2a[r]), matrix)
close(out, a2a_want(r), "all_to_all_v_c")
close(D.comm_reduce(Tensor(xs[r]), 0), np.sum(np.stack(xs), axis=0) if r == 0 else
      np.zeros(1), "comm_func.reduce")
if n > 1:  # a ring through batch_isend_irecv: everyone sends right, receives from left
    got = Tensor(np.zeros(4))
    ops = [D.P2POp("isend", Tensor(value(r, (4,))), (r + 1) % n),
           D.P2POp(D.irecv, got, (r - 1) % n)]
    [handle] = D.batch_isend_irecv(ops)
    handle.wait()
    close(got, value((r - 1) % n, (4,)), "batch_isend_irecv ring")

objs = [None] * n
O.all_gather_object(objs, {"rank": r, "sq": [r * r]})
assert objs == [{"rank": k, "sq": [k * k]} for k in range(n)], objs
gathered = [None] * n if r == 0 else None
O.gather_object(("g", r), gathered, dst=0)
assert r != 0 or gathered == [("g", k) for k in range(n)], gathered
lst = ["from", last] if r == last else [None, None]
O.broadcast_object_list(lst, src=last)
assert lst == ["from", last], lst
mine = [None]
O.scatter_object_list(mine, [f"to {k}" for k in range(n)] if r == 0 else None, src=0)
assert mine == [f"to {r}"], mine
if n > 1:
    if r == 0:
        O.send_object_list([{"a": 1}, "b"], dst=1)
    elif r == 1:
        box = [None, None]
        assert O.recv_object_list(box, src=0) == 0
        assert box == [{"a": 1}, "b"], box

assert P.get_process_group_ranks() == list(range(n))
if n >= 2:
    members = [0, last]
    if r in members:
        name = P.new_group([last, 0])
        assert name.startswith("hccl_2_") and P.get_process_group_ranks(name) == members
        assert P.get_global_rank(name, 1) == last and P.get_group_rank(name, last) == 1
        t = Tensor(np.array([float(r)]))
        D.reduce(t, last, group=name)  # dst is a world rank
        close(t, [float(last)] if r == last else [float(r)], "reduce in a new group")
        P.destroy_process_group(name)
print(f"rank {r} of {n}: more collectives ok", flush=True)
