"""Run by test_async_comm.py on 2 ranks: ``async_op=True`` returns before the other
ranks have joined (a blocking call would wait for ever here: rank 1 joins only after
rank 0 has returned), ``wait()`` completes it; uneven ``all_to_all_single`` against numpy,
eagerly, in the background and under ``grad``."""

import numpy as np

from ms_autodiff import grad
from ms_parallel import comm_func as cf
from ms_parallel.groups import group
from ms_parallel.management import get_group_size, get_rank, init
from ms_tensor import Tensor

init()
r, n = get_rank(), get_group_size()
comm = group().comm
token = np.zeros(1)

# -- truly asynchronous: rank 0's call returns while rank 1 has not started its own
x = np.arange(6.0).reshape(2, 3) + 10 * r
t = Tensor(x.copy())
if r == 0:
    handle = cf.all_reduce(t, async_op=True)
    assert not handle.is_completed(), "all_reduce finished without rank 1"
    comm.Send(token, dest=1)  # now rank 1 may start
    handle.wait()
else:
    comm.Recv(token, source=0)
    cf.all_reduce(t, async_op=True).wait()
np.testing.assert_allclose(t.asnumpy(), 2 * np.arange(6.0).reshape(2, 3) + 10)

got = Tensor(np.zeros(3))
if r == 0:
    h = cf.irecv(got, src=1, tag=5)  # posted before rank 1 sends anything
    assert not h.is_completed()
    comm.Send(token, dest=1)
    h.wait()
    np.testing.assert_allclose(got.asnumpy(), [1.0, 2.0, 3.0])
else:
    comm.Recv(token, source=0)
    cf.isend(Tensor(np.array([1.0, 2.0, 3.0])), dst=0, tag=5).wait()

out = Tensor(np.zeros((4, 3)))
handles = [cf.all_gather_into_tensor(out, Tensor(x), async_op=True),
           cf.barrier(async_op=True)]
b = Tensor(np.full(2, float(r)))
handles.append(cf.broadcast(b, 1, async_op=True))
for h in handles:
    h.wait()
np.testing.assert_allclose(out.asnumpy(), np.concatenate([np.arange(6.0).reshape(2, 3),
                                                          np.arange(6.0).reshape(2, 3) + 10]))
np.testing.assert_allclose(b.asnumpy(), [1.0, 1.0])
summed, h = cf.comm_all_reduce(Tensor(x), async_op=True)
h.wait()
np.testing.assert_allclose(summed.asnumpy(), 2 * np.arange(6.0).reshape(2, 3) + 10)

# -- uneven all_to_all_single: rank k sends k + j + 1 rows of width 2 to rank j


def rows(src, dst):
    """The rows rank src sends to rank dst (their values name both)."""
    return np.array([[100 * src + 10 * dst + i, -i] for i in range(src + dst + 1)], float)


send = [r + j + 1 for j in range(n)]
inp = np.concatenate([rows(r, j) for j in range(n)])
want = np.concatenate([rows(j, r) for j in range(n)])
for async_op in (False, True):
    out = Tensor(np.zeros(want.shape))
    h = cf.all_to_all_single(out, Tensor(inp), send, send, async_op=async_op)
    if async_op:
        h.wait()
    np.testing.assert_array_equal(out.asnumpy(), want)
res, _ = cf.all_to_all_single_with_output_shape(want.shape, Tensor(inp), send, send)
np.testing.assert_array_equal(res.asnumpy(), want)
outs, _ = cf.all_to_all_with_output_shape([rows(j, r).shape for j in range(n)],
                                          [Tensor(rows(r, j)) for j in range(n)])
for j in range(n):
    np.testing.assert_array_equal(outs[j].asnumpy(), rows(j, r))

# under grad (the AlltoAllV operator): d/dx of the job's sum_k sum(w_k * out_k) on this
# rank is w of the ranks the rows went to, at the rows they landed in
w = [np.random.default_rng(k).standard_normal((sum(i + k + 1 for i in range(n)), 2))
     for k in range(n)]


def objective(t):
    res, _ = cf.all_to_all_single_with_output_shape(want.shape, t, send, send)
    return (res * Tensor(w[r])).sum()


g = grad(objective)(Tensor(inp)).asnumpy()
expect = np.concatenate([
    np.split(w[j], np.cumsum([k + j + 1 for k in range(n)])[:-1])[r] for j in range(n)])
np.testing.assert_allclose(g, expect)
try:
    cf.all_to_all_single(Tensor(np.zeros((3, 2))), Tensor(inp), [1, 1], send)
except ValueError as e:
    assert "output_split_sizes [1, 1] adds up to 2, but axis 0 has size 3" in str(e), e
else:
    raise AssertionError("bad output_split_sizes accepted")
print(f"rank {r} of {n}: async ok", flush=True)
