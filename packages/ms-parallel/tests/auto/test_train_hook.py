"""TrainOneStepCell finds the sharded step through the registry: in one process (a world of
one rank, no MPI) it trains like the plain step, and it refuses what it cannot shard by name."""

import numpy as np
import pytest

from ms_nn import Cell, PipelineCell, TrainOneStepCell, WithLossCell
from ms_nn.loss import MSELoss
from ms_nn.optim import Adam, Momentum
from ms_ops import MatMul, ReLU
from ms_parallel.context import reset_auto_parallel_context, set_auto_parallel_context
from ms_tensor import Parameter, Tensor


class Net(Cell):
    def __init__(self):
        super().__init__()
        rng = np.random.default_rng(0)
        self.w1 = Parameter(Tensor(rng.standard_normal((4, 8)) * 0.5), name="w1")
        self.w2 = Parameter(Tensor(rng.standard_normal((8, 2)) * 0.5), name="w2")
        self.mm1, self.mm2, self.relu = MatMul().shard(((1, 1), (1, 1))), MatMul(), ReLU()

    def construct(self, x):
        return self.mm2(self.relu(self.mm1(x, self.w1)), self.w2)


@pytest.fixture
def semi_auto():
    set_auto_parallel_context(parallel_mode="semi_auto_parallel", device_num=1, full_batch=True)
    yield
    reset_auto_parallel_context()


def _losses(make_opt, steps=3):
    rng = np.random.default_rng(1)
    net = Net()
    step = TrainOneStepCell(WithLossCell(net, MSELoss()), make_opt(net.trainable_params()))
    out = [float(step(Tensor(rng.standard_normal((6, 4))),
                      Tensor(rng.standard_normal((6, 2)))).asnumpy()) for _ in range(steps)]
    return out, step, net


@pytest.mark.parametrize("make_opt", [lambda p: Momentum(p, 0.1, 0.9), lambda p: Adam(p, 0.05)])
def test_the_sharded_step_trains_like_the_plain_one(make_opt, semi_auto):
    sharded, step, net = _losses(make_opt)
    assert step._parallel_step is not None
    assert step._parallel_step.sharded.plan.search_mode == "semi_auto_parallel"
    reset_auto_parallel_context()
    plain, step, _ = _losses(make_opt)
    assert step._parallel_step is None
    np.testing.assert_allclose(sharded, plain, rtol=1e-12)


def test_what_cannot_be_sharded_is_refused_by_name(semi_auto):
    from ms_nn.optim.optimizer import Optimizer

    class Norms(Optimizer):  # an update that reads whole Parameters
        def construct(self, gradients):
            return gradients

    net = Net()
    with pytest.raises(ValueError, match="optimizer Norms is not an elementwise"):
        TrainOneStepCell(WithLossCell(net, MSELoss()), Norms(0.1, net.trainable_params()))
    set_auto_parallel_context(pipeline_stages=2)
    with pytest.raises(ValueError, match="must be nn.PipelineCell"):
        TrainOneStepCell(WithLossCell(net, MSELoss()), Momentum(net.trainable_params(), 0.1, 0.9))
    with pytest.raises(ValueError, match="pipeline_stages=2 on 1 ranks"):
        TrainOneStepCell(PipelineCell(WithLossCell(net, MSELoss()), 2),
                         Momentum(net.trainable_params(), 0.1, 0.9))



def _scaled_losses(scale):
    from ms_nn.wrap import TrainOneStepWithLossScaleCell

    rng = np.random.default_rng(1)
    net = Net()
    step = TrainOneStepWithLossScaleCell(WithLossCell(net, MSELoss()),
                                         Momentum(net.trainable_params(), 0.1, 0.9),
                                         Tensor(np.float32(scale)))
    out = []
    for k in range(3):
        x = rng.standard_normal((6, 4))
        if k == 1:
            x[2, 1] = np.inf  # this step overflows: its update is skipped
        loss, overflow, _ = step(Tensor(x), Tensor(rng.standard_normal((6, 2))))
        out.append((float(loss.asnumpy()), bool(overflow)))
    return out, step, net


def test_the_loss_scale_step_runs_sharded_and_skips_overflows(semi_auto):
    sharded, step, net = _scaled_losses(1024.0)
    assert step._parallel_step is not None and step._parallel_step.sharded is not None
    reset_auto_parallel_context()
    plain, step, plain_net = _scaled_losses(1024.0)
    assert step._parallel_step is None
    assert [o for _, o in sharded] == [o for _, o in plain] == [False, True, False]
    np.testing.assert_allclose([v for v, _ in sharded[::2]], [v for v, _ in plain[::2]],
                               rtol=1e-12)
    np.testing.assert_allclose(net.w1.asnumpy(), plain_net.w1.asnumpy(), rtol=1e-12)


def test_a_compiled_wrapper_cannot_gather_the_slices_and_says_so(semi_auto):
    from ms_tensor.context import GRAPH_MODE, PYNATIVE_MODE, set_context

    _, step, net = _losses(lambda p: Momentum(p, 0.1, 0.9), steps=1)

    class Outer(Cell):  # not part of the trained network: its call is compiled whole
        def __init__(self):
            super().__init__()
            self.inner = net

        def construct(self, x):
            return self.inner(x) * 2.0

    x = Tensor(np.ones((3, 4)))
    want = net(x).asnumpy() * 2.0  # PYNATIVE: the hooks gather around the call
    set_context(mode=GRAPH_MODE)
    try:
        with pytest.raises(ValueError, match="hold this rank's slices after sharded"):
            Outer()(x)
        with step._parallel_step.whole_parameters():
            np.testing.assert_allclose(Outer()(x).asnumpy(), want, rtol=1e-12)
    finally:
        set_context(mode=PYNATIVE_MODE)
