"""cond / while_loop / for_range: eager behaviour, capture into Cond/While nodes, and the
captured graph run on inputs that take the other branch or loop a different number of
times than at capture."""

import numpy as np
import pytest
from ms_graph.control_flow import Undefined, cond, for_range, while_loop
from ms_graph.convert.errors import GraphSyntaxError
from ms_graph.executor import Executable
from ms_graph.trace import trace_and_run

from ms_tensor import Tensor


def capture(fn, *args):
    graph, result = trace_and_run(fn, args)
    return graph, result


def evaluate(graph, arrays):
    return list(Executable(graph).run_arrays(arrays))


def T(*v, dtype=np.float32):
    return Tensor(np.array(v, dtype=dtype))


def branchy(x):
    return cond(x.sum() > 0, lambda a: a * 2.0, lambda a: a - 1.0, (x,))


def test_cond_eager_is_python():
    assert cond(True, lambda: 1, lambda: 2) == 1
    np.testing.assert_allclose(branchy(T(1.0, 2.0)).asnumpy(), [2.0, 4.0])
    np.testing.assert_allclose(branchy(T(-1.0, -2.0)).asnumpy(), [-2.0, -3.0])


@pytest.mark.parametrize("at_capture", [(1.0, 2.0), (-1.0, -2.0)])
def test_cond_capture_runs_both_branches(at_capture):
    graph, eager = capture(branchy, T(*at_capture))
    assert [n.op for n in graph.nodes][-1] == "Cond"
    np.testing.assert_allclose(eager.asnumpy(), branchy(T(*at_capture)).asnumpy())
    for x in [(3.0, 4.0), (-3.0, -4.0)]:
        (out,) = evaluate(graph, [np.array(x, np.float32)])
        np.testing.assert_allclose(out, branchy(T(*x)).asnumpy())


def test_cond_captures_closure_tensors_and_nests():
    w = T(10.0, 20.0)

    def f(x, y):
        def outer_true(a):
            return cond(y.sum() > 0, lambda b: b + w, lambda b: b * w, (a,))
        return cond(x.sum() > 0, outer_true, lambda a: a - y, (x,))

    graph, _ = capture(f, T(1.0, 1.0), T(1.0, 1.0))
    assert graph.nodes[-1].op == "Cond"
    for x, y in [((1, 1), (1, 1)), ((1, 1), (-1, -1)), ((-1, -1), (5, 5))]:
        xs, ys = np.array(x, np.float32), np.array(y, np.float32)
        (out,) = evaluate(graph, [xs, ys])
        np.testing.assert_allclose(out, f(Tensor(xs), Tensor(ys)).asnumpy())


def test_cond_python_flags_become_tensors():
    def f(x):
        return cond(x.sum() > 0, lambda a: (a, True), lambda a: (a + 1.0, False), (x,))

    graph, (_, flag) = capture(f, T(1.0))
    assert isinstance(flag, Tensor) and flag.dtype.name.lower().startswith("bool")
    assert evaluate(graph, [np.array([-1.0], np.float32)])[1] == np.False_


def test_cond_mismatched_shapes_error_names_variable():
    def f(x):
        return cond(x.sum() > 0, lambda a: (a,), lambda a: (a.reshape(1, 2),), (x,),
                    names=("y",), where="model.py:7")

    with pytest.raises(GraphSyntaxError, match=r"model.py:7.*variable 'y'.*\(2,\).*\(1, 2\)"):
        capture(f, T(1.0, 2.0))


def test_cond_undefined_on_one_path():
    def f(x):
        return cond(x.sum() > 0, lambda a, b: (a, a), lambda a, b: (a, b), (x, Undefined("z")),
                    names=("x", "z"), where="m.py:3")

    with pytest.raises(GraphSyntaxError, match=r"m.py:3.*'z' is assigned on only one path"):
        capture(f, T(1.0))


def count_halvings(x):
    def body(i, a):
        return i + 1, a * 0.5
    return while_loop(lambda i, a: a.sum() > 1.0, body, (0, x))


def test_while_eager():
    i, a = count_halvings(T(8.0))
    assert int(i) == 3 and float(a.asnumpy()[0]) == 1.0


@pytest.mark.parametrize("start,expected_trips", [(8.0, 3), (1.0, 0), (100.0, 7)])
def test_while_capture_other_trip_counts(start, expected_trips):
    graph, (i, a) = capture(count_halvings, T(8.0))
    assert graph.nodes[-1].op == "While" and int(i) == 3
    trips, out = evaluate(graph, [np.array([start], np.float32)])
    assert int(trips) == expected_trips
    np.testing.assert_allclose(out, np.array([start]) * 0.5 ** expected_trips)


def test_while_shape_change_is_an_error():
    def f(x):
        return while_loop(lambda a: a.sum() < 10.0, lambda a: (a.reshape(1, 1),), (x,),
                          names=("acc",), where="net.py:42")

    with pytest.raises(GraphSyntaxError,
                       match=r"net.py:42.*'acc'.*\(1,\).*\(1, 1\).*keep each variable"):
        capture(f, T(1.0))


def test_while_python_condition_unrolls():
    def f(x):
        return while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a + 1.0), (0, x))

    graph, (i, _) = capture(f, T(0.0))
    assert i == 3 and all(n.op != "While" for n in graph.nodes) and len(graph.nodes) == 3


def test_for_range_tensor_bound():
    def f(n, x):
        return for_range(0, n, 1, lambda i, acc: (acc + i.astype(x.dtype) if hasattr(i, "astype")
                                                  else acc + i,), (x,))[0]

    graph, eager = capture(f, Tensor(np.array(4, np.int32)), T(0.0))
    assert float(eager.asnumpy()[0]) == 6.0 and graph.nodes[-1].op == "While"
    for n in (0, 1, 5):
        (out,) = evaluate(graph, [np.array(n, np.int32), np.array([0.0], np.float32)])
        assert float(out[0]) == sum(range(n))


def test_for_range_eager_and_bad_step():
    assert for_range(0, Tensor(np.array(3)), 1, lambda i, s: (s + i,), (0,)) == (3,)
    with pytest.raises(GraphSyntaxError, match="non-zero Python int step"):
        for_range(0, 3, 0, lambda i: (), ())


def test_node_observers_see_each_branch_node_while_the_branch_runs():
    import traceback

    from ms_graph.control_flow_trace import observe_nodes

    def doubled(a):
        return a * 2.0  # the Mul's line

    def shifted(a):
        return a - 1.0  # the Sub's line

    def line_here(node):  # the innermost line of this file on the stack
        here = [f for f in traceback.extract_stack() if f.filename == __file__]
        seen.append((node.name, here[-2].line))

    seen = []
    stop = observe_nodes(line_here)
    try:
        capture(lambda x: cond(x.sum() > 0, doubled, shifted, (x,)), T(1.0))
    finally:
        stop()
    assert seen == [("Mul", "return a * 2.0  # the Mul's line"),
                    ("Sub", "return a - 1.0  # the Sub's line")]
    capture(branchy, T(1.0))
    assert len(seen) == 2  # stopped: told no more
