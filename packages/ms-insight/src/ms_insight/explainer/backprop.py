"""Gradient explainers: the gradient of the target's logit with respect to the input,
and its two ReLU-modified variants (Deconvolution, Guided Backpropagation).

The gradients come from ms-autodiff's ``vjp`` with a one-hot signal, so one backward
pass explains a whole batch, each sample for its own target.
"""

from __future__ import annotations

import numpy as np

import ms_autodiff as ad
from ms_autodiff import call_with_bprop
from ms_insight.explainer._common import Attribution, abs_max, in_mode, to_tensor
from ms_insight.explainer.images import finish
from ms_ops import functional as F

__all__ = ["Gradient", "Deconvolution", "GuidedBackprop", "input_gradient"]


def input_gradient(network, x: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """``d network(x)[i, targets[i]] / d x[i]`` for every sample, as an array."""
    out, vjp_fn = ad.vjp(network, to_tensor(x))
    logits = out.shape[-1]
    sens = np.zeros(out.shape, np.float32)
    sens[np.arange(len(x)), targets] = 1.0
    if len(out.shape) != 2:
        raise ValueError(f"explainer: the network must output (N, num_classes) logits, got "
                         f"shape {tuple(out.shape)} ({logits} classes?)")
    (grad,) = vjp_fn(to_tensor(sens))
    return grad.asnumpy()


class Gradient(Attribution):
    """Saliency as the magnitude of the input gradient (max over channels).

    Args:
        network: the Cell to explain (switched to inference with ``set_train(False)``).

    Call ``gradient(inputs, targets)``: ``inputs`` a ``(N, C, H, W)`` Tensor, ``targets``
    an int, a list of N ints or a Tensor; returns a ``(N, 1, H, W)`` float32 Tensor.

    >>> import numpy as np, ms_nn as nn
    >>> from ms_tensor import Tensor
    >>> net = nn.SequentialCell([nn.Flatten(), nn.Dense(16, 3)])
    >>> Gradient(net)(Tensor(np.ones((2, 1, 4, 4), np.float32)), [0, 2]).shape
    (2, 1, 4, 4)
    """

    def __call__(self, inputs, targets, ret="tensor", show=None):
        x, t = self._check_call(inputs, targets, ret, show)
        return finish(abs_max(self._gradient(x, t)), ret, show)

    def _gradient(self, x, t):
        return input_gradient(self._network, x, t)


def _deconv_bprop(x, out, dout):
    return (F.relu(dout),)


def _guided_bprop(x, out, dout):
    # ReLU's own rule (pass where x > 0) and then only the positive part of the signal.
    return (F.mul(F.relu(dout), F.sign(out)),)


class _ModifiedReLU(Gradient):
    """A gradient in which every ``nn.ReLU`` cell of the network backpropagates with
    another rule; ReLUs called as functions (``ops.relu``) keep their usual gradient."""

    _rule = None

    def _gradient(self, x, t):
        from ms_nn import ReLU

        relus = [c for _, c in self._network.cells_and_names() if isinstance(c, ReLU)]
        rule = type(self)._rule

        def hook(cell, inputs, output):
            return call_with_bprop(F.relu, rule, inputs[0], name=f"{self.name}.ReLU")

        handles = [c.register_forward_hook(hook) for c in relus]
        try:
            return input_gradient(in_mode(self, "hooked", self._hooked), x, t)
        finally:
            for h in handles:
                h.remove()


    def _hooked(self, x):
        return self._network(x)


class Deconvolution(_ModifiedReLU):
    """Zeiler and Fergus' deconvnet: each ReLU passes back only the positive part of the
    incoming gradient, whatever its forward input was.

    >>> import numpy as np, ms_nn as nn
    >>> from ms_tensor import Tensor
    >>> net = nn.SequentialCell([nn.Flatten(), nn.Dense(16, 8), nn.ReLU(), nn.Dense(8, 3)])
    >>> Deconvolution(net)(Tensor(np.ones((1, 1, 4, 4), np.float32)), 1).shape
    (1, 1, 4, 4)
    """

    _rule = staticmethod(_deconv_bprop)


class GuidedBackprop(_ModifiedReLU):
    """Guided backpropagation: each ReLU passes back the gradient where its input was
    positive (its ordinary rule) and only where that gradient is positive.

    >>> import numpy as np, ms_nn as nn
    >>> from ms_tensor import Tensor
    >>> net = nn.SequentialCell([nn.Flatten(), nn.Dense(16, 8), nn.ReLU(), nn.Dense(8, 3)])
    >>> GuidedBackprop(net)(Tensor(np.ones((1, 1, 4, 4), np.float32)), 1).shape
    (1, 1, 4, 4)
    """

    _rule = staticmethod(_guided_bprop)
