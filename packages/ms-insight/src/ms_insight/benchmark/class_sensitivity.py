"""Class sensitivity: a good explainer draws different maps for the most and the least
likely class."""

from __future__ import annotations

import numpy as np

from ms_insight.benchmark._base import LabelAgnosticMetric
from ms_insight.explainer._common import to_tensor

__all__ = ["ClassSensitivity"]


def _correlation(a: np.ndarray, b: np.ndarray) -> float:
    if not a.any() or not b.any() or a.std() == 0 or b.std() == 0:
        return 0.0
    return float(np.corrcoef(a, b)[0, 1])


class ClassSensitivity(LabelAgnosticMetric):
    """``(1 - corr(S_top, S_bottom)) / 2`` per sample, in [0, 1], higher is better: ``S_top``
    explains the highest-scoring label, ``S_bottom`` the lowest.

    ``evaluate(explainer, inputs)`` returns ``(N,)`` scores.

    >>> import numpy as np, ms_nn as nn
    >>> from ms_insight.explainer import Gradient
    >>> net = nn.SequentialCell([nn.Flatten(), nn.Dense(64, 3)])
    >>> x = np.random.rand(2, 1, 8, 8).astype(np.float32)
    >>> ClassSensitivity().evaluate(Gradient(net), x).shape
    (2,)
    """

    def evaluate(self, explainer, inputs) -> np.ndarray:
        x = self._check(explainer, inputs, "ClassSensitivity")
        logits = explainer.network(to_tensor(x)).asnumpy()
        top, bottom = logits.argmax(axis=1), logits.argmin(axis=1)
        if explainer.name in ("RISE", "RISEPlus"):
            both = explainer(to_tensor(x), np.stack([top, bottom], axis=1), show=False).asnumpy()
            s_top, s_bottom = both[:, 0], both[:, 1]
        else:
            s_top = explainer(to_tensor(x), top, show=False).asnumpy()
            s_bottom = explainer(to_tensor(x), bottom, show=False).asnumpy()
        return np.array([(1 - _correlation(s_top[i].ravel(), s_bottom[i].ravel())) / 2
                         for i in range(len(x))], float)
