"""ONNX LSTM and GRU -> the recurrence unrolled over the (static) sequence length.

The input projection of every step is one ``Dense`` over the whole sequence; each step
then adds the recurrent product (``Dense`` of the previous hidden state), splits the
gates (``SplitV``) and combines them with Sigmoid/Tanh/Mul/Add, in ONNX's gate order
(LSTM: i, o, f, c; GRU: z, r, h) and equations. Outputs: ``Y`` (seq, directions, batch,
hidden), ``Y_h`` and ``Y_c`` (directions, batch, hidden). Translated: forward, reverse
and bidirectional, constant weights and biases, initial states, GRU's
``linear_before_reset``; refused (named in the report): peepholes, ``clip``,
``input_forget``, activations other than the defaults, ``layout=1``, and sequence
lengths shorter than the input.
"""

from __future__ import annotations

import numpy as np

from ms_lite.onnx.context import ImportContext, Unsupported, attr

__all__ = ["lstm", "gru"]

_DEFAULTS = {"LSTM": ["Sigmoid", "Tanh", "Tanh"], "GRU": ["Sigmoid", "Tanh"]}


def _check(ctx: ImportContext, node, kind: str, seq: int, batch: int) -> None:
    acts = attr(node, "activations", None)
    n_dir = 2 if attr(node, "direction", "forward") == "bidirectional" else 1
    if acts is not None and [a.lower() for a in acts] != \
            [a.lower() for a in _DEFAULTS[kind] * n_dir]:
        raise Unsupported(f"activations {acts} (only the defaults {_DEFAULTS[kind]})")
    for name in ("clip", "activation_alpha", "activation_beta"):
        if attr(node, name, None) is not None:
            raise Unsupported(f"attribute {name!r} is not translated")
    if attr(node, "input_forget", 0):
        raise Unsupported("input_forget=1 is not translated")
    if attr(node, "layout", 0):
        raise Unsupported("layout=1 (batch first) is not translated")
    if ctx.has(4):
        lens = ctx.need_const(4, "sequence_lens")
        if not (np.asarray(lens) == seq).all():
            raise Unsupported(f"sequence_lens {lens.tolist()} shorter than the sequence {seq}")
    if kind == "LSTM" and ctx.has(7):
        p = ctx.const(7)
        if p is None or np.any(p):
            raise Unsupported("peepholes (input P) are not translated")


class _Emit:
    """Short names for the registry operators one recurrence needs."""

    def __init__(self, ctx: ImportContext, dtype):
        self.ctx, self.dtype = ctx, dtype

    def op(self, op, ins, attrs=None, out=None):
        return self.ctx.emit(op, ins, attrs, out=out)[0]

    def const(self, array, base):
        return self.ctx.add_const(np.asarray(array, self.dtype), base)

    def row(self, x, shape, t):
        """``x[t]`` of a ``shape`` tensor, as ``shape[1:]``."""
        r = self.op("StridedSlice", [x], {"begin": (t,) + (0,) * (len(shape) - 1),
                                          "end": (t + 1,) + tuple(shape[1:]),
                                          "strides": (1,) * len(shape)})
        return self.op("Reshape", [r], {"input_shape": tuple(shape[1:])})

    def split(self, x, n, size):
        return self.ctx.emit("SplitV", [x], {"size_splits": (size,) * n, "split_dim": 1,
                                             "num_split": n})


def _initial(e: _Emit, ctx: ImportContext, i: int, d: int, batch: int, hidden: int, base):
    if not ctx.has(i):
        return e.const(np.zeros((batch, hidden)), f"{base}_zeros")
    return e.row(ctx.input(i), (ctx.in_spec(i).shape[0], batch, hidden), d)


def _stack(e: _Emit, steps: list, batch: int, hidden: int, out):
    """``(seq, 1, batch, hidden)`` of the per-step states."""
    acc = None
    for k, h in enumerate(steps):
        h4 = e.op("Reshape", [h], {"input_shape": (1, 1, batch, hidden)})
        acc = h4 if acc is None else e.op("Concat", [acc, h4], {"axis": 0},
                                          out=out if k == len(steps) - 1 else None)
    if len(steps) == 1 and out:
        acc = e.op("Reshape", [acc], {"input_shape": (1, 1, batch, hidden)}, out=out)
    return acc


def _run(ctx: ImportContext, node, kind: str) -> None:
    x = ctx.in_spec(0)
    seq, batch, _ = x.shape
    _check(ctx, node, kind, seq, batch)
    gates = 4 if kind == "LSTM" else 3
    w = ctx.need_const(1, "W")
    r = ctx.need_const(2, "R")
    hidden = r.shape[-1]
    n_dir = w.shape[0]
    b = ctx.const(3) if ctx.has(3) else np.zeros((n_dir, 2 * gates * hidden), w.dtype)
    if b is None:
        raise Unsupported("its bias B is computed at run time; only a constant is translated")
    e = _Emit(ctx, w.dtype)
    direction = attr(node, "direction", "forward")
    flat = e.op("Reshape", [ctx.input(0)], {"input_shape": (seq * batch, x.shape[2])})
    outs = list(node.output) + [""] * 3
    ys, hs, cs = [], [], []
    for d in range(n_dir):
        base = f"{node.name or kind}_d{d}"
        wb, rb = b[d, :gates * hidden], b[d, gates * hidden:]
        xb = wb + rb if kind == "LSTM" else wb  # GRU adds Rb in each step's products
        proj = e.op("Dense", [flat, e.const(w[d], f"{base}_W"), e.const(xb, f"{base}_Wb")])
        proj = e.op("Reshape", [proj], {"input_shape": (seq, batch, gates * hidden)})
        h = _initial(e, ctx, 5, d, batch, hidden, base)
        c = _initial(e, ctx, 6, d, batch, hidden, base) if kind == "LSTM" else None
        reverse = direction == "reverse" or d == 1
        order = range(seq - 1, -1, -1) if reverse else range(seq)
        steps = {}
        for t in order:
            gx = e.row(proj, (seq, batch, gates * hidden), t)
            if kind == "LSTM":
                h, c = _lstm_step(e, gx, h, c, r[d], base, hidden)
            else:
                h = _gru_step(e, gx, h, r[d], rb, base, hidden,
                              attr(node, "linear_before_reset", 0))
            steps[t] = h
        ys.append([steps[t] for t in range(seq)])
        hs.append(h)
        cs.append(c)
    _outputs(e, ys, hs, cs, outs, seq, batch, hidden)


def _lstm_step(e: _Emit, gx, h, c, r, base, hidden):
    g = e.op("Add", [gx, e.op("MatMul", [h, e.const(r, f"{base}_R")],
                               {"transpose_b": True})])
    i, o, f, cc = e.split(g, 4, hidden)
    i, o, f = (e.op("Sigmoid", [v]) for v in (i, o, f))
    c = e.op("Add", [e.op("Mul", [f, c]), e.op("Mul", [i, e.op("Tanh", [cc])])])
    return e.op("Mul", [o, e.op("Tanh", [c])]), c


def _gru_step(e: _Emit, gx, h, r, rb, base, hidden, linear_before_reset):
    xz, xr, xh = e.split(gx, 3, hidden)
    rz, rr, rh = r[:hidden], r[hidden:2 * hidden], r[2 * hidden:]
    bz, br, bh = rb[:hidden], rb[hidden:2 * hidden], rb[2 * hidden:]
    hz = e.op("Dense", [h, e.const(rz, f"{base}_Rz"), e.const(bz, f"{base}_Rbz")])
    hr = e.op("Dense", [h, e.const(rr, f"{base}_Rr"), e.const(br, f"{base}_Rbr")])
    z = e.op("Sigmoid", [e.op("Add", [xz, hz])])
    rg = e.op("Sigmoid", [e.op("Add", [xr, hr])])
    if linear_before_reset:
        hh = e.op("Dense", [h, e.const(rh, f"{base}_Rh"), e.const(bh, f"{base}_Rbh")])
        cand = e.op("Tanh", [e.op("Add", [xh, e.op("Mul", [rg, hh])])])
    else:
        hh = e.op("Dense", [e.op("Mul", [rg, h]), e.const(rh, f"{base}_Rh"),
                            e.const(bh, f"{base}_Rbh")])
        cand = e.op("Tanh", [e.op("Add", [xh, hh])])
    # (1 - z) * cand + z * h
    return e.op("Add", [cand, e.op("Mul", [z, e.op("Sub", [h, cand])])])


def _outputs(e: _Emit, ys, hs, cs, outs, seq, batch, hidden) -> None:
    y_out, h_out, c_out = outs[:3]
    if y_out:
        per_dir = [_stack(e, y, batch, hidden, y_out if len(ys) == 1 else None) for y in ys]
        if len(per_dir) == 2:
            e.op("Concat", per_dir, {"axis": 1}, out=y_out)
    for out, states in ((h_out, hs), (c_out, cs)):
        if not out or states[0] is None:
            continue
        parts = [e.op("Reshape", [s], {"input_shape": (1, batch, hidden)}) for s in states]
        if len(parts) == 1:
            e.op("Reshape", [parts[0]], {"input_shape": (1, batch, hidden)}, out=out)
        else:
            e.op("Concat", parts, {"axis": 0}, out=out)


def lstm(ctx: ImportContext, node) -> None:
    """LSTM (opsets 7 to 22), unrolled."""
    _run(ctx, node, "LSTM")


def gru(ctx: ImportContext, node) -> None:
    """GRU (opsets 7 to 22), unrolled."""
    _run(ctx, node, "GRU")
