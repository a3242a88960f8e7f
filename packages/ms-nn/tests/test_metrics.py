"""Metrics against values computed by MindSpore 2.10 on the same inputs."""

import numpy as np
import pytest

from ms_nn.train.metrics import (
    F1,
    Accuracy,
    ConfusionMatrix,
    Fbeta,
    Loss,
    Metric,
    Precision,
    Recall,
    Top1CategoricalAccuracy,
    Top5CategoricalAccuracy,
    TopKCategoricalAccuracy,
    get_metric_fn,
    get_metrics,
    names,
    rearrange_inputs,
)
from ms_tensor import Tensor

Y_PRED = Tensor(np.array([[0.2, 0.5, 0.3], [0.3, 0.2, 0.5], [0.9, 0.05, 0.05],
                          [0.1, 0.1, 0.8]], np.float32))
Y = Tensor(np.array([1, 0, 0, 2], np.int32))

# (metric factory, expected eval() after update(Y_PRED, Y)) — expectations from MindSpore 2.10.
CASES = [
    (Accuracy, 0.75),
    (Precision, [1.0, 1.0, 0.5]),
    (Recall, [0.5, 1.0, 1.0]),
    (F1, [2 / 3, 1.0, 2 / 3]),
    (lambda: Fbeta(0.5), [0.83333333, 1.0, 0.55555556]),
    (lambda: ConfusionMatrix(3), [[1, 0, 1], [0, 1, 0], [0, 0, 1]]),
    (lambda: ConfusionMatrix(3, "target"), [[0.5, 0, 0.5], [0, 1, 0], [0, 0, 1]]),
    (Top1CategoricalAccuracy, 0.75),
    (lambda: TopKCategoricalAccuracy(2), 1.0),
]


@pytest.mark.parametrize("factory,expected", CASES)
def test_metric_matches_mindspore(factory, expected):
    m = factory()
    m.clear()
    m.update(Y_PRED, Y)
    np.testing.assert_allclose(m.eval(), expected, rtol=1e-6)


def test_metric_accumulates_over_updates_and_clear_resets():
    m = Accuracy()
    m.update(Y_PRED, Y)
    m.update(np.array([[0.0, 1.0]] * 2 + [[1.0, 0.0]] * 2)[:, :2], np.array([1, 1, 1, 1]))
    assert m.eval() == pytest.approx(5 / 8)
    m.clear()
    with pytest.raises(RuntimeError, match="'Accuracy' can not be calculated"):
        m.eval()


def test_one_hot_labels_equal_index_labels():
    one_hot = np.eye(3)[Y.asnumpy()]
    assert Accuracy()(Y_PRED, one_hot) == Accuracy()(Y_PRED, Y)
    np.testing.assert_allclose(Recall()(Y_PRED, one_hot), Recall()(Y_PRED, Y))


def test_multilabel_accuracy_and_precision():
    y_pred = np.array([[1, 0], [0, 1]])
    y = np.array([[1, 0], [1, 1]])
    assert Accuracy("multilabel")(y_pred, y) == 0.5
    np.testing.assert_allclose(Precision("multilabel")(y_pred, y), [1.0, 1.0])
    with pytest.raises(ValueError, match="multilabel case every element of y_pred"):
        Accuracy("multilabel")(np.array([[0.7, 0.2]]), np.array([[1, 0]]))


def test_precision_average_is_mean_of_classes():
    m = Precision()
    m.update(Y_PRED, Y)
    assert m.eval(average=True) == pytest.approx(0.8333333333333334)


def test_loss_metric_averages_scalar_and_vector_losses():
    m = Loss()
    m.update(Tensor(2.0))
    m.update(Tensor(np.array([1.0, 3.0])))
    assert m.eval() == 2.0
    with pytest.raises(ValueError, match=r"scalar or 1-d, got shape \(2, 2\)"):
        m.update(Tensor(np.ones((2, 2))))


def test_top5_needs_five_classes():
    with pytest.raises(ValueError, match=r"k=5 is larger than the number of classes 3"):
        Top5CategoricalAccuracy().update(Y_PRED, Y)


def test_mismatched_sample_counts_are_named():
    with pytest.raises(ValueError, match="y_pred has 4 samples but y has 2"):
        Accuracy().update(Y_PRED, np.array([0, 1]))


def test_confusion_matrix_threshold_and_normalize_all():
    m = ConfusionMatrix(2, normalize="all", threshold=0.5)
    m.update(np.array([0.9, 0.2, 0.7, 0.1]), np.array([1, 0, 0, 0]))
    np.testing.assert_allclose(m.eval(), [[0.5, 0.25], [0.0, 0.25]])


def test_set_indexes_picks_inputs():
    m = Accuracy().set_indexes([1, 2])
    m.update(Tensor(1.0), Y_PRED, Y)
    assert m.eval() == 0.75


def test_custom_metric_subclass_through_call():
    class Mean(Metric):
        def clear(self):
            self.total, self.n = 0.0, 0

        @rearrange_inputs
        def update(self, x):
            x = self._convert_data(x)
            self.total += float(x.sum())
            self.n += x.size

        def eval(self):
            return self.total / self.n

    assert Mean()(Tensor(np.array([1.0, 3.0]))) == 2.0


def test_names_and_lookup():
    assert {"acc", "accuracy", "loss", "F1", "top_5_accuracy"} <= set(names())
    assert isinstance(get_metric_fn("acc"), Accuracy)
    built = get_metrics({"acc", "loss"})
    assert isinstance(built["acc"], Accuracy) and isinstance(built["loss"], Loss)
    with pytest.raises(KeyError, match="unknown metric 'nope'"):
        get_metric_fn("nope")
    with pytest.raises(TypeError, match=r"metrics\['x'\] must be a Metric"):
        get_metrics({"x": 3})
