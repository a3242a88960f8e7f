import json
import textwrap

import numpy as np
import pytest

from ms_nn import Cell
from ms_ops import MatMul, ReLU
from ms_parallel.auto import models
from ms_parallel.auto.ckpt import load_strategy
from ms_parallel.auto.cli import main
from ms_parallel.auto.graph import capture
from ms_parallel.auto.layout import Layout
from ms_parallel.auto.planner import plan
from ms_parallel.auto.topology import Topology
from ms_tensor import Parameter, Tensor

NET = '''
import numpy as np
from ms_nn import Cell
from ms_ops import MatMul, ReduceMean, ReLU
from ms_tensor import Parameter, Tensor


class Net(Cell):
    def __init__(self):
        super().__init__()
        rng = np.random.default_rng(0)
        self.w1 = Parameter(Tensor(rng.standard_normal((16, 32)).astype(np.float32)), name="w1")
        self.w2 = Parameter(Tensor(rng.standard_normal((32, 8)).astype(np.float32)), name="w2")
        self.mm1 = MatMul().shard(((2, 1), (1, 2)))
        self.relu = ReLU()
        self.mm2 = MatMul()
        self.mean = ReduceMean()

    def construct(self, x):
        return self.mean(self.mm2(self.relu(self.mm1(x, self.w1)), self.w2))


net = Net()
inputs = (Tensor(np.ones((64, 16), np.float32)),)
'''


def _net():
    scope = {}
    exec(NET, scope)
    return scope["net"], scope["inputs"]


def test_capture_finds_the_strategies_set_with_primitive_shard():
    net, inputs = _net()
    g = capture(net, *inputs)
    assert [n.spec.op for n in g.nodes] == ["MatMul", "ReLU", "MatMul", "ReduceMean"]
    assert g.nodes[0].strategy == ((2, 1), (1, 2)) and g.nodes[2].strategy is None
    assert [s[0] for s in g.nodes[0].sources] == ["input", "param"]
    result = plan(g, Topology(device_num=4), "sharding_propagation")
    assert result.cuts[0] == (2, 1, 2)
    assert result.cuts[1] == (2, 2)  # ReLU takes MatMul's output layout as it is


def test_primitive_shard_validates_and_keeps_single_device_results():
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    y = Tensor(np.ones((3, 2), np.float32))
    plain = MatMul()(x, y).asnumpy()
    sharded = MatMul().shard(((2, 1), (1, 1)))
    np.testing.assert_array_equal(sharded(x, y).asnumpy(), plain)
    with pytest.raises(TypeError, match="MatMul.shard: in_strategy must be a tuple"):
        MatMul().shard(4)


def test_cell_shard_pins_input_and_parameter_layouts():
    net, inputs = _net()
    layout = Layout((4,), ("dp",))
    net.shard(in_strategy=(layout("dp", "None"),), parameter_plan={"w1": (1, 1)})
    g = capture(net, *inputs)
    assert g.input_strategies[0].shards == (4, 1) and g.param_strategies == {"w1": (1, 1)}
    result = plan(g, Topology(device_num=4))
    assert "predicted step time" in result.report()


def test_strategy_file_round_trips_and_pins_a_later_search(tmp_path):
    g = models.mlp(64, (32, 64, 8))
    topo = Topology(device_num=4)
    path = tmp_path / "strategy.json"
    first = plan(g, topo, strategy_ckpt_config={"save_file": str(path)})
    data = json.loads(path.read_text())
    assert data["device_num"] == 4 and set(data["operators"]) == {n.name for n in g.nodes}
    assert path.read_text().count("\n") > len(g.nodes)  # one line per field: diffable
    pinned = load_strategy(path, 4)
    name = g.nodes[0].name
    data["operators"][name]["in_strategy"] = [[4, 1], [1, 1]]
    path.write_text(json.dumps(data))
    again = plan(g, topo, "recursive_programming", strategy_ckpt_config={"load_file": str(path)})
    assert again.cuts[0] == (4, 1, 1)
    assert pinned[name] == tuple(map(tuple, first.strategies()[name]["in_strategy"]))
    with pytest.raises(ValueError, match="saved for 4 devices; this run has 8"):
        load_strategy(path, 8)
    path.write_text("{}")
    with pytest.raises(ValueError, match="expected format"):
        load_strategy(path)


def test_a_strategy_file_naming_other_operators_warns_that_it_pins_nothing(tmp_path):
    g = models.mlp(64, (32, 64, 8))
    topo = Topology(device_num=4)
    path = tmp_path / "strategy.json"
    plan(g, topo, strategy_ckpt_config={"save_file": str(path)})
    data = json.loads(path.read_text())
    data["operators"] = {f"Default/network-Net/{k}-op0": v for k, v in data["operators"].items()}
    path.write_text(json.dumps(data))
    with pytest.warns(UserWarning, match=r"strategy.json: \d+ of its \d+ operators are not in"):
        plan(g, topo, strategy_ckpt_config={"load_file": str(path)})


def test_cli_plans_a_script_for_many_simulated_devices(tmp_path, capsys):
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent('''
        from ms_parallel.auto import models
        graph = models.mlp(4096, (1024, 4096, 1024))
        if __name__ == "__main__":
            raise SystemExit("training must not start while planning")
    '''))
    out = tmp_path / "s.json"
    assert main(["plan", str(script), "--devices", "1024", "--topology", "8x128",
                 "--save", str(out)]) == 0
    text = capsys.readouterr().out
    assert "devices: 1024 (8 per node)" in text and "memory per device" in text
    assert "compute" in text and "communication" in text
    assert json.loads(out.read_text())["device_num"] == 1024
    assert main(["plan", str(script), "--devices", "64", "--topology", "8x4"]) == 2
    assert "has 32 devices, --devices says 64" in capsys.readouterr().err


def test_a_parameter_held_twice_is_one_parameter():
    w = Parameter(Tensor(np.ones((4, 4), np.float32)), name="w")

    class Tied(Cell):
        def __init__(self):
            super().__init__()
            self.w = w
            self.mm = MatMul()
            self.relu = ReLU()

        def construct(self, x):
            return self.mm(self.relu(self.mm(x, self.w)), self.w)

    g = capture(Tied(), Tensor(np.ones((2, 4), np.float32)))
    assert g.param_shapes() == {"w": (4, 4)}


def test_plan_from_context_reads_the_auto_parallel_context(tmp_path):
    from ms_parallel.auto.planner import plan_from_context
    from ms_parallel.context import reset_auto_parallel_context, set_auto_parallel_context

    g = models.mlp(64, (32, 64, 8))
    path = tmp_path / "s.json"
    try:
        with pytest.raises(ValueError, match="parallel_mode is 'stand_alone'"):
            plan_from_context(g)
        set_auto_parallel_context(parallel_mode="auto_parallel", device_num=4,
                                  search_mode="dynamic_programming",
                                  strategy_ckpt_config={"save_file": str(path)})
        result = plan_from_context(g)
        assert result.search_mode == "dynamic_programming" and result.model.n == 4
        assert json.loads(path.read_text())["search_mode"] == "dynamic_programming"
        set_auto_parallel_context(parallel_mode="semi_auto_parallel")
        g.nodes[0].strategy = ((2, 1), (1, 2))
        result = plan_from_context(g)
        assert result.search_mode == "semi_auto_parallel"
        # the annotated MatMul keeps its strategy; every other operator is data parallel
        # (MindSpore's default in semi-auto mode), not a copy of its neighbour's
        assert result.cuts[0] == (2, 1, 2)
        strategies = result.strategies()
        for node in g.nodes[1:]:
            first = strategies[node.name]["in_strategy"][0]
            assert first[:1] == [4] and set(first[1:]) <= {1}, (node.name, first)
        set_auto_parallel_context(search_mode="sharding_propagation",
                                  parallel_mode="auto_parallel")
        assert plan_from_context(g).search_mode == "sharding_propagation"
    finally:
        reset_auto_parallel_context()
