"""convert(): converted functions equal the originals eagerly, capture Tensor control flow
into Cond/While nodes that run correctly on other inputs, and unsupported Python gets a
GraphSyntaxError naming file:line."""

import numpy as np
import pytest
from ms_graph.convert import GraphSyntaxError, convert
from ms_graph.executor import Executable
from ms_graph.jit import jit
from ms_graph.trace import trace_and_run

from ms_tensor import Tensor

SCALE = 3.0


def T(*v):
    return Tensor(np.array(v, dtype=np.float32))


def if_elif_else(x):
    s = x.sum()
    if s > 10:
        y = x * 2.0
    elif s > 0:
        y = x + 1.0
    else:
        y = x - 1.0
    return y


def early_return(x):
    if x.sum() > 0:
        return x * SCALE
    z = x - 5.0
    return z


def nested_if_and_bool_ops(x, flag=True):
    out = x
    if flag and x.sum() > 0:
        if not x.max() > 5:
            out = out + 1.0
        else:
            out = out * 0.5
    return out


def while_loop(x):
    i = 0
    while x.sum() < 100.0:
        x = x * 2.0
        i = i + 1
    return x, i


def while_break_continue(x):
    n = 0
    while n < 10:
        n = n + 1
        if n % 2 == 0:
            continue
        x = x + float(n)
        if n > 6:
            break
    return x, n


def for_range_python(x):
    acc = x
    for i in range(4):
        acc = acc + float(i)
    return acc, i


def for_range_tensor(n, x):
    acc = x
    for i in range(n):
        acc = acc + i.astype(x.dtype) if isinstance(i, Tensor) else acc + float(i)
    return acc


def for_sequences(xs):
    total = 0.0
    for k, (a, b) in enumerate(zip(xs, [1.0, 2.0, 3.0])):
        if k == 1:
            continue
        total = total + a * b
    return total


def for_break_tensor(x):
    acc = x
    for _j in range(5):
        if acc.sum() > 3.0:
            break
        acc = acc + 1.0
    return acc


def closure_and_nested(x):
    k = T(2.0)

    def inner(y):
        if y.sum() > 0:
            return y * k
        return y

    return inner(x) + (x if x.sum() > 1 else -x)


def lam(x):
    f = lambda v: v * 2.0 if v.sum() > 0 else v  # noqa: E731
    return f(x)


CASES = [
    (if_elif_else, [(20.0, 1.0), (1.0, 2.0), (-3.0, 1.0)]),
    (early_return, [(1.0,), (-1.0,)]),
    (nested_if_and_bool_ops, [(1.0, 2.0), (3.0, 6.0), (-1.0, -2.0)]),
    (while_loop, [(1.0,), (200.0,), (30.0,)]),
    (while_break_continue, [(0.0,), (1.0,)]),
    (for_range_python, [(1.0,)]),
    (for_break_tensor, [(0.0,), (5.0,), (-3.0,)]),
    (closure_and_nested, [(2.0,), (0.5,), (-1.0,)]),
    (lam, [(1.0,), (-1.0,)]),
]


def _same(a, b):
    if isinstance(a, tuple):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    else:
        np.testing.assert_allclose(np.asarray(a, dtype=np.float64),
                                   np.asarray(b, dtype=np.float64))


@pytest.mark.parametrize("fn,inputs", CASES, ids=[c[0].__name__ for c in CASES])
def test_eager_equivalence(fn, inputs):
    conv = convert(fn)
    for x in inputs:
        _same(conv(T(*x)), fn(T(*x)))


@pytest.mark.parametrize("fn,inputs", CASES, ids=[c[0].__name__ for c in CASES])
def test_captured_graph_runs_every_path(fn, inputs):
    conv = convert(fn)
    graph, first = trace_and_run(conv, (T(*inputs[0]),))
    _same(first, fn(T(*inputs[0])))
    exe = Executable(graph)
    for x in inputs:
        _same(exe(T(*x)), fn(T(*x)))


def test_python_conditions_fold_at_capture():
    graph, _ = trace_and_run(convert(nested_if_and_bool_ops), (T(1.0), False))
    assert not any(n.op in ("Cond", "While") for n in graph.nodes)
    graph, _ = trace_and_run(convert(for_range_python), (T(1.0),))
    assert len(graph.nodes) == 4 and all(n.op != "While" for n in graph.nodes)


def test_for_over_tensor_range_is_one_while():
    conv = convert(for_range_tensor)
    graph, out = trace_and_run(conv, (Tensor(np.array(3, np.int32)), T(0.0)))
    assert float(out.asnumpy()[0]) == 3.0
    assert [n.op for n in graph.nodes].count("While") == 1
    exe = Executable(graph)
    for n in (0, 1, 6):
        r = exe(Tensor(np.array(n, np.int32)), T(0.0))
        assert float(r.asnumpy()[0]) == sum(range(n))
    assert float(conv(Tensor(np.array(4, np.int32)), T(0.0)).asnumpy()[0]) == 6.0


def test_sequences_stay_python():
    xs = [T(1.0), T(2.0), T(3.0)]
    _same(convert(for_sequences)(xs), for_sequences(xs))


class Net:
    def __init__(self):
        self.w = T(0.5)

    def construct(self, x):
        if x.sum() > 0:
            x = x * self.w
        return x


def test_method_conversion_keeps_self():
    net = Net()
    conv = convert(net.construct)
    _same(conv(T(4.0)), T(2.0))
    graph, _ = trace_and_run(conv, (T(4.0),))
    _same(Executable(graph)(T(-4.0)), T(-4.0))


def _halve_if_positive(x):
    if x.sum() > 0:
        x = x * 0.5
    return x


class _Helper:
    def scale(self, x):
        while x.sum() > 10:
            x = x * 0.5
        return x


def test_functions_and_methods_a_compiled_function_calls_are_converted():
    helper = _Helper()

    def outer(x):
        return helper.scale(_halve_if_positive(x)) + 1.0

    compiled = jit(outer)
    for v in (40.0, -3.0, 4.0):  # other branches and trip counts than at capture
        _same(compiled(T(v)), outer(T(v)))
    assert (compiled.misses, compiled.hits) == (1, 2)
    (entry,) = compiled._cache.values()
    assert {"Cond", "While"} <= {n.name for n in entry.executable.graph.nodes}


def test_library_functions_are_called_as_they_are():
    def outer(x):
        return x * float(np.sum(np.ones(3)))  # numpy is called, not converted

    _same(jit(outer)(T(2.0)), T(6.0))


def _err_line(fn, needle):
    import inspect
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, s in enumerate(lines) if needle in s)


def uses_yield(x):
    yield x


def uses_global(x):
    global SCALE
    SCALE = 1.0
    return x


def try_in_branch(x):
    if x.sum() > 0:
        try:
            x = x + 1.0
        except ValueError:
            pass
    return x


def return_in_loop(x):
    while x.sum() < 10:
        return x
    return x


@pytest.mark.parametrize("fn,needle,what", [
    (uses_yield, "yield x", "yield is not supported"),
    (uses_global, "global SCALE", "global assignment is not supported"),
    (try_in_branch, "try:", "try/except inside an if/while/for"),
    (return_in_loop, "while x.sum()", "return inside a loop"),
])
def test_unsupported_constructs_name_file_and_line(fn, needle, what):
    line = _err_line(fn, needle)
    with pytest.raises(GraphSyntaxError, match=rf"test_convert\.py:{line}: {what}"):
        convert(fn)


def grows(x):
    while x.sum() < 10.0:
        x = np_concat(x)
    return x


def np_concat(x):
    from ms_ops import functional as F
    return F.concat((x, x))


def test_loop_shape_change_error_points_at_the_loop():
    line = _err_line(grows, "while x.sum()")
    with pytest.raises(GraphSyntaxError, match=rf"test_convert\.py:{line}.*'x'.*\(1,\).*\(2,\)"):
        trace_and_run(convert(grows), (T(1.0),))


def one_branch_only(x):
    if x.sum() > 0:
        y = x * 2.0
    return y


def test_variable_defined_on_one_path():
    assert float(convert(one_branch_only)(T(1.0)).asnumpy()[0]) == 2.0
    with pytest.raises(GraphSyntaxError, match=r"'y' is assigned on only one path"):
        trace_and_run(convert(one_branch_only), (T(1.0),))


class Base:
    def step(self, x):
        return x + 1.0


class Derived(Base):
    def step(self, x):
        if x.sum() > 0:
            x = super().step(x)
        return x


def test_zero_argument_super_inside_a_branch():
    _same(convert(Derived().step)(T(1.0)), T(2.0))
    _same(convert(Derived().step)(T(-1.0)), T(-1.0))


def _scaled_pairs(x):
    for k in range(2):  # a generator: called as it is
        yield x * float(k + 1)


def _guarded(x):
    if isinstance(x, Tensor):
        try:  # a try inside control flow: capture cannot express it
            return x + 1.0
        except ValueError:
            return x
    return x


def test_callees_capture_cannot_convert_run_as_python():
    with pytest.raises(GraphSyntaxError):
        convert(_guarded)

    def outer(x):
        return sum(_scaled_pairs(x), _guarded(x))

    _same(jit(outer)(T(2.0)), outer(T(2.0)))
