"""``ROC`` (false/true positive rates per threshold, binary or one-vs-rest) and ``auc``
(trapezoidal area under a curve), as MindSpore's."""

from __future__ import annotations

import numpy as np

from ms_nn.train.metrics.metric import Metric, check_inputs, empty_error, rearrange_inputs

__all__ = ["ROC", "auc"]


def _binary_curve(preds, target, pos_label):
    """(false positives, true positives, thresholds) at each distinct score, high first."""
    order = np.argsort(-preds, kind="stable")
    preds, target = preds[order], target[order]
    distinct = np.where(preds[1:] - preds[:-1])[0]
    idx = np.append(distinct, target.shape[0] - 1)
    tps = np.cumsum(target == pos_label)[idx]
    return 1 + idx - tps, tps, preds[idx]


def _prepare(y_pred, y, class_num, pos_label):
    if y_pred.ndim == y.ndim:
        if class_num not in (None, 1):
            raise ValueError(f"ROC: with y_pred and y of the same rank class_num must be 1, got "
                             f"{class_num}")
        return y_pred.ravel(), y.ravel(), 1, 1 if pos_label is None else pos_label
    if y_pred.ndim == y.ndim + 1:
        if pos_label is not None:
            raise ValueError(f"ROC: pos_label must be None for one-vs-rest scores, got "
                             f"{pos_label}")
        if class_num != y_pred.shape[1]:
            raise ValueError(f"ROC: class_num {class_num} must equal the number of classes of "
                             f"y_pred (shape {y_pred.shape})")
        return y_pred.reshape(-1, class_num), y.ravel(), class_num, None
    raise ValueError(f"ROC: y_pred (shape {y_pred.shape}) must have the rank of y (shape "
                     f"{y.shape}) or one more")


def _roc(y_pred, y, class_num, pos_label):
    if class_num == 1:
        fps, tps, thresholds = _binary_curve(y_pred, y, pos_label)
        fps, tps = np.append(0, fps), np.append(0, tps)
        thresholds = np.append(thresholds[0] + 1, thresholds)
        if fps[-1] <= 0:
            raise ValueError("ROC.eval: y holds no negative samples, the false positive rate "
                             "is undefined")
        if tps[-1] <= 0:
            raise ValueError("ROC.eval: y holds no positive samples, the true positive rate "
                             "is undefined")
        return fps / fps[-1], tps / tps[-1], thresholds
    curves = [_roc(y_pred[:, c], y, 1, c) for c in range(class_num)]
    return [c[0] for c in curves], [c[1] for c in curves], [c[2] for c in curves]


class ROC(Metric):
    """The ROC curve of the last update: ``(fpr, tpr, thresholds)``; one curve per class
    (lists) when ``y_pred`` has a class axis.

    >>> m = ROC(pos_label=1); m.update(Tensor([0.1, 0.4, 0.35, 0.8]), Tensor([0, 0, 1, 1]))
    >>> fpr, tpr, _ = m.eval(); fpr, tpr
    (array([0. , 0. , 0.5, 0.5, 1. ]), array([0. , 0.5, 0.5, 1. , 1. ]))
    """

    def __init__(self, class_num=None, pos_label=None):
        super().__init__()
        for name, v in (("class_num", class_num), ("pos_label", pos_label)):
            if v is not None and (isinstance(v, bool) or not isinstance(v, int)):
                raise TypeError(f"ROC: {name} must be an int or None, got {v!r}")
        self.class_num, self.pos_label = class_num, pos_label
        self.clear()

    def clear(self):
        self.y_pred = self.y = 0
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs):
        check_inputs("ROC", inputs, 2)
        y_pred, y = (self._convert_data(v) for v in inputs)
        self.y_pred, self.y, self.class_num, self.pos_label = _prepare(
            y_pred, y, self.class_num, self.pos_label)
        self._is_update = True

    def eval(self):
        if not self._is_update:
            raise empty_error(self)
        return _roc(np.squeeze(self.y_pred), np.squeeze(self.y), self.class_num, self.pos_label)


def _column(name, a):
    if a.ndim == 1 or (a.ndim == 2 and a.shape[1] == 1):
        return a.ravel()
    raise ValueError(f"auc: {name} must be 1-d or (n, 1), got shape {a.shape}")


def auc(x, y, reorder=False):
    """Area under the curve through the points (x, y), by the trapezoidal rule; ``x``
    must be monotonic unless ``reorder``.

    >>> float(auc(np.array([0.0, 0.5, 1.0]), np.array([0.0, 1.0, 1.0])))
    0.75
    """
    if not isinstance(x, np.ndarray) or not isinstance(y, np.ndarray):
        raise TypeError(f"auc: x and y must be numpy arrays, got {type(x).__name__} and "
                        f"{type(y).__name__}")
    if x.shape[:1] != y.shape[:1]:
        raise ValueError(f"auc: x and y must hold as many points, got shapes {x.shape} and "
                         f"{y.shape}")
    x, y = _column("x", x), _column("y", y)
    if x.shape[0] < 2:
        raise ValueError(f"auc: at least 2 points are needed, got {x.shape[0]}")
    direction = 1
    if reorder:
        order = np.lexsort((y, x))
        x, y = x[order], y[order]
    else:
        dx = np.diff(x)
        if np.any(dx < 0):
            if not np.all(dx <= 0):
                raise ValueError(f"auc: x must be increasing or decreasing (or pass "
                                 f"reorder=True), got {x}")
            direction = -1
    trapezoid = getattr(np, "trapezoid", None) or np.trapz  # numpy < 2 names it trapz
    return direction * trapezoid(y, x)
