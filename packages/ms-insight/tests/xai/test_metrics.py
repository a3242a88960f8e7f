"""The metrics on the synthetic task whose evidence region is known (a digit pasted into
noise): they must rank real explainers above a random saliency map, else they cannot
tell explanations apart. Plus their bookkeeping and errors."""

import numpy as np
import pytest

import ms_nn as nn
from ms_insight.benchmark import (
    ClassSensitivity,
    Faithfulness,
    Localization,
    Robustness,
    boxes_to_mask,
)
from ms_insight.explainer import GradCAM, Gradient, GuidedBackprop, Occlusion

METRICS = [("Localization", "PointingGame"), ("Localization", "IoSR"),
           ("Faithfulness", "DeletionAUC"), ("Faithfulness", "InsertionAUC"),
           ("Faithfulness", "NaiveFaithfulness")]


def _metric(kind, name):
    return Localization(4, name) if kind == "Localization" else Faithfulness(4, nn.Softmax(),
                                                                             name)


@pytest.mark.parametrize("explainer", ["Gradient", "GuidedBackprop", "GradCAM", "Occlusion"])
def test_metrics_rank_a_real_explainer_above_random_saliency(digits_task, explainer):
    net, x, y, masks = digits_task
    e = {"Gradient": Gradient(net), "GuidedBackprop": GuidedBackprop(net),
         "GradCAM": GradCAM(net, "relu2"), "Occlusion": Occlusion(net, nn.Softmax())}[explainer]
    n = 3 if explainer == "Occlusion" else 8
    x, y, masks = x[:n], y[:n], masks[:n]
    real = e(x, y.tolist()).asnumpy()
    noise = np.random.default_rng(0).random(real.shape).astype(np.float32)
    for kind, name in METRICS:
        kw = {"mask": masks} if kind == "Localization" else {}
        good = _metric(kind, name).evaluate(e, x, y, real, **kw).mean()
        bad = _metric(kind, name).evaluate(e, x, y, noise, **kw).mean()
        margin = 0.0 if name == "PointingGame" else 0.05
        if name == "PointingGame":
            assert good == 1.0, (explainer, name, good, bad)
        else:
            assert good > bad + margin, (explainer, name, good, bad)


def test_robustness_and_class_sensitivity_score_in_range(digits_task):
    net, x, y, _ = digits_task
    e = Gradient(net)
    r = Robustness(4, nn.Softmax(), num_perturbations=3, seed=0).evaluate(e, x[:2], y[:2])
    assert r.shape == (2,) and ((r > 0) & (r <= 1)).all()
    c = ClassSensitivity().evaluate(e, x[:4])
    assert c.shape == (4,) and ((c >= 0) & (c <= 1)).all()


def test_robustness_of_a_constant_map_is_nan(digits_task):
    net, x, y, _ = digits_task
    zero = np.zeros((1, 1, 32, 32), np.float32)
    assert np.isnan(Robustness(4, nn.Softmax(), seed=0).evaluate(Gradient(net), x[:1], y[:1],
                                                                 zero)[0])


def test_boxes_give_the_same_localization_as_masks(digits_task):
    net, x, y, masks = digits_task
    boxes = []
    for m in masks[:4, 0]:
        rows, cols = np.nonzero(m)
        boxes.append([(cols.min(), rows.min(), cols.max() - cols.min() + 1,
                       rows.max() - rows.min() + 1)])
    e = Gradient(net)
    sal = e(x[:4], y[:4].tolist())
    by_mask = Localization(4, "IoSR").evaluate(e, x[:4], y[:4], sal, mask=masks[:4])
    by_box = Localization(4, "IoSR").evaluate(e, x[:4], y[:4], sal, bboxes=boxes)
    np.testing.assert_array_equal(by_mask, by_box)
    assert boxes_to_mask([(1, 2, 3, 1)], 4, 5).sum() == 3


def test_aggregation_per_label_and_reset(digits_task):
    net, x, y, masks = digits_task
    e = Gradient(net)
    loc = Localization(4, "IoSR")
    res = loc.evaluate(e, x[:8], y[:8], mask=masks[:8])
    loc.aggregate(res, y[:8])
    assert loc.performance == pytest.approx(res.mean())
    per_label = loc.class_performances
    for label in set(y[:8].tolist()):
        assert per_label[label] == pytest.approx(res[y[:8] == label].mean())
    with pytest.raises(ValueError, match="already evaluates another explainer"):
        loc.evaluate(Gradient(net), x[:1], y[:1], mask=masks[:1])
    loc.reset()
    assert loc.performance == 0.0 and loc.get_results() == {i: [] for i in range(4)}


def test_metric_errors_are_clear(digits_task):
    net, x, y, masks = digits_task
    with pytest.raises(ValueError, match="metric must be one of"):
        Faithfulness(4, nn.Softmax(), "AUC")
    with pytest.raises(ValueError, match="exactly one of mask= or bboxes="):
        Localization(4).evaluate(Gradient(net), x[:1], y[:1])
    with pytest.raises(ValueError, match=r"saliency must be \(N, 1, H, W\)"):
        Faithfulness(4, nn.Softmax()).evaluate(Gradient(net), x[:1], y[:1],
                                               np.zeros((1, 1, 8, 8)))
    with pytest.raises(ValueError, match="out of range for 4 classes"):
        Localization(4).evaluate(Gradient(net), x[:1], [7], mask=masks[:1])
