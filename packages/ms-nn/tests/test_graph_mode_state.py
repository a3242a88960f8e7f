"""GRAPH_MODE never returns a value captured from an earlier call (issue 11): in-place
writes, attributes and flags read by ``construct``, Python reads of tensor values."""

import numpy as np
import pytest
from ms_graph import GraphSyntaxError

import ms_ops as ops
from ms_nn import Cell
from ms_tensor import Tensor
from ms_tensor.context import GRAPH_MODE, PYNATIVE_MODE, get_context, set_context


@pytest.fixture
def graph_mode():
    previous = get_context("mode")
    set_context(mode=GRAPH_MODE)
    yield
    set_context(mode=previous)


class _SetItem(Cell):
    def construct(self, x, k):
        m = ops.zeros_like(x)
        m[:, 0] = k
        return x * m


class _Scaled(Cell):
    def __init__(self):
        super().__init__()
        self.s = 2.0
        self.flag = True

    def construct(self, x):
        if self.flag:
            return x * self.s
        return x - self.s


class _Outer(Cell):
    def __init__(self):
        super().__init__()
        self.inner = _Scaled()

    def construct(self, x):
        return self.inner(x) + 1


class _Reads(Cell):
    def construct(self, a):
        return a * float(a.sum())


def _x():
    return Tensor(np.ones((2, 3), np.float32))


def test_setitem_is_replayed_on_every_call(graph_mode, graph_runs):
    net = _SetItem()
    for k in (1.0, 2.0, 3.0):
        np.testing.assert_array_equal(net(_x(), Tensor(np.float32(k))).asnumpy()[0],
                                      [k, 0, 0])
    assert graph_runs() == 3


def test_attribute_and_flag_changes_select_another_graph(graph_mode, graph_runs):
    net = _Scaled()
    np.testing.assert_array_equal(net(_x()).asnumpy()[0], [2, 2, 2])
    net.s = 5.0
    np.testing.assert_array_equal(net(_x()).asnumpy()[0], [5, 5, 5])
    net.flag = False
    np.testing.assert_array_equal(net(_x()).asnumpy()[0], [-4, -4, -4])
    net.s, net.flag = 2.0, True  # back to the first state: its graph again
    np.testing.assert_array_equal(net(_x()).asnumpy()[0], [2, 2, 2])
    assert graph_runs() == 4


def test_an_inner_cells_attribute_change_is_seen(graph_mode):
    net = _Outer()
    np.testing.assert_array_equal(net(_x()).asnumpy()[0], [3, 3, 3])
    net.inner.s = 4.0
    np.testing.assert_array_equal(net(_x()).asnumpy()[0], [5, 5, 5])
    del net.inner.s
    net.inner.s = 1.0
    np.testing.assert_array_equal(net(_x()).asnumpy()[0], [2, 2, 2])


def test_graph_state_is_cached_until_an_attribute_changes():
    net = _Outer()
    state = net.graph_state()
    assert net.graph_state() is state
    net.inner.flag = False
    assert net.graph_state() != state


def test_python_read_of_a_tensor_value_raises(graph_mode):
    with pytest.raises(GraphSyntaxError, match=r"float\(\) reads the value") as e:
        _Reads()(_x())
    assert e.value.filename == __file__


@pytest.mark.parametrize("mode", [PYNATIVE_MODE, GRAPH_MODE])
def test_modes_agree_over_calls(mode):
    previous = get_context("mode")
    set_context(mode=mode)
    try:
        net, out = _Scaled(), []
        for s, flag in ((2.0, True), (3.0, True), (3.0, False)):
            net.s, net.flag = s, flag
            out.append(net(_x()).asnumpy()[0, 0])
    finally:
        set_context(mode=previous)
    assert out == [2.0, 3.0, -2.0]


_GLOBAL_NET = _Scaled()


def _step_on_global(x):
    return _GLOBAL_NET(x) * 1.0


def test_jit_function_reading_a_global_or_closure_cell_sees_its_attributes():
    from ms_graph import jit

    local = _Scaled()
    on_global, on_closure = jit(_step_on_global), jit(lambda x: local(x) + 0.0)
    for s, flag, want in ((2.0, True, 2.0), (3.0, True, 3.0), (3.0, False, -2.0)):
        _GLOBAL_NET.s, _GLOBAL_NET.flag = s, flag
        local.s, local.flag = s, flag
        assert on_global(_x()).asnumpy()[0, 0] == want
        assert on_closure(_x()).asnumpy()[0, 0] == want
    assert on_global.misses == 3


def test_jit_function_taking_a_cell_argument_sees_its_attributes():
    from ms_graph import jit

    net, f = _Scaled(), jit(lambda n, x: n(x))
    assert f(net, _x()).asnumpy()[0, 0] == 2.0
    net.s = 7.0
    assert f(net, _x()).asnumpy()[0, 0] == 7.0
