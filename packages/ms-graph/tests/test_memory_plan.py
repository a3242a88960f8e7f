"""The memory planner: values share a buffer only when no node can read both at once,
views keep their base's buffer alive, graph outputs and in-place targets get none."""

import importlib.util
import pathlib
import threading

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from ms_graph.executor import Executable
from ms_graph.memory_plan import plan_memory

from ms_ops.defs import activation, arithmetic, array, assign, linalg, reduction
from ms_ops.dispatch import execute
from ms_tensor import dtype as mstype
from ms_tensor.tensor import wrap

_spec = importlib.util.spec_from_file_location(
    "_passes_util", pathlib.Path(__file__).with_name("_passes_util.py"))
_util = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_util)
Builder = _util.Builder

A = arithmetic
ELEMENTWISE = {"Exp", "Neg", "Add", "Mul", "Sub", "Tanh"}


def _elementwise(node):
    return node.name in ELEMENTWISE


def test_a_chain_alternates_between_two_buffers():
    b = Builder()
    x = b.input((256, 256))
    values = [x]
    for _ in range(10):
        values.append(b(A.Neg, values[-1]))
    plan = plan_memory(b.output(values[-1]), _elementwise)
    inner = values[1:-1]  # the last one is the graph output
    assert plan.values == inner
    assert [plan.buffer(v) for v in inner] == [0, 1] * 4 + [0]
    assert plan.naive_nbytes == 9 * 256 * 256 * 4
    assert plan.planned_nbytes == 2 * 256 * 256 * 4
    assert "9 intermediates" in plan.report() and "2 buffers" in plan.report()


def test_values_read_by_one_node_never_share():
    b = Builder()
    x = b.input((8,))
    p, q = b(A.Neg, x), b(A.Mul, x, x)
    s = b(A.Add, p, q)  # p and q are both read here
    plan = plan_memory(b.output(b(A.Neg, s)), _elementwise)
    assert len({plan.buffer(p), plan.buffer(q), plan.buffer(s)}) == 3


def test_a_value_defined_after_the_last_read_reuses_the_buffer():
    b = Builder()
    x = b.input((8,))
    p = b(A.Neg, x)
    q = b(A.Neg, p)  # p's last read
    r = b(A.Neg, q)
    plan = plan_memory(b.output(b(A.Neg, r)), _elementwise)
    assert plan.buffer(r) == plan.buffer(p) != plan.buffer(q)


def test_a_view_keeps_its_base_buffer_alive():
    b = Builder()
    x = b.input((16, 32))
    base = b(A.Neg, x)
    view = b(array.Reshape, base, (512,))  # base's last direct read
    later = b(A.Neg, b(array.Reshape, x, (512,)))  # would take base's buffer without the view
    out = b(A.Add, view, later)
    graph = b.output(out)
    plan = plan_memory(graph, _elementwise)
    assert plan.buffer(base) is not None and plan.buffer(later) is not None
    assert plan.buffer(later) != plan.buffer(base)
    ex = Executable(graph)
    assert ex.memory_plan.buffer(base) is not None
    xs = np.random.default_rng(0).standard_normal((16, 32)).astype(np.float32)
    np.testing.assert_array_equal(ex.run_arrays([xs])[0], -2 * xs.reshape(512))


def test_a_view_of_a_view_keeps_the_base_alive_too():
    b = Builder()
    x = b.input((4, 6))
    base = b(A.Neg, x)
    view = b(array.Transpose, b(array.Reshape, base, (6, 4)), (1, 0))
    later = b(A.Neg, x)
    plan = plan_memory(b.output(b(A.Add, view, later)), _elementwise)
    assert plan.buffer(later) != plan.buffer(base)


def test_graph_outputs_and_their_views_get_no_buffer():
    b = Builder()
    x = b.input((4, 6))
    direct, viewed, inner = b(A.Neg, x), b(A.Neg, x), b(A.Neg, x)
    graph = b.output(direct, b(array.Reshape, viewed, (24,)), b(A.Neg, inner))
    plan = plan_memory(graph, _elementwise)
    assert plan.buffer(direct) is None and plan.buffer(viewed) is None
    assert plan.values == [inner]


def test_in_place_targets_get_no_buffer():
    b = Builder()
    x = b.input((3,))
    target = b(A.Neg, x)
    b(assign.AssignAdd, target, x)
    plan = plan_memory(b.output(b(A.Neg, target)), _elementwise)
    assert plan.buffer(target) is None


def test_buffers_are_bytes_shared_across_dtypes_and_grown_to_fit():
    b = Builder()
    x = b.input((16,))
    small = b(A.Neg, x)  # 64 bytes
    wide = b(array.Cast, b(A.Neg, small), mstype.float64)  # small dies here
    big = b(A.Neg, wide)  # 128 bytes: grows small's free buffer
    plan = plan_memory(b.output(b(A.Neg, big)), lambda n: n.name in ELEMENTWISE)
    assert plan.buffer(big) == plan.buffer(small)
    assert sorted(plan.buffer_nbytes) == [64, 128]


def test_values_under_min_nbytes_are_left_to_numpy():
    b = Builder()
    small = b(A.Neg, b(A.Neg, b.input((128,))))  # the inner Neg: 512 bytes
    big = b(A.Neg, b(A.Neg, b.input((512,))))  # the inner Neg: 2 KiB
    plan = plan_memory(b.output(small, big), _elementwise, min_nbytes=1024)
    assert [v.spec.shape for v in plan.values] == [(512,)]


def test_values_without_a_static_shape_are_not_planned():
    b = Builder()
    x = b.input((4,))
    v = b(A.Neg, x)
    graph = b.output(b(A.Neg, v))
    v.spec = type(v.spec)((None,), v.spec.dtype)  # as for a data-dependent shape
    plan = plan_memory(graph, _elementwise)
    assert plan.values == []


# -- random graphs: planned runs equal unplanned eager evaluation, run after run -------
SHAPE = (16, 32)  # 2 KiB: above what the executor leaves to numpy's small-block cache
STEP = st.one_of(
    st.tuples(st.sampled_from(["Neg", "Tanh"]), st.integers(0, 99)),
    st.tuples(st.sampled_from(["Add", "Mul", "Sub"]), st.integers(0, 99), st.integers(0, 99)),
    st.tuples(st.sampled_from(["reshape", "transpose", "matmul", "center"]),
              st.integers(0, 99), st.integers(0, 99)),
)


def _build(steps, n_outputs):
    b = Builder()
    pool = [b.input(SHAPE), b.input(SHAPE)]
    for step in steps:
        kind, i = step[0], step[1] % len(pool)
        v = pool[i]
        if kind in ("Neg", "Tanh"):
            pool.append(b(A.Neg if kind == "Neg" else activation.Tanh, v))
        elif kind in ("Add", "Mul", "Sub"):
            pool.append(b(getattr(A, kind), v, pool[step[2] % len(pool)]))
        elif kind == "reshape":  # views of v
            pool.append(b(array.Reshape, b(array.Reshape, v, (SHAPE[0] * SHAPE[1],)), SHAPE))
        elif kind == "transpose":
            pool.append(b(array.Transpose, b(array.Transpose, v, (1, 0)), (1, 0)))
        elif kind == "matmul":
            w = pool[step[2] % len(pool)]
            pool.append(b(linalg.MatMul, b(linalg.MatMul, v, w, transpose_b=True), w))
        else:
            pool.append(b(A.Sub, v, b(reduction.ReduceSum, v, (1,), keep_dims=True)))
    outs = pool[-n_outputs:] + [pool[len(pool) // 2]]
    return b.output(*outs)


def _eager(graph, arrays):
    env = dict(zip(map(id, graph.inputs), (wrap(a) for a in arrays)))
    for node in graph.nodes:
        args = [env[id(a)] if hasattr(a, "spec") else a for a in node.args]
        env[id(node.outputs[0])] = execute(node.op, args, node.attrs)
    return [env[id(v)].asnumpy() for v in graph.outputs]


@settings(max_examples=60, deadline=None)
@given(st.lists(STEP, min_size=1, max_size=14), st.integers(1, 3), st.integers(0, 2**16))
def test_random_graphs_run_as_eager_runs_again_and_keep_earlier_outputs(steps, n_out, seed):
    graph = _build(steps, n_out)
    ex = Executable(graph)
    rng = np.random.default_rng(seed)
    runs = [[rng.standard_normal(SHAPE).astype(np.float32) * 0.5 for _ in range(2)]
            for _ in range(3)]
    results = [ex.run_arrays(inputs) for inputs in runs]
    for inputs, got in zip(runs, results):  # earlier results survive later runs
        for g, w in zip(got, _eager(graph, inputs)):
            assert g.tobytes() == w.tobytes()


def test_random_graphs_do_plan_buffers():
    graph = _build([("Neg", 0), ("Tanh", 2), ("reshape", 3, 0), ("Neg", 2), ("Add", 4, 5),
                    ("matmul", 6, 1), ("Neg", 7)], 1)
    assert len(Executable(graph).memory_plan.values) >= 4


def test_concurrent_runs_of_one_executable_do_not_share_buffers():
    n_threads = 4
    graph = _build([("matmul", 0, 1), ("Tanh", 2), ("Neg", 3), ("Add", 4, 2)] * 3, 1)
    ex = Executable(graph)
    rng = np.random.default_rng(0)
    inputs = [[rng.standard_normal(SHAPE).astype(np.float32) for _ in range(2)]
              for _ in range(n_threads)]
    want = [_eager(graph, a) for a in inputs]
    errors = []

    def work(k):
        for _ in range(200):
            got = ex.run_arrays(inputs[k])
            if any(g.tobytes() != w.tobytes() for g, w in zip(got, want[k])):
                errors.append(k)
                return

    threads = [threading.Thread(target=work, args=(k,)) for k in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
