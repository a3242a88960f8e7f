"""``grad``/``value_and_grad`` of a jit function: compiled forward and backward graphs
whose gradients equal PyNative's."""

import numpy as np
import pytest
from ms_graph import jit
from ms_graph.split import split_forward_backward
from ms_graph.trace import trace

import ms_autodiff as ad
from ms_autodiff.tape import Tape
from ms_ops import functional as F
from ms_tensor import Parameter, Tensor

RNG = np.random.default_rng(0)
W = RNG.standard_normal((3, 2)).astype(np.float32)
X = RNG.standard_normal((4, 3)).astype(np.float32)


def assert_close(got, want):
    got, want = _flat(got), _flat(want)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-5, atol=1e-6)


def _flat(x):
    if isinstance(x, (tuple, list)):
        return [t for e in x for t in _flat(e)]
    return [x]


@pytest.fixture
def model():
    w = Parameter(Tensor(W.copy()), name="w")

    def f(x, y):
        h = F.relu(F.matmul(x, w))
        if h.sum() > 1:
            h = h * y
        else:
            h = F.exp(h)
        return (h * h).sum()

    return w, f


def test_value_and_grad_of_a_jit_function_runs_graphs_and_matches(model):
    w, f = model
    jf = jit(f)
    y = Tensor(np.float32(2.0))
    for scale in (1.0, -1.0, 1.0, 3.0):  # both branches, one signature
        x = Tensor(X * scale)
        got = ad.value_and_grad(jf, grad_position=(0, 1), weights=[w])(x, y)
        want = ad.value_and_grad(f, grad_position=(0, 1), weights=[w])(x, y)
        assert_close(got, want)
    assert (jf.misses, jf.hits) == (1, 3)


def test_grad_of_a_jit_function_with_respect_to_one_input_only(model):
    _, f = model
    jf = jit(f)
    x, y = Tensor(X), Tensor(np.float32(0.5))
    assert_close(ad.grad(jf, grad_position=1)(x, y), ad.grad(f, grad_position=1)(x, y))
    # another set of differentiated inputs is another compiled pair of graphs
    assert_close(ad.grad(jf, grad_position=0)(x, y), ad.grad(f, grad_position=0)(x, y))
    assert jf.misses == 2


def test_a_gradient_of_the_gradient_runs_the_function_as_operators(model):
    _, f = model
    jf = jit(f)
    y = Tensor(np.float32(2.0))

    def first(fn):
        return lambda t: ad.grad(fn)(t, y).sum()

    x = Tensor(X)
    assert_close(ad.grad(first(jf))(x), ad.grad(first(f))(x))


def test_the_same_tensor_at_two_positions_gets_a_gradient_each():
    jf = jit(lambda a, b: (a * b * b).sum())
    x = Tensor(np.array([1.0, 2.0], np.float32))
    ga, gb = ad.grad(jf, grad_position=(0, 1))(x, x)
    np.testing.assert_allclose(ga.asnumpy(), [1.0, 4.0])
    np.testing.assert_allclose(gb.asnumpy(), [2.0, 8.0])


def test_split_keeps_the_forward_out_of_the_backward():
    w = Parameter(Tensor(W.copy()), name="w")

    def joint(x, cot):
        with Tape() as tape:
            leaf = tape.watch(x)
            out = F.relu(F.matmul(x, w))
            root = tape.entry(out)
        (g,) = tape.backward([root], [cot], [leaf])
        return out, g

    x = Tensor(X)
    g = trace(joint, x, Tensor(np.ones((4, 2), np.float32)))
    forward, backward, n_res = split_forward_backward(g, 1, 1)
    fwd_ops = [n.name for n in forward.nodes]
    bwd_ops = [n.name for n in backward.nodes]
    assert "MatMul" in fwd_ops and "ReLU" in fwd_ops
    assert "ReLU" not in bwd_ops and bwd_ops.count("MatMul") == 1  # dx = dh @ w.T only
    assert n_res >= 1 and len(backward.inputs) == n_res + 1


def _branchy(x):
    def double(v):  # a nested closure, called under tensor-dependent control flow
        return v * 2

    if x.sum() > 0:
        return (double(x) * x).sum()
    return (x * 3).sum()


def test_jit_of_grad_compiles_the_differentiated_function():
    compiled = jit(ad.grad(_branchy))
    for data in ([1.0, 2.0], [-1.0, -2.0], [3.0, 0.5]):
        x = Tensor(np.array(data, np.float32))
        np.testing.assert_allclose(compiled(x).asnumpy(), ad.grad(_branchy)(x).asnumpy())
    assert compiled.misses >= 1 and compiled.hits >= 1


def test_grad_of_a_jit_function_with_a_tensor_while_loop_on_every_call():
    """The loop's history is a residual of the compiled forward graph: the gradient walks
    back as many iterations as the forward ran on that call (3, then 1, then 0)."""

    def f(x):
        out = x * 2
        while out.max() < 20:
            out = out * 2
        return out

    compiled = jit(f)
    for x, slope in (([1.0, 2.0], 16.0), ([5.0, 6.0], 4.0), ([30.0, 1.0], 2.0)):
        t = Tensor(np.array(x, np.float32))
        got = ad.grad(lambda v: compiled(v).sum())(t)
        want = ad.grad(lambda v: f(v).sum())(t)
        np.testing.assert_array_equal(got.asnumpy(), [slope, slope])
        np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())
