"""Which gradients are reduced together: buckets of at most ``bucket_bytes``, one dtype
each, in reverse parameter order (the order a backward pass finishes them), or split at
given parameter indices (MindSpore's ``all_reduce_fusion_config``).

Given each gradient's layer (``groups``: its Parameter's name without the last part, so
``fc1.weight`` and ``fc1.bias`` are one layer), a layer is kept in one bucket where it
fits, since a backward pass finishes a layer's gradients together; and the first layer
(the last one finished) gets a bucket of its own, because whatever shares its bucket
waits for the end of the backward pass: the reduction left exposed after backward is
then that layer's alone, one allreduce where per-tensor reduction makes one per tensor.

>>> import numpy as np
>>> plan_buckets([np.zeros(100, np.float32)] * 3, bucket_bytes=800)
[[2, 1], [0]]
>>> plan_buckets([np.zeros(100, np.float32)] * 4, 2000, groups=["a", "a", "b", "b"])
[[3, 2], [1, 0]]
"""

from __future__ import annotations

import numpy as np

__all__ = ["plan_buckets", "DEFAULT_BUCKET_MB"]

DEFAULT_BUCKET_MB = 25
"""PyTorch DDP's default bucket size: large enough that the per-call cost vanishes."""
FIRST_BUCKET_MB = 1
"""The first bucket (the last layers' gradients, ready first) is kept small, as DDP does,
so that communication starts early in the backward pass even for a small network."""


def plan_buckets(grads, bucket_bytes: float | None = None, split_indices=None,
                 first_bytes: float | None = None, groups=None) -> list[list[int]]:
    """Buckets of indices into ``grads`` (arrays or Tensors with shape and dtype).

    Args:
        bucket_bytes: the most bytes per bucket (a tensor larger than that gets a bucket of
            its own); 0 gives one bucket per tensor; None one bucket per dtype.
        split_indices: parameter indices where a new bucket starts (``[20, 35]``: 0-19,
            20-34, 35-); overrides ``bucket_bytes``.
        first_bytes: a smaller limit for the first bucket of each dtype.
        groups: each gradient's layer (any hashable; None: no layers).
    """
    order = list(range(len(grads) - 1, -1, -1))
    if split_indices:
        cuts = sorted(split_indices)
        by_part: dict[tuple, list[int]] = {}
        for i in order:
            part = sum(i >= c for c in cuts)
            by_part.setdefault((part, _dtype(grads[i])), []).append(i)
        return list(by_part.values())
    sizes = [int(np.prod(g.shape)) * np.dtype(_dtype(g)).itemsize for g in grads]
    layer_bytes: dict = {}
    if groups is not None and bucket_bytes is not None:
        for i, g in enumerate(grads):
            key = (groups[i], _dtype(g))
            layer_bytes[key] = layer_bytes.get(key, 0) + sizes[i]
    buckets: list[list[int]] = []
    open_: dict = {}  # dtype -> (bucket, bytes so far, its layer)
    for i in order:
        dt, size = _dtype(grads[i]), sizes[i]
        current = open_.get(dt)
        limit = bucket_bytes
        if first_bytes is not None and limit is not None and current is not None and \
                len([b for b in buckets if _dtype(grads[b[0]]) == dt]) == 1:
            limit = min(limit, first_bytes)
        layer = None if not layer_bytes else groups[i]
        new_layer = current is not None and layer_bytes and layer != current[2]
        need = layer_bytes[(layer, dt)] if new_layer else size
        if current is None or (limit is not None and current[1] + need > limit
                               and current[0]) or (new_layer and layer == groups[0]):
            current = ([], 0, layer)
            buckets.append(current[0])
        current[0].append(i)
        open_[dt] = (current[0], current[1] + size, layer)
    return buckets


def _dtype(g):
    d = g.dtype
    return d if isinstance(d, np.dtype) else np.dtype(d.np)
