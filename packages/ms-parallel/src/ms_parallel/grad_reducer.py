"""``DistributedGradReducer``: average (or sum) the gradients of every rank, fused into
buckets, one allreduce per bucket.

Two ways to run, same numbers:

- eagerly (no tape or tracer recording), each bucket is packed into one flat numpy
  buffer and reduced with a non-blocking MPI_Iallreduce. Inside ``overlapping()`` (which
  ``TrainOneStepCell`` enters around its backward pass) a bucket starts as soon as the
  backward pass has finished all its gradients (``ms_autodiff.on_gradient_ready``), so
  the reduction of the last layers overlaps the differentiation of the first ones; the
  reducer's call then waits for the buckets in flight and starts any that are left.
  Buckets start strictly in their planned order (a bucket ready early waits for the ones
  before it): MPI matches non-blocking collectives by the order each rank issues them,
  so the order must not depend on which gradients a rank happens to finish first. Each
  gradient-ready event also tests the requests in flight, which is what lets MPI move
  their data while the backward pass computes (MPICH progresses a request only inside
  MPI calls);
- while recorded (under ``grad``, in ``jit`` or GRAPH_MODE), as operators (Concat,
  ``AllReduce``, Split, Reshape), so the reduction is part of the compiled graph. With
  ``overlap`` (off by default: ``ms_parallel.overlap``) a bucket's AllReduce is traced as
  ``AllReduceStart``/``AllReduceWait``, and the compiled graph's schedule pass
  (``ms_parallel.overlap_pass``) starts each bucket where its gradients are ready.
"""

from __future__ import annotations

from contextlib import contextmanager, nullcontext

import numpy as np

from ms_autodiff import on_gradient_ready
from ms_nn.cell import Cell
from ms_ops import functional as F
from ms_ops.dispatch import get_recorder
from ms_parallel.buckets import DEFAULT_BUCKET_MB, FIRST_BUCKET_MB, plan_buckets
from ms_parallel.groups import WORLD
from ms_parallel.groups import group as find_group
from ms_parallel.overlap import compiled_overlap
from ms_parallel.overlap_ops import AllReduceStart, AllReduceWait
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
            ``config`` in mode ``"size"``, else 25 with a first bucket of 1 MB, as PyTorch
            DDP does); 0: one allreduce per tensor.
        overlap: in a compiled step, split each bucket's allreduce into AllReduceStart/
            AllReduceWait so that it overlaps the rest of the backward pass
            (``ms_parallel.overlap``; None: ``compiled_overlap()``).
    """

    def __init__(self, parameters, mean=None, degree=None, fusion_type=1, group=WORLD,
                 bucket_mb=None, overlap=None):
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
        # a gradient's layer: its Parameter's name without the last part (buckets.py)
        self.layers = [str(getattr(p, "name", i)).rpartition(".")[0] or str(i)
                       for i, p in enumerate(parameters)]
        self.dtypes = [p.dtype for p in parameters]
        fusion = get_auto_parallel_context("comm_fusion")["allreduce"]
        self.first_bytes = None
        if bucket_mb is None:
            if fusion["mode"] == "size":
                bucket_mb = fusion["config"]
            else:
                bucket_mb = DEFAULT_BUCKET_MB
                self.first_bytes = FIRST_BUCKET_MB * (1 << 20)
        self.split_indices = fusion["config"] if fusion["mode"] == "index" else \
            get_auto_parallel_context("all_reduce_fusion_config")
        self.bucket_bytes = 0 if fusion_type == 0 else bucket_mb * (1 << 20)
        self._buckets = None
        self._key = None
        self._ids = {id(p): i for i, p in enumerate(parameters)}
        self._started: list = []  # the buckets in flight, in order: (gradients, request)
        self.overlap = compiled_overlap() if overlap is None else bool(overlap)

    def _reduces(self) -> bool:
        return find_group(self.group).size > 1 or (self.mean and self.degree != 1)

    def overlapping(self):
        """A context in which backward passes start each bucket's allreduce as soon as
        its gradients are complete; the next call of the reducer finishes them."""
        if not self._reduces() or get_recorder() is not None:
            return nullcontext()
        return self._overlap()

    @contextmanager
    def _overlap(self):
        params = [None] * len(self._ids)
        buckets = self.buckets([_Spec(s, d) for s, d in zip(self.shapes, self.dtypes)])
        where = {i: k for k, b in enumerate(buckets) for i in b}
        self._started = started = []

        def on_ready(tensor, grad):
            i = self._ids.get(id(tensor))
            if i is None or grad is None or i not in where:
                return
            params[i] = grad
            k = len(started)  # the next bucket to start: only in the planned order
            while k < len(buckets) and all(params[j] is not None for j in buckets[k]):
                parts = tuple(params[j] for j in buckets[k])
                started.append((parts, self._start(parts)))
                k += 1
            for _, request in started:
                request.test()

        with on_gradient_ready(on_ready):
            yield

    def buckets(self, grads) -> list[list[int]]:
        """The buckets for gradients of these shapes and dtypes (planned once)."""
        key = tuple((tuple(g.shape), g.dtype) for g in grads)
        if key != self._key:
            self._buckets = plan_buckets(grads, self.bucket_bytes, self.split_indices,
                                         self.first_bytes, self.layers)
            self._key = key
        return self._buckets

    def construct(self, grads):
        grads = tuple(grads)
        if not self._reduces():
            return grads
        buckets = self.buckets(grads)
        if get_recorder() is None:
            return self._eager(grads, buckets)
        return self._as_ops(grads, buckets)

    def _start(self, parts):
        arrays = [x.asnumpy().reshape(-1) for x in parts]
        if len(arrays) == 1:  # the gradient's own array, which the caller may still hold
            return find_group(self.group).iallreduce(arrays[0], "sum")
        # the bucket's packed copy is this reducer's own: reduced where it lies
        return find_group(self.group).iallreduce(np.concatenate(arrays), "sum", in_place=True)

    def _eager(self, grads, buckets):
        started, self._started = self._started, []
        pending = []
        for k, b in enumerate(buckets):
            parts = tuple(grads[i] for i in b)
            early = started[k] if k < len(started) else None
            if early is not None and all(x is y for x, y in zip(early[0], parts)):
                pending.append(early[1])  # started during the backward pass
                continue
            if early is not None:  # the gradients changed since: finish it, start anew
                early[1].wait()
            pending.append(self._start(parts))
        out = list(grads)
        for b, request in zip(buckets, pending):
            flat = request.wait()
            if self.mean:
                flat = np.divide(flat, self.degree, out=flat) if flat.dtype.kind == "f" \
                    else flat // self.degree
            start = 0
            for i in b:
                shape = tuple(grads[i].shape)
                n = int(np.prod(shape))
                out[i] = Tensor(flat[start:start + n].reshape(shape))
                start += n
        return tuple(out)

    def _as_ops(self, grads, buckets):
        out = list(grads)
        for b in buckets:
            parts = [F.reshape(grads[i], (-1,)) for i in b]
            flat = F.concat(parts) if len(parts) > 1 else parts[0]
            flat = AllReduceWait(AllReduceStart(flat, self.group), self.group) \
                if self.overlap else AllReduce(flat, "sum", self.group)
            if self.mean:
                flat = F.div(flat, F.cast(self.degree, flat.dtype))
            sizes = [int(np.prod(grads[i].shape)) for i in b]
            pieces = F.split(flat, sizes) if len(b) > 1 else (flat,)
            for i, piece in zip(b, pieces):
                out[i] = F.reshape(piece, tuple(grads[i].shape))
        return tuple(out)


class _Spec:
    """A gradient's shape and dtype, before the gradient exists (to plan buckets)."""

    def __init__(self, shape, dtype):
        self.shape = shape
        self.dtype = dtype
