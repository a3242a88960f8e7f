"""FlopsUtilizationCollector with dataset_sink_mode: a callback step runs a whole sink of
steps, so the FLOPs counted in it are divided by the steps it ran, and its time too."""

import numpy as np

import microspore as ms
import microspore.dataset as ds
import microspore.nn as nn
from microspore.train import FlopsUtilizationCollector


def test_sink_mode_counts_one_step(capsys):
    rng = np.random.default_rng(0)
    data = ds.NumpySlicesDataset({"x": rng.random((64, 10), dtype=np.float32),
                                  "y": rng.integers(0, 5, 64).astype(np.int32)},
                                 shuffle=False).batch(32)
    net = nn.Dense(10, 5)
    cb = FlopsUtilizationCollector(2, computility=10e6)
    model = ms.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                     nn.Momentum(net.trainable_params(), 0.01, 0.9))
    model.train(2, data, callbacks=[cb], dataset_sink_mode=True)
    assert cb.full_model_flops == 6400  # as without sink (MindSpore's count, one step)
    lines = [x for x in capsys.readouterr().out.splitlines() if "per step time" in x]
    assert len(lines) == 2  # each sink covers a print point (steps 1 and 3)
