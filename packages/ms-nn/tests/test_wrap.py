"""WithLossCell, WithEvalCell, TrainOneStepCell and loss-scaled training steps."""

import numpy as np
import pytest

import ms_ops as ops
from ms_autodiff import value_and_grad
from ms_nn import Cell
from ms_nn.optim import SGD, Momentum
from ms_nn.wrap import (
    DynamicLossScaleUpdateCell,
    FixedLossScaleUpdateCell,
    TrainOneStepCell,
    TrainOneStepWithLossScaleCell,
    WithEvalCell,
    WithLossCell,
    all_finite,
)
from ms_tensor import Parameter, Tensor, float16, float32

# Every test here runs in PYNATIVE_MODE and in GRAPH_MODE (conftest.py's ``mode``).
pytestmark = pytest.mark.usefixtures("mode")

X = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3) / 6)
Y = Tensor(np.array([[1.0], [2.0]], np.float32))
# MindSpore 2.10's DynamicLossScaleUpdateCell(16, 2, 2) after each of these overflow flags
OVERFLOWS = [False, False, True, False, False, False, True, True]
DYN_SCALE = [16.0, 32.0, 16.0, 16.0, 32.0, 32.0, 16.0, 8.0]


class Linear(Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.ones((3, 1), np.float32)), name="w")

    def construct(self, x):
        return ops.matmul(x, ops.cast(self.w, x.dtype))


class MSE(Cell):
    def construct(self, out, label):
        return ops.mean((out - label) ** 2)


def test_with_loss_cell_keeps_backbone_names():
    net = Linear()
    cell = WithLossCell(net, MSE())
    assert cell.backbone_network is net
    assert [p.name for p in cell.trainable_params()] == ["w"]
    np.testing.assert_allclose(float(cell(X, Y)), 0.125, rtol=1e-6)


def test_with_eval_cell_returns_loss_outputs_label_in_float32():
    net = Linear().to_float(float16)
    loss, out, label = WithEvalCell(net, MSE(), add_cast_fp32=True)(X, Y)
    assert out.dtype == float32 and label.dtype == float32
    np.testing.assert_allclose(float(loss), 0.125, rtol=1e-3)


def test_train_one_step_equals_value_and_grad_then_optimizer():
    net_a, net_b = Linear(), Linear()
    step = TrainOneStepCell(WithLossCell(net_a, MSE()), Momentum(net_a.trainable_params(),
                                                                 0.1, 0.9))
    opt_b = Momentum(net_b.trainable_params(), 0.1, 0.9)
    vg = value_and_grad(WithLossCell(net_b, MSE()), None, opt_b.parameters)
    losses = []
    for _ in range(3):
        losses.append(float(step(X, Y)))
        loss_b, grads = vg(X, Y)
        opt_b(grads)
        assert losses[-1] == pytest.approx(float(loss_b), rel=1e-6)
    np.testing.assert_allclose(net_a.w.asnumpy(), net_b.w.asnumpy(), rtol=1e-6)
    assert losses[2] < losses[0]


def test_train_one_step_sens_scales_the_gradients():
    nets = [Linear(), Linear()]
    TrainOneStepCell(WithLossCell(nets[0], MSE()), SGD(nets[0].trainable_params(), 0.2))(X, Y)
    step = TrainOneStepCell(WithLossCell(nets[1], MSE()), SGD(nets[1].trainable_params(), 0.1),
                            sens=2.0)
    loss = step(X, Y)
    np.testing.assert_allclose(float(loss), 0.125, rtol=1e-6)
    np.testing.assert_allclose(nets[0].w.asnumpy(), nets[1].w.asnumpy(), rtol=1e-6)


def test_train_one_step_return_grad():
    net = Linear()
    loss, grads = TrainOneStepCell(WithLossCell(net, MSE()), SGD(net.trainable_params(), 0.1),
                                   return_grad=True)(X, Y)
    assert len(grads) == 1 and grads[0].shape == (3, 1)


def test_dynamic_update_cell_matches_mindspore():
    cell = DynamicLossScaleUpdateCell(16.0, 2, 2)
    scale = Parameter(Tensor(16.0, float32), name="s")
    seen = []
    for overflow in OVERFLOWS:
        assert bool(cell(scale, Tensor(overflow))) is overflow
        seen.append(float(scale))
    assert seen == DYN_SCALE


def test_fixed_update_cell_passes_overflow_through():
    cell = FixedLossScaleUpdateCell(128.0)
    assert cell.get_loss_scale() == 128.0
    assert bool(cell(None, Tensor(True)))


def test_all_finite():
    assert bool(all_finite((Tensor([1.0, 2.0]), Tensor([3.0]))))
    assert not bool(all_finite((Tensor([1.0]), Tensor([np.nan]))))
    assert not bool(all_finite([Tensor([np.inf])]))


def test_loss_scale_step_skips_overflow_and_lowers_the_scale():
    net = Linear().to_float(float16)
    step = TrainOneStepWithLossScaleCell(WithLossCell(net, MSE()),
                                         Momentum(net.trainable_params(), 0.1, 0.9),
                                         scale_sense=DynamicLossScaleUpdateCell(2.0 ** 20, 2, 2))
    with np.errstate(over="ignore", invalid="ignore"):
        loss, overflow, scale = step(X, Y)
    assert bool(overflow) and float(scale) == 2.0 ** 19
    np.testing.assert_array_equal(net.w.asnumpy(), np.ones((3, 1), np.float32))
    assert int(step.optimizer.global_step.asnumpy()[0]) == 0


def test_loss_scale_step_with_fixed_tensor_scale_updates_like_unscaled():
    nets = [Linear(), Linear()]
    TrainOneStepCell(WithLossCell(nets[0], MSE()), SGD(nets[0].trainable_params(), 0.1))(X, Y)
    step = TrainOneStepWithLossScaleCell(WithLossCell(nets[1], MSE()),
                                         SGD(nets[1].trainable_params(), 0.1),
                                         scale_sense=Tensor(1024.0, float32))
    loss, overflow, scale = step(X, Y)
    assert not bool(overflow) and float(scale) == 1024.0
    np.testing.assert_allclose(nets[0].w.asnumpy(), nets[1].w.asnumpy(), rtol=1e-6)
    step.set_sense_scale(Tensor(8.0, float32))
    assert float(step.scale_sense) == 8.0


def test_loss_scale_step_rejects_bad_scale_sense():
    net = Linear()
    with pytest.raises(ValueError, match=r"shape \(\) or \(1,\)"):
        TrainOneStepWithLossScaleCell(WithLossCell(net, MSE()), SGD(net.trainable_params()),
                                      scale_sense=Tensor(np.ones(2, np.float32)))
    with pytest.raises(TypeError, match="Cell or a Tensor"):
        TrainOneStepWithLossScaleCell(WithLossCell(net, MSE()), SGD(net.trainable_params()),
                                      scale_sense=4.0)
