"""jit: caching by signature, equality with eager, a traced value_and_grad step,
save_graphs. (Cells and training steps: integration_tests/test_graph_with_nn.py.)"""

import os

import ms_graph
import numpy as np
import pytest

import ms_ops as ops
from ms_autodiff import value_and_grad
from ms_tensor import Parameter, Tensor, context


def _t(*shape, seed=0):
    return Tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def test_cache_hits_and_misses():
    @ms_graph.jit(capture_mode="trace")
    def f(x, y, k):
        return ops.tanh(x) * y + k

    x, y = _t(2, 3), _t(2, 3, seed=1)
    for seed in range(3):
        x = _t(2, 3, seed=seed)
        np.testing.assert_allclose(f(x, y, 1.0).asnumpy(),
                                   (np.tanh(x.asnumpy()) * y.asnumpy() + 1.0), rtol=1e-6)
    assert (f.misses, f.hits) == (1, 2)
    f(_t(4, 3), _t(4, 3), 1.0)  # new shape
    f(x, y, 2.0)  # new Python constant
    f(x, x, 1.0)  # the same array twice is a different graph
    assert f.misses == 4
    np.testing.assert_allclose(f(y, y, 1.0).asnumpy(), np.tanh(y.asnumpy()) * y.asnumpy() + 1,
                               rtol=1e-6)
    assert f.hits == 3


def test_value_and_grad_with_fused_update_traces_into_one_graph():
    w = Parameter(_t(4, 2), name="w")
    m = Parameter(Tensor(np.zeros((4, 2), np.float32)), name="m")
    vg = value_and_grad(lambda x: (ops.matmul(x, w) ** 2).mean(), grad_position=None,
                        weights=[w])
    apply = ops.ApplyMomentum()

    def step(x):
        loss, (g,) = vg(x)
        apply(w, m, 0.05, g, 0.9)
        return loss

    g = ms_graph.trace(step, _t(3, 4))
    names = [n.name for n in g.nodes]
    assert names[0] == "MatMul" and names[-1] == "ApplyMomentum"
    assert {p.name for _, p in g.params} == {"w", "m"}


def test_compile_checks_arguments():
    c = ms_graph.compile(lambda x: x * 2, _t(2, 2))
    np.testing.assert_allclose(c(_t(2, 2, seed=4)).asnumpy(), _t(2, 2, seed=4).asnumpy() * 2)
    with pytest.raises(TypeError, match=r"compiled for \(2, 2\)"):
        c(_t(3, 2))


def test_save_graphs_writes_text_and_dot(tmp_path):
    context.set_context(save_graphs=True, save_graphs_path=str(tmp_path))
    try:
        f = ms_graph.jit(lambda x: ops.relu(x * 2 + 1).sum(), capture_mode="trace")
        f(_t(3, 3))
    finally:
        context.set_context(save_graphs=False)
    files = sorted(os.listdir(tmp_path))
    assert any(n.endswith("_00_captured.ir") for n in files)
    assert any(n.endswith("_00_captured.dot") for n in files)
    assert len([n for n in files if n.endswith(".ir")]) >= 2  # after each pass too
    text = (tmp_path / [n for n in files if n.endswith("_00_captured.ir")][0]).read_text()
    assert "Mul(" in text and "ReLU(" in text
    dot = (tmp_path / [n for n in files if n.endswith("_00_captured.dot")][0]).read_text()
    assert dot.startswith("digraph")


def test_a_jit_function_compiled_for_plain_calls_also_differentiates():
    from ms_autodiff import grad

    def f(x):
        return (ops.sin(x) * x).sum()

    compiled = ms_graph.jit(f, capture_mode="trace")
    x = _t(3, 2)
    compiled(x)  # compiled for plain calls first: under grad it gets its own graphs
    np.testing.assert_allclose(grad(compiled)(x).asnumpy(), grad(f)(x).asnumpy(), rtol=1e-6)
    assert np.abs(grad(compiled)(x).asnumpy()).sum() > 0
