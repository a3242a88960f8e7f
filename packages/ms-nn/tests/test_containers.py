"""SequentialCell, CellList, CellDict: registration, names, indexing, errors."""

from collections import OrderedDict

import numpy as np
import pytest

import ms_ops as ops
from ms_nn import Cell, CellDict, CellList, SequentialCell
from ms_tensor import Parameter, Tensor

# Every test here runs in PYNATIVE_MODE and in GRAPH_MODE (conftest.py's ``mode``).
pytestmark = pytest.mark.usefixtures("mode")


class Scale(Cell):
    def __init__(self, k=2.0):
        super().__init__()
        self.weight = Parameter(Tensor(np.float32(k)), name="weight")

    def construct(self, x):
        return x * self.weight


class Relu(Cell):
    def construct(self, x):
        return ops.relu(x)


def names(cell):
    return [p.name for p in cell.get_parameters()]


class Holder(Cell):
    def __init__(self, **children):
        super().__init__()
        for k, v in children.items():
            setattr(self, k, v)


# -- SequentialCell ------------------------------------------------------------------


def test_sequential_from_list_args_and_ordered_dict():
    assert names(SequentialCell([Scale(), Relu(), Scale()])) == ["0.weight", "2.weight"]
    assert names(SequentialCell(Scale(), Scale())) == ["0.weight", "1.weight"]
    od = SequentialCell(OrderedDict([("conv", Scale()), ("act", Relu())]))
    assert names(od) == ["conv.weight"]
    assert list(od.name_cells()) == ["conv", "act"]
    h = Holder(dense_relu_sequential=SequentialCell(Scale(), Relu(), Scale()))
    assert names(h) == ["dense_relu_sequential.0.weight", "dense_relu_sequential.2.weight"]


def test_sequential_runs_cells_in_order():
    seq = SequentialCell([Scale(3.0), Relu(), Scale(-1.0)])
    x = Tensor(np.array([1.0, -1.0], np.float32))
    np.testing.assert_array_equal(seq(x).asnumpy(), [-3.0, 0.0])
    np.testing.assert_array_equal(SequentialCell()(x).asnumpy(), x.asnumpy())


def test_sequential_indexing_slicing_and_len():
    a, b, c = Scale(), Relu(), Scale()
    seq = SequentialCell([a, b, c])
    assert len(seq) == 3 and seq[0] is a and seq[-1] is c
    part = seq[0:2]
    assert isinstance(part, SequentialCell) and list(part) == [a, b]
    # A slice shares the cells and leaves their names alone.
    assert names(seq) == ["0.weight", "2.weight"]
    with pytest.raises(IndexError, match=r"For 'SequentialCell', the index must be in range "
                                         r"\[-3, 3\), got 10"):
        seq[10]
    with pytest.raises(TypeError, match="index must be an int or a slice, got str"):
        seq["0"]


def test_sequential_append_setitem_delitem_rename():
    h = Holder(seq=SequentialCell([Scale(), Relu()]))
    h.seq.append(Scale())
    assert names(h) == ["seq.0.weight", "seq.2.weight"]
    h.seq[1] = Scale()
    assert names(h) == ["seq.0.weight", "seq.1.weight", "seq.2.weight"]
    last = h.seq[2]
    del h.seq[0]
    assert list(h.seq.name_cells()) == ["0", "1"] and h.seq[1] is last
    assert names(h) == ["seq.0.weight", "seq.1.weight"]
    h.seq.insert(0, Relu())
    assert names(h) == ["seq.1.weight", "seq.2.weight"]


def test_sequential_rejects_non_cells():
    with pytest.raises(TypeError, match="For 'SequentialCell', each cell must be a Cell, got int"):
        SequentialCell([1])
    with pytest.raises(KeyError, match="keys must be str without '.'"):
        SequentialCell(OrderedDict([("a.b", Relu())]))


# -- CellList ------------------------------------------------------------------------


def test_cell_list_append_extend_insert():
    h = Holder(cl=CellList([Scale()]))
    h.cl.append(Scale())
    h.cl.extend([Relu(), Scale()])
    assert len(h.cl) == 4
    assert names(h) == ["cl.0.weight", "cl.1.weight", "cl.3.weight"]
    first = h.cl[0]
    h.cl.insert(0, Scale())
    assert h.cl[1] is first
    assert [k for k, _ in h.parameters_and_names()] == [
        "cl.0.weight", "cl.1.weight", "cl.2.weight", "cl.4.weight"]
    assert names(h) == ["cl.0.weight", "cl.1.weight", "cl.2.weight", "cl.4.weight"]


def test_cell_list_iteration_and_indexing():
    cells = [Scale(), Relu(), Scale()]
    cl = CellList(cells)
    assert list(cl) == cells and cl[-1] is cells[2]
    assert isinstance(cl[1:], CellList) and list(cl[1:]) == cells[1:]
    assert names(cl) == ["0.weight", "2.weight"]


def test_cell_list_in_a_network():
    class Net(Cell):
        def __init__(self):
            super().__init__()
            self.layers = CellList([Scale(2.0), Scale(5.0)])

        def construct(self, x):
            for layer in self.layers:
                x = layer(x)
            return x

    net = Net()
    assert names(net) == ["layers.0.weight", "layers.1.weight"]
    assert net(Tensor(np.float32(1.0))).asnumpy() == 10.0


def test_cell_list_errors():
    with pytest.raises(TypeError, match="For 'CellList', each cell must be a Cell, got int"):
        CellList([1])
    with pytest.raises(NotImplementedError, match="CellList is not callable"):
        CellList([Relu()])(Tensor(1.0))


# -- CellDict ------------------------------------------------------------------------


def test_cell_dict_mapping_protocol():
    a, b = Scale(), Relu()
    h = Holder(d=CellDict({"a": a}))
    h.d["b"] = b
    assert list(h.d) == ["a", "b"] and len(h.d) == 2 and "a" in h.d
    assert list(h.d.keys()) == ["a", "b"] and list(h.d.values()) == [a, b]
    assert list(h.d.items()) == [("a", a), ("b", b)]
    assert names(h) == ["d.a.weight"]
    assert h.d.pop("b") is b and "b" not in h.d
    h.d.update([("c", Scale())])
    assert names(h) == ["d.a.weight", "d.c.weight"]
    del h.d["a"]
    assert list(h.d) == ["c"]
    h.d.clear()
    assert len(h.d) == 0


def test_cell_dict_errors():
    d = CellDict()
    with pytest.raises(KeyError, match="key can not contain '.'"):
        d["x.y"] = Relu()
    with pytest.raises(TypeError, match="key must be a str, got int"):
        d[1] = Relu()
    with pytest.raises(TypeError, match="For 'CellDict', each cell must be a Cell"):
        d["a"] = 3
    with pytest.raises(KeyError, match="CellDict has no cell 'z'"):
        d["z"]
    with pytest.raises(TypeError, match=r"expected a mapping or \(key, cell\) pairs"):
        d.update([1])
