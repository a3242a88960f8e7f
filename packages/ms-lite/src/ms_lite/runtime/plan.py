"""The execution plan ``Model.predict`` runs: a flat list of calls decided at build time.

``Executor`` plans a graph (shapes, kernels, constant nodes run once); this module turns
that into what a prediction does and nothing more. Every tensor gets its buffer when the
model is built (intermediates share one arena, placed by ``plan_arena``); every call is a
``functools.partial`` of a C-level function whose arguments, output buffer included, are
bound: no dispatch, no inference, no allocation and no Python frame per operator.

The float32 operators of CNNs and MLPs get kernels of their own (``ops_f32``): a
convolution is the weights packed once into ``(Cout, C*kh*kw + 1)`` times a column
matrix (``_f32.im2col``), the last column the bias against a row of ones, so the product
adds it (``_f32.gemm_cols``: 4x16 register blocks, the activation in the same pass); a
Conv2DPoolFusion (the converter's Conv+Pool fusion) pools that product, then activates
the smaller result; a Dense multiplies its input in
one pass that adds the bias and activates, by the weight transposed once at batch 1
(``_f32.dense_vec``), else by the weight packed once into 16-column panels
(``_f32.dense_packed``). The products are AVX2 + FMA where the CPU has them (chosen at
run time), and no BLAS thread team wakes or spins for them.
Shape-only operators (Reshape, Flatten, Squeeze, ExpandDims) are views of their input's
buffer and cost nothing. Every other operator runs its registry kernel (``out=`` into its
buffer when it takes one, else its result copied in), so every model the executor runs,
this runs.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from ms_lite.runtime.executor import plan_arena
from ms_lite.runtime.ops_f32 import VIEW_OPS, fast_builder
from ms_ops.dispatch import kernel_observer
from ms_ops.kernels import threads as _threads

__all__ = ["Plan"]


class Plan:
    """The calls of one prediction for an ``Executor`` (one set of input shapes).

    ``threads`` is ``Context.cpu.thread_num`` (0: one): ms-lite's own kernels, the
    matrix products included, take it as an argument; ms-ops' kernels (operators without
    a kernel here) through ms-ops' thread policy (``ms_ops.kernels.threads.scoped``, for
    the duration of each run).
    """

    def __init__(self, ex, threads: int = 0):
        self.threads = threads
        graph = ex.graph
        steps = ex.steps
        outputs = {v.name for v in graph.outputs}
        builders = [fast_builder(s, ex, threads) for s in steps]
        self.fast_steps = sum(b is not None for b in builders)
        arrays = dict(ex.constants)
        self.inputs = []
        for v, sp in zip(graph.inputs, ex.input_specs):
            arrays[v.name] = np.empty(sp.shape, sp.dtype.np)
            self.inputs.append(arrays[v.name])
        self._allocate(ex, steps, builders, outputs, arrays)
        self.calls = []
        self.ops = []  # (operator, its calls' slice of ``calls``): what a profiler times
        for k, (s, b) in enumerate(zip(steps, builders)):
            if k in self._views:
                continue
            first = len(self.calls)
            if b is not None:
                self.calls += b(arrays)
            else:
                self.calls.append(_generic(s, arrays, ex.constants, threads))
            if len(self.calls) > first:  # a pool fused into its convolution has none
                self.ops.append((s.node.op, slice(first, len(self.calls))))
        self.outputs = [arrays[v.name] for v in graph.outputs]
        # ms-ops' kernels and MKL take ``threads`` from ms-ops' thread policy, scoped to
        # each run (this thread only; set_context and the process are left alone)
        registry_steps = len(steps) - len(self._views) - self.fast_steps
        self._scoped = threads > 0 and registry_steps > 0

    def _allocate(self, ex, steps, builders, outputs, arrays) -> None:
        """Buffers of every step output: graph outputs their own, views of shape-only
        operators their input's, the rest slices of one arena (first fit, lifetimes)."""
        end = len(steps)
        roots: dict[str, set] = {}
        last_use: dict[str, int] = {}
        pooled = []
        self._views = set()
        for k, s in enumerate(steps):
            for i in s.node.inputs:
                for r in roots.get(i, ()):
                    last_use[r] = k
            if s.node.op in VIEW_OPS and _viewable(ex, s, arrays, roots):
                roots[s.node.outputs[0]] = roots.get(s.node.inputs[0], set())
                self._views.add(k)
                continue
            for name, o in zip(s.node.outputs, s.outputs):
                if name in outputs:
                    arrays[name] = np.empty(o.shape, o.dtype.np)
                else:
                    roots[name] = {name}
                    last_use[name] = k
                    pooled.append((k, name, o))
        for name in outputs:
            for r in roots.get(name, ()):
                last_use[r] = end
        sizes = [max(1, int(np.prod(o.shape, dtype=np.int64))) * o.dtype.np.itemsize
                 for _, _, o in pooled]
        offsets, total = plan_arena(sizes, [(k, last_use[n]) for k, n, _ in pooled])
        self.arena = np.empty(total, np.uint8)
        for (_, name, o), off, n in zip(pooled, offsets, sizes):
            arrays[name] = self.arena[off:off + n].view(o.dtype.np)[
                :int(np.prod(o.shape, dtype=np.int64))].reshape(o.shape)
        for k in sorted(self._views):  # in order: each one's input buffer exists by now
            s = steps[k]
            arrays[s.node.outputs[0]] = arrays[s.node.inputs[0]].reshape(s.outputs[0].shape)

    def run(self, arrays: list[np.ndarray]) -> list[np.ndarray]:
        """Copies of the outputs for ``arrays`` (of the planned shapes and dtypes)."""
        for buf, a in zip(self.inputs, arrays):
            if a is not buf:  # a model's own input tensors hold their data in ``buf``
                np.copyto(buf, a)
        observer = kernel_observer()  # a profiler (ms_ops.dispatch.set_kernel_observer)
        calls = self.calls if observer is None else self._observed(observer)
        if self._scoped:
            previous = _threads.scoped(self.threads)
            try:
                for call in calls:
                    call()
            finally:
                _threads.scoped(previous)
        else:
            for call in calls:
                call()
        return [o.copy() for o in self.outputs]

    def _observed(self, observer) -> list:
        """One call per operator, each given to ``observer(op, call)``: a fused
        operator's calls are timed together, under its own name."""
        return [observer(op, partial(_run_all, self.calls[part])) for op, part in self.ops]


def _run_all(calls) -> None:
    for call in calls:
        call()


def _viewable(ex, s, arrays, roots) -> bool:
    """Whether a shape-only step's output can be its input's buffer reshaped: the input is
    a buffer of this plan (not a constant) of the same dtype and size."""
    i = s.node.inputs[0]
    if i in ex.constants or (i not in roots and i not in arrays):
        return False
    src, out = ex.specs[i], s.outputs[0]
    return src.dtype == out.dtype and (int(np.prod(src.shape, dtype=np.int64)) ==
                                       int(np.prod(out.shape, dtype=np.int64)))


def _generic(s, arrays, constants, threads: int):
    """A call of the registry's (or lite operator's) kernel: into the output buffer when
    the kernel takes ``out=``, else its result copied into the buffers. An input the
    kernel wants in another dtype is cast here once if it is a constant, else per call."""
    args, per_call = [], False
    for name, c in zip(s.node.inputs, s.casts):
        a = arrays[name] if name else None
        if c is not None and a is not None:
            if name in constants:
                a = a.astype(c)
            else:
                a, per_call = (a, c), True
        args.append(a)
    outs = [arrays[n] for n in s.node.outputs]
    kwargs = dict(s.kwargs)
    if s.threaded:
        kwargs["threads"] = threads
    if s.takes_out and not per_call:
        return partial(s.kernel, *args, out=outs[0], **kwargs)
    return partial(_call_copy, s.kernel, args, kwargs, outs, s.takes_out)


def _call_copy(kernel, args, kwargs, outs, takes_out) -> None:
    a = [x[0].astype(x[1]) if isinstance(x, tuple) else x for x in args]
    r = kernel(*a, out=outs[0], **kwargs) if takes_out else kernel(*a, **kwargs)
    for o, v in zip(outs, r if isinstance(r, tuple) else (r,)):
        if v is not o:
            np.copyto(o, v, casting="unsafe")
