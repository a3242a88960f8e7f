"""``ops.LSTM``: MindSpore's fused multi-layer (bi)LSTM Primitive over one flat weight.

The flat ``w`` is laid out as MindSpore's CPU kernel (oneDNN) reads it: the input-hidden
matrices (4H, in) of every (layer, direction) in order, then the hidden-hidden matrices
(4H, H), then one 4H bias per (layer, direction); the kernel reserves a second 4H bias
block per (layer, direction) that it never reads, so its size is counted but its values
are ignored here too. Gates are ordered i, f, g, o. The recurrence is written with MatMul
and elementwise operators, so every weight and input gets its gradient.
"""

from __future__ import annotations

import ms_ops as ops
from ms_ops.opdef import primitive_class
from ms_tensor.tensor import Tensor


def _sizes(input_size, hidden_size, num_layers, directions):
    return [input_size if layer == 0 else hidden_size * directions
            for layer in range(num_layers) for _ in range(directions)]


def _run(x, h, c, w_ih, w_hh, b, reverse):
    steps = range(x.shape[0] - 1, -1, -1) if reverse else range(x.shape[0])
    outs = [None] * x.shape[0]
    for t in steps:
        gates = ops.matmul(x[t], ops.transpose(w_ih, (1, 0))) + \
            ops.matmul(h, ops.transpose(w_hh, (1, 0)))
        if b is not None:
            gates = gates + b
        i, f, g, o = ops.split(gates, gates.shape[-1] // 4, -1)
        c = ops.sigmoid(f) * c + ops.sigmoid(i) * ops.tanh(g)
        h = ops.sigmoid(o) * ops.tanh(c)
        outs[t] = h
    return ops.stack(outs, 0), h, c


def _lstm(x, hx, cx, w, input_size, hidden_size, num_layers, has_bias, bidirectional,
          dropout, proj_size=0):
    name = "LSTM"
    if proj_size:
        raise ValueError(f"{name}: proj_size must be 0 (projections are not supported), got "
                         f"{proj_size}")
    d = 2 if bidirectional else 1
    if not isinstance(x, Tensor) or x.ndim != 3 or x.shape[2] != input_size:
        raise ValueError(f"{name}: x must be (seq_len, batch, input_size={input_size}), got "
                         f"{getattr(x, 'shape', type(x).__name__)}")
    state = (num_layers * d, x.shape[1], hidden_size)
    for what, t in (("h", hx), ("c", cx)):
        if not isinstance(t, Tensor) or t.shape != state:
            raise ValueError(f"{name}: {what} must be {state}, got "
                             f"{getattr(t, 'shape', type(t).__name__)}")
    sizes = _sizes(input_size, hidden_size, num_layers, d)
    four = 4 * hidden_size
    want = sum(four * (s + hidden_size) for s in sizes) + (2 * four * len(sizes) if has_bias
                                                           else 0)
    if not isinstance(w, Tensor) or w.size != want:
        raise ValueError(f"{name}: w must hold {want} weights for input_size={input_size}, "
                         f"hidden_size={hidden_size}, num_layers={num_layers}, "
                         f"bidirectional={bidirectional}, has_bias={has_bias}; got "
                         f"{getattr(w, 'shape', type(w).__name__)}")
    flat = ops.reshape(w, (-1,))
    pos, w_ih, w_hh, bias = 0, [], [], []
    for s in sizes:
        w_ih.append(ops.reshape(flat[pos:pos + four * s], (four, s)))
        pos += four * s
    for _ in sizes:
        w_hh.append(ops.reshape(flat[pos:pos + four * hidden_size], (four, hidden_size)))
        pos += four * hidden_size
    for _ in sizes:
        bias.append(flat[pos:pos + four] if has_bias else None)
        pos += four
    layer_in, h_n, c_n = x, [], []
    for layer in range(num_layers):
        outs = []
        for k in range(layer * d, layer * d + d):
            y, h, c = _run(layer_in, hx[k], cx[k], w_ih[k], w_hh[k], bias[k], k % d == 1)
            outs.append(y)
            h_n.append(h)
            c_n.append(c)
        layer_in = outs[0] if d == 1 else ops.concat(outs, -1)
        if dropout and layer < num_layers - 1:
            layer_in = ops.dropout(layer_in, dropout)
    # MindSpore's last two outputs are its kernel's workspace: nothing a caller can read
    return (layer_in, ops.stack(h_n, 0), ops.stack(c_n, 0), ops.zeros((0, 1), x.dtype),
            ops.zeros((0, 1), x.dtype))


LSTM = primitive_class("LSTM", _lstm, ("input_size", "hidden_size", "num_layers", "has_bias",
                                       "bidirectional", "dropout", "proj_size"))
