"""``DistributedGradReducer``: average (or sum) the gradients of every rank, fused into
buckets, one allreduce per bucket.

Two ways to run, same numbers:

- eagerly (no tape or tracer recording), the buckets are packed into flat numpy buffers
  and every bucket's non-blocking allreduce (MPI_Iallreduce) is started before the first
  is waited on: packing and unpacking overlap the communication of other buckets;
- while recorded (under ``grad``, in ``jit`` or GRAPH_MODE), as operators (Concat,
  ``AllReduce``, Split, Reshape), so the reduction is part of the compiled graph.

The backward pass itself finishes before the reducer runs: overlapping the reduction
with the backward pass would need a hook in the tape when a parameter's gradient is
complete, which ms-autodiff does not offer.
"""

from __future__ import annotations

import numpy as np

from ms_nn.cell import Cell
from ms_ops import functional as F
from ms_ops.dispatch import get_recorder
from ms_parallel.buckets import DEFAULT_BUCKET_MB, plan_buckets
from ms_parallel.groups import WORLD
from ms_parallel.groups import group as find_group
from ms_parallel.reduce_ops import AllReduce
from ms_tensor import Tensor

__all__ = ["DistributedGradReducer"]


class DistributedGradReducer(Cell):
    """Reduce a tuple of gradients over ``group``.

    Args:
        parameters: the Parameters the gradients belong to (their order).
        mean: divide by ``degree`` (None: the context's ``gradients_mean``).
        degree: the divisor (None: the group's size).
        fusion_type: MindSpore's fusion flag; 0 reduces each gradient on its own.
        group: the communication group.
        bucket_mb: the most MB per bucket (None: the context's ``comm_fusion`` allreduce
            ``config`` in mode ``"size"``, else 25); 0: one allreduce per tensor.
    """

    def __init__(self, parameters, mean=None, degree=None, fusion_type=1, group=WORLD,
                 bucket_mb=None):
        super().__init__(auto_prefix=False)
        from ms_parallel.context import get_auto_parallel_context

        self.group = group
        g = find_group(group)
        self.mean = get_auto_parallel_context("gradients_mean") if mean is None else bool(mean)
        self.degree = g.size if degree is None else degree
        if not isinstance(self.degree, int) or self.degree < 1:
            raise ValueError(f"DistributedGradReducer: degree must be a positive int, got "
                             f"{degree!r}")
        self.shapes = [tuple(p.shape) for p in parameters]
        fusion = get_auto_parallel_context("comm_fusion")["allreduce"]
        if bucket_mb is None:
            bucket_mb = fusion["config"] if fusion["mode"] == "size" else DEFAULT_BUCKET_MB
        self.split_indices = fusion["config"] if fusion["mode"] == "index" else \
            get_auto_parallel_context("all_reduce_fusion_config")
        self.bucket_bytes = 0 if fusion_type == 0 else bucket_mb * (1 << 20)
        self._buckets = None
        self._key = None

    def buckets(self, grads) -> list[list[int]]:
        """The buckets for gradients of these shapes and dtypes (planned once)."""
        key = tuple((tuple(g.shape), g.dtype) for g in grads)
        if key != self._key:
            self._buckets = plan_buckets(grads, self.bucket_bytes, self.split_indices)
            self._key = key
        return self._buckets

    def construct(self, grads):
        grads = tuple(grads)
        if find_group(self.group).size == 1 and (not self.mean or self.degree == 1):
            return grads
        buckets = self.buckets(grads)
        if get_recorder() is None:
            return self._eager(grads, buckets)
        return self._as_ops(grads, buckets)

    def _eager(self, grads, buckets):
        g = find_group(self.group)
        arrays = [x.asnumpy() for x in grads]
        pending = []
        for b in buckets:
            flat = np.concatenate([arrays[i].reshape(-1) for i in b]) if len(b) > 1 \
                else arrays[b[0]].reshape(-1)
            pending.append(g.iallreduce(flat, "sum"))
        out = list(grads)
        for b, request in zip(buckets, pending):
            flat = request.wait()
            if self.mean:
                flat = np.divide(flat, self.degree, out=flat) if flat.dtype.kind == "f" \
                    else flat // self.degree
            start = 0
            for i in b:
                n = arrays[i].size
                out[i] = Tensor(flat[start:start + n].reshape(arrays[i].shape))
                start += n
        return tuple(out)

    def _as_ops(self, grads, buckets):
        out = list(grads)
        for b in buckets:
            parts = [F.reshape(grads[i], (-1,)) for i in b]
            flat = AllReduce(F.concat(parts) if len(parts) > 1 else parts[0], "sum",
                             self.group)
            if self.mean:
                flat = F.div(flat, F.cast(self.degree, flat.dtype))
            sizes = [int(np.prod(grads[i].shape)) for i in b]
            pieces = F.split(flat, sizes) if len(b) > 1 else (flat,)
            for i, piece in zip(b, pieces):
                out[i] = F.reshape(piece, tuple(grads[i].shape))
        return tuple(out)
