"""``nn.GRU`` and ``nn.RNN`` (the LSTM's layers, directions, padding masks and Parameter
names with their own step), and the single-step ``nn.RNNCell``, ``nn.GRUCell`` and
``nn.LSTMCell``. Gate order is MindSpore's and PyTorch's: GRU (reset, update, new), LSTM
(input, forget, cell, output); GRU's new gate reads ``r * (W_hn h + b_hn)``.
"""

from __future__ import annotations

import math

import ms_ops as ops
from ms_nn.cell import Cell
from ms_nn.initializer import Uniform, initializer
from ms_nn.layers._check import one_of, positive_int
from ms_nn.layers.rnn import LSTM
from ms_tensor import Parameter
from ms_tensor import dtype as mstype

__all__ = ["GRU", "RNN", "RNNCell", "GRUCell", "LSTMCell"]


def _gru_step(xw, h, w_hh_t, b_hh, hs):
    hw = ops.matmul(h, w_hh_t)
    if b_hh is not None:
        hw = hw + b_hh
    xr, xz, xn = ops.split(xw, hs, 1)
    hr, hz, hn = ops.split(hw, hs, 1)
    r, z = ops.sigmoid(xr + hr), ops.sigmoid(xz + hz)
    n = ops.tanh(xn + r * hn)
    return (1 - z) * n + z * h


class _SingleStateRNN(LSTM):
    """A multi-layer recurrence whose state is one tensor ``h`` (GRU, RNN)."""

    def _check(self, x, hx, seq_length):
        name = type(self).__name__
        if x.ndim != 3 or x.shape[-1] != self.input_size:
            layout = "(N, T, input_size)" if self.batch_first else "(T, N, input_size)"
            raise ValueError(f"{name}: input shape {tuple(x.shape)} must be {layout} with "
                             f"input_size {self.input_size}")
        n = x.shape[0] if self.batch_first else x.shape[1]
        want = (self.num_layers * self.num_directions, n, self.hidden_size)
        if hx is not None and tuple(hx[0].shape) != want:
            raise ValueError(f"{name}: hx shape {tuple(hx[0].shape)} must be {want} for input "
                             f"shape {tuple(x.shape)}")
        if seq_length is not None and tuple(seq_length.shape) != (n,):
            raise ValueError(f"{name}: seq_length shape {tuple(seq_length.shape)} must be "
                             f"({n},)")

    def _run_direction(self, x, h, c, layer, direction, masks):
        t_len, n = x.shape[0], x.shape[1]
        xw = ops.matmul(ops.reshape(x, (t_len * n, x.shape[2])),
                        ops.transpose(self._param("weight_ih", layer, direction), (1, 0)))
        b_hh = None
        if self.has_bias:
            xw = xw + self._param("bias_ih", layer, direction)
            b_hh = self._param("bias_hh", layer, direction)
        xw = ops.reshape(xw, (t_len, n, -1))
        w_hh_t = ops.transpose(self._param("weight_hh", layer, direction), (1, 0))
        outputs = [None] * t_len
        for t in (range(t_len - 1, -1, -1) if direction else range(t_len)):
            h_new = self._step(xw[t], h, w_hh_t, b_hh)
            if masks is None:
                h = outputs[t] = h_new
            else:
                keep, hold = masks[t]
                h = h_new * keep + h * hold
                outputs[t] = h_new * keep
        return outputs, h, c

    def construct(self, x, hx=None, seq_length=None):
        output, (h_n, _) = super().construct(x, None if hx is None else (hx, hx), seq_length)
        return output, h_n


class GRU(_SingleStateRNN):
    """Multi-layer gated recurrent unit: ``(output, h_n)`` for input (T, N, input_size)
    (or batch first); Parameters as ``nn.LSTM``'s with 3 gate blocks.

    >>> out, h = GRU(3, 4, num_layers=2)(ops.ones((5, 2, 3)))
    >>> out.shape, h.shape
    ((5, 2, 4), (2, 2, 4))
    """

    _gates = 3

    def _step(self, xw_t, h, w_hh_t, b_hh):
        return _gru_step(xw_t, h, w_hh_t, b_hh, self.hidden_size)


class RNN(_SingleStateRNN):
    """Multi-layer Elman recurrence h' = act(W_ih x + b_ih + W_hh h + b_hh), act ``tanh``
    or ``relu``.

    >>> out, h = RNN(3, 4, bidirectional=True)(ops.ones((5, 2, 3)))
    >>> out.shape, h.shape
    ((5, 2, 8), (2, 2, 4))
    """

    _gates = 1

    def __init__(self, input_size, hidden_size, num_layers=1, nonlinearity="tanh",
                 has_bias=True, batch_first=False, dropout=0.0, bidirectional=False,
                 dtype=mstype.float32):
        one_of("RNN", "nonlinearity", nonlinearity, ("tanh", "relu"))
        super().__init__(input_size, hidden_size, num_layers, has_bias, batch_first, dropout,
                         bidirectional, dtype)
        self.nonlinearity = nonlinearity

    def _step(self, xw_t, h, w_hh_t, b_hh):
        pre = xw_t + ops.matmul(h, w_hh_t)
        if b_hh is not None:
            pre = pre + b_hh
        return ops.tanh(pre) if self.nonlinearity == "tanh" else ops.relu(pre)


class _CellBase(Cell):
    gates = 1

    def __init__(self, input_size, hidden_size, has_bias=True, dtype=mstype.float32):
        super().__init__()
        name = type(self).__name__
        self.input_size = positive_int(name, "input_size", input_size)
        self.hidden_size = positive_int(name, "hidden_size", hidden_size)
        self.has_bias = bool(has_bias)
        init = Uniform(1.0 / math.sqrt(hidden_size))
        g = self.gates * hidden_size
        self.weight_ih = Parameter(initializer(init, (g, input_size), dtype), name="weight_ih")
        self.weight_hh = Parameter(initializer(init, (g, hidden_size), dtype), name="weight_hh")
        self.bias_ih = self.bias_hh = None
        if self.has_bias:
            self.bias_ih = Parameter(initializer(init, (g,), dtype), name="bias_ih")
            self.bias_hh = Parameter(initializer(init, (g,), dtype), name="bias_hh")

    def _check(self, x, h):
        name = type(self).__name__
        if x.ndim not in (1, 2) or x.shape[-1] != self.input_size:
            raise ValueError(f"{name}: input shape {tuple(x.shape)} must be (N, input_size) "
                             f"with input_size {self.input_size}")
        if tuple(h.shape) != tuple(x.shape[:-1]) + (self.hidden_size,):
            raise ValueError(f"{name}: hx shape {tuple(h.shape)} must be "
                             f"{tuple(x.shape[:-1]) + (self.hidden_size,)}")

    def _xw(self, x):
        xw = ops.matmul(x, ops.transpose(self.weight_ih, (1, 0)))
        return xw if self.bias_ih is None else xw + self.bias_ih


class RNNCell(_CellBase):
    """One step of ``RNN``: h' = act(W_ih x + b_ih + W_hh h + b_hh).

    >>> RNNCell(3, 4)(ops.ones((2, 3)), ops.zeros((2, 4))).shape
    (2, 4)
    """

    def __init__(self, input_size, hidden_size, has_bias=True, nonlinearity="tanh",
                 dtype=mstype.float32):
        one_of("RNNCell", "nonlinearity", nonlinearity, ("tanh", "relu"))
        super().__init__(input_size, hidden_size, has_bias, dtype)
        self.nonlinearity = nonlinearity

    def construct(self, x, hx):
        self._check(x, hx)
        pre = self._xw(x) + ops.matmul(hx, ops.transpose(self.weight_hh, (1, 0)))
        if self.bias_hh is not None:
            pre = pre + self.bias_hh
        return ops.tanh(pre) if self.nonlinearity == "tanh" else ops.relu(pre)


class GRUCell(_CellBase):
    """One step of ``GRU``.

    >>> GRUCell(3, 4)(ops.ones((2, 3)), ops.zeros((2, 4))).shape
    (2, 4)
    """

    gates = 3

    def construct(self, x, hx):
        self._check(x, hx)
        return _gru_step(self._xw(x), hx, ops.transpose(self.weight_hh, (1, 0)), self.bias_hh,
                         self.hidden_size)


class LSTMCell(_CellBase):
    """One step of ``LSTM``: ``(h', c')`` from ``x`` and ``hx = (h, c)``.

    >>> h, c = LSTMCell(3, 4)(ops.ones((2, 3)), (ops.zeros((2, 4)), ops.zeros((2, 4))))
    >>> h.shape, c.shape
    ((2, 4), (2, 4))
    """

    gates = 4

    def construct(self, x, hx):
        h, c = hx
        self._check(x, h)
        gates = self._xw(x) + ops.matmul(h, ops.transpose(self.weight_hh, (1, 0)))
        if self.bias_hh is not None:
            gates = gates + self.bias_hh
        i, f, g, o = ops.split(gates, self.hidden_size, -1)
        c_new = ops.sigmoid(f) * c + ops.sigmoid(i) * ops.tanh(g)
        return ops.sigmoid(o) * ops.tanh(c_new), c_new
