"""What every explainer shares: argument checks, the one-hot backward signal, the
channel aggregation and a float bilinear resize (no 8-bit round trip)."""

from __future__ import annotations

import numpy as np

from ms_tensor import Tensor

__all__ = ["Attribution", "as_inputs", "as_targets", "abs_max", "resize_bilinear",
           "forward_probs", "to_tensor", "in_mode"]


def in_mode(explainer, key: str, fn):
    """``fn`` as the explainer's own compiled function in GRAPH_MODE (else ``fn`` itself).

    The explainers that hook cells (a ReLU with another gradient, a layer's activation
    captured or probed) call the network through this: the hooks are registered whenever
    this function runs, so its graphs always hold them, while the network's own compiled
    graphs (compiled without the hooks, as the user runs it) are neither used nor changed.
    The gradient comes from ms-graph's compiled backward of that graph, with the hooks'
    gradient rules captured in it: the same maps as PyNative (tests/xai/test_graph_mode.py).
    """
    from ms_tensor.context import GRAPH_MODE, get_context

    if get_context("mode") != GRAPH_MODE:
        return fn
    compiled = explainer.__dict__.setdefault("_compiled", {})
    if key not in compiled:
        from ms_graph.jit import JitFunction

        compiled[key] = JitFunction(fn, "trace")
    return compiled[key]


def as_inputs(inputs, who: str) -> np.ndarray:
    """``inputs`` as a float32 ``(N, C, H, W)`` array, or a clear error naming ``who``."""
    if isinstance(inputs, Tensor):
        arr = inputs.asnumpy()
    elif isinstance(inputs, np.ndarray):
        arr = inputs
    else:
        raise TypeError(f"{who}: inputs must be a Tensor or numpy array of shape (N, C, H, W), "
                        f"got {type(inputs).__name__}")
    if arr.ndim != 4:
        raise ValueError(f"{who}: inputs must be 4D (N, C, H, W), got shape {arr.shape}")
    if arr.shape[0] == 0:
        raise ValueError(f"{who}: inputs hold no sample (shape {arr.shape})")
    if not np.issubdtype(arr.dtype, np.floating):
        raise TypeError(f"{who}: inputs must be floating point, got {arr.dtype}")
    return np.ascontiguousarray(arr, dtype=np.float32)


def as_targets(targets, n: int, who: str, num_classes: int | None = None,
               allow_2d: bool = False) -> np.ndarray:
    """``targets`` (int, list, tuple, 0D/1D Tensor or array) as an int array of length
    ``n`` (or ``(n, k)`` where ``allow_2d``: several labels per sample, as RISE takes)."""
    if isinstance(targets, Tensor):
        targets = targets.asnumpy()
    if isinstance(targets, (bool, np.bool_)):
        raise TypeError(f"{who}: targets must be an int, a list of ints or a Tensor, got bool")
    if isinstance(targets, (int, np.integer)):
        arr = np.full((n,), int(targets), np.int64)
    elif isinstance(targets, (list, tuple, np.ndarray)):
        arr = np.asarray(targets)
        if arr.size and not np.issubdtype(arr.dtype, np.integer):
            raise TypeError(f"{who}: targets must be integers, got dtype {arr.dtype}")
        arr = arr.astype(np.int64)
        if arr.ndim == 0:
            arr = np.full((n,), int(arr), np.int64)
    else:
        raise TypeError(f"{who}: targets must be an int, a list/tuple of ints or a Tensor, "
                        f"got {type(targets).__name__}")
    ok_ndim = (1, 2) if allow_2d else (1,)
    if arr.ndim not in ok_ndim or arr.shape[0] != n:
        raise ValueError(f"{who}: targets must have length {n} (one label per input"
                         f"{' or (N, k)' if allow_2d else ''}), got shape {arr.shape}")
    if num_classes is not None and ((arr < 0) | (arr >= num_classes)).any():
        raise ValueError(f"{who}: targets {arr.tolist()} out of range for {num_classes} classes")
    return arr


def to_tensor(arr: np.ndarray) -> Tensor:
    return Tensor(np.ascontiguousarray(arr, dtype=np.float32))


def abs_max(grads: np.ndarray) -> np.ndarray:
    """``(N, C, H, W)`` gradients to ``(N, 1, H, W)`` saliency: the largest magnitude over
    channels (MindSpore XAI's aggregation)."""
    return np.abs(grads).max(axis=1, keepdims=True)


def _axis_weights(n_in: int, n_out: int):
    """Indices and weights of half-pixel bilinear interpolation along one axis, clamped at
    the edges (what PIL's BILINEAR does when enlarging)."""
    pos = (np.arange(n_out) + 0.5) * (n_in / n_out) - 0.5
    pos = np.clip(pos, 0, n_in - 1)
    lo = np.floor(pos).astype(np.int64)
    hi = np.minimum(lo + 1, n_in - 1)
    return lo, hi, (pos - lo).astype(np.float32)


def resize_bilinear(arr: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Resize ``(N, C, h, w)`` to ``(N, C, H, W)`` with half-pixel bilinear interpolation."""
    h, w = arr.shape[-2:]
    out_h, out_w = size
    if (h, w) == (out_h, out_w):
        return arr.astype(np.float32, copy=True)
    y0, y1, wy = _axis_weights(h, out_h)
    x0, x1, wx = _axis_weights(w, out_w)
    rows = arr[..., y0, :] * (1 - wy)[:, None] + arr[..., y1, :] * wy[:, None]
    return (rows[..., x0] * (1 - wx) + rows[..., x1] * wx).astype(np.float32)


def forward_probs(network, activation_fn, batch: np.ndarray, chunk: int) -> np.ndarray:
    """``activation_fn(network(x))`` on ``batch`` in chunks of ``chunk``, as an array;
    outputs with spatial axes (fully convolutional nets) are averaged to ``(N, L)``."""
    outs = []
    for i in range(0, len(batch), chunk):
        y = network(to_tensor(batch[i:i + chunk]))
        if activation_fn is not None:
            y = activation_fn(y)
        y = y.asnumpy()
        while y.ndim > 2:
            y = y.mean(axis=2)
        outs.append(y)
    return np.concatenate(outs, axis=0)


class Attribution:
    """Base of every explainer: holds the network (switched to inference) and checks the
    ``explainer(inputs, targets)`` call."""

    def __init__(self, network):
        if not callable(network) or not hasattr(network, "cells_and_names"):
            raise TypeError(f"{type(self).__name__}: network must be a Cell, got "
                            f"{type(network).__name__}")
        network.set_train(False)
        self._network = network
        self._num_classes = None

    @property
    def network(self):
        return self._network

    @property
    def name(self) -> str:
        return type(self).__name__

    def _check_call(self, inputs, targets, ret, show, allow_2d=False):
        from ms_insight.explainer.images import check_ret_show

        who = type(self).__name__
        check_ret_show(who, ret, show)
        x = as_inputs(inputs, who)
        if self._num_classes is None:
            out = self._network(to_tensor(x[:1])).asnumpy()
            self._num_classes = int(out.shape[1])
        t = as_targets(targets, x.shape[0], who, self._num_classes, allow_2d)
        return x, t
