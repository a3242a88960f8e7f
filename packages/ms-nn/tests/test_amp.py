"""Mixed precision: levels O0-O3, build_train_network, loss-scale managers and scalers."""

import numpy as np
import pytest

import ms_ops as ops
from ms_nn import Cell, SequentialCell
from ms_nn.amp import (
    DynamicLossScaleManager,
    DynamicLossScaler,
    FixedLossScaleManager,
    StaticLossScaler,
    auto_mixed_precision,
    build_train_network,
)
from ms_nn.layers import BatchNorm1d, Dense, ReLU
from ms_nn.optim import Momentum
from ms_nn.wrap import TrainOneStepCell, TrainOneStepWithLossScaleCell
from ms_tensor import Tensor, float16, float32

# Every test here runs in PYNATIVE_MODE and in GRAPH_MODE (conftest.py's ``mode``).
pytestmark = pytest.mark.usefixtures("mode")

# MindSpore 2.10's DynamicLossScaleManager(16, 2, 2).update_loss_scale after each flag
OVERFLOWS = [False, False, True, False, False, False, True, True]
DYN_MANAGER = [16, 32, 16.0, 16.0, 32.0, 32.0, 16.0, 8.0]
X = Tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3))
Y = Tensor(np.array([0.5, -0.5, 1.0, 0.0], np.float32).reshape(4, 1))


class Probe(Cell):
    """Records the dtype its input arrives in."""

    def __init__(self):
        super().__init__()
        self.seen = None

    def construct(self, x):
        self.seen = x.dtype
        return x


class MSE(Cell):
    def construct(self, out, label):
        return ops.mean((out - label) ** 2)


def _net():
    return SequentialCell([Dense(3, 4), BatchNorm1d(4), ReLU(), Dense(4, 1)])


def test_o0_returns_the_network_unchanged():
    net = _net()
    assert auto_mixed_precision(net, "O0") is net


def test_o2_keeps_batchnorm_in_float32_and_returns_float32():
    net = SequentialCell([Dense(3, 4), BatchNorm1d(4), Probe()])
    before = [p.name for p in net.trainable_params()]
    amp = auto_mixed_precision(net, "O2")
    out = amp(X)
    assert out.dtype == float32
    assert net[2].seen == float16
    assert [p.name for p in amp.trainable_params()] == before
    assert all(p.dtype == float32 for p in amp.trainable_params())


def test_o3_casts_everything_and_o1_only_the_white_list():
    probe = Probe()
    out = auto_mixed_precision(SequentialCell([Dense(3, 4), probe]), "O3")(X)
    assert probe.seen == float16 and out.dtype == float32
    probe = Probe()
    out = auto_mixed_precision(SequentialCell([Dense(3, 4), probe]), "O1")(X)
    assert probe.seen == float32 and out.dtype == float32


def test_auto_mixed_precision_rejects_bad_level():
    with pytest.raises(ValueError, match="amp_level must be one of"):
        auto_mixed_precision(_net(), "O4")


def test_build_train_network_o0_trains_in_float32():
    net = _net()
    train = build_train_network(net, Momentum(net.trainable_params(), 0.05, 0.9), MSE())
    assert isinstance(train, TrainOneStepCell) and train.training
    losses = [float(train(X, Y)) for _ in range(20)]
    assert losses[-1] < losses[0]


def test_build_train_network_o2_uses_dynamic_loss_scale():
    net = _net()
    train = build_train_network(net, Momentum(net.trainable_params(), 0.05, 0.9), MSE(),
                                level="O2",
                                loss_scale_manager=DynamicLossScaleManager(1024.0, 2, 1000))
    assert isinstance(train, TrainOneStepWithLossScaleCell)
    losses = []
    for _ in range(20):
        loss, overflow, scale = train(X, Y)
        assert not bool(overflow) and float(scale) == 1024.0
        losses.append(float(loss))
    assert losses[-1] < losses[0]
    assert all(p.dtype == float32 for p in net.trainable_params())


def test_fixed_manager_without_drop_scales_in_train_one_step():
    manager = FixedLossScaleManager(64.0, drop_overflow_update=False)
    assert manager.get_update_cell() is None
    net = _net()
    train = build_train_network(net, Momentum(net.trainable_params(), 0.05, 0.9,
                                              loss_scale=64.0), MSE(),
                                loss_scale_manager=manager)
    assert isinstance(train, TrainOneStepCell) and train.sens == 64.0
    assert np.isfinite(float(train(X, Y)))


def test_dynamic_manager_matches_mindspore():
    m = DynamicLossScaleManager(16, 2, 2)
    seen = []
    for overflow in OVERFLOWS:
        m.update_loss_scale(overflow)
        seen.append(m.get_loss_scale())
    assert seen == DYN_MANAGER
    assert m.get_update_cell().get_loss_scale() == 8.0


@pytest.mark.parametrize("make, match", [
    (lambda: FixedLossScaleManager(0.5), "loss_scale must be >= 1"),
    (lambda: DynamicLossScaleManager(0.5), "init_loss_scale must be >= 1"),
    (lambda: DynamicLossScaleManager(16, 0), "scale_factor must be > 0"),
])
def test_bad_manager_arguments(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_loss_scalers():
    static = StaticLossScaler(8.0)
    assert float(static.scale(Tensor(2.0, float32))) == 16.0
    assert [float(g) for g in static.unscale((Tensor(16.0, float32),))] == [2.0]
    dyn = DynamicLossScaler(8.0, 2, 2)
    for finite, want in [(True, 8.0), (True, 16.0), (False, 8.0), (False, 4.0)]:
        dyn.adjust(Tensor(finite))
        assert float(dyn.scale_value) == want


def test_amp_names_are_ms_nn_names_too():
    import ms_nn

    assert ms_nn.auto_mixed_precision is auto_mixed_precision
    assert ms_nn.DynamicLossScaleManager is DynamicLossScaleManager
    assert "build_train_network" in ms_nn.__all__
