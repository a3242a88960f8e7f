import numpy as np
import pytest

from ms_parallel.auto.layout import Layout, TensorLayout, common_refinement, strategy_layout
from ms_parallel.auto.simulate import gather, local_slice, scatter


def test_strategy_layout_puts_the_replicas_outermost():
    t = strategy_layout((2, 1), 8)
    assert t.dev_matrix == (4, 2) and t.tensor_map == ((1,), ())
    assert [t.block(r) for r in range(4)] == [(0, 0), (1, 0), (0, 0), (1, 0)]


def test_layout_aliases_build_mindspore_tensor_maps():
    layout = Layout((2, 2, 2), ("dp", "sp", "mp"))
    t = layout(("dp", "sp"), "mp")
    assert t.shards == (4, 2)
    assert t.to_dict() == {"device_matrix": [2, 2, 2], "tensor_map": [[2, 1], 0]}
    with pytest.raises(ValueError, match="'xx' is not one of the alias names"):
        layout("xx", "None")
    with pytest.raises(ValueError, match="used twice"):
        layout("dp", "dp")


def test_slice_shape_rejects_uneven_cuts():
    with pytest.raises(ValueError, match=r"cannot be cut into \(4, 1\)"):
        strategy_layout((4, 1), 4).slice_shape((6, 3))


def test_common_refinement_keeps_row_major_ranks():
    dev = common_refinement((2, 4), (4, 2))
    assert dev == (2, 2, 2)
    a = TensorLayout((2, 4), ((1,), (0,)))
    fine = a.on(dev)
    assert all(a.block(r) == fine.block(r) for r in range(8))
    assert common_refinement((2, 3), (3, 2)) is None
    assert common_refinement((2, 2), (8,)) is None


def test_scatter_gather_round_trip_with_partial_sums():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 6))
    t = TensorLayout((2, 2), ((0,), ()), partial=(1,))
    pieces = scatter(x, t, rng)
    assert not np.allclose(pieces[0], local_slice(x, strategy_layout((2, 1), 4), 0))
    np.testing.assert_allclose(gather(pieces, t, x.shape), x)


def test_gather_rejects_replicas_that_disagree():
    t = strategy_layout((2, 1), 4)
    pieces = scatter(np.arange(8.0).reshape(4, 2), t)
    pieces[2] = pieces[2] + 1
    with pytest.raises(ValueError, match="rank 2's replica differs"):
        gather(pieces, t, (4, 2))
