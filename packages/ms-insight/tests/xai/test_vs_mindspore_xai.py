"""Every explainer and metric MindSpore XAI 1.8.1 has, against it, on the same LeNet5
weights, inputs and random draws (masks, noise). MindSpore runs in its own interpreter
(``MS_PYTHON``, default ``/tmp/msenv/bin/python``, with mindspore-xai installed);
skipped when that is absent."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ms_nn as nn
from ms_insight.benchmark import ClassSensitivity, Faithfulness, Localization, Robustness
from ms_insight.explainer import (
    RISE,
    Deconvolution,
    GradCAM,
    Gradient,
    GuidedBackprop,
    Occlusion,
    RISEPlus,
)
from ms_insight.explainer.testing import LeNet5, load_weights, random_weights

MS_PYTHON = os.environ.get("MS_PYTHON", "/tmp/msenv/bin/python")
SIDE = Path(__file__).with_name("mindspore_side.py")
NUM_MASKS = 64


def _has_xai() -> bool:
    if not os.path.exists(MS_PYTHON):
        return False
    probe = subprocess.run([MS_PYTHON, "-c", "import mindspore_xai"], capture_output=True,
                           timeout=120)
    return probe.returncode == 0


pytestmark = pytest.mark.skipif(not _has_xai(), reason=f"no mindspore_xai under {MS_PYTHON}")


def _case():
    rng = np.random.default_rng(7)
    net = LeNet5()
    weights = random_weights(net, 3)
    x = rng.random((2, 1, 32, 32)).astype(np.float32)
    sal = rng.random((1, 1, 32, 32)).astype(np.float32)
    loc = np.zeros((32, 32), bool)
    loc[4:12, 20:28] = True
    loc |= loc.T  # MindSpore XAI's pointing game looks at the transposed disk
    coarse = rng.random((2 * NUM_MASKS, 1, 10, 10)) < 0.5
    from ms_insight.explainer._common import resize_bilinear

    up = resize_bilinear(coarse.astype(np.float32), (42, 42))
    shifts = rng.integers(0, 11, (2 * NUM_MASKS, 2))
    masks = np.stack([m[:, a:a + 32, b:b + 32] for m, (a, b) in zip(up, shifts)])
    case = {"x": x, "targets": np.array([3, 7]), "saliency": sal,
            "loc_mask": loc[None, None], "rise_masks": masks.astype(np.float32),
            "rise_targets": np.array([[3, 1], [7, 0]], np.int32), "num_masks": NUM_MASKS,
            "ood_w": (rng.standard_normal((10, 1024)) * 0.05).astype(np.float32),
            "ood_b": np.zeros(10, np.float32),
            "noise": (rng.uniform(-0.01, 0.01, (30, 1, 1, 32, 32))).astype(np.float32)}
    case.update({f"w:{k}": v for k, v in weights.items()})
    return case, load_weights(net, weights)


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    case, net = _case()
    d = tmp_path_factory.mktemp("xai")
    np.savez(d / "case.npz", **case)
    run = subprocess.run([MS_PYTHON, str(SIDE), str(d / "case.npz"), str(d / "out.npz")],
                         capture_output=True, text=True, timeout=600,
                         env={**os.environ, "GLOG_v": "3"})
    assert run.returncode == 0, run.stderr[-4000:]
    return case, net, dict(np.load(d / "out.npz"))


def _close(ours, theirs, rtol=1e-4, atol=1e-6):
    ours = ours.asnumpy() if hasattr(ours, "asnumpy") else np.asarray(ours)
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=atol * max(np.abs(theirs).max(), 1))


@pytest.mark.parametrize("cls", [Gradient, Deconvolution, GuidedBackprop])
def test_backprop_explainers_match(results, cls):
    case, net, theirs = results
    _close(cls(net)(case["x"], case["targets"]), theirs[cls.__name__])


def test_gradcam_matches(results):
    case, net, theirs = results
    _close(GradCAM(net, layer="conv2")(case["x"], case["targets"]), theirs["GradCAM"],
           rtol=1e-3, atol=1e-5)


def test_ret_image_gives_xais_pictures(results):
    case, net, theirs = results
    pictures = Gradient(net)(case["x"], case["targets"], ret="image", show=False)
    ours = np.stack([np.asarray(row[0]) for row in pictures])
    assert ours.shape == theirs["image:Gradient"].shape == (2, 32, 32, 3)
    diff = np.abs(ours.astype(int) - theirs["image:Gradient"])
    assert diff.max() <= 1 and (diff == 0).mean() > 0.99  # float32 rounding at most


def test_graph_mode_matches(results):
    """GRAPH_MODE on both sides (a fresh network each): the backprop explainers against
    XAI's own GRAPH_MODE run; GradCAM, which XAI 1.8.1 cannot run in GRAPH_MODE on
    MindSpore 2.10, against its PyNative map."""
    from ms_tensor.context import GRAPH_MODE, PYNATIVE_MODE, set_context

    case, _, theirs = results
    set_context(mode=GRAPH_MODE)
    try:
        net = load_weights(LeNet5(), {k[2:]: v for k, v in case.items() if k.startswith("w:")})
        for cls in (Gradient, Deconvolution, GuidedBackprop):
            _close(cls(net)(case["x"], case["targets"]), theirs[f"graph:{cls.__name__}"])
        _close(GradCAM(net, layer="conv2")(case["x"], case["targets"]), theirs["GradCAM"],
               rtol=1e-3, atol=1e-5)
    finally:
        set_context(mode=PYNATIVE_MODE)


def test_occlusion_matches(results):
    case, net, theirs = results
    _close(Occlusion(net, nn.Softmax())(case["x"][:1], int(case["targets"][0])),
           theirs["Occlusion"], rtol=1e-3, atol=1e-5)


def _fixed_masks(explainer, masks):
    it = iter(masks)
    explainer._masks = lambda rng, count, h, w: np.stack([next(it) for _ in range(count)])
    return explainer


def test_rise_matches_on_the_same_masks(results):
    case, net, theirs = results
    rise = _fixed_masks(RISE(net, nn.Softmax(), num_masks=NUM_MASKS), case["rise_masks"])
    _close(rise(case["x"], case["rise_targets"]), theirs["RISE"], rtol=1e-4, atol=1e-6)


def test_riseplus_matches_on_the_same_masks_and_ood_scores(results):
    case, net, theirs = results
    ood = nn.SequentialCell([nn.Flatten(), nn.Dense(1024, 10), nn.Softmax()])
    load_weights(ood, {"1.weight": case["ood_w"], "1.bias": case["ood_b"]})
    plus = RISEPlus(ood, net, nn.Softmax(), num_masks=NUM_MASKS)
    _close(_fixed_masks(plus, case["rise_masks"])(case["x"], case["targets"]),
           theirs["RISEPlus"], rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("metric", ["NaiveFaithfulness", "InsertionAUC"])
def test_faithfulness_matches(results, metric):
    case, net, theirs = results
    f = Faithfulness(10, nn.Softmax(), metric)
    _close(f.evaluate(Gradient(net), case["x"][:1], int(case["targets"][0]), case["saliency"]),
           theirs[metric], rtol=1e-4)


def test_deletion_auc_is_mindspore_xais_with_its_sign_fixed(results):
    # XAI scores 1 - AUC(p0 - p) (the area under the probability drop), which rewards a
    # map whose deletions do NOT lower the probability; ours is 1 - AUC(p). On the same
    # curve the two differ by AUC(p0) - 2 AUC(p), with AUC(c) = c (n - 2) / n for n steps.
    case, net, theirs = results
    x, t = case["x"][:1], int(case["targets"][0])
    ours = Faithfulness(10, nn.Softmax(), "DeletionAUC").evaluate(Gradient(net), x, t,
                                                                   case["saliency"])
    p0 = nn.Softmax()(net(x)).asnumpy()[0, t]
    n = 32  # floor(sqrt(32 * 32)) deletion steps
    auc_p = 1 - (2 * ours[0] - 1)
    theirs_from_ours = (1 + (1 - (p0 * (n - 2) / n - auc_p))) / 2
    np.testing.assert_allclose(theirs_from_ours, theirs["DeletionAUC"][0], rtol=1e-4)


@pytest.mark.parametrize("metric", ["PointingGame", "IoSR"])
def test_localization_matches(results, metric):
    case, net, theirs = results
    loc = Localization(10, metric)
    _close(loc.evaluate(Gradient(net), case["x"][:1], int(case["targets"][0]), case["saliency"],
                        mask=case["loc_mask"]), theirs[metric])


def test_class_sensitivity_matches(results):
    case, net, theirs = results
    _close(ClassSensitivity().evaluate(Gradient(net), case["x"][:1]), theirs["ClassSensitivity"],
           rtol=1e-4)


def test_robustness_matches_on_the_same_noise(results):
    # XAI 1.8.1 checks each draw on softmax(softmax(logits)) against softmax(logits), so
    # it always redraws twice and keeps the third; a 0.01 draw passes our check at once.
    case, net, theirs = results
    noise = iter(case["noise"][2::3])

    class Fixed:
        def uniform(self, low, high, shape):
            return next(noise)[0]

    r = Robustness(10, nn.Softmax())
    r._rng = Fixed()
    _close(r.evaluate(Gradient(net), case["x"][:1], int(case["targets"][0]), case["saliency"]),
           theirs["Robustness"], rtol=1e-3)


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
