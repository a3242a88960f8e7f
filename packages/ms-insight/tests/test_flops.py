"""FlopsUtilizationCollector counts a training step's FLOPs as MindSpore 2.10 does: the
totals below are hand counts, equal to what MindSpore's collector prints for the same
networks (MatMul/Dense and Conv2D, forward and backward; the first layer's input gradient
is not computed, so it is not counted)."""
import re

import numpy as np
import pytest

import ms_nn as nn
from ms_insight.flops import FlopsUtilizationCollector
from ms_nn.train.model import Model
from ms_ops import dispatch
from ms_tensor import GRAPH_MODE, PYNATIVE_MODE, Tensor, get_context, set_context


@pytest.fixture(params=[PYNATIVE_MODE, GRAPH_MODE], ids=["pynative", "graph"])
def mode(request):
    previous = get_context("mode")
    set_context(mode=request.param)
    yield request.param
    set_context(mode=previous)


class ConvNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, pad_mode="valid", has_bias=True)
        self.conv2 = nn.Conv2d(4, 4, 3, pad_mode="pad", padding=1, stride=2, has_bias=False)
        self.flat = nn.Flatten()
        self.fc = nn.Dense(4 * 3 * 3, 5)

    def construct(self, x):
        return self.fc(self.flat(self.conv2(self.conv(x))))


def _train(net, x, y, callback, epochs=1):
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    model = Model(net, loss, nn.Momentum(net.trainable_params(), 0.01, 0.9))
    data = [(Tensor(x[i:i + len(x) // 2]), Tensor(y[i:i + len(x) // 2]))
            for i in range(0, len(x), len(x) // 2)]
    model.train(epochs, data, callbacks=[callback])


def test_dense_counts_as_mindspore(mode, capsys):
    rng = np.random.default_rng(0)
    cb = FlopsUtilizationCollector(2, computility=10e6)
    _train(nn.Dense(10, 5), rng.random((64, 10), np.float32),
           rng.integers(0, 5, 64).astype(np.int32), cb, epochs=2)
    # forward 2*32*10*5, the weight's gradient as much; the input's is not needed
    assert cb.full_model_flops == 6400 and cb.op_flops == {"Dense": 3200, "MatMul": 3200}
    out = capsys.readouterr().out.splitlines()
    assert out[0] == ("Full model flops is 6400, Full hardware flops is 6400, "
                      "Shard model flops is 6400, Shard hardware flops is 6400.")
    steps = [line for line in out if line.startswith("Train per step time")]
    assert len(steps) == 2  # 4 steps, every data_size=2 from the first (MindSpore: 1 and 3)
    ms, mfu = re.match(r"Train per step time: +([\d.]+) ms mfu:([\d.]+)% hfu:([\d.]+)%",
                       steps[-1]).groups()[:2]
    # the utilization is the FLOPs over (step time x peak), floored to 0.01%
    # (the printed time is rounded to 1 us: a few percent of this step)
    assert float(mfu) == pytest.approx(6400 / (float(ms) / 1000 * 10e6) * 100, rel=0.05)
    assert dispatch.kernel_observer() is None  # the observer was only there for step 1


def test_conv_net_hand_count(mode):
    # conv: 2*(2*4*6*6)*27 forward and again for the weight's gradient (its input is the
    # data: no input gradient); conv2 (stride 2, pad 1): 2*(2*4*3*3)*36 for the forward,
    # the weight's and the input's gradient; fc: 2*2*5*36 for each of the three
    rng = np.random.default_rng(1)
    cb = FlopsUtilizationCollector(1)
    _train(ConvNet(), rng.random((4, 3, 8, 8), np.float32),
           rng.integers(0, 5, 4).astype(np.int32), cb)
    assert cb.op_flops == {"Conv2D": 15552 + 5184, "Conv2DBackpropFilter": 15552 + 5184,
                           "Conv2DBackpropInput": 5184, "Dense": 720, "MatMul": 1440}
    assert cb.full_model_flops == 48816  # MindSpore 2.10's collector prints 48816 too


def test_it_chains_with_a_running_profiler(tmp_path):
    from ms_insight.profiler import Profiler

    rng = np.random.default_rng(2)
    cb = FlopsUtilizationCollector(1)
    with Profiler(output_path=str(tmp_path)) as profiler:
        _train(nn.Dense(10, 5), rng.random((8, 10), np.float32),
               rng.integers(0, 5, 8).astype(np.int32), cb)
        assert dispatch.kernel_observer() == profiler._observe  # given back
    assert cb.full_model_flops == 2 * 4 * 10 * 5 * 2
    assert "Dense" in {s.op for s in profiler.analyse().stats}  # the profiler kept timing


def test_bad_arguments_are_named():
    with pytest.raises(TypeError, match="data_size must be a positive int"):
        FlopsUtilizationCollector(0)
    with pytest.raises(TypeError, match="full_flops must be a bool"):
        FlopsUtilizationCollector(1, full_flops=1)
    with pytest.raises(ValueError, match="computility"):
        FlopsUtilizationCollector(1, computility=-5)
