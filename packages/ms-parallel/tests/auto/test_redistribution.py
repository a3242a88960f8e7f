import itertools
import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from ms_parallel.auto.layout import TensorLayout, common_refinement, strategy_layout
from ms_parallel.auto.redistribution import (
    _moves,
    _search,
    estimate_redistribution,
    glued,
    plan_redistribution,
    step_cost,
)
from ms_parallel.auto.simulate import gather, run, scatter
from ms_parallel.auto.topology import Topology

DEVICE_MATRICES = {2: [(2,)], 4: [(4,), (2, 2)], 8: [(8,), (2, 4), (4, 2), (2, 2, 2)]}


@st.composite
def layouts(draw, n, ndim, partial_ok):
    dev = draw(st.sampled_from(DEVICE_MATRICES[n]))
    axes = list(range(len(dev)))
    order = draw(st.permutations(axes))
    where = [draw(st.integers(-2 if partial_ok else -1, ndim - 1)) for _ in axes]
    tmap = [tuple(a for a, w in zip(order, where) if w == d) for d in range(ndim)]
    partial = [a for a, w in zip(order, where) if w == -2]
    return TensorLayout(dev, tmap, partial)


@st.composite
def cases(draw):
    n = draw(st.sampled_from([2, 4, 8]))
    ndim = draw(st.integers(1, 3))
    src = draw(layouts(n, ndim, True))
    dst = draw(layouts(n, ndim, False))
    shape = tuple(draw(st.sampled_from([8, 16, 24])) for _ in range(ndim))
    return src, dst, shape


@settings(max_examples=150, deadline=None)
@given(cases(), st.integers(0, 2**31))
def test_redistribution_rebuilds_the_unsharded_tensor(case, seed):
    src, dst, shape = case
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    plan = plan_redistribution(src, dst, shape, 8)
    out = run(plan, scatter(x, src, rng))
    np.testing.assert_allclose(gather(out, dst, shape), x, atol=1e-9)
    for r, piece in enumerate(out):
        assert piece.shape == dst.slice_shape(shape), r


def _all_sequences(start, goal, dev, shape, topo, depth):
    """Every considered sequence up to ``depth`` steps that reaches ``goal``: their costs."""
    costs, frontier = [], [(start, 0.0)]
    for _ in range(depth):
        nxt = []
        for state, cost in frontier:
            for step, new in _moves(state, goal, dev, shape):
                c = cost + step_cost(step, state, dev, shape, 8, topo)
                if new == goal:
                    costs.append(c)
                nxt.append((new, c))
        frontier = nxt
    return costs


@settings(max_examples=25, deadline=None)
@given(cases())
def test_chosen_sequence_is_the_cheapest_considered(case):
    src, dst, shape = case
    topo = Topology(device_num=src.device_num, devices_per_node=2)
    dev = common_refinement(src.normalized().dev_matrix, dst.normalized().dev_matrix)
    if dev is None:
        return
    a, b = src.normalized().on(dev), dst.normalized().on(dev)
    plan = plan_redistribution(src, dst, shape, 8, topo)
    start, goal = (a.tensor_map, a.partial), (b.tensor_map, b.partial)
    if start == goal:
        assert plan.steps == () and plan.cost == 0
        return
    # the device matrix and, where both layouts keep adjacent axes together, the coarser one
    chosen = []
    for x, y in filter(None, ((a, b), glued(a, b))):
        start, goal = (x.tensor_map, x.partial), (y.tensor_map, y.partial)
        steps, cost = _search(start, goal, x.dev_matrix, shape, 8, topo)
        assume(len(steps) <= 4)  # enumerating longer sequences takes too long
        others = _all_sequences(start, goal, x.dev_matrix, shape, topo, len(steps) + 1)
        assert others and min(others) >= cost - 1e-15
        chosen.append(cost)
    assert plan.cost == min(chosen)


@settings(max_examples=40, deadline=None)
@given(cases())
def test_the_estimate_is_the_cost_of_a_real_sequence_never_below_the_cheapest(case):
    src, dst, shape = case
    topo = Topology(device_num=src.device_num, devices_per_node=2)
    exact = plan_redistribution(src, dst, shape, 8, topo).cost
    estimate = estimate_redistribution(src, dst, shape, 8, topo)
    assert estimate >= exact - 1e-15
    if src.normalized() == dst.normalized():
        assert estimate == 0


def test_moving_a_cut_between_dimensions_is_one_alltoall():
    plan = plan_redistribution(strategy_layout((4, 1), 4), strategy_layout((1, 4), 4), (8, 8))
    assert [s.kind for s in plan.steps] == ["AlltoAll"]


def test_axes_cut_together_move_together():
    """Rows cut by both axes of (2, 2) -> columns cut by both (reshard's multi-axis layouts):
    one 4-way AlltoAll once the tensor is large enough for bandwidth to outweigh its third
    latency step; small ones still take a gather, a 2-way AlltoAll and a slice (2 steps)."""
    src, dst = TensorLayout((2, 2), ((0, 1), ())), TensorLayout((2, 2), ((), (0, 1)))
    small = plan_redistribution(src, dst, (8, 8))
    assert [s.kind for s in small.steps] == ["AllGather", "AlltoAll", "Split"]
    plan = plan_redistribution(src, dst, (1024, 1024))
    assert [s.kind for s in plan.steps] == ["AlltoAll"] and plan.dev_matrix == (4,)
    assert plan.cost < _search((src.tensor_map, src.partial), (dst.tensor_map, dst.partial),
                               (2, 2), (1024, 1024), 4, Topology(device_num=4))[1]
    x = np.arange(1024.0 * 1024).reshape(1024, 1024)
    out = run(plan, scatter(x, src, np.random.default_rng(0)))
    np.testing.assert_array_equal(gather(out, dst, (1024, 1024)), x)
    # an axis order that differs (rows by 1 then 0) keeps the axes apart
    assert glued(TensorLayout((2, 2), ((1, 0), ())), dst) is None


def test_partial_to_sliced_is_a_reduce_scatter():
    src = TensorLayout((4,), ((), ()), partial=(0,))
    plan = plan_redistribution(src, strategy_layout((4, 1), 4), (8, 8))
    assert [s.kind for s in plan.steps] == ["ReduceScatter"]
    plan = plan_redistribution(src, strategy_layout((1, 1), 4), (8, 8))
    assert [s.kind for s in plan.steps] == ["AllReduce"]


def test_cost_prefers_the_intra_node_link():
    topo = Topology(device_num=8, devices_per_node=2)
    inner = topo.collective("AllGather", 2, 1e6, stride=1)
    outer = topo.collective("AllGather", 2, 1e6, stride=4)
    assert inner < outer
    assert math.isclose(outer - inner, 5e5 / topo.inter_bandwidth - 5e5 / topo.intra_bandwidth
                        + topo.inter_latency - topo.intra_latency)


def test_layouts_on_different_device_counts_are_refused():
    with pytest.raises(ValueError, match="layouts on 2 and 4 devices"):
        plan_redistribution(strategy_layout((2,), 2), strategy_layout((4,), 4), (8,))
    with pytest.raises(ValueError, match="cannot be partial"):
        plan_redistribution(strategy_layout((2,), 2), TensorLayout((2,), ((),), (0,)), (8,))


def test_every_pair_on_four_ranks_round_trips():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((8, 4))
    strategies = [s for s in itertools.product([1, 2, 4], repeat=2) if 4 % math.prod(s) == 0]
    for a, b in itertools.product(strategies, repeat=2):
        src, dst = strategy_layout(a, 4), strategy_layout(b, 4)
        out = run(plan_redistribution(src, dst, x.shape), scatter(x, src))
        np.testing.assert_allclose(gather(out, dst, x.shape), x)
