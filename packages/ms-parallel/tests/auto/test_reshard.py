"""``reshard`` in one process: argument checks, the identity outside parallel modes, and the
plan of a simulated 4-device mesh (the pinned tensor keeps exactly the given layout, the
operators around it are planned from it, the strategy file records it). The real runs on
2 and 4 ranks are integration_tests/auto_parallel/test_reshard.py."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ms_graph import jit

from ms_nn import Cell
from ms_ops import MatMul, ReduceMean, ReLU
from ms_parallel.auto.graph import capture
from ms_parallel.auto.layout import Layout, TensorLayout
from ms_parallel.auto.planner import plan_from_context
from ms_parallel.auto.redistribution import plan_redistribution
from ms_parallel.auto.reshard import Reshard, reshard
from ms_parallel.auto.simulate import gather, run, scatter
from ms_parallel.context import reset_auto_parallel_context, set_auto_parallel_context
from ms_tensor import Parameter, Tensor

MESH = Layout((2, 2), ("dp", "mp"))


class Net(Cell):
    """MatMul (rows cut 4 ways) -> reshard -> ReLU -> MatMul (no strategy) -> mean."""

    def __init__(self, layout=None, second=None):
        super().__init__()
        rng = np.random.default_rng(0)
        self.w1 = Parameter(Tensor(rng.standard_normal((16, 32))), name="w1")
        self.w2 = Parameter(Tensor(rng.standard_normal((32, 8))), name="w2")
        self.mm1, self.mm2 = MatMul().shard(((4, 1), (1, 1))), MatMul()
        self.relu, self.mean = ReLU(), ReduceMean()
        self.layout, self.second = layout, second

    def construct(self, x):
        h = self.mm1(x, self.w1)
        if self.layout is not None:
            h = reshard(h, self.layout)
        h = self.relu(h)
        if self.second is not None:
            h = reshard(h, self.second)
        return self.mean(self.mm2(h, self.w2))


X = Tensor(np.ones((8, 16)))


@pytest.fixture
def mode():
    def set_mode(parallel_mode, **kw):
        set_auto_parallel_context(parallel_mode=parallel_mode, device_num=4, **kw)
    yield set_mode
    reset_auto_parallel_context()


def _plan(net):
    return plan_from_context(capture(net, X))


def _layouts(p, name):
    j = next(i for i, node in enumerate(p.graph.nodes) if node.name == name)
    return p.model.layouts(j, p.cuts[j])


# -- arguments ---------------------------------------------------------------------------------
def test_bad_arguments_are_refused_by_name():
    with pytest.raises(TypeError, match="first input param.*ndarray"):
        reshard(np.ones((2, 2)), MESH("dp", "None"))
    with pytest.raises(TypeError, match="mindspore.Layout.*tuple"):
        reshard(X, (2, 1))
    with pytest.raises(ValueError, match="no tensor map.*layout\\('dp', 'None'\\)"):
        reshard(X, MESH)
    with pytest.raises(ValueError, match="maps 1 dimensions.*\\(8, 16\\)"):
        reshard(X, MESH("dp"))
    with pytest.raises(ValueError, match="is partial; a pinned tensor holds its values"):
        reshard(X, TensorLayout((2, 2), ((0,), ()), partial=(1,)))
    with pytest.raises(ValueError, match="'tp' is not one of the alias names"):
        MESH("tp", "None")


def test_outside_parallel_modes_the_tensor_comes_back_as_it_is():
    assert reshard(X, MESH("dp", "None")) is X
    f = jit(lambda x: reshard(x, MESH("dp", "mp")) * 2.0)
    np.testing.assert_array_equal(f(X).asnumpy(), 2.0 * X.asnumpy())


def test_auto_parallel_needs_sharding_propagation(mode):
    mode("auto_parallel", search_mode="dynamic_programming")
    with pytest.raises(ValueError, match="search_mode must be 'sharding_propagation'.*dynamic"):
        reshard(X, MESH("dp", "None"))
    mode("semi_auto_parallel")
    graph = capture(Net(MESH("None", "mp")), X)
    mode("auto_parallel", search_mode="recursive_programming")
    with pytest.raises(ValueError, match="search_mode must be 'sharding_propagation'"):
        plan_from_context(graph)


def test_a_layout_for_another_device_count_is_refused(mode):
    mode("semi_auto_parallel")
    with pytest.raises(ValueError, match="reshard: layout .* has 2 devices, the plan has 4"):
        _plan(Net(Layout((2,), ("mp",))("None", "mp")))


def test_the_operator_is_the_identity_with_its_gradient():
    from ms_autodiff import grad

    x = Tensor(np.arange(8.0).reshape(4, 2))
    y = Reshard(x, (2, 2), ((0,), ()))
    np.testing.assert_array_equal(y.asnumpy(), x.asnumpy())
    g = grad(lambda t: (Reshard(t, (2, 2), ((0, 1), ())) * t).sum())(x)
    np.testing.assert_array_equal(g.asnumpy(), 2 * x.asnumpy())
    with pytest.raises(ValueError, match="Reshard: the layout maps 1 dimensions.*\\(4, 2\\)"):
        Reshard(x, (4,), ((0,),))


# -- planning ----------------------------------------------------------------------------------
@pytest.mark.parametrize("parallel_mode", ["semi_auto_parallel", "auto_parallel"])
def test_the_pinned_tensor_has_the_given_layout_and_its_neighbours_follow(mode, parallel_mode,
                                                                         tmp_path):
    save = tmp_path / "strategy.json"
    mode(parallel_mode, search_mode="sharding_propagation",
         strategy_ckpt_config={"save_file": str(save)})
    layout = Layout((4,), ("mp",))("None", "mp")  # the columns cut 4 ways
    p = _plan(Net(layout))
    assert p.search_mode == "sharding_propagation"  # SEMI_AUTO_PARALLEL switches to it
    assert _layouts(p, "Reshard-1") == ([layout], [layout])
    mm1_out = _layouts(p, "MatMul-0")[1][0]
    steps = plan_redistribution(mm1_out, layout, (8, 32), 8, p.model.topo).steps
    assert [s.kind for s in steps] == ["AlltoAll"]  # rows cut 4 ways -> columns: one trade
    # the unannotated MatMul reads the columns as they are: row parallel, its output partial
    assert p.strategies()["MatMul-3"]["in_strategy"] == [[1, 4], [4, 1]]
    saved = json.loads(save.read_text())["operators"]["Reshard-1"]
    assert saved["layout"] == {"device_matrix": [4], "tensor_map": [-1, 0]}
    assert saved["in_strategy"] == [[1, 4]]


def test_without_reshard_semi_auto_stays_data_parallel(mode):
    mode("semi_auto_parallel")
    p = _plan(Net())
    assert p.search_mode == "semi_auto_parallel"
    assert p.strategies()["MatMul-2"]["in_strategy"] == [[4, 1], [1, 1]]


def test_layouts_with_the_same_cuts_on_swapped_axes_stay_apart(mode):
    """("dp", "mp") and ("mp", "dp") cut alike (2 x 2) but put the slices on other ranks."""
    mode("semi_auto_parallel")
    a, b = MESH("dp", "mp"), MESH("mp", "dp")
    assert a != b and a.shards == b.shards
    p = _plan(Net(a, b))
    assert _layouts(p, "Reshard-1") == ([a], [a])
    assert _layouts(p, "Reshard-3") == ([b], [b])
    assert p.strategies()["Reshard-3"]["layout"]["tensor_map"] == [0, 1]



@st.composite
def pinned_layouts(draw):
    """A device matrix of 4 or 8 devices and a map of its axes onto a (16, 32) tensor: some
    cut the rows, some the columns (several per dimension, in any order), the rest
    replicate."""
    dev = draw(st.sampled_from([(4,), (2, 2), (8,), (2, 4), (4, 2), (2, 2, 2)]))
    names = tuple(f"a{i}" for i in range(len(dev)))
    order = draw(st.permutations(names))
    where = [draw(st.integers(-1, 1)) for _ in names]
    dims = [tuple(a for a, w in zip(order, where) if w == d) for d in (0, 1)]
    entry = [d[0] if len(d) == 1 else d if d else "None" for d in dims]
    return Layout(dev, names)(*entry)


@settings(max_examples=30, deadline=None)
@given(pinned_layouts())
def test_any_layout_is_pinned_exactly_and_reached(layout):
    """Whatever the layout, the Reshard node has it, and the planned redistribution from the
    first MatMul's output rebuilds the tensor under it (simulated ranks)."""
    n = layout.device_num
    set_auto_parallel_context(parallel_mode="semi_auto_parallel", device_num=n)
    try:
        net = Net(layout)
        net.mm1 = MatMul().shard(((2, 1), (1, n // 2)))
        p = _plan(net)
    finally:
        reset_auto_parallel_context()
    assert _layouts(p, "Reshard-1") == ([layout], [layout])
    src = _layouts(p, "MatMul-0")[1][0]
    plan = plan_redistribution(src, layout, (8, 32), 8, p.model.topo)
    rng = np.random.default_rng(0)
    h = rng.standard_normal((8, 32))
    np.testing.assert_allclose(gather(run(plan, scatter(h, src, rng)), layout, (8, 32)), h)


SCRIPT = """
import numpy as np
from ms_nn import Cell
from ms_ops import MatMul, ReduceMean
from ms_parallel.auto.layout import Layout
from ms_parallel.auto.reshard import reshard
from ms_tensor import Parameter, Tensor


class Net(Cell):
    def __init__(self):
        super().__init__()
        self.w1 = Parameter(Tensor(np.ones((16, 64), np.float32)), name="w1")
        self.w2 = Parameter(Tensor(np.ones((64, 8), np.float32)), name="w2")
        self.mm1, self.mm2, self.mean = MatMul(), MatMul(), ReduceMean()

    def construct(self, x):
        h = reshard(self.mm1(x, self.w1), Layout((8,), ("mp",))("None", "mp"))
        return self.mean(self.mm2(h, self.w2))


net, inputs = Net(), (Tensor(np.ones((32, 16), np.float32)),)
"""


def test_the_plan_command_pins_the_scripts_reshard(tmp_path, capsys):
    from ms_parallel.auto.cli import main
    from ms_parallel.context import get_auto_parallel_context

    script, save = tmp_path / "train.py", tmp_path / "strategy.json"
    script.write_text(SCRIPT)
    assert main(["plan", str(script), "--devices", "8", "--search-mode",
                 "sharding_propagation", "--save", str(save)]) == 0
    assert "Reshard-1" in capsys.readouterr().out
    ops = json.loads(save.read_text())["operators"]
    assert ops["Reshard-1"]["layout"] == {"device_matrix": [8], "tensor_map": [-1, 0]}
    assert ops["MatMul-2"]["in_strategy"] == [[1, 8], [8, 1]]  # planned from the layout
    assert get_auto_parallel_context("parallel_mode") == "stand_alone"  # restored
