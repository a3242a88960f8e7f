import math

import pytest

from ms_parallel.auto import models
from ms_parallel.auto.cost import CostModel
from ms_parallel.auto.dp import brute_force, dynamic_programming
from ms_parallel.auto.graph import OpGraph
from ms_parallel.auto.planner import plan
from ms_parallel.auto.propagation import sharding_propagation
from ms_parallel.auto.rec import prime_factors, recursive_programming
from ms_parallel.auto.strategy import from_strategy, to_strategy
from ms_parallel.auto.topology import Topology


def _residual(batch=8, hidden=16):
    """MatMul -> ReLU -> MatMul, added back to the first MatMul: a branch and a join."""
    g = OpGraph()
    a = g.add("MatMul", [("input", 0), ("param", "w1")], [(batch, hidden), (hidden, hidden)],
              [(batch, hidden)])
    b = g.add("ReLU", [("op", a, 0)], [(batch, hidden)], [(batch, hidden)])
    c = g.add("MatMul", [("op", b, 0), ("param", "w2")], [(batch, hidden), (hidden, hidden)],
              [(batch, hidden)])
    d = g.add("Add", [("op", a, 0), ("op", c, 0)], [(batch, hidden)] * 2, [(batch, hidden)])
    e = g.add("ReduceMean", [("op", d, 0), None], [(batch, hidden), None], [()], args=(None, ()))
    g.outputs.append((e, 0))
    return g


def _total(model, cuts):
    return model.evaluate(cuts)["total"]


@pytest.mark.parametrize("graph, devices, per_node", [
    (_residual(), 4, 2),
    (_residual(64, 8), 4, 4),
    (models.mlp(16, (8, 32, 4)), 4, 2),
    (models.wide_ffn(8, 16, 256), 4, 1),
])
def test_dynamic_programming_equals_brute_force(graph, devices, per_node):
    model = CostModel(graph, Topology(device_num=devices, devices_per_node=per_node))
    assert math.isclose(_total(model, dynamic_programming(model)),
                        _total(model, brute_force(model)), rel_tol=1e-12)


@pytest.mark.parametrize("name, graph, devices", [
    ("mlp", models.mlp(4096, (1024, 4096, 4096, 1024)), 8),
    ("mlp", models.mlp(4096, (1024, 4096, 4096, 1024)), 64),
    ("mlp", models.mlp(4096, (1024, 4096, 4096, 1024)), 1024),
    ("small-batch mlp", models.mlp(32, (1024, 4096, 4096, 1024)), 64),
    ("transformer", models.transformer(16, 512, 4096, 32), 8),
    ("wide ffn", models.wide_ffn(64, 4096, 65536), 8),
    ("wide ffn", models.wide_ffn(64, 4096, 65536), 64),
    ("wide ffn", models.wide_ffn(64, 4096, 65536), 1024),
])
def test_recursive_is_within_ten_percent_of_dynamic_programming(name, graph, devices):
    topo = Topology(device_num=devices, devices_per_node=min(8, devices))
    model = CostModel(graph, topo)
    best = _total(model, dynamic_programming(model))
    assert _total(model, recursive_programming(model)) <= 1.10 * best, name


def test_repeated_layers_share_the_recursive_decisions():
    """Eight identical layers cost the search about what two do: the same operator between
    neighbours decided alike is decided once (the 24-layer benchmark's speed)."""
    import ms_parallel.auto.rec as rec

    calls = []
    real = rec._decide

    def counting(*args):
        calls.append(args[1])
        return real(*args)

    counts = {}
    for layers in (2, 8):
        calls.clear()
        g = models.transformer(2, 16, 64, 4, layers)
        model = CostModel(g, Topology(device_num=16, devices_per_node=8))
        rec._decide, saved = counting, rec._decide
        try:
            cuts = recursive_programming(model)
        finally:
            rec._decide = saved
        counts[layers] = len(calls)
        assert len(cuts) == len(g.nodes)
    assert counts[8] <= counts[2] + 30, counts  # not four times as many


def test_large_batch_is_data_parallel_and_small_batch_big_matmul_is_model_parallel():
    topo = Topology(device_num=8)
    big = models.wide_ffn(1 << 16, 1024, 1024)
    cuts = plan(big, topo).cuts
    assert cuts[0] == (8, 1, 1), cuts  # MatMul letters (i, k, j): the batch is cut
    small = models.wide_ffn(8, 8192, 8192)
    cuts = plan(small, topo).cuts
    assert cuts[0][0] == 1 and cuts[0][1:] != (1, 1), cuts  # the weight is cut


def test_a_plan_that_cannot_fit_in_memory_is_rejected():
    topo = Topology(device_num=2, memory=1 << 20)
    with pytest.raises(MemoryError, match="needs at least"):
        plan(models.wide_ffn(8, 4096, 4096), topo)


def test_memory_is_priced_in_when_the_fastest_plan_does_not_fit():
    g = models.wide_ffn(4096, 256, 256)
    free = plan(g, Topology(device_num=4))
    need = free.cost["memory"]  # 6.0 MiB; the leanest plan needs 5.25 MiB
    tight = plan(g, Topology(device_num=4, memory=need * 0.9))
    assert tight.cost["memory"] <= need * 0.9
    assert tight.cost["total"] > free.cost["total"]
    with pytest.raises(MemoryError, match="no plan found fits"):
        plan(g, Topology(device_num=4, memory=need * 0.8))


def test_sharding_propagation_spreads_an_annotated_strategy():
    g = models.mlp(64, (32, 64, 64, 8))
    g.nodes[0].strategy = ((4, 1), (1, 1))  # data parallel on the first MatMul
    model = CostModel(g, Topology(device_num=4))
    cuts = sharding_propagation(model)
    assert cuts[0] == (4, 1, 1)
    assert cuts[1] == (4, 1) and cuts[2] == (4, 1)  # Add, ReLU follow without redistribution
    with pytest.raises(ValueError, match="no operator has a strategy"):
        sharding_propagation(CostModel(models.mlp(8, (4, 4)), Topology(device_num=2)))


def test_user_strategies_are_checked_against_the_operator():
    g = models.mlp(8, (4, 8, 2))
    spec = g.nodes[0].spec
    assert from_strategy(spec, ((2, 1), (1, 2)), 4) == (2, 1, 2)
    assert to_strategy(spec, (2, 1, 2)) == ((2, 1), (1, 2))
    with pytest.raises(ValueError, match="cuts one dimension two ways"):
        from_strategy(spec, ((1, 2), (1, 2)), 4)
    with pytest.raises(ValueError, match="does not divide device_num=2"):
        from_strategy(spec, ((2, 1), (1, 2)), 2)
    softmax = g.nodes[-2].spec
    with pytest.raises(ValueError, match="needs it whole"):
        from_strategy(softmax, ((1, 2), (1, 2)), 2)


def test_prime_factors_largest_first():
    assert prime_factors(1024) == [2] * 10 and prime_factors(12) == [3, 2, 2]
