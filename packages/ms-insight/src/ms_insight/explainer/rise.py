"""RISE and RISEPlus: saliency as the probability-weighted mean of random smooth masks.

The masks are coarse random grids upsampled bilinearly and shifted by a random offset
(Petsiuk et al.); RISEPlus also weights each masked image by an out-of-distribution
network's inlier score, so masks that make the image unlike the data count less.
"""

from __future__ import annotations

import numpy as np

from ms_insight.explainer._common import Attribution, resize_bilinear, to_tensor
from ms_insight.explainer.images import finish

__all__ = ["RISE", "RISEPlus"]


class RISE(Attribution):
    """Randomized Input Sampling for Explanation.

    Args:
        network: the Cell to explain.
        activation_fn: logits to probabilities (``nn.Softmax()``, ``nn.Sigmoid()``).
        perturbation_per_eval: masked images per forward pass.
        num_masks: masks per sample (MindSpore XAI fixes 6000).
        seed: seed of the masks' generator; None draws fresh masks on every call.

    ``targets`` may be ``(N, k)``: then the result is ``(N, k, H, W)``, one map per label
    (the masked images are run once for all of them).

    >>> import numpy as np, ms_nn as nn
    >>> from ms_tensor import Tensor
    >>> net = nn.SequentialCell([nn.Flatten(), nn.Dense(64, 3)])
    >>> rise = RISE(net, nn.Softmax(), num_masks=40, seed=0)
    >>> rise(Tensor(np.ones((2, 1, 8, 8), np.float32)), [[0, 1], [2, 0]]).shape
    (2, 2, 8, 8)
    """

    _grid = 10
    _keep_probability = 0.5

    def __init__(self, network, activation_fn, perturbation_per_eval: int = 32,
                 num_masks: int = 6000, seed: int | None = None):
        super().__init__(network)
        if not callable(activation_fn):
            raise TypeError(f"{self.name}: activation_fn must be a Cell such as nn.Softmax()")
        for arg, value in (("perturbation_per_eval", perturbation_per_eval),
                           ("num_masks", num_masks)):
            if not isinstance(value, int) or value <= 0:
                raise ValueError(f"{self.name}: {arg} must be a positive int, got {value!r}")
        self._activation_fn = activation_fn
        self._per_eval = perturbation_per_eval
        self._num_masks = num_masks
        self._seed = seed

    def _masks(self, rng, count: int, height: int, width: int) -> np.ndarray:
        """``(count, 1, H, W)`` float masks in [0, 1]."""
        g = self._grid
        coarse = (rng.random((count, 1, g, g)) < self._keep_probability).astype(np.float32)
        up = resize_bilinear(coarse, (height + g, width + g))
        dy = rng.integers(0, g + 1, count)
        dx = rng.integers(0, g + 1, count)
        return np.stack([m[:, y:y + height, x:x + width] for m, y, x in zip(up, dy, dx)])

    def _weights(self, sample: np.ndarray, masked: np.ndarray) -> np.ndarray:
        probs = self._activation_fn(self._network(to_tensor(masked))).asnumpy()
        while probs.ndim > 2:
            probs = probs.mean(axis=2)
        return probs

    def __call__(self, inputs, targets, ret="tensor", show=None):
        x, t = self._check_call(inputs, targets, ret, show, allow_2d=True)
        t2 = t[:, None] if t.ndim == 1 else t
        n, _, h, w = x.shape
        rng = np.random.default_rng(self._seed)
        out = np.zeros((n, t2.shape[1], h, w), np.float64)
        for i in range(n):
            self._begin_sample(x[i])
            done = 0
            while done < self._num_masks:
                count = min(self._per_eval, self._num_masks - done)
                masks = self._masks(rng, count, h, w)
                weights = self._weights(x[i], masks * x[i][None])[:, t2[i]]
                out[i] += np.tensordot(weights, masks[:, 0], axes=(0, 0))
                done += count
        return finish(out / self._num_masks, ret, show)

    def _begin_sample(self, sample):
        """Per-sample set-up (RISEPlus scores the sample's bounds)."""


class RISEPlus(RISE):
    """RISE with inlier scores from an out-of-distribution network (Zhang et al., 2021).

    Args:
        ood_net: a Cell returning per-class OoD scores ``(N, L)`` for an input batch
            (MindSpore XAI's ``OoDNet`` shape); its largest score is the inlier score,
            clipped between its value on an all-zero image and on the sample itself.
        network, activation_fn, perturbation_per_eval, num_masks, seed: as for RISE.
    """

    def __init__(self, ood_net, network, activation_fn, perturbation_per_eval: int = 32,
                 num_masks: int = 6000, seed: int | None = None):
        super().__init__(network, activation_fn, perturbation_per_eval, num_masks, seed)
        if not callable(ood_net):
            raise TypeError(f"RISEPlus: ood_net must be a Cell, got {type(ood_net).__name__}")
        if hasattr(ood_net, "set_train"):
            ood_net.set_train(False)
        self._ood_net = ood_net
        self._bounds = (0.0, 1.0)

    def _score(self, batch: np.ndarray) -> np.ndarray:
        return self._ood_net(to_tensor(batch)).asnumpy().max(axis=1)

    def _begin_sample(self, sample):
        low = float(self._score(np.zeros_like(sample)[None]).max())
        high = float(self._score(sample[None]).max())
        self._bounds = (low, high)

    def _weights(self, sample, masked):
        low, high = self._bounds
        eps = np.finfo(float).eps
        inlier = (np.clip(self._score(masked), low, high) - low) / (high - low + eps)
        return super()._weights(sample, masked) * inlier[:, None]
