"""A compiled function returns what eager execution returns on every call, or raises
(issue 11's reproducers: in-place writes, Python reads of tensor values, recursion)."""

import ms_graph
import numpy as np
import pytest
from ms_graph.convert import GraphSyntaxError
from ms_graph.trace import TraceError

import ms_ops as ops
from ms_tensor import Tensor

MODES = ("ast", "trace")


def _t(*values, dtype=np.float32):
    return Tensor(np.array(values, dtype))


@pytest.mark.parametrize("mode", MODES)
def test_setitem_is_replayed_on_every_call(mode):
    @ms_graph.jit(capture_mode=mode)
    def f(x, k):
        m = ops.zeros_like(x)
        m[:, 0] = k
        return x * m

    x = Tensor(np.ones((2, 3), np.float32))
    for k in (1.0, 2.0, 3.0):
        np.testing.assert_array_equal(f(x, Tensor(np.float32(k))).asnumpy()[0], [k, 0, 0])
    assert f.misses == 1


def test_setitem_inside_a_tensor_branch_is_replayed():
    @ms_graph.jit
    def f(x, k):
        m = ops.zeros_like(x)
        if k > 0:
            m[0] = k
        else:
            m[1] = -k
        return x + m

    x = Tensor(np.zeros(3, np.float32))
    for k in (1.0, -2.0, 3.0):
        want = [k, 0, 0] if k > 0 else [0, -k, 0]
        np.testing.assert_array_equal(f(x, Tensor(np.float32(k))).asnumpy(), want)


def test_data_replaced_outside_operators_is_refused():
    @ms_graph.jit(capture_mode="trace")
    def f(x):
        y = x * 2
        y.set_dtype(np.float64)
        return y + 1

    with pytest.raises(TraceError, match="replaced outside operators"):
        f(_t(1.0, 2.0))


def _halve(x, n):
    if n == 0:
        return x
    return _halve(x * 0.5, n - 1)


def test_recursion_bounded_by_python_values_compiles():
    @ms_graph.jit
    def f(x):
        return _halve(x, 3)

    for v in (8.0, 16.0):
        np.testing.assert_array_equal(f(_t(v)).asnumpy(), [v / 8])


def test_nested_recursive_helper_compiles():
    @ms_graph.jit
    def f(x):
        def count(y, k):
            return y if k == 0 else count(y + 1, k - 1)
        return count(x, 4)

    np.testing.assert_array_equal(f(_t(1.0)).asnumpy(), [5.0])


def test_recursion_ended_by_a_tensor_names_the_function_and_line():
    @ms_graph.jit
    def f(x, n):
        return _halve(x, n)

    with np.errstate(all="ignore"), pytest.raises(GraphSyntaxError) as e:
        f(_t(1.0), Tensor(np.int64(3)))
    assert "recursion in _halve did not end" in str(e.value)
    assert e.value.filename == __file__ and e.value.lineno is not None


def _float(a):
    return a * float(a.sum())


def _int(a):
    return a * int(a.sum())


def _item(a):
    return a * a.sum().item()


def _asnumpy(a):
    return a * a.asnumpy().sum()


def _tolist(a):
    return a * sum(a.tolist())


def _numpy(a):
    return a * np.asarray(a).sum()


def _bool(a):
    return a * 2 if bool(a.sum() > 0) else a


READS = {f.__name__: f for f in (_float, _int, _item, _asnumpy, _tolist, _numpy, _bool)}


def _assert_reads(a):
    assert a.sum() > 0
    return a


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("read", sorted(READS))
def test_python_read_of_a_tensor_value_raises_with_file_and_line(read, mode):
    f = ms_graph.jit(READS[read], capture_mode=mode)
    with pytest.raises(GraphSyntaxError, match="reads the value of a Tensor") as e:
        f(_t(1.0, 2.0))
    assert e.value.filename == __file__ and e.value.lineno is not None
    assert "stale" in str(e.value)


def test_assert_on_a_tensor_raises_instead_of_being_skipped():
    f = ms_graph.jit(_assert_reads)
    with pytest.raises(GraphSyntaxError, match=r"bool\(\)") as e:
        f(_t(1.0))
    assert e.value.lineno == _assert_reads.__code__.co_firstlineno + 1


def test_reads_of_constants_and_parameters():
    from ms_tensor import Parameter

    w = Parameter(_t(3.0), name="w")

    @ms_graph.jit
    def constant(a):
        return a * float(ops.ones((2,)).sum()) * float(Tensor(np.float32(0.5)))

    np.testing.assert_array_equal(constant(_t(1.0, 2.0)).asnumpy(), [1.0, 2.0])

    @ms_graph.jit
    def parameter(a):
        return a * float(w)

    with pytest.raises(GraphSyntaxError, match=r"float\(\)"):
        parameter(_t(1.0))


def test_reads_outside_captures_still_work():
    a = _t(1.0, 2.0)
    assert float(a.sum()) == 3.0 and bool(a.sum() > 0) and a.tolist() == [1.0, 2.0]
    f = ms_graph.jit(lambda x: x + 1)
    f(a)
    assert float(a.sum()) == 3.0


def test_python_float_arguments_are_constants_in_a_bounded_cache():
    @ms_graph.jit
    def f(x, s):
        return x * s

    x = _t(1.0)
    with pytest.warns(RuntimeWarning, match="more than 64 graphs.*as a Tensor"):
        for i in range(100):
            np.testing.assert_array_equal(f(x, float(i)).asnumpy(), [float(i)])
    size = ms_graph.graph_cache.MAX_GRAPHS
    assert len(f._cache) == size and f._cache.evictions == 100 - size
    assert f.misses == 100
    f(x, 99.0)  # the most recently used stay
    assert f.misses == 100


def test_variable_set_in_one_branch_and_assigned_again_before_use():
    """Found by the fuzzer: refused although eager runs it."""
    @ms_graph.jit
    def f(a):
        if a.sum() > 0.5:
            a = a * 2
        else:
            m = ops.zeros_like(a)
            a = a + m
        m = ops.zeros_like(a)
        m[0] = a[0]
        return a + m

    for v in (1.0, -1.0):
        x = Tensor(np.full(3, v, np.float32))
        np.testing.assert_array_equal(f(x).asnumpy(), f.fn(x).asnumpy())


def test_variable_set_in_one_branch_and_read_after_names_the_if():
    @ms_graph.jit
    def f(a):
        if a.sum() > 0.5:
            m = a * 2
        return a + m

    with pytest.raises(GraphSyntaxError, match="'m' is assigned on only one path") as e:
        f(_t(1.0))
    assert e.value.lineno == f.fn.__code__.co_firstlineno + 2  # the if


def _unique_doubled(a):
    return ops.unique(a)[0] * 2  # ops.unique computes on the host from a's values


@pytest.mark.parametrize("mode", MODES)
def test_a_framework_function_reading_a_value_raises_at_the_users_line(mode):
    """ops.unique composed on the host would keep the first call's result (it returned
    [3] for [3, 4, 4] after compiling on [3, 3, 3]); the error names it and the caller."""
    f = ms_graph.jit(_unique_doubled, capture_mode=mode)
    with pytest.raises(GraphSyntaxError, match=r"in \w+ \(ms_ops\.") as e:
        f(Tensor(np.array([3, 3, 3], np.int32)))
    assert e.value.filename == __file__
    assert e.value.lineno == _unique_doubled.__code__.co_firstlineno + 1
