"""The two directions a loss landscape is drawn along, and where checkpoints lie on them.

MindSpore's rules (``mindspore.train.callback._landscape``): only parameters named
``*weight*`` or ``*bias*`` (and not an optimizer's ``moment``) move; each direction is
scaled per parameter tensor to that tensor's norm, so layers of different scales are
comparable (Li et al.'s normalization, per tensor); the others get a zero direction.
"""

from __future__ import annotations

import numpy as np

__all__ = ["moves", "pca_directions", "random_directions", "normalize", "coefficients"]


def moves(name: str) -> bool:
    """Whether the landscape moves this parameter (MindSpore's name rule).

    >>> moves("fc1.weight"), moves("conv.bias"), moves("moment1.fc1.weight"), moves("bn.gamma")
    (True, True, False, False)
    """
    return ("weight" in name or "bias" in name) and "moment" not in name


def _flat(params: dict) -> np.ndarray:
    parts = [np.asarray(v, np.float64).ravel() for k, v in params.items() if moves(k)]
    return np.concatenate(parts) if parts else np.zeros(0)


def _unflat(vector: np.ndarray, like: dict) -> dict:
    """``vector`` (over the moving parameters, in order) as arrays shaped like ``like``;
    the others zero."""
    out, at = {}, 0
    for k, v in like.items():
        v = np.asarray(v)
        if moves(k):
            out[k] = vector[at:at + v.size].reshape(v.shape).astype(np.float32)
            at += v.size
        else:
            out[k] = np.zeros(v.shape, np.float32)
    return out


def normalize(direction: dict, params: dict) -> dict:
    """Scale each moving tensor of ``direction`` to the norm of the same tensor of
    ``params``; the other tensors are zero (MindSpore's ``_normalize_vector``).

    >>> d = normalize({"w.weight": np.array([3.0, 4.0])}, {"w.weight": np.array([0.0, 10.0])})
    >>> d["w.weight"].tolist()
    [6.0, 8.0]
    """
    out = {}
    for k, v in direction.items():
        v = np.asarray(v, np.float32)
        if moves(k):
            norm = np.linalg.norm(v)
            out[k] = v * np.float32(np.linalg.norm(np.asarray(params[k], np.float64)) / norm) \
                if norm > 0 else v
        else:
            out[k] = np.zeros_like(v)
    return out


def random_directions(final: dict, rng: np.random.Generator) -> tuple[dict, dict]:
    """Two normalized Gaussian directions around ``final`` (the "result" landscape)."""
    v = {k: rng.standard_normal(np.shape(a)) for k, a in final.items()}
    w = {k: rng.standard_normal(np.shape(a)) for k, a in final.items()}
    return normalize(v, final), normalize(w, final)


def pca_directions(trajectory: list[dict]) -> tuple[dict, dict]:
    """The first two principal components of the checkpoints' offsets from the last one
    (the "train" landscape: the plane the training path mostly lies in), normalized.

    MindSpore takes the components of the offsets matrix (parameters x checkpoints, each
    column centred); its sign rule makes the largest entry of each component positive.
    """
    final = trajectory[-1]
    offsets = np.stack([_flat(p) - _flat(final) for p in trajectory[:-1]], axis=1)
    offsets -= offsets.mean(axis=0)
    u, s, _ = np.linalg.svd(offsets, full_matrices=False)
    if u.shape[1] < 2:
        raise ValueError(f"SummaryLandscape: PCA needs at least 3 checkpoints, got "
                         f"{len(trajectory)}")
    u = u[:, :2] * np.where(s[:2] == 0, 1e-19, s[:2])
    signs = np.sign(u[np.argmax(np.abs(u), axis=0), [0, 1]])
    u = u * np.where(signs == 0, 1.0, signs)
    return normalize(_unflat(u[:, 0], final), final), normalize(_unflat(u[:, 1], final), final)


def coefficients(trajectory: list[dict], v: dict, w: dict) -> np.ndarray:
    """Each checkpoint's offset from the last one in the plane of ``v`` and ``w`` (least
    squares): shape ``(len(trajectory), 2)``; the last row is ``(0, 0)``."""
    basis = np.stack([_flat(v), _flat(w)], axis=1)
    final = _flat(trajectory[-1])
    return np.array([np.linalg.lstsq(basis, _flat(p) - final, rcond=None)[0]
                     for p in trajectory])
