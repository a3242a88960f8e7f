"""Segmentation distances between the surfaces of a predicted and a true mask:
``HausdorffDistance``, ``MeanSurfaceDistance`` and ``RootMeanSquareDistance``.

A surface is the mask minus its erosion by the face-connected cross (voxels outside the
image count as background, as scipy's ``binary_erosion``). Each surface voxel's distance
to the other surface is the exact minimum over that surface's voxels (euclidean,
chessboard or taxicab), in chunks, so the values equal the distance transforms MindSpore
reads them from.
"""

from __future__ import annotations

import numpy as np

from ms_nn.train.metrics.metric import Metric, check_inputs, empty_error, rearrange_inputs

__all__ = ["HausdorffDistance", "MeanSurfaceDistance", "RootMeanSquareDistance"]

_METRICS = ("euclidean", "chessboard", "taxicab")


def surface(mask: np.ndarray) -> np.ndarray:
    """The mask's voxels with a face neighbour (or the image border) in the background."""
    padded = np.pad(mask, 1, constant_values=False)
    inner = padded.copy()
    for axis in range(mask.ndim):
        inner &= np.roll(padded, 1, axis) & np.roll(padded, -1, axis)
    core = inner[tuple(slice(1, -1) for _ in range(mask.ndim))]
    return mask & ~core


def surface_distances(from_edges, to_edges, metric) -> np.ndarray:
    """The distance from each voxel of ``from_edges`` to the nearest of ``to_edges``."""
    src = np.argwhere(from_edges)
    if src.size == 0:
        return np.array([])
    dst = np.argwhere(to_edges)
    if dst.size == 0:
        return np.full(len(src), np.inf)
    out = np.empty(len(src))
    step = max(1, (1 << 22) // max(len(dst), 1))
    for lo in range(0, len(src), step):
        diff = np.abs(src[lo:lo + step, None, :] - dst[None, :, :])
        if metric == "euclidean":
            d = np.sqrt((diff.astype(np.float64) ** 2).sum(-1))
        elif metric == "chessboard":
            d = diff.max(-1).astype(np.float64)
        else:
            d = diff.sum(-1).astype(np.float64)
        out[lo:lo + step] = d.min(1)
    return out


def _masks(who, inputs, convert):
    check_inputs(who, inputs, 3)
    y_pred, y = convert(inputs[0]), convert(inputs[1])
    label = inputs[2]
    if isinstance(label, bool) or not isinstance(label, (int, float)):
        raise ValueError(f"{who}.update: the label index (input 3) must be an int or float, "
                         f"got {type(label).__name__}")
    if label not in y_pred and label not in y:
        raise ValueError(f"{who}.update: label {label} is in neither y_pred nor y")
    if y_pred.size == 0 or y_pred.shape != y.shape:
        raise ValueError(f"{who}.update: y_pred (shape {y_pred.shape}) and y (shape {y.shape}) "
                         f"must be non-empty and of the same shape")
    y_pred = y_pred if y_pred.dtype == bool else y_pred == label
    y = y if y.dtype == bool else y == label
    return y_pred, y


def _check_metric(who, distance_metric):
    if distance_metric not in _METRICS:
        raise ValueError(f"{who}: distance_metric must be one of {', '.join(_METRICS)}, got "
                         f"{distance_metric!r}")
    return distance_metric


class HausdorffDistance(Metric):
    """The largest (or the ``percentile``-th) distance between the two surfaces, both ways
    unless ``directed``; with ``crop`` the masks are first cut to their bounding box.

    >>> a = np.zeros((5, 5)); a[1:4, 1:4] = 1; b = np.zeros((5, 5)); b[1:3, 1:3] = 1
    >>> m = HausdorffDistance(); m.update(Tensor(a), Tensor(b), 1); float(m.eval())
    1.4142135623730951
    """

    def __init__(self, distance_metric="euclidean", percentile=None, directed=False,
                 crop=True):
        super().__init__()
        self.distance_metric = _check_metric("HausdorffDistance", distance_metric)
        if percentile is not None and not 0 <= percentile <= 100:
            raise ValueError(f"HausdorffDistance: percentile must be in [0, 100], got "
                             f"{percentile!r}")
        self.percentile, self.directed, self.crop = percentile, directed, crop
        self.clear()

    def clear(self):
        self.y_pred_edges = self.y_edges = 0
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs):
        y_pred, y = _masks("HausdorffDistance", inputs, self._convert_data)
        if self.crop and np.any(y_pred | y):
            idx = np.nonzero(y_pred | y)
            box = tuple(slice(i.min(), i.max() + 1) for i in idx)
            y_pred, y = y_pred[box], y[box]
        self.y_pred_edges, self.y_edges = surface(y_pred), surface(y)
        self._is_update = True

    def _one_way(self, a, b):
        d = surface_distances(a, b, self.distance_metric)
        if d.shape == (0,):
            return np.inf
        return d.max() if not self.percentile else np.percentile(d, self.percentile)

    def eval(self):
        if not self._is_update:
            raise empty_error(self)
        hd = self._one_way(self.y_pred_edges, self.y_edges)
        if self.directed:
            return hd
        return max(hd, self._one_way(self.y_edges, self.y_pred_edges))


class _SurfaceMean(Metric):
    def __init__(self, symmetric=False, distance_metric="euclidean"):
        super().__init__()
        self.distance_metric = _check_metric(type(self).__name__, distance_metric)
        self.symmetric = symmetric
        self.clear()

    def clear(self):
        self._y_pred_edges = self._y_edges = 0
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs):
        y_pred, y = _masks(type(self).__name__, inputs, self._convert_data)
        self._y_pred_edges, self._y_edges = surface(y_pred), surface(y)
        self._is_update = True

    def _means(self):
        if not self._is_update:
            raise empty_error(self)
        pairs = [(self._y_pred_edges, self._y_edges)]
        if self.symmetric:
            pairs.append((self._y_edges, self._y_pred_edges))
        out = []
        for a, b in pairs:
            d = surface_distances(a, b, self.distance_metric)
            if d.shape == (0,):
                return None
            out.append(self._reduce(d))
        return out


class MeanSurfaceDistance(_SurfaceMean):
    """The mean distance from the predicted surface to the true one (averaged with the
    reverse direction when ``symmetric``).

    >>> a = np.zeros((5, 5)); a[1:4, 1:4] = 1; b = np.zeros((5, 5)); b[1:3, 1:3] = 1
    >>> m = MeanSurfaceDistance(); m.update(Tensor(a), Tensor(b), 1); round(float(m.eval()), 4)
    0.6768
    """

    @staticmethod
    def _reduce(d):
        return d.mean()

    def eval(self):
        means = self._means()
        return np.inf if means is None else (means[0] if len(means) == 1 else np.mean(means))


class RootMeanSquareDistance(_SurfaceMean):
    """The mean squared surface distance (the root of the two directions' mean when
    ``symmetric``), as MindSpore computes it.

    >>> a = np.zeros((5, 5)); a[1:4, 1:4] = 1; b = np.zeros((5, 5)); b[1:3, 1:3] = 1
    >>> m = RootMeanSquareDistance(); m.update(Tensor(a), Tensor(b), 1); round(float(m.eval()), 4)
    0.75
    """

    @staticmethod
    def _reduce(d):
        return (d ** 2).mean()

    def eval(self):
        means = self._means()
        if means is None:
            return np.inf
        return means[0] if len(means) == 1 else np.sqrt(np.mean(means))
