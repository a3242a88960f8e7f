"""LSTM written with ms-ops matmuls and activations, so ms-autodiff differentiates it.

Gates are ordered (input, forget, cell, output), as in MindSpore and PyTorch, so weights
load from either. Padded batches take ``seq_length``: a step past a sequence's end keeps
the state and outputs zeros, which also makes the reverse direction start at each
sequence's own last element.
"""

from __future__ import annotations

import math

import ms_ops as ops
from ms_nn.cell import Cell
from ms_nn.initializer import Uniform, initializer
from ms_nn.layers._check import positive_int
from ms_tensor import Parameter
from ms_tensor import dtype as mstype

__all__ = ["LSTM"]


class LSTM(Cell):
    """Multi-layer, optionally bidirectional long short-term memory.

    Input ``x`` is (T, N, input_size), or (N, T, input_size) with ``batch_first``. Returns
    ``output`` (T, N, D * hidden_size) (batch first likewise) and ``(h_n, c_n)``, each
    (num_layers * D, N, hidden_size), D = 2 if bidirectional else 1. Parameters are
    ``weight_ih_l{k}``, ``weight_hh_l{k}``, ``bias_ih_l{k}``, ``bias_hh_l{k}`` (suffix
    ``_reverse`` for the backward direction), uniform in ``±1/sqrt(hidden_size)``.

    >>> out, (h, c) = LSTM(3, 4, num_layers=2)(ops.ones((5, 2, 3)))
    >>> out.shape, h.shape
    ((5, 2, 4), (2, 2, 4))
    """

    _gates = 4  # gate blocks stacked in each weight (the GRU and RNN subclasses: 3 and 1)

    def __init__(self, input_size, hidden_size, num_layers=1, has_bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, dtype=mstype.float32):
        super().__init__()
        self.input_size = positive_int("LSTM", "input_size", input_size)
        self.hidden_size = positive_int("LSTM", "hidden_size", hidden_size)
        self.num_layers = positive_int("LSTM", "num_layers", num_layers)
        if not isinstance(dropout, (int, float)) or isinstance(dropout, bool) \
                or not 0 <= dropout < 1:
            raise ValueError(f"LSTM: dropout must be a number in [0, 1), got {dropout!r}")
        self.dropout = float(dropout)
        self.has_bias = bool(has_bias)
        self.batch_first = bool(batch_first)
        self.bidirectional = bool(bidirectional)
        self.num_directions = 2 if bidirectional else 1
        init = Uniform(1.0 / math.sqrt(hidden_size))
        gates = self._gates * hidden_size
        shapes = {"weight_ih": lambda layer: (gates, input_size if layer == 0
                                              else hidden_size * self.num_directions),
                  "weight_hh": lambda layer: (gates, hidden_size)}
        if self.has_bias:
            shapes["bias_ih"] = shapes["bias_hh"] = lambda layer: (gates,)
        # MindSpore's order: every weight_ih, then weight_hh, bias_ih, bias_hh
        for kind, shape in shapes.items():
            for layer in range(num_layers):
                for d in range(self.num_directions):
                    name = self._name(kind, layer, d)
                    setattr(self, name, Parameter(initializer(init, shape(layer), dtype),
                                                  name=name))

    @staticmethod
    def _name(kind, layer, direction) -> str:
        return f"{kind}_l{layer}{'_reverse' if direction else ''}"

    def _param(self, kind, layer, direction):
        return getattr(self, self._name(kind, layer, direction))

    def _check(self, x, hx, seq_length):
        if x.ndim != 3 or x.shape[-1] != self.input_size:
            layout = "(N, T, input_size)" if self.batch_first else "(T, N, input_size)"
            raise ValueError(f"LSTM: input shape {tuple(x.shape)} must be {layout} with "
                             f"input_size {self.input_size}")
        n = x.shape[0] if self.batch_first else x.shape[1]
        want = (self.num_layers * self.num_directions, n, self.hidden_size)
        if hx is not None:
            if not (isinstance(hx, (tuple, list)) and len(hx) == 2
                    and all(tuple(t.shape) == want for t in hx)):
                got = [tuple(t.shape) for t in hx] if isinstance(hx, (tuple, list)) else hx
                raise ValueError(f"LSTM: hx must be a tuple (h_0, c_0) of shape {want} for "
                                 f"input shape {tuple(x.shape)}, got {got}")
        if seq_length is not None and tuple(seq_length.shape) != (n,):
            raise ValueError(f"LSTM: seq_length shape {tuple(seq_length.shape)} must be ({n},), "
                             f"one length per sequence of input shape {tuple(x.shape)}")

    def _run_direction(self, x, h, c, layer, direction, masks):
        """One layer in one direction over the whole sequence: (outputs list, h, c)."""
        t_len, n = x.shape[0], x.shape[1]
        w_ih = self._param("weight_ih", layer, direction)
        w_hh = self._param("weight_hh", layer, direction)
        # the input projection of every step at once: one large matmul instead of T small ones
        xw = ops.matmul(ops.reshape(x, (t_len * n, x.shape[2])), ops.transpose(w_ih, (1, 0)))
        if self.has_bias:
            xw = ops.add(xw, ops.add(self._param("bias_ih", layer, direction),
                                     self._param("bias_hh", layer, direction)))
        xw = ops.reshape(xw, (t_len, n, -1))
        w_hh_t = ops.transpose(w_hh, (1, 0))
        hs = self.hidden_size
        outputs = [None] * t_len
        steps = range(t_len - 1, -1, -1) if direction else range(t_len)
        for t in steps:
            gates = ops.add(xw[t], ops.matmul(h, w_hh_t))
            i, f, g, o = ops.split(gates, hs, 1)
            c_new = ops.add(ops.mul(ops.sigmoid(f), c), ops.mul(ops.sigmoid(i), ops.tanh(g)))
            h_new = ops.mul(ops.sigmoid(o), ops.tanh(c_new))
            if masks is None:
                h, c = h_new, c_new
                outputs[t] = h_new
            else:
                keep, hold = masks[t]
                h = ops.add(ops.mul(h_new, keep), ops.mul(h, hold))
                c = ops.add(ops.mul(c_new, keep), ops.mul(c, hold))
                outputs[t] = ops.mul(h_new, keep)
        return outputs, h, c

    def construct(self, x, hx=None, seq_length=None):
        self._check(x, hx, seq_length)
        if self.batch_first:
            x = ops.transpose(x, (1, 0, 2))
        t_len, n = x.shape[0], x.shape[1]
        if hx is None:
            state = ops.zeros((self.num_layers * self.num_directions, n, self.hidden_size),
                              x.dtype)
            h0 = c0 = state
        else:
            h0, c0 = hx
        masks = None
        if seq_length is not None:
            lengths = ops.cast(seq_length, mstype.int32)
            masks = []
            for t in range(t_len):
                keep = ops.expand_dims(ops.cast(ops.greater(lengths, t), x.dtype), 1)
                masks.append((keep, ops.sub(1.0, keep)))
        h_n, c_n = [], []
        for layer in range(self.num_layers):
            if layer and self.dropout and self.training:
                x = ops.dropout(x, p=self.dropout)
            outs = []
            for d in range(self.num_directions):
                k = layer * self.num_directions + d
                seq, h, c = self._run_direction(x, h0[k], c0[k], layer, d, masks)
                outs.append(ops.stack(seq, 0))
                h_n.append(h)
                c_n.append(c)
            x = outs[0] if len(outs) == 1 else ops.concat(outs, 2)
        output = ops.transpose(x, (1, 0, 2)) if self.batch_first else x
        return output, (ops.stack(h_n, 0), ops.stack(c_n, 0))

    def extend_repr(self) -> str:
        return (f"input_size={self.input_size}, hidden_size={self.hidden_size}, "
                f"num_layers={self.num_layers}, has_bias={self.has_bias}, "
                f"batch_first={self.batch_first}, dropout={self.dropout}, "
                f"bidirectional={self.bidirectional}")
