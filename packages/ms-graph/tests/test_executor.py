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
        y = ops.sigmoid(x)  # a kernel that allocates its result (no planned buffer)
        return (y + 1).sum()

    ex = Executable(ms_graph.trace(record, _t(100)))
    original = ex._steps[0].kernel

    def spy(*a, **k):
        r = original(*a, **k)
        refs.append(weakref.ref(r))
        return r

    ex._steps[0].kernel = spy
    ex(_t(100))
    assert refs and refs[0]() is None  # the sigmoid intermediate is gone after the run


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


def _mlp(depth=4, width=32, seed=0):
    ws = [Parameter(_t(width, width, seed=seed + i) * 0.3, name=f"w{i}") for i in range(depth)]
    bs = [Parameter(_t(width, seed=seed + 10 + i), name=f"b{i}") for i in range(depth)]

    def net(x):
        for w, b in zip(ws, bs):
            x = ops.relu(ops.matmul(x, w) + b)
        return ops.tanh(x) * 2

    return net


def test_planned_peak_is_below_the_naive_sum_on_an_mlp_chain():
    ex = Executable(ms_graph.trace(_mlp(), _t(16, 32)))
    plan = ex.memory_plan
    assert len(plan.values) >= 8  # matmuls, bias adds, relus
    assert plan.planned_nbytes < plan.naive_nbytes / 2


def test_repeated_runs_are_bit_identical_and_equal_eager():
    net = _mlp()
    ex = Executable(ms_graph.trace(net, _t(16, 32)))
    x = _t(16, 32, seed=5)
    want = net(x).asnumpy()
    for _ in range(3):
        assert ex(x).asnumpy().tobytes() == want.tobytes()


def test_a_graph_output_is_not_overwritten_by_the_next_run():
    net = _mlp()
    ex = Executable(ms_graph.trace(net, _t(16, 32)))
    first = ex(_t(16, 32, seed=1))
    kept = first.asnumpy().copy()
    second = ex(_t(16, 32, seed=2))
    assert first.asnumpy().tobytes() == kept.tobytes()
    assert not np.shares_memory(first.asnumpy(), second.asnumpy())


def test_planned_kernels_write_into_the_same_memory_every_run():
    ex = Executable(ms_graph.trace(_mlp(), _t(16, 32)))
    assert not ex._idle  # buffers come with the first run
    ex(_t(16, 32))
    k = next(k for k, st in enumerate(ex._idle[0]) if "out" in st.kwargs)
    step = ex._idle[0][k]
    seen = []
    original = step.kernel

    def spy(*a, **kw):
        seen.append(kw["out"].__array_interface__["data"][0])
        return original(*a, **kw)

    step.kernel = spy
    for seed in range(3):
        ex(_t(16, 32, seed=seed))
    assert len(seen) == 3 and len(set(seen)) == 1 and len(ex._idle) == 1
