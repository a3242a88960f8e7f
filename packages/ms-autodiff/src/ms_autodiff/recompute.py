"""Recomputation (gradient checkpointing): keep a function's inputs, not its activations.

``recompute(fn, *args, weights=ws)`` runs ``fn`` without recording it, so a differentiating
tape holds one call with its inputs, ``ws`` and outputs instead of every operator inside
with the arrays each one keeps for its gradient rule. That call's gradient rule runs ``fn``
again under ``vjp`` and pulls the cotangent through it: gradients equal the plain pass's,
and the inner activations live only while this call's own backward runs. Outside a
recording tape (evaluation), ``fn`` simply runs. MindSpore's ``Cell.recompute`` and
``ms.recompute`` and PyTorch's ``torch.utils.checkpoint`` are built on this.

The rerun must compute what the first run did:

- Random operators draw the same numbers: both runs start from one random state
  (``ms_tensor.seed``; an unseeded process gets a fresh seed for the two runs only).
- ``restore``: tensors ``fn`` updates in place (BatchNorm's moving statistics) are put
  back after the rerun, so the update happens once.

A recomputed call inside another runs as part of it, once per run of the outer one (as
MindSpore recomputes a marked Cell's marked children with it). While the rerun's forward
pass runs, ``recomputing()`` names the call and ``region()`` gives the key its first run
had: ms-graph's tracer marks the nodes it captures then (the forward/backward split puts
them in the backward graph instead of keeping their values as residuals), and gives the
rerun's random and in-place operators the first run's outputs.
"""

from __future__ import annotations

import itertools
from contextlib import contextmanager, nullcontext

import numpy as np

from ms_autodiff.custom import call_with_bprop
from ms_autodiff.recording import thread_state
from ms_autodiff.tape import active_tapes
from ms_autodiff.vjp import vjp
from ms_tensor import seed as _seed
from ms_tensor.dtype import is_float
from ms_tensor.tensor import Tensor, array_of

__all__ = ["recompute", "recomputing", "region"]

_scope = thread_state(list)  # names of the calls whose rerun is running, innermost last
_regions = thread_state(list)  # (name, serial) of the recomputed calls running, outermost first
_serial = itertools.count()


def recomputing() -> str | None:
    """The name of the call whose forward pass is being rerun, or None."""
    scope = _scope()
    return scope[-1] if scope else None


def region() -> tuple | None:
    """``(name, serial)`` of the outermost recomputed call running (its first run and its
    rerun give the same), or None: ms-graph's tracer pairs the two runs' random and
    in-place operators by it, ms-parallel's capture groups a sharded network's operators."""
    regions = _regions()
    return regions[0] if regions else None


@contextmanager
def _inside(key):
    regions = _regions()
    regions.append(key)
    try:
        yield
    finally:
        regions.pop()


def recompute(fn, *args, weights=(), restore=(), name: str | None = None,
              context_fn=None, **kwargs):
    """``fn(*args, **kwargs)``, its activations recomputed in the backward pass (module doc).

    Args:
        fn: returns a Tensor or a tuple of Tensors.
        args, kwargs: float Tensors among them are differentiated; other Tensors and
            Python values are passed as they are to both runs.
        weights: the Parameters ``fn`` reads whose gradients are wanted.
        restore: tensors ``fn`` writes in place, put back after the rerun.
        name: names the call in errors (a Cell's class name).
        context_fn: returns two context managers, entered around the first run and
            around the rerun (MindSpore's and PyTorch's ``context_fn``).

    >>> import numpy as np
    >>> from ms_autodiff import grad
    >>> from ms_tensor import Tensor
    >>> f = lambda x: recompute(lambda y: (y * y).sum(), x)
    >>> grad(f)(Tensor(np.array([1.0, 2.0], np.float32)))
    Tensor(shape=[2], dtype=Float32, value= [ 2.00000000e+00,  4.00000000e+00])
    """
    name = name or getattr(fn, "__qualname__", "recompute")
    if _regions():  # inside a recomputed call, which recomputes this one with it (MindSpore)
        return fn(*args, **kwargs)
    tapes = [t for t in active_tapes() if t.recording]
    names = list(kwargs)
    values = list(args) + [kwargs[k] for k in names]
    for v in values:
        _check_arg(v, name)

    def followed(t):  # a float Tensor some recording tape differentiates
        return isinstance(t, Tensor) and is_float(t.dtype) and \
            any(tp.entry(t) is not None for tp in tapes)

    pos = [i for i, v in enumerate(values) if followed(v)]
    given = {id(values[i]) for i in pos}  # a Parameter passed as an argument is one
    weights = [w for w in weights if followed(w) and id(w) not in given]
    if not pos and not weights:  # nothing to differentiate (or no tape): just run it
        with _inside((name, next(_serial))):
            return fn(*args, **kwargs)
    k = len(pos)
    key = (name, next(_serial))  # one region: its first run and its rerun
    first, again = context_fn() if context_fn is not None else (nullcontext(), nullcontext())

    def call(xs):
        full = list(values)
        for i, x in zip(pos, xs):
            full[i] = x
        n = len(args)
        return _checked(fn(*full[:n], **dict(zip(names, full[n:]))), name)

    start, fresh = _start_state()

    def forward(*xs):
        with _rng(start) if fresh else nullcontext(), first, _inside(key):
            return call(xs[:k])

    def bprop(*inputs):
        dout = inputs[-1]
        saved = [(t, array_of(t).copy()) for t in restore]
        _scope().append(name)
        try:
            with _rng(start), again, _inside(key):
                _, pull = vjp(lambda *a: call(a), *inputs[:k], weights=weights)
        finally:
            _scope().pop()
            for t, a in saved:
                np.copyto(array_of(t), a)
        in_grads, w_grads = pull(dout)
        return (*in_grads, *w_grads)

    return call_with_bprop(forward, bprop, *[values[i] for i in pos], *weights,
                           name=f"{name}.recompute")


def _check_arg(v, name) -> None:
    if isinstance(v, (tuple, list, dict)):
        inner = v.values() if isinstance(v, dict) else v
        if any(isinstance(x, Tensor) for x in inner):
            raise TypeError(f"{name}.recompute(): a Tensor inside a {type(v).__name__} "
                            "argument cannot be differentiated through recomputation; pass "
                            "each Tensor as its own argument")


def _checked(out, name):
    outs = out if isinstance(out, tuple) else (out,)
    if not outs or not all(isinstance(o, Tensor) for o in outs):
        got = [type(o).__name__ for o in outs]
        raise TypeError(f"{name}.recompute(): a recomputed call must return a Tensor or a "
                        f"tuple of Tensors, got {got if isinstance(out, tuple) else got[0]}")
    return out


def _start_state():
    """``(state, fresh)``: the random state both runs start from, the current one, or in
    an unseeded process a fresh seed (its numbers as random as the unseeded ones)."""
    values = np.asarray(array_of(_seed.get_rng_state())).copy()
    if values[0] >= 0:
        return values, False
    values[:] = (int(np.random.SeedSequence().entropy % (2 ** 62)), 0)
    return values, True


@contextmanager
def _rng(start):
    """Run from the random state ``start``, then go back to the caller's."""
    before = _seed.get_rng_state()
    _seed.set_rng_state(start)
    try:
        yield
    finally:
        _seed.set_rng_state(before)
