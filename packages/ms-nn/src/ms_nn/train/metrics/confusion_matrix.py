"""``ConfusionMatrix``: counts of (true class, predicted class) pairs."""

from __future__ import annotations

import numpy as np

from ms_nn.train.metrics.metric import Metric, check_inputs, empty_error, rearrange_inputs

__all__ = ["ConfusionMatrix"]

_NORMALIZE = ("no_norm", "target", "prediction", "all")


class ConfusionMatrix(Metric):
    """Confusion matrix: row = true class, column = predicted class.

    Args:
        num_classes: number of classes.
        normalize: ``"no_norm"`` (counts), ``"target"`` (rows sum to 1), ``"prediction"``
            (columns sum to 1) or ``"all"`` (the matrix sums to 1).
        threshold: with ``y_pred`` the same shape as ``y``, a score above it predicts class 1;
            without a threshold, ``y_pred`` of shape ``(N, C, ...)`` is reduced by argmax.
    """

    def __init__(self, num_classes: int, normalize: str = "no_norm", threshold=None):
        super().__init__()
        if not isinstance(num_classes, int) or isinstance(num_classes, bool) or num_classes < 1:
            raise ValueError(f"ConfusionMatrix: num_classes must be a positive int, got "
                             f"{num_classes!r}")
        if normalize not in _NORMALIZE:
            raise ValueError(f"ConfusionMatrix: normalize must be one of {_NORMALIZE}, got "
                             f"{normalize!r}")
        self.num_classes = num_classes
        self.normalize = normalize
        self.threshold = threshold
        self.clear()

    def clear(self):
        self.confusion_matrix = np.zeros((self.num_classes, self.num_classes), np.float64)
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs):
        check_inputs("ConfusionMatrix", inputs, 2)
        y_pred = self._convert_data(inputs[0])
        y = self._convert_data(inputs[1])
        if y_pred.ndim == y.ndim:
            if self.threshold is None:
                raise ValueError(f"ConfusionMatrix.update: y_pred and y have the same rank "
                                 f"({y_pred.shape}, {y.shape}); pass threshold= to binarize "
                                 f"scores, or give y_pred of shape (N, C, ...)")
            y_pred = (y_pred > self.threshold).astype(np.int64)
        elif y_pred.ndim == y.ndim + 1:
            y_pred = y_pred.argmax(axis=1)
        else:
            raise ValueError(f"ConfusionMatrix.update: y_pred shape {y_pred.shape} does not fit "
                             f"y shape {y.shape}: expected the same rank or one more")
        y = y.astype(np.int64).reshape(-1)
        y_pred = y_pred.astype(np.int64).reshape(-1)
        n = self.num_classes
        if y.size and (min(y.min(), y_pred.min()) < 0 or max(y.max(), y_pred.max()) >= n):
            raise ValueError(f"ConfusionMatrix.update: classes must lie in [0, {n})")
        self.confusion_matrix += np.bincount(y * n + y_pred, minlength=n * n).reshape(n, n)
        self._is_update = True

    def eval(self):
        if not self._is_update:
            raise empty_error(self)
        m = self.confusion_matrix
        with np.errstate(invalid="ignore", divide="ignore"):
            if self.normalize == "target":
                m = m / m.sum(axis=1, keepdims=True)
            elif self.normalize == "prediction":
                m = m / m.sum(axis=0, keepdims=True)
            elif self.normalize == "all":
                m = m / m.sum()
        return np.nan_to_num(m) if self.normalize != "no_norm" else m.copy()
