"""GradCAM: a named layer's activations weighted by the spatial mean of their gradients,
summed over channels, rectified and resized to the input."""

from __future__ import annotations

import numpy as np

import ms_autodiff as ad
from ms_insight.explainer._common import (
    Attribution,
    in_mode,
    resize_bilinear,
    to_tensor,
)
from ms_insight.explainer.images import finish
from ms_ops import functional as F

__all__ = ["GradCAM", "find_layer"]


def find_layer(network, layer: str):
    """The sub-Cell of ``network`` called ``layer`` (a ``cells_and_names`` name, e.g.
    ``"conv2"`` or ``"backbone.layer4"``), or an error listing the names there are."""
    cells = dict(network.cells_and_names())
    if layer not in cells:
        names = ", ".join(repr(n) for n in cells if n)
        raise ValueError(f"GradCAM: the network has no layer named {layer!r}; its layers "
                         f"are {names}")
    return cells[layer]


class GradCAM(Attribution):
    """Gradient-weighted class activation mapping (Selvaraju et al.).

    Args:
        network: the Cell to explain.
        layer: name of the sub-Cell whose output is explained (``""``: the input itself).

    The layer's output ``A`` is hooked; the gradient of the target logit with respect to
    ``A`` comes from a zero tensor added to ``A`` and differentiated, so the network
    runs unchanged. Saliency: ``relu(sum_c mean_hw(dA) * A)``, resized bilinearly (in
    float; MindSpore XAI rounds through 8-bit images) to ``(N, 1, H, W)``.

    >>> import numpy as np, ms_nn as nn
    >>> from ms_tensor import Tensor
    >>> net = nn.SequentialCell([nn.Conv2d(1, 4, 3), nn.ReLU(), nn.Flatten(), nn.Dense(64, 3)])
    >>> GradCAM(net, layer="0")(Tensor(np.ones((2, 1, 4, 4), np.float32)), 1).shape
    (2, 1, 4, 4)
    """

    def __init__(self, network, layer: str = ""):
        super().__init__(network)
        if not isinstance(layer, str):
            raise TypeError(f"GradCAM: layer must be a str, got {type(layer).__name__}")
        self._layer = layer
        self._cell = find_layer(network, layer) if layer else None

    def __call__(self, inputs, targets, ret="tensor", show=None):
        x, t = self._check_call(inputs, targets, ret, show)
        act, grad = self._activation_and_gradient(x, t)
        weights = grad.mean(axis=(2, 3), keepdims=True)
        cam = np.maximum((weights * act).sum(axis=1, keepdims=True), 0)
        return finish(resize_bilinear(cam, x.shape[2:]), ret, show)

    def _activation_and_gradient(self, x, t):
        if self._cell is None:
            from ms_insight.explainer.backprop import input_gradient

            return x, input_gradient(in_mode(self, "network", self._network), x, t)
        holder = self._holder = {}  # shared by the hook and the functions below

        def capture(cell, inputs, output):
            holder["act"] = output
            probe = holder.get("probe")
            return None if probe is None else F.add(output, probe)

        handle = self._cell.register_forward_hook(capture)
        try:
            act = in_mode(self, "activation", self._activation)(to_tensor(x))
            act = act.asnumpy()
            if act.ndim != 4:
                raise ValueError(f"GradCAM: layer {self._layer!r} must output (N, C, h, w) "
                                 f"during the forward pass, got {act.shape}")
            probed = in_mode(self, "probed", self._probed)
            out, vjp_fn = ad.vjp(lambda probe: probed(to_tensor(x), probe),
                                 to_tensor(np.zeros_like(act)))
            sens = np.zeros(out.shape, np.float32)
            sens[np.arange(len(x)), t] = 1.0
            (grad,) = vjp_fn(to_tensor(sens))
        finally:
            handle.remove()
        return act, grad.asnumpy()

    def _activation(self, x):
        """The hooked layer's output on ``x``."""
        holder = self._holder
        holder.pop("probe", None)
        holder.pop("act", None)
        self._network(x)
        if "act" not in holder:
            raise ValueError(f"GradCAM: layer {self._layer!r} was not called by the "
                             "network's forward pass")
        return holder["act"]

    def _probed(self, x, probe):
        """The network's output on ``x`` with ``probe`` (zeros) added to the layer's
        output: its gradient with respect to ``probe`` is the layer's gradient."""
        holder = self._holder
        holder["probe"] = probe
        try:
            return self._network(x)
        finally:
            holder.pop("probe", None)
