"""Per-class ``Precision``, ``Recall`` and ``Fbeta`` / ``F1``."""

from __future__ import annotations

import sys

import numpy as np

from ms_nn.train.metrics.metric import (
    Metric,
    check_binary,
    check_inputs,
    class_predictions,
    empty_error,
    rearrange_inputs,
)

__all__ = ["Precision", "Recall", "Fbeta", "F1"]


class _ClassCounts(Metric):
    """Accumulates true positives, predicted positives and actual positives per class."""

    _name = "_ClassCounts"

    def __init__(self, eval_type: str = "classification"):
        super().__init__()
        if eval_type not in ("classification", "multilabel"):
            raise ValueError(f"{self._name}: eval_type must be 'classification' or "
                             f"'multilabel', got {eval_type!r}")
        self._type = eval_type
        self.eps = sys.float_info.min
        self.clear()

    def clear(self):
        self._class_num = 0
        self._true_positives = 0
        self._predicted = 0
        self._actual = 0

    @rearrange_inputs
    def update(self, *inputs):
        check_inputs(self._name, inputs, 2)
        y_pred = self._convert_data(inputs[0])
        y = self._convert_data(inputs[1])
        if self._type == "classification":
            num = y_pred.shape[1] if y_pred.ndim == 2 else 0
            pred, label = class_predictions(self._name, y_pred, y)
            if label.size and (label.min() < 0 or label.max() >= num):
                raise ValueError(f"{self._name}.update: labels must lie in [0, {num}) for "
                                 f"y_pred of shape {y_pred.shape}, got {label.min()}.."
                                 f"{label.max()}")
            eye = np.eye(num, dtype=np.int64)
            pred_1h, label_1h = eye[pred], eye[label]
        else:
            check_binary(self._name, y_pred, y)
            pred_1h = y_pred.reshape(y.shape[0], -1).astype(np.int64)
            label_1h = y.reshape(y.shape[0], -1).astype(np.int64)
            num = pred_1h.shape[1]
        if self._class_num and num != self._class_num:
            raise ValueError(f"{self._name}.update: {num} classes now, {self._class_num} in "
                             f"earlier updates")
        self._class_num = num
        self._true_positives = self._true_positives + (pred_1h * label_1h).sum(axis=0)
        self._predicted = self._predicted + pred_1h.sum(axis=0)
        self._actual = self._actual + label_1h.sum(axis=0)

    def _result(self, per_class: np.ndarray, average: bool):
        return np.float64(per_class.mean()) if average else per_class


class Precision(_ClassCounts):
    """Precision per class: true positives / predicted positives.

    ``eval(average=False)`` returns one value per class (numpy array); ``average=True`` their
    mean. ``eval_type`` is as for ``Accuracy``.
    """

    _name = "Precision"

    def eval(self, average: bool = False):
        if self._class_num == 0:
            raise empty_error(self)
        return self._result(self._true_positives / (self._predicted + self.eps), average)


class Recall(_ClassCounts):
    """Recall per class: true positives / actual positives (see ``Precision``)."""

    _name = "Recall"

    def eval(self, average: bool = False):
        if self._class_num == 0:
            raise empty_error(self)
        return self._result(self._true_positives / (self._actual + self.eps), average)


class Fbeta(_ClassCounts):
    """F-beta score per class: ``(1 + b^2) tp / ((1 + b^2) tp + b^2 fn + fp)``.

    Args:
        beta: weight of recall relative to precision (positive).
    """

    _name = "Fbeta"

    def __init__(self, beta: float):
        if not isinstance(beta, (int, float)) or isinstance(beta, bool) or beta <= 0:
            raise ValueError(f"{self._name}: beta must be a positive number, got {beta!r}")
        self.beta = float(beta)
        super().__init__("classification")

    def eval(self, average: bool = False):
        if self._class_num == 0:
            raise empty_error(self)
        b2 = self.beta ** 2
        tp = self._true_positives
        fn = self._actual - tp
        fp = self._predicted - tp
        return self._result((1 + b2) * tp / ((1 + b2) * tp + b2 * fn + fp + self.eps), average)


class F1(Fbeta):
    """F1 score per class: ``Fbeta`` with ``beta=1``."""

    _name = "F1"

    def __init__(self):
        super().__init__(1.0)
