"""``OoDNet``: the out-of-distribution detector RISEPlus weights its masks with
(MindSpore XAI's ``mindspore_xai.tool.cv.OoDNet``, after Generalized ODIN).

It reads the features of the classifier it wraps (the classifier has ``num_features``
and returns its feature vector while ``output_features`` is True) and scores each class
by the cosine between the features and a learnt class vector. Training divides those
scores by a learnt, input-dependent temperature, so that the scores themselves, used at
inference, separate the data's distribution from what lies outside it.
"""

from __future__ import annotations

import ms_nn as nn
from ms_ops import functional as F

__all__ = ["OoDNet"]


def _unit_rows(x):
    return F.div(x, F.add(F.sqrt(F.sum(F.mul(x, x), 1, keepdim=True)), 1e-4))


class OoDNet(nn.Cell):
    """Out-of-distribution scores ``(N, num_classes)`` for the inputs of ``underlying``.

    Args:
        underlying: the classifier; it must have ``num_features`` (int) and
            ``output_features`` (bool: when True, ``construct`` returns the
            ``(N, num_features)`` features instead of the logits).
        num_classes: the classifier's number of classes.

    ``set_train(True)`` makes ``construct`` return the scores over the temperature
    (logits to train with ``train``); ``set_train(False)`` returns the scores.

    >>> import numpy as np
    >>> from ms_insight.explainer.testing import LeNet5
    >>> class Features(LeNet5):
    ...     num_features, output_features = 84, False
    ...     def construct(self, x):
    ...         x = self.max_pool2d(self.relu(self.conv1(x)))
    ...         x = self.flatten(self.max_pool2d(self.relu(self.conv2(x))))
    ...         x = self.relu(self.fc2(self.relu(self.fc1(x))))
    ...         return x if self.output_features else self.fc3(x)
    >>> OoDNet(Features(), 10)(np.ones((2, 1, 32, 32), np.float32)).shape
    (2, 10)
    """

    def __init__(self, underlying, num_classes: int):
        super().__init__()
        if not isinstance(num_classes, int) or num_classes < 1:
            raise ValueError(f"OoDNet: num_classes must be a positive int, got {num_classes!r}")
        features = getattr(underlying, "num_features", None)
        if not isinstance(features, int) or features < 1 or not isinstance(
                getattr(underlying, "output_features", None), bool):
            raise AttributeError("OoDNet: underlying needs num_features (a positive int) and "
                                 "output_features (a bool) attributes")
        self.num_classes = num_classes
        self._num_features = features
        self._underlying = underlying
        self._h = nn.Dense(features, num_classes, weight_init="HeNormal", has_bias=False)
        self._g_fc = nn.Dense(features, 1)
        self._g_bn = nn.BatchNorm1d(1)
        self.set_train(False)

    @property
    def underlying(self):
        return self._underlying

    def construct(self, x):
        from ms_tensor import Tensor

        if not isinstance(x, Tensor):
            x = Tensor(x)
        self._underlying.output_features = True
        try:
            feat = self._underlying(x)
        finally:
            self._underlying.output_features = False
        if len(feat.shape) != 2 or feat.shape[1] != self._num_features:
            raise ValueError(f"OoDNet: underlying returned features of shape {feat.shape}, "
                             f"expected (N, {self._num_features}) (num_features)")
        scores = F.matmul(_unit_rows(feat), F.transpose(_unit_rows(self._h.weight), (1, 0)))
        if not self.training:
            return scores
        temperature = F.sigmoid(self._g_bn(self._g_fc(feat)))
        return F.div(scores, temperature)

    def train(self, dataset, loss_fn, callbacks=None, epoch: int = 90, optimizer=None,
              learning_rate: float = 0.1):
        """Train the OoD heads (and the classifier) on the classifier's own dataset with
        ``loss_fn`` (``nn.SoftmaxCrossEntropyWithLogits`` for single labels); leaves the
        network in inference mode."""
        if optimizer is None:
            optimizer = nn.Momentum(self.trainable_params(), learning_rate, 0.9,
                                    weight_decay=1e-4)
        self.set_train(True)
        try:
            nn.Model(self, loss_fn=loss_fn, optimizer=optimizer).train(
                epoch, dataset, callbacks=callbacks)
        finally:
            self.set_train(False)
