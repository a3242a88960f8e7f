"""The main job's LeNet5 (examples/lenet.py: its network and its dataset pipeline on the
bundled digits), trained briefly, explained through ``microspore_xai`` and the runner,
and shown by ``microspore insight start``."""

import importlib.util
import json
import subprocess
import sys
import urllib.request
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


def _example():
    spec = importlib.util.spec_from_file_location("lenet_example", ROOT / "examples" / "lenet.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def trained():
    import microspore as ms
    import microspore.dataset as ds
    import microspore.nn as nn
    from ms_insight.explainer.testing import load_weights, random_weights

    ex = _example()
    ms.set_seed(0)
    ds.config.set_seed(0)
    net = ex.LeNet5()
    load_weights(net, random_weights(net, 0))  # He-scaled: trains in a few epochs
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    model = ms.Model(net, loss, nn.Momentum(net.trainable_params(), 0.01, 0.9),
                     metrics={"accuracy": nn.Accuracy()})
    model.train(2, ex.create_dataset(ds.bundled.digits_dir(), "train"))
    test = ex.create_dataset(ds.bundled.digits_dir(), "test", training=False)
    accuracy = model.eval(test)["accuracy"]
    assert accuracy > 0.8, accuracy
    return net, test


def test_runner_explains_the_lenet_test_split_and_the_dashboard_shows_it(trained, tmp_path):
    import microspore.nn as nn
    from microspore_xai.benchmark import ClassSensitivity, Faithfulness
    from microspore_xai.explainer import GradCAM, Gradient, GuidedBackprop
    from ms_insight.runner import ImageClassificationRunner

    net, test = trained
    sm = nn.Softmax()
    runner = ImageClassificationRunner(tmp_path / "lenet", (test, [str(d) for d in range(10)]),
                                       net, sm)
    runner.register_saliency([Gradient(net), GuidedBackprop(net), GradCAM(net, "conv2")],
                             [Faithfulness(10, sm, "InsertionAUC"), ClassSensitivity()])
    runner.register_hierarchical_occlusion()
    result = runner.run(max_samples=12, progress_bar=False)
    assert result.num_samples == 12 and result.accuracy > 0.6
    assert [m for m, _ in result.ranking] == sorted(
        result.scores, key=lambda m: -np.mean(list(result.scores[m].values())))
    result.require("Faithfulness(InsertionAUC)", 0.5)  # better than no explanation at all

    proc = subprocess.Popen([sys.executable, "-m", "microspore", "insight", "start",
                             "--summary-base-dir", str(tmp_path), "--port", "0"],
                            stdout=subprocess.PIPE, text=True)
    try:
        url = proc.stdout.readline().split()[3]
        with urllib.request.urlopen(url + "api/explain?run=lenet", timeout=30) as r:
            doc = json.loads(r.read())
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert doc["methods"] == ["Gradient", "GuidedBackprop", "GradCAM"]
    assert len(doc["samples"]) == 12 and all("hoc" in s for s in doc["samples"])
