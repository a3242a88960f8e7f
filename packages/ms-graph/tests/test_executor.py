"""The executor: results equal eager, dead values are freed, in-place updates reach the
Parameters."""

import ms_graph
import numpy as np
from ms_graph.executor import Executable

import ms_ops as ops
from ms_tensor import Parameter, Tensor


def _t(*shape, seed=0, dtype=np.float32):
    return Tensor(np.random.default_rng(seed).standard_normal(shape).astype(dtype))


def test_equals_eager_on_new_inputs_with_promotion():
    def f(x, n):
        y = ops.exp(x) * n + 1  # int32 n promotes to float32
        return ops.softmax(y, -1), ops.argmax(y, -1)

    x, n = _t(3, 5), Tensor(np.arange(5, dtype=np.int32))
    ex = Executable(ms_graph.trace(f, x, n))
    x2 = _t(3, 5, seed=9)
    got, want = ex(x2, n), f(x2, n)
    np.testing.assert_allclose(got[0].asnumpy(), want[0].asnumpy(), rtol=1e-6)
    np.testing.assert_array_equal(got[1].asnumpy(), want[1].asnumpy())
    assert got[0].dtype == want[0].dtype and got[1].dtype == want[1].dtype


def test_dead_values_are_freed():
    def chain(x):
        for _ in range(20):
            x = ops.sin(x)
        return x

    ex = Executable(ms_graph.trace(chain, _t(4)))
    assert len(ex.graph.nodes) == 20
    assert ex.peak_live() <= 2  # each intermediate dies once its reader has run
    np.testing.assert_allclose(ex(_t(4, seed=3)).asnumpy(), chain(_t(4, seed=3)).asnumpy())


def test_freed_arrays_are_released():
    import weakref

    refs = []

    def record(x):
        y = x * 2
        return (y + 1).sum()

    ex = Executable(ms_graph.trace(record, _t(100)))
    original = ex._steps[0].kernel

    def spy(*a, **k):
        r = original(*a, **k)
        refs.append(weakref.ref(r))
        return r

    ex._steps[0].kernel = spy
    ex(_t(100))
    assert refs and refs[0]() is None  # the x * 2 intermediate is gone after the run


def test_mlp_forward_equals_eager_and_sees_parameter_updates():
    w1, b1 = Parameter(_t(6, 16), name="w1"), Parameter(_t(16, seed=1), name="b1")
    w2, b2 = Parameter(_t(16, 3, seed=2), name="w2"), Parameter(_t(3, seed=3), name="b2")

    def net(x):
        return ops.matmul(ops.relu(ops.matmul(x, w1) + b1), w2) + b2

    ex = Executable(ms_graph.trace(net, _t(4, 6)))
    x = _t(4, 6, seed=1)
    np.testing.assert_allclose(ex(x).asnumpy(), net(x).asnumpy(), rtol=1e-5, atol=1e-6)
    w1.set_data(Tensor(w1.asnumpy() * 0.5))  # a new array: read when the graph runs
    np.testing.assert_allclose(ex(x).asnumpy(), net(x).asnumpy(), rtol=1e-5, atol=1e-6)


def test_in_place_update_writes_the_parameter():
    w = Parameter(Tensor(np.ones(3, np.float32)), name="w")
    acc = Parameter(Tensor(np.zeros(3, np.float32)), name="acc")
    apply = ops.ApplyMomentum()

    def step(g):
        apply(w, acc, 0.1, g, 0.9)
        return w * 1.0

    g = Tensor(np.full(3, 2.0, np.float32))
    ex = Executable(ms_graph.trace(step, g))  # one real step while tracing
    out = ex(g)  # the second step, by the graph
    # acc: 2, then 0.9 * 2 + 2 = 3.8; w: 1 - 0.2 - 0.38
    np.testing.assert_allclose(acc.asnumpy(), [3.8] * 3, rtol=1e-6)
    np.testing.assert_allclose(w.asnumpy(), [0.42] * 3, rtol=1e-6)
    np.testing.assert_allclose(out.asnumpy(), w.asnumpy())
