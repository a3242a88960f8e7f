"""``OcclusionSensitivity``: how much a model's score for the label drops when a cube
around each position of the input is covered with ``pad_val``."""

from __future__ import annotations

import numpy as np

from ms_nn.cell import Cell
from ms_nn.train.metrics.metric import Metric, check_inputs, empty_error, rearrange_inputs
from ms_tensor import Tensor

__all__ = ["OcclusionSensitivity"]


def _box(b_box, shape):
    if b_box is None:
        return None, None
    if len(b_box) != 2 * len(shape):
        raise ValueError(f"OcclusionSensitivity: b_box must hold a (min, max) pair per axis "
                         f"after the batch axis ({2 * len(shape)} values), got {len(b_box)}")
    lo, hi = np.array(b_box[::2]), np.array(b_box[1::2])
    lo[lo < 0] = 0
    hi[hi < 0] = shape[hi < 0] - 1
    if np.any(hi >= shape) or np.any(lo > hi):
        raise ValueError(f"OcclusionSensitivity: b_box {b_box} must lie inside the image shape "
                         f"{tuple(shape)} with each minimum at most its maximum")
    return lo, hi


class OcclusionSensitivity(Metric):
    """``update(model, x, label)`` with one (1, ...) sample; ``eval`` gives, per position
    (inside ``b_box``), the baseline score minus the score with a ``2 * margin`` cube
    there set to ``pad_val``. The occluded copies run through ``model`` in batches of
    ``n_batch``.

    >>> from ms_nn.layers import Flatten
    >>> m = OcclusionSensitivity(margin=1); m.update(Flatten(), Tensor([[1.0, 2.0, 3.0]]), 2)
    >>> m.eval().tolist()
    [0.0, 0.0, 3.0]
    """

    def __init__(self, pad_val=0.0, margin=2, n_batch=128, b_box=None):
        super().__init__()
        if not isinstance(pad_val, float):
            raise TypeError(f"OcclusionSensitivity: pad_val must be a float, got {pad_val!r}")
        if isinstance(n_batch, bool) or not isinstance(n_batch, int) or n_batch < 1:
            raise ValueError(f"OcclusionSensitivity: n_batch must be a positive int, got "
                             f"{n_batch!r}")
        self.pad_val, self.margin, self.n_batch, self.b_box = pad_val, margin, n_batch, b_box
        self.clear()

    def clear(self):
        self._baseline, self._sensitivity_im = 0, 0
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs):
        check_inputs("OcclusionSensitivity", inputs, 3)
        model, x = inputs[0], self._convert_data(inputs[1])
        if not isinstance(model, Cell):
            raise TypeError(f"OcclusionSensitivity.update: the model must be a Cell, got "
                            f"{type(model).__name__}")
        if x.shape[0] > 1:
            raise RuntimeError(f"OcclusionSensitivity.update: x must hold one sample, got shape "
                               f"{x.shape}")
        label = inputs[2] if isinstance(inputs[2], int) else \
            int(self._convert_data(inputs[2]).reshape(-1)[0])
        shape = np.array(x.shape[1:])
        lo, hi = _box(self.b_box, shape)
        self._baseline = model(Tensor(x)).asnumpy()[0, label].item()
        out_shape = shape if lo is None else hi - lo + 1
        scores, batch = [], []
        total = int(np.prod(out_shape))
        for i in range(total):
            idx = np.array(np.unravel_index(i, out_shape)) + (0 if lo is None else lo)
            covered = x.copy()
            covered[(...,) + tuple(slice(max(0, k - self.margin), min(n, k + self.margin))
                                   for k, n in zip(idx, shape))] = self.pad_val
            batch.append(covered)
            if len(batch) == self.n_batch or i == total - 1:
                scores.append(model(Tensor(np.vstack(batch))).asnumpy()[:, label])
                batch = []
        self._sensitivity_im = np.concatenate(scores).reshape(out_shape)
        self._is_update = True

    def eval(self):
        if not self._is_update:
            raise empty_error(self)
        return self._baseline - np.squeeze(self._sensitivity_im)
