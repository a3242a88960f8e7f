"""Simulated ranks: a layout's slices of a numpy array, and the collectives on them.

This is what lets the planner and the tests check a redistribution for any device count in
one process: ``scatter`` cuts a full array into per-rank pieces, ``run`` applies the steps of
a ``Redistribution`` the way the collectives would, and ``gather`` rebuilds the full array
(checking that replicas agree and summing partial values).
"""

from __future__ import annotations

import math

import numpy as np

from ms_parallel.auto.layout import TensorLayout
from ms_parallel.auto.redistribution import Redistribution

__all__ = ["scatter", "gather", "run", "local_slice", "group_of"]


def local_slice(array: np.ndarray, layout: TensorLayout, rank: int) -> np.ndarray:
    """The piece of the full ``array`` that ``rank`` holds under a non-partial ``layout``."""
    shape = layout.slice_shape(array.shape)
    index = tuple(slice(b * n, (b + 1) * n) for b, n in zip(layout.block(rank), shape))
    return array[index]


def scatter(array: np.ndarray, layout: TensorLayout, rng=None) -> list[np.ndarray]:
    """Per-rank pieces of ``array``; partial axes get random summands (needs ``rng``)."""
    out = [local_slice(array, TensorLayout(layout.dev_matrix, layout.tensor_map), r).copy()
           for r in range(layout.device_num)]
    for a in sorted(layout.partial):
        if rng is None:
            raise ValueError("scatter: a partial layout needs rng to draw the summands")
        for group in _groups(layout.dev_matrix, a):
            parts = [rng.standard_normal(out[group[0]].shape).astype(array.dtype)
                     for _ in group[1:]]
            total = out[group[0]]
            out[group[0]] = total - sum(parts)
            for r, part in zip(group[1:], parts):
                out[r] = part
    return out


def gather(pieces: list[np.ndarray], layout: TensorLayout, shape, atol=1e-6) -> np.ndarray:
    """The full array from per-rank pieces, checking that replicas hold equal values."""
    pieces = list(pieces)
    for a in sorted(layout.partial):
        for group in _groups(layout.dev_matrix, a):
            total = sum(pieces[r] for r in group)
            for r in group:
                pieces[r] = total
    full = np.zeros(shape, dtype=pieces[0].dtype)
    seen = np.zeros(shape, dtype=bool)
    plain = TensorLayout(layout.dev_matrix, layout.tensor_map)
    local = plain.slice_shape(shape)
    for r, piece in enumerate(pieces):
        if piece.shape != local:
            raise ValueError(f"gather: rank {r} holds shape {piece.shape}, layout {layout} "
                             f"expects {local}")
        index = tuple(slice(b * n, (b + 1) * n) for b, n in zip(plain.block(r), local))
        if seen[index].any() and not np.allclose(full[index], piece, atol=atol):
            raise ValueError(f"gather: rank {r}'s replica differs from another rank's")
        full[index] = piece
        seen[index] = True
    return full


def group_of(dev_matrix, axis: int, rank: int) -> list[int]:
    """Ranks that differ from ``rank`` only along ``axis``, ordered by that coordinate."""
    stride = math.prod(dev_matrix[axis + 1:])
    base = rank - ((rank // stride) % dev_matrix[axis]) * stride
    return [base + i * stride for i in range(dev_matrix[axis])]


def _groups(dev_matrix, axis):
    seen, out = set(), []
    for r in range(math.prod(dev_matrix)):
        if r not in seen:
            g = group_of(dev_matrix, axis, r)
            seen.update(g)
            out.append(g)
    return out


def _coord(dev_matrix, axis, rank):
    return (rank // math.prod(dev_matrix[axis + 1:])) % dev_matrix[axis]


def _take(x, dim, parts, i):
    n = x.shape[dim] // parts
    return np.take(x, range(i * n, (i + 1) * n), axis=dim)


def run(plan: Redistribution, pieces: list[np.ndarray]) -> list[np.ndarray]:
    """Apply ``plan``'s steps to per-rank pieces as the collectives would."""
    dev = plan.dev_matrix
    pieces = list(pieces)
    for step in plan.steps:
        if step.kind == "Slice":
            full = gather(pieces, TensorLayout(dev, [() for _ in plan.shape]), plan.shape)
            pieces = [local_slice(full, plan.final, r).copy() for r in range(len(pieces))]
            continue
        p, new = dev[step.axis], [None] * len(pieces)
        for g in _groups(dev, step.axis):
            if step.kind == "AllReduce":
                total = sum(pieces[r] for r in g)
                for r in g:
                    new[r] = total.copy()
            elif step.kind == "ReduceScatter":
                total = sum(pieces[r] for r in g)
                for i, r in enumerate(g):
                    new[r] = _take(total, step.dim, p, i)
            elif step.kind in ("AllGather", "AlltoAll"):
                full = np.concatenate([pieces[r] for r in g], axis=step.dim)
                for i, r in enumerate(g):
                    new[r] = full if step.kind == "AllGather" else _take(full, step.dim_to, p, i)
            elif step.kind == "Split":
                for r in g:
                    new[r] = _take(pieces[r], step.dim, p, _coord(dev, step.axis, r))
            else:
                raise ValueError(f"redistribution: unknown step {step}")
        pieces = new
    return pieces
