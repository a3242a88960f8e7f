"""Run by test_p2p_grad.py on 2 ranks: ``grad`` through Send/Receive. Rank 0 sends
tanh(x @ w0) to rank 1, which sends tanh(r @ w1) back; the job's objective is the sum of
both ranks' outputs, and each rank's ``grad`` must equal central finite differences of
that total with respect to its own weights (every rank evaluates the total for every
probe, an allreduce of the local terms)."""

import numpy as np

from ms_autodiff import grad
from ms_parallel.management import get_group_size, get_rank, init
from ms_parallel.p2p_ops import Receive, Send
from ms_parallel.reduce_ops import AllReduce
from ms_tensor import Tensor
from ms_tensor import dtype as mstype

init()
r, n = get_rank(), get_group_size()
assert n == 2, "run on 2 ranks"
rng = np.random.default_rng(7)
x = rng.standard_normal((2, 3))
w_init = [rng.standard_normal((3, 4)), rng.standard_normal((4, 4))]
v = rng.standard_normal((2, 4))


def stage(w, uses_reply=True):
    """This rank's part of the job; its output joins the objective."""
    if r == 0:
        sent = Send((Tensor(x) @ w).tanh(), 3, 1)
        back = Receive(4, 1, [2, 4], mstype.float64)
        return ((back * Tensor(v)).sum() if uses_reply else 0.0) + sent
    got = Receive(3, 0, [2, 4], mstype.float64)
    y = (got @ w).tanh()
    return (got * y).sum() + Send(y, 4, 0)


def total(w, uses_reply=True):
    mine = float(stage(Tensor(w), uses_reply).asnumpy())
    return float(AllReduce(Tensor(np.array([mine]))).asnumpy()[0])


for uses_reply in (True, False):
    w = w_init[r]
    tape = grad(lambda t, u=uses_reply: stage(t, u))(Tensor(w)).asnumpy()
    eps = 1e-6
    for q in range(n):
        fd = np.zeros(w_init[q].shape)
        for k in range(fd.size):
            vals = []
            for sign in (1, -1):
                probe = w.copy()
                if r == q:
                    probe.reshape(-1)[k] += sign * eps
                vals.append(total(probe, uses_reply))
            fd.reshape(-1)[k] = (vals[0] - vals[1]) / (2 * eps)
        if q == r:
            np.testing.assert_allclose(tape, fd, rtol=1e-5, atol=1e-8,
                                       err_msg=f"rank {r}, uses_reply={uses_reply}")
    if r == 1 and not uses_reply:  # rank 0 ignores the reply: only rank 1's own term
        assert np.abs(tape).sum() > 0
print(f"rank {r} of {n}: p2p grad ok", flush=True)
