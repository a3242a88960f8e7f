"""Occlusion: slide a window of zeros over the input and credit each pixel with the mean
drop of the target's probability over the windows that covered it."""

from __future__ import annotations

import numpy as np

from ms_insight.explainer._common import Attribution, abs_max, forward_probs
from ms_insight.explainer.images import finish

__all__ = ["Occlusion", "occlusion_windows"]


def occlusion_windows(height: int, width: int, samples_per_dim: int = 32):
    """``(window, stride)`` per spatial axis, as MindSpore XAI picks them: a window of
    ``size // samples_per_dim`` with the same stride on large axes, else 3 with stride 1."""
    def pick(n):
        return (n // samples_per_dim, n // samples_per_dim) if n > samples_per_dim else (3, 1)

    (wh, sh), (ww, sw) = pick(height), pick(width)
    return (wh, ww), (sh, sw)


def _window_masks(height, width, window, stride) -> np.ndarray:
    (wh, ww), (sh, sw) = window, stride
    tops = range(0, height - wh + 1, sh)
    lefts = range(0, width - ww + 1, sw)
    masks = np.zeros((len(tops) * len(lefts), height, width), bool)
    k = 0
    for top in tops:
        for left in lefts:
            masks[k, top:top + wh, left:left + ww] = True
            k += 1
    return masks


class Occlusion(Attribution):
    """Occlusion sensitivity (Zeiler and Fergus), MindSpore XAI's variant.

    Args:
        network: the Cell to explain.
        activation_fn: the Cell that turns logits into probabilities (``nn.Softmax()``).
        perturbation_per_eval: occluded images per forward pass.

    Every window (all channels) is set to 0 in turn; a pixel's saliency is the summed
    probability drop of the windows over it divided by one more than their count (so a
    pixel no window reaches gets 0, as in MindSpore XAI). Returns ``(N, 1, H, W)``.

    >>> import numpy as np, ms_nn as nn
    >>> from ms_tensor import Tensor
    >>> net = nn.SequentialCell([nn.Flatten(), nn.Dense(64, 3)])
    >>> Occlusion(net, nn.Softmax())(Tensor(np.ones((1, 1, 8, 8), np.float32)), 2).shape
    (1, 1, 8, 8)
    """

    def __init__(self, network, activation_fn, perturbation_per_eval: int = 32):
        super().__init__(network)
        if not callable(activation_fn):
            raise TypeError("Occlusion: activation_fn must be a Cell such as nn.Softmax()")
        if not isinstance(perturbation_per_eval, int) or perturbation_per_eval <= 0:
            raise ValueError(f"Occlusion: perturbation_per_eval must be a positive int, got "
                             f"{perturbation_per_eval!r}")
        self._activation_fn = activation_fn
        self._per_eval = perturbation_per_eval

    def __call__(self, inputs, targets, ret="tensor", show=None):
        x, t = self._check_call(inputs, targets, ret, show)
        n, _, h, w = x.shape
        window, stride = occlusion_windows(h, w)
        masks = _window_masks(h, w, window, stride)
        base = forward_probs(self._network, self._activation_fn, x, self._per_eval)
        total = np.zeros((n, 1, h, w), np.float64)
        for i in range(n):
            occluded = np.where(masks[:, None], 0.0, x[i][None]).astype(np.float32)
            probs = forward_probs(self._network, self._activation_fn, occluded, self._per_eval)
            drop = base[i, t[i]] - probs[:, t[i]]
            total[i, 0] = np.tensordot(drop, masks, axes=1) / (1.0 + masks.sum(axis=0))
        return finish(abs_max(total), ret, show)
