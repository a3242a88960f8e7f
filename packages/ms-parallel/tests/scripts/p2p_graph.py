"""Run by test_p2p_grad.py on 2 ranks: Send/Receive captured in compiled graphs. A
two-stage pipeline (rank 0's Cell sends tanh(x @ w0) to rank 1, whose Cell sends
tanh(r @ w1) back) runs in GRAPH_MODE and under ``jit``, forward and backward; each
call must equal the PyNative run, on new inputs too (the graph replays its exchanges),
and the compiled gradient must equal finite differences of the job's objective (the sum
of both ranks' outputs)."""

import numpy as np
from ms_graph import jit

from ms_autodiff import grad
from ms_nn import Cell
from ms_parallel.management import get_group_size, get_rank, init
from ms_parallel.p2p_ops import Receive, Send
from ms_parallel.reduce_ops import AllReduce
from ms_tensor import Parameter, Tensor
from ms_tensor import dtype as mstype
from ms_tensor.context import GRAPH_MODE, PYNATIVE_MODE, set_context

init()
r, n = get_rank(), get_group_size()
assert n == 2, "run on 2 ranks"
rng = np.random.default_rng(11)
w_init = [rng.standard_normal((3, 4)), rng.standard_normal((4, 4))]
v = Tensor(rng.standard_normal((2, 4)))


class Stage(Cell):
    """This rank's part of the pipeline; its output joins the job's objective."""

    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(w_init[r].copy()), name="w")

    def construct(self, x):
        if r == 0:
            sent = Send((x @ self.w).tanh(), 3, 1)
            back = Receive(4, 1, [2, 4], mstype.float64)
            return (back * v).sum() + sent
        got = Receive(3, 0, [2, 4], mstype.float64)
        y = (got @ self.w).tanh()
        return (got * y).sum() + Send(y, 4, 0)


def close(got, want, what):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-10, atol=1e-12,
                               err_msg=f"rank {r}: {what}")


net = Stage()
inputs = [Tensor(np.random.default_rng(k).standard_normal((2, 3))) for k in range(3)]
wgrad = grad(net, None, net.trainable_params())
# PyNative first: the reference values, outputs and weight gradients
want = [(net(x).asnumpy(), wgrad(x)[0].asnumpy()) for x in inputs]

set_context(mode=GRAPH_MODE)
in_graph = jit(grad(lambda x: net(x), None, net.trainable_params()))  # backward too
for k, x in enumerate(inputs):
    close(net(x).asnumpy(), want[k][0], f"GRAPH_MODE forward, input {k}")
    close(wgrad(x)[0].asnumpy(), want[k][1], f"grad of the GRAPH_MODE cell, input {k}")
    close(in_graph(x)[0].asnumpy(), want[k][1], f"jit(grad(cell)), input {k}")
set_context(mode=PYNATIVE_MODE)


def total(w):
    """The job's objective with this rank's weight set to ``w`` (every rank calls it)."""
    net.w.set_data(Tensor(w))
    mine = float(net(inputs[0]).asnumpy())
    return float(AllReduce(Tensor(np.array([mine]))).asnumpy()[0])


eps = 1e-6
for q in range(n):  # rank q's weights are probed while the other rank's stay put
    fd = np.zeros(w_init[q].shape)
    for k in range(fd.size):
        vals = []
        for sign in (1, -1):
            probe = w_init[r].copy()
            if r == q:
                probe.reshape(-1)[k] += sign * eps
            vals.append(total(probe))
        fd.reshape(-1)[k] = (vals[0] - vals[1]) / (2 * eps)
    if q == r:
        np.testing.assert_allclose(want[0][1], fd, rtol=1e-5, atol=1e-8,
                                   err_msg=f"rank {r}: compiled gradient vs finite "
                                           "differences")
print(f"rank {r} of {n}: p2p graph ok", flush=True)
