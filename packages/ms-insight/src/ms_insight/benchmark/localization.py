"""Localization: does the saliency map point into the region where the evidence is
(a mask or bounding boxes of the object)?"""

from __future__ import annotations

import numpy as np

from ms_insight.benchmark._base import LabelSensitiveMetric, saliency_array

__all__ = ["Localization", "boxes_to_mask"]


def boxes_to_mask(boxes, height: int, width: int) -> np.ndarray:
    """``(H, W)`` bool mask of ``(left, top, width, height)`` boxes."""
    mask = np.zeros((height, width), bool)
    for box in boxes:
        if len(box) != 4:
            raise ValueError(f"Localization: a box is (left, top, width, height), got {box!r}")
        left, top, w, h = (int(v) for v in box)
        mask[max(top, 0):top + h, max(left, 0):left + w] = True
    return mask


class Localization(LabelSensitiveMetric):
    """Localization of an explainer's saliency maps.

    Args:
        num_labels: number of classes of the network.
        metric: ``"PointingGame"`` (1 when the disk of radius 15 pixels around the map's
            maximum touches the object, else 0) or ``"IoSR"`` (intersection over salient
            region: the share of pixels above half the map's maximum that lie on the object).

    ``evaluate(explainer, inputs, targets, saliency=None, mask=None, bboxes=None)``: the
    object as ``mask`` (``(N, 1, H, W)`` or ``(N, H, W)``) or as ``bboxes`` (per sample, a
    list of ``(left, top, width, height)``). Returns ``(N,)`` scores.

    >>> import numpy as np, ms_nn as nn
    >>> from ms_insight.explainer import Gradient
    >>> net = nn.SequentialCell([nn.Flatten(), nn.Dense(64, 3)])
    >>> loc = Localization(3, "IoSR")
    >>> loc.evaluate(Gradient(net), np.ones((1, 1, 8, 8), np.float32), 0, bboxes=[[(0, 0, 8, 8)]])
    array([1.])
    """

    METRICS = ("PointingGame", "IoSR")

    def __init__(self, num_labels: int, metric: str = "PointingGame"):
        super().__init__(num_labels)
        if metric not in self.METRICS:
            raise ValueError(f"Localization: metric must be one of {list(self.METRICS)}, got "
                             f"{metric!r}")
        self._metric = metric
        self._arg = 15 if metric == "PointingGame" else 0.5

    def _masks(self, x, mask, bboxes):
        n, _, h, w = x.shape
        if (mask is None) == (bboxes is None):
            raise ValueError("Localization: give the object as exactly one of mask= or bboxes=")
        if bboxes is not None:
            if len(bboxes) != n:
                raise ValueError(f"Localization: bboxes must hold one list of boxes per input "
                                 f"({n}), got {len(bboxes)}")
            return np.stack([boxes_to_mask(b, h, w) for b in bboxes])
        m = mask.asnumpy() if hasattr(mask, "asnumpy") else np.asarray(mask)
        if m.ndim == 4:
            m = m[:, 0]
        if m.shape != (n, h, w):
            raise ValueError(f"Localization: mask must be (N, 1, H, W) = ({n}, 1, {h}, {w}), "
                             f"got {np.shape(mask)}")
        return m.astype(bool)

    def evaluate(self, explainer, inputs, targets, saliency=None, mask=None,
                 bboxes=None) -> np.ndarray:
        who = f"Localization({self._metric})"
        x = self._check(explainer, inputs, who)
        t = self._targets(targets, len(x), who)
        masks = self._masks(x, mask, bboxes)
        s = saliency_array(explainer, x, t, saliency, who)[:, 0]
        return np.array([self._one(s[i], masks[i]) for i in range(len(x))], float)

    def _one(self, sal, obj) -> float:
        if self._metric == "PointingGame":
            row, col = np.unravel_index(np.argmax(sal), sal.shape)
            rr, cc = np.ogrid[:sal.shape[0], :sal.shape[1]]
            near = (rr - row) ** 2 + (cc - col) ** 2 < self._arg ** 2
            return float((obj & near).any())
        salient = sal > sal.max() * self._arg
        return float((obj & salient).sum() / max(salient.sum(), 1e-10))
