"""Gradients through Send/Receive across 2 ranks, eagerly (scripts/p2p_grad.py) and
captured in compiled graphs (scripts/p2p_graph.py), and in a one-process world, where a
rank's messages to itself carry the gradient back too."""

from pathlib import Path

import numpy as np

from ms_autodiff import grad
from ms_parallel.p2p_ops import Receive, Send
from ms_parallel.testing import run_ranks
from ms_tensor import Tensor
from ms_tensor import dtype as mstype


def test_on_two_ranks():
    done = run_ranks(2, Path(__file__).parent / "scripts" / "p2p_grad.py")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "rank 1 of 2: p2p grad ok" in done.stdout
    assert "rank 0 of 2: p2p grad ok" in done.stdout


def test_message_to_itself():
    def f(w):
        sent = Send(w * 3.0, 0, 0)
        got = Receive(0, 0, [2], mstype.float64)
        return (got * got).sum() + sent

    w = np.array([1.0, 2.0])
    np.testing.assert_allclose(grad(f)(Tensor(w)).asnumpy(), 18.0 * w)


def test_compiled_on_two_ranks():
    done = run_ranks(2, Path(__file__).parent / "scripts" / "p2p_graph.py")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "rank 0 of 2: p2p graph ok" in done.stdout
    assert "rank 1 of 2: p2p graph ok" in done.stdout


def test_compiled_message_to_itself():
    """The gradient's Receive (Send's rule) has no inputs: it must run in the backward
    graph, on every call, not once in the forward."""
    from ms_graph import jit

    def f(w):
        sent = Send(w * 3.0, 901, 0)
        return (Receive(901, 0, [2], mstype.float64) * w).sum() + sent

    compiled = jit(f)
    for scale in (1.0, 2.0, -1.0):
        w = Tensor(np.array([1.0, 2.0]) * scale)
        want = grad(f)(w).asnumpy()
        np.testing.assert_allclose(want, 6.0 * w.asnumpy())  # 3w directly, 3w via Receive
        np.testing.assert_allclose(grad(compiled)(w).asnumpy(), want)
        np.testing.assert_allclose(jit(grad(f))(w).asnumpy(), want)
