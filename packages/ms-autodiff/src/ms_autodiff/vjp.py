"""``vjp`` and ``jvp`` (``mindspore.vjp`` / ``mindspore.jvp`` semantics)."""

from __future__ import annotations

from ms_autodiff.api import _fresh_input, _outputs, _weights, gradient_like
from ms_autodiff.tape import Tape
from ms_ops.defs import array_create
from ms_tensor.tensor import Tensor

__all__ = ["vjp", "jvp"]


def vjp(fn, *inputs, weights=None, has_aux=False):
    """``(outputs, vjp_fn)`` (and ``aux`` with ``has_aux``); ``vjp_fn(v)`` returns the
    tuple of ``v``-weighted gradients for each input — with ``weights``, the pair
    ``(input gradients, weight gradients)``. ``vjp_fn`` may be called many times."""
    ws, _ = _weights(weights, "vjp")
    for i, a in enumerate(inputs):
        if not isinstance(a, Tensor):
            raise TypeError(f"vjp: input {i} must be a Tensor, got {type(a).__name__}")
    fresh = [_fresh_input(a) for a in inputs]
    with Tape(retain=True) as tape:
        leaves = [tape.watch(a) for a in fresh] + [tape.watch(w) for w in ws]
        value = fn(*fresh)
        outs, aux = _outputs(value, has_aux, "vjp")
        roots = [tape.entry(o) for o in outs]

    def vjp_fn(*v):
        cot = v[0] if len(v) == 1 and isinstance(v[0], tuple) else v
        if len(cot) != len(outs):
            raise ValueError(f"vjp: got {len(cot)} cotangents for {len(outs)} outputs")
        for c, o in zip(cot, outs):
            if not isinstance(c, Tensor) or c.shape != o.shape:
                raise ValueError(f"vjp: each cotangent must be a Tensor of its output's shape "
                                 f"{o.shape}, got {getattr(c, 'shape', type(c).__name__)}")
        raw = tape.backward(roots, list(cot), leaves)
        grads = tuple(gradient_like(g, a) for g, a in zip(raw, list(inputs) + ws))
        if weights is None:
            return grads
        return grads[: len(inputs)], grads[len(inputs):]

    out = value[0] if has_aux else value
    return (out, vjp_fn, aux) if has_aux else (out, vjp_fn)


def jvp(fn, inputs, v, has_aux=False):
    """``(outputs, J v)``: the forward-mode derivative along ``v``.

    Computed as the reverse mode of a reverse mode: ``u -> vjp_fn(u)`` is linear in
    ``u``, and differentiating ``<vjp_fn(u), v>`` with respect to ``u`` gives ``J v``.
    """
    single = isinstance(inputs, Tensor)
    xs = (inputs,) if single else tuple(inputs)
    vs = (v,) if isinstance(v, Tensor) else tuple(v)
    if len(xs) != len(vs):
        raise ValueError(f"jvp: got {len(vs)} tangents for {len(xs)} inputs")
    for x, t in zip(xs, vs):
        if not isinstance(t, Tensor) or t.shape != x.shape:
            raise ValueError(f"jvp: each tangent must be a Tensor of its input's shape {x.shape}")
    result = vjp(fn, *xs, has_aux=has_aux)
    value, vjp_fn = result[0], result[1]
    outs = value if isinstance(value, tuple) else (value,)
    with Tape() as tape:
        us = [array_create.ZerosLike(o) for o in outs]
        leaves = [tape.watch(u) for u in us]
        grads = vjp_fn(*us)
        roots = [tape.entry(g) for g in grads]
        raw = tape.backward(roots, list(vs), leaves)
    tangents = tuple(gradient_like(g, o) for g, o in zip(raw, outs))
    out_t = tangents if isinstance(value, tuple) else tangents[0]
    return (value, out_t, result[2]) if has_aux else (value, out_t)
