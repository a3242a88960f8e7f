"""Cell: registration, MindSpore's parameter names, traversal, modes, hooks, bprop, errors.

Expected names and orders were read from MindSpore 2.10 (``/tmp/msenv``) on the same
networks.
"""

import copy

import numpy as np
import pytest

import ms_autodiff
import ms_ops as ops
from ms_nn import Cell, CellDict, CellList, SequentialCell
from ms_nn.initializer import initializer
from ms_tensor import GRAPH_MODE, PYNATIVE_MODE, Parameter, ParameterTuple, Tensor, set_context
from ms_tensor import dtype as mstype


class Dense(Cell):
    """A small Dense for the tests (ms-nn's layers are tested on their own)."""

    def __init__(self, cin, cout):
        super().__init__()
        self.weight = Parameter(initializer("normal", (cout, cin)), name="weight")
        self.bias = Parameter(initializer("zeros", (cout,)), name="bias")

    def construct(self, x):
        return ops.matmul(x, self.weight.T) + self.bias


class Relu(Cell):
    def construct(self, x):
        return ops.relu(x)


class Block(Cell):
    def __init__(self):
        super().__init__()
        self.fc = Dense(2, 3)
        self.w = Parameter(Tensor(np.ones(2, np.float32)))
        self.seq = SequentialCell([Dense(3, 3), Relu()])

    def construct(self, x):
        return self.seq(self.fc(x * self.w))


class Net(Cell):
    def __init__(self):
        super().__init__()
        self.block = Block()
        self.dense_relu_sequential = SequentialCell(Dense(2, 2), Relu(), Dense(2, 2))
        self.lst = CellList([Dense(1, 1)])
        self.lst.append(Dense(1, 2))
        self.d = CellDict({"a": Dense(1, 1)})

    def construct(self, x):
        return self.block(x)


# Names and order from MindSpore 2.10 for the same Net: a cell's own Parameters come
# before its children's, children in assignment order.
NET_PARAM_NAMES = [
    "block.w", "block.fc.weight", "block.fc.bias", "block.seq.0.weight", "block.seq.0.bias",
    "dense_relu_sequential.0.weight", "dense_relu_sequential.0.bias",
    "dense_relu_sequential.2.weight", "dense_relu_sequential.2.bias",
    "lst.0.weight", "lst.0.bias", "lst.1.weight", "lst.1.bias", "d.a.weight", "d.a.bias",
]
NET_CELL_NAMES = [
    "", "block", "block.fc", "block.seq", "block.seq.0", "block.seq.1",
    "dense_relu_sequential", "dense_relu_sequential.0", "dense_relu_sequential.1",
    "dense_relu_sequential.2", "lst", "lst.0", "lst.1", "d", "d.a",
]


def x23():
    return Tensor(np.arange(6, dtype=np.float32).reshape(3, 2))


# -- names and traversal --------------------------------------------------------------


def test_parameter_names_are_dotted_paths():
    net = Net()
    assert [p.name for p in net.get_parameters()] == NET_PARAM_NAMES
    assert [k for k, _ in net.parameters_and_names()] == NET_PARAM_NAMES
    assert list(net.parameters_dict()) == NET_PARAM_NAMES
    assert net.block.fc.weight.name == "block.fc.weight"


def test_cells_and_names_and_name_cells():
    net = Net()
    assert [k for k, _ in net.cells_and_names()] == NET_CELL_NAMES
    assert list(net.name_cells()) == ["block", "dense_relu_sequential", "lst", "d"]
    assert list(net.cells()) == [net.block, net.dense_relu_sequential, net.lst, net.d]
    assert [k for k, _ in net.cells_and_names(name_prefix="net")][:2] == ["net", "net.block"]


def test_default_parameter_name_is_the_attribute_name():
    class C(Cell):
        def __init__(self):
            super().__init__()
            self.b = Parameter(Tensor(2.0))

    assert [p.name for p in C().get_parameters()] == ["b"]


def test_explicit_name_kept_until_a_parent_prefixes_the_path():
    class C(Cell):
        def __init__(self):
            super().__init__()
            self.a = Parameter(Tensor(1.0), name="x")

    class N(Cell):
        def __init__(self):
            super().__init__()
            self.c = C()

    c = C()
    assert [(k, p.name) for k, p in c.parameters_and_names()] == [("a", "x")]
    assert [(k, p.name) for k, p in N().parameters_and_names()] == [("c.a", "c.a")]


def test_auto_prefix_false_keeps_child_names():
    class N(Cell):
        def __init__(self):
            super().__init__(auto_prefix=False)
            self.fc = Dense(1, 1)

    net = N()
    assert [k for k, _ in net.parameters_and_names()] == ["fc.weight", "fc.bias"]
    assert [p.name for p in net.get_parameters()] == ["weight", "bias"]


def test_parameter_tuple_attribute_is_registered_and_prefixed():
    class C(Cell):
        def __init__(self):
            super().__init__()
            self.pt = ParameterTuple([Parameter(Tensor(3.0), name="p0"),
                                      Parameter(Tensor(4.0), name="p1")])

    class M(Cell):
        def __init__(self):
            super().__init__()
            self.c = C()

    class Outer(Cell):
        def __init__(self):
            super().__init__()
            self.m = M()

    assert [p.name for p in C().get_parameters()] == ["p0", "p1"]
    o = Outer()  # MindSpore 2.10: m.c.p0, m.c.p1
    assert [(k, p.name) for k, p in o.parameters_and_names()] == [
        ("m.c.p0", "m.c.p0"), ("m.c.p1", "m.c.p1")]
    assert isinstance(o.m.c.pt, ParameterTuple)


def test_shared_parameter_and_cell_listed_once():
    class N(Cell):
        def __init__(self):
            super().__init__()
            self.a = Dense(1, 1)
            self.b = self.a
            self.w = Parameter(Tensor(1.0))
            self.w2 = self.w

    net = N()
    assert len(list(net.get_parameters())) == 3
    assert [k for k, _ in net.cells_and_names()] == ["", "a"]


def test_update_parameters_name_and_param_prefix():
    d = Dense(2, 2)
    d.update_parameters_name("pre.")
    assert [p.name for p in d.get_parameters()] == ["pre.weight", "pre.bias"]
    assert d.param_prefix == "pre"
    with pytest.raises(TypeError, match="prefix must be a str"):
        d.update_parameters_name(3)


def test_late_assignment_into_a_nested_cell_gets_the_full_path():
    net = Net()
    net.block.extra = Dense(1, 1)
    net.block.p = Parameter(Tensor(1.0))
    names = {p.name for p in net.get_parameters()}
    # The name equals the path under the top cell (MindSpore 2.10 drops "block." here).
    assert {"block.extra.weight", "block.p"} <= names


def test_trainable_and_untrainable_params():
    d = Dense(2, 2)
    d.bias.requires_grad = False
    assert [p.name for p in d.trainable_params()] == ["weight"]
    assert [p.name for p in d.untrainable_params()] == ["bias"]
    net = Net()
    assert [p.name for p in net.trainable_params(recurse=False)] == []
    assert [p.name for p in net.block.get_parameters(expand=False)] == ["block.w"]


def test_insert_child_to_cell_keeps_names_and_checks():
    d = Dense(2, 2)
    d.insert_child_to_cell("sub", Dense(1, 1))
    assert [(k, p.name) for k, p in d.parameters_and_names()] == [
        ("weight", "weight"), ("bias", "bias"), ("sub.weight", "weight"), ("sub.bias", "bias")]
    with pytest.raises(KeyError, match="'weight' already exists"):
        d.insert_child_to_cell("weight", Dense(1, 1))
    with pytest.raises(KeyError, match="without '.'"):
        d.insert_child_to_cell("a.b", Dense(1, 1))
    with pytest.raises(TypeError, match="must be a Cell, got int"):
        d.insert_child_to_cell("c", 1)


def test_insert_param_to_cell():
    c = Cell()
    c.insert_param_to_cell("w", Parameter(Tensor(1.0)))
    assert [p.name for p in c.get_parameters()] == ["w"]
    with pytest.raises(KeyError, match="must not contain '.'"):
        c.insert_param_to_cell("a.b", Parameter(Tensor(1.0)))
    with pytest.raises(TypeError, match="must be a Parameter, got Tensor"):
        c.insert_param_to_cell("t", Tensor(1.0))


# -- attribute assignment --------------------------------------------------------------


def test_assigning_none_deletes_parameter_and_cell():
    d = Dense(2, 3)
    d.weight = None
    assert d.weight is None
    assert list(d.parameters_dict()) == ["bias"]
    net = Net()
    net.block = None
    assert net.block is None
    assert "block" not in net.name_cells()
    assert not any(n.startswith("block.") for n in net.parameters_dict())


def test_reassigning_replaces_and_keeps_order():
    d = Dense(2, 3)
    new = Parameter(Tensor(np.zeros((3, 2), np.float32)), name="weight")
    d.weight = new
    assert d.weight is new
    assert list(d.parameters_dict()) == ["weight", "bias"]


def test_assigning_a_tensor_to_a_parameter_attribute_sets_its_data():
    d = Dense(2, 3)
    w = d.weight
    d.weight = Tensor(np.ones((3, 2), np.float32))
    assert d.weight is w and isinstance(d.weight, Parameter)
    np.testing.assert_array_equal(w.asnumpy(), np.ones((3, 2)))
    with pytest.raises(TypeError, match="attribute 'weight' is a Parameter"):
        d.weight = 3
    net = Net()
    with pytest.raises(TypeError, match="attribute 'block' is a Cell"):
        net.block = 3


def test_attribute_kind_can_change_to_a_plain_value():
    c = Cell()
    c.x = 1
    c.x = Parameter(Tensor(1.0))
    assert "x" not in c.__dict__ and [p.name for p in c.get_parameters()] == ["x"]
    del c.x
    c.x = Dense(1, 1)
    assert list(c.name_cells()) == ["x"]
    del c.x
    assert not c.name_cells()


def test_duplicate_parameter_name_in_one_cell_is_an_error():
    class C(Cell):
        def __init__(self):
            super().__init__()
            self.a = Parameter(Tensor(1.0), name="x")
            self.b = Parameter(Tensor(1.0), name="x")

    with pytest.raises(ValueError, match="named 'x', which Parameter 'a'"):
        C()
    with pytest.raises(ValueError, match="two Parameters named 'p'"):
        Cell().pt = ParameterTuple([Parameter(Tensor(1.0), name="p"),
                                    Parameter(Tensor(2.0), name="p")])


def test_getattr_error_names_cell_and_attribute():
    with pytest.raises(AttributeError, match="The 'Net' object has no attribute 'foo'"):
        _ = Net().foo


def test_forgetting_super_init_is_a_clear_error():
    class Bad(Cell):
        def __init__(self):
            self.w = Parameter(Tensor(1.0))

    with pytest.raises(AttributeError, match=r"Bad: cannot assign Parameter 'w' before "
                                             r"Cell.__init__\(\)"):
        Bad()


def test_construct_not_implemented():
    with pytest.raises(AttributeError, match="For 'Cell', the method 'construct' is not"):
        Cell()(Tensor(1.0))


def test_deepcopy_is_independent():
    net = Net()
    other = copy.deepcopy(net)
    other.block.fc.weight.set_data(Tensor(np.zeros((3, 2), np.float32)))
    assert not np.all(net.block.fc.weight.asnumpy() == 0)
    assert [p.name for p in other.get_parameters()] == NET_PARAM_NAMES


# -- modes and dtype ---------------------------------------------------------------------


def test_default_inference_and_set_train_propagates():
    net = Net()
    assert net.training is False and net.block.fc.training is False
    assert net.set_train() is net
    assert all(c.training for _, c in net.cells_and_names())
    assert net.phase == "train" and net.get_flags()["training"] is True
    net.set_train(False)
    assert not any(c.training for _, c in net.cells_and_names())
    assert net.block.seq.phase == "predict"


def test_to_float_casts_inputs_of_every_cell():
    seen = []

    class Probe(Cell):
        def construct(self, x):
            seen.append(x.dtype)
            return x

    class N(Cell):
        def __init__(self):
            super().__init__()
            self.p = Probe()

        def construct(self, x, i):
            seen.append((x.dtype, i.dtype))
            return self.p(ops.cast(x, mstype.float32))

    net = N().to_float(mstype.float16)
    net(Tensor(np.ones(2, np.float32)), Tensor(np.ones(2, np.int32)))
    assert seen == [(mstype.float16, mstype.int32), mstype.float16]
    with pytest.raises(ValueError, match="dst_type must be float16"):
        net.to_float(mstype.int32)


def test_to_float_computes_with_cast_weights_and_float32_gradients():
    net = Dense(2, 3).to_float(mstype.float16)
    x = Tensor(np.ones((1, 2), np.float32))
    assert net(x).dtype == mstype.float16  # MindSpore 2.10: Float16
    assert net.weight.dtype == mstype.float32  # outside construct: the Parameter itself
    grads = ms_autodiff.grad(lambda x: net(x).sum(), grad_position=None,
                             weights=net.trainable_params())(x)
    assert [g.dtype for g in grads] == [mstype.float32, mstype.float32]
    np.testing.assert_allclose(grads[0].asnumpy(), np.ones((3, 2)))


def test_to_float_keeps_parameters_of_cells_with_running_statistics():
    class Stats(Cell):
        def __init__(self):
            super().__init__()
            self.gamma = Parameter(Tensor(np.ones(2, np.float32)))
            self.moving_mean = Parameter(Tensor(np.zeros(2, np.float32)), requires_grad=False)

        def construct(self, x):
            seen.append((x.dtype, self.gamma.dtype, self.moving_mean.dtype))
            return x

    seen = []
    Stats().to_float(mstype.float16)(Tensor(np.ones(2, np.float32)))
    assert seen == [(mstype.float16, mstype.float32, mstype.float32)]


def test_apply_visits_children_then_self():
    order = []
    net = Net()
    assert net.apply(lambda c: order.append(c.cls_name)) is net
    assert order[-1] == "Net" and order[0] == "Dense"
    assert len(order) == len(NET_CELL_NAMES)


def test_graph_mode_compiles_construct_once_per_signature():
    net = Block()
    eager = net(x23()).asnumpy()
    set_context(mode=GRAPH_MODE)
    try:
        np.testing.assert_allclose(net(x23()).asnumpy(), eager, rtol=1e-6)
        np.testing.assert_allclose(net(x23()).asnumpy(), eager, rtol=1e-6)
    finally:
        set_context(mode=PYNATIVE_MODE)
    (compiled,) = net.__dict__["_graph_constructs"].values()
    assert (compiled.misses, compiled.hits) == (1, 1)


# -- hooks ----------------------------------------------------------------------------


def test_forward_hooks_modify_and_remove():
    class Twice(Cell):
        def construct(self, x):
            return x * 2

    net = Twice()
    calls = []

    def pre(cell, inputs):
        calls.append(("pre", type(inputs), len(inputs)))
        return (inputs[0] + 1,)

    def post(cell, inputs, output):
        calls.append(("post", cell is net))
        return output + 100

    h1 = net.register_forward_pre_hook(pre)
    h2 = net.register_forward_hook(post)
    assert net(Tensor(1.0)).asnumpy() == 104.0
    assert calls == [("pre", tuple, 1), ("post", True)]
    h1.remove()
    h2.remove()
    h2.remove()  # removing twice is harmless
    assert net(Tensor(1.0)).asnumpy() == 2.0


def test_hook_order_prepend_single_return_and_kwargs():
    class Add(Cell):
        def construct(self, x, y=0):
            return x + y

    net = Add()
    net.register_forward_hook(lambda c, i, o: o * 10)
    net.register_forward_hook(lambda c, i, o: o + 1, prepend=True)
    net.register_forward_pre_hook(lambda c, i: i[0] * 3)  # a single value is wrapped
    net.register_forward_pre_hook(lambda c, a, k: (a, {"y": k["y"] * 2}), with_kwargs=True)
    # (1*3 + 2*2 + 1) * 10
    assert net(Tensor(1.0), y=Tensor(2.0)).asnumpy() == 80.0


def test_always_call_hook_runs_when_construct_raises():
    class Boom(Cell):
        def construct(self, x):
            raise RuntimeError("boom")

    seen = []
    net = Boom()
    net.register_forward_hook(lambda c, i, o: seen.append(o), always_call=True)
    with pytest.raises(RuntimeError, match="boom"):
        net(Tensor(1.0))
    assert seen == [None]
    with pytest.raises(TypeError, match="hook_fn must be callable"):
        net.register_forward_hook(3)


def test_hook_handle_as_context_manager():
    class Id(Cell):
        def construct(self, x):
            return x

    net = Id()
    with net.register_forward_hook(lambda c, i, o: o + 1):
        assert net(Tensor(1.0)).asnumpy() == 2.0
    assert net(Tensor(1.0)).asnumpy() == 1.0


# -- gradients ----------------------------------------------------------------------------


def test_custom_bprop_replaces_the_gradient():
    class B(Cell):
        def construct(self, x):
            return x * 3

        def bprop(self, x, out, dout):
            return (dout * 10,)

    assert ms_autodiff.grad(B())(Tensor(1.0)).asnumpy() == 10.0  # MindSpore 2.10: 10.0
    assert B()(Tensor(2.0)).asnumpy() == 6.0


def test_gradients_flow_to_registered_weights():
    net = Dense(2, 1)
    net.weight.set_data(Tensor(np.array([[1.0, 2.0]], np.float32)))
    x = Tensor(np.array([[3.0, 4.0]], np.float32))
    grads = ms_autodiff.grad(lambda x: net(x).sum(), grad_position=None,
                             weights=net.trainable_params())(x)
    np.testing.assert_allclose(grads[0].asnumpy(), [[3.0, 4.0]])
    np.testing.assert_allclose(grads[1].asnumpy(), [1.0])


# -- repr ------------------------------------------------------------------------------


def test_repr_lists_children_like_mindspore():
    class Leaf(Cell):
        def extend_repr(self):
            return "n=2"

    class N(Cell):
        def __init__(self):
            super().__init__()
            self.leaf = Leaf()
            self.seq = SequentialCell([Relu()])

    assert repr(Relu()) == "Relu()"
    assert repr(Leaf()) == "Leaf(n=2)"
    assert repr(N()) == ("N(\n  (leaf): Leaf(n=2)\n  (seq): SequentialCell(\n"
                         "    (0): Relu()\n  )\n)")


# -- the package namespace ----------------------------------------------------------------


def test_package_exports_core_names_and_loads_the_rest_on_use():
    import ms_nn

    assert ms_nn.Cell is Cell and ms_nn.SequentialCell is SequentialCell
    assert {"Cell", "CellList", "SequentialCell", "CellDict"} <= set(ms_nn.__all__)
    with pytest.raises(AttributeError, match="module 'ms_nn' has no attribute 'NoSuchLayer'"):
        _ = ms_nn.NoSuchLayer
