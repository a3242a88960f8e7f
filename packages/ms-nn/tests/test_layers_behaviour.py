"""Layers: gradients (inputs and parameters) against finite differences, training vs
inference, defaults and parameter names, activations against numpy, error messages."""

import math

import numpy as np
import pytest

import ms_nn._layers_api as nn
from ms_autodiff import grad
from ms_autodiff.testing import check_grad
from ms_tensor import Tensor
from ms_tensor import dtype as mstype
from ms_tensor.seed import set_seed

# Every test here runs in PYNATIVE_MODE and in GRAPH_MODE (conftest.py's ``mode``).
pytestmark = pytest.mark.usefixtures("mode")

F64 = mstype.float64


def _x(seed, *shape):
    return np.random.default_rng(seed).standard_normal(shape)


def _param_grads_match(net, *inputs, eps=1e-6, rtol=1e-4, atol=1e-6):
    """Tape gradients of ``sum(net(*inputs) * w)`` for every trainable parameter equal
    central finite differences."""
    ts = [Tensor(a) for a in inputs]
    out = net(*ts)
    out = out[0] if isinstance(out, tuple) else out
    w = Tensor(_x(99, *out.shape))

    def objective(*args):
        o = net(*args)
        return ((o[0] if isinstance(o, tuple) else o) * w).sum()

    params = net.trainable_params()
    got = grad(objective, grad_position=None, weights=params)(*ts)
    for p, g in zip(params, got):
        base = p.asnumpy().copy()
        want = np.zeros(base.shape)
        for j in range(base.size):
            vals = []
            for sign in (1, -1):
                probe = base.copy().reshape(-1)
                probe[j] += sign * eps
                p.set_data(Tensor(probe.reshape(base.shape)))
                vals.append(float(objective(*ts).asnumpy()))
            want.reshape(-1)[j] = (vals[0] - vals[1]) / (2 * eps)
        p.set_data(Tensor(base))
        np.testing.assert_allclose(g.asnumpy(), want, rtol=rtol, atol=atol, err_msg=p.name)


GRAD_CASES = {
    "dense": (lambda: nn.Dense(3, 2, activation="tanh", dtype=F64), [_x(1, 2, 3)]),
    "conv2d": (lambda: nn.Conv2d(2, 2, 3, stride=2, has_bias=True, dtype=F64),
               [_x(2, 1, 2, 5, 5)]),
    "conv1d": (lambda: nn.Conv1d(2, 2, 3, pad_mode="pad", padding=1, dtype=F64),
               [_x(3, 1, 2, 4)]),
    "conv2d_transpose": (lambda: nn.Conv2dTranspose(2, 2, 3, stride=2, has_bias=True,
                                                    dtype=F64),
                         [_x(4, 1, 2, 2, 2)]),
    "batchnorm2d_train": (lambda: nn.BatchNorm2d(2, dtype=F64).set_train(),
                          [_x(5, 2, 2, 2, 2)]),
    "layernorm": (lambda: nn.LayerNorm((3,), dtype=F64), [_x(6, 2, 3)]),
    "groupnorm": (lambda: nn.GroupNorm(2, 4, dtype=F64), [_x(7, 1, 4, 2, 2)]),
    "lstm": (lambda: nn.LSTM(2, 2, bidirectional=True, dtype=F64), [_x(8, 3, 1, 2)]),
    "mha": (lambda: nn.MultiheadAttention(4, 2, dtype=F64),
            [_x(9, 2, 1, 4), _x(10, 3, 1, 4), _x(11, 3, 1, 4)]),
}


@pytest.mark.parametrize("case_id", sorted(GRAD_CASES))
def test_layer_gradients_match_finite_differences(case_id):
    build, inputs = GRAD_CASES[case_id]
    net = build()
    check_grad(lambda *ts: (lambda o: o[0] if isinstance(o, tuple) else o)(net(*ts)), *inputs,
               rtol=1e-4, atol=1e-6, name=case_id)
    _param_grads_match(net, *inputs)


@pytest.mark.parametrize("pool", [nn.MaxPool2d(2, 2), nn.AvgPool2d(3, 2, pad_mode="same"),
                                  nn.AdaptiveAvgPool2d(2)])
def test_pooling_gradient_matches_finite_differences(pool):
    check_grad(pool, _x(12, 1, 2, 5, 5), rtol=1e-4, atol=1e-6)


def test_embedding_gradient_accumulates_rows():
    emb = nn.Embedding(4, 2)
    ids = Tensor(np.array([1, 1, 3], np.int32))
    (g,) = grad(lambda i: emb(i).sum(), grad_position=None, weights=[emb.embedding_table])(ids)
    np.testing.assert_array_equal(g.asnumpy(), [[0, 0], [2, 2], [0, 0], [1, 1]])


ACTIVATIONS = [
    (nn.ReLU(), lambda x: np.maximum(x, 0)),
    (nn.ReLU6(), lambda x: np.clip(x, 0, 6)),
    (nn.Sigmoid(), lambda x: 1 / (1 + np.exp(-x))),
    (nn.Tanh(), np.tanh),
    (nn.SiLU(), lambda x: x / (1 + np.exp(-x))),
    (nn.LeakyReLU(), lambda x: np.where(x > 0, x, 0.2 * x)),
    (nn.ELU(), lambda x: np.where(x > 0, x, np.expm1(x))),
    (nn.GELU(approximate=False),
     lambda x: 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))),
    (nn.GELU(), lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi)
                                                  * (x + 0.044715 * x ** 3)))),
    (nn.Softmax(axis=0), lambda x: np.exp(x) / np.exp(x).sum(0)),
    (nn.LogSoftmax(), lambda x: x - np.log(np.exp(x).sum(-1, keepdims=True))),
]


@pytest.mark.parametrize("act, ref", ACTIVATIONS, ids=lambda a: type(a).__name__)
def test_activation_matches_numpy_and_differentiates(act, ref):
    x = _x(13, 3, 4)
    np.testing.assert_allclose(act(Tensor(x)).asnumpy(), ref(x), rtol=1e-6, atol=1e-7)
    check_grad(act, x, rtol=1e-4, atol=1e-6)


def test_dense_activation_by_name():
    d = nn.Dense(3, 2, activation="relu")
    assert isinstance(d.activation, nn.ReLU)
    assert [n for n, _ in d.parameters_and_names()] == ["weight", "bias"]
    with pytest.raises(KeyError, match="Dense: activation 'nope' is unknown"):
        nn.Dense(3, 2, activation="nope")


def test_dense_default_init_is_he_uniform_sqrt5():
    set_seed(0)
    d = nn.Dense(400, 300)
    bound = 1 / math.sqrt(400)  # HeUniform(sqrt(5)) and the bias share this bound
    for p in (d.weight, d.bias):
        v = p.asnumpy()
        assert v.dtype == np.float32 and np.abs(v).max() <= bound
        assert np.abs(v).max() > 0.95 * bound
    assert nn.Conv2d(3, 4, 3).bias is None


def test_dense_rejects_wrong_width():
    with pytest.raises(ValueError, match=r"Dense: input shape \(2, 5\) does not match "
                                         r"in_channels 4"):
        nn.Dense(4, 3)(Tensor(np.ones((2, 5), np.float32)))


ERROR_CASES = [
    (lambda: nn.Conv2d(3, 4, 3)(Tensor(np.ones((1, 2, 5, 5), np.float32))),
     r"Conv2d: input shape \(1, 2, 5, 5\) has 2 channels, in_channels is 3"),
    (lambda: nn.Conv2d(3, 4, 3)(Tensor(np.ones((2, 5, 5), np.float32))),
     r"Conv2d: input shape \(2, 5, 5\) must be 4-d \(N, C, H, W\)"),
    (lambda: nn.Conv2d(3, 4, 3, padding=1),
     r"Conv2d: padding must be 0 unless pad_mode is 'pad'"),
    (lambda: nn.Conv2d(3, 4, 3, group=2), r"Conv2d: group 2 must divide in_channels 3"),
    (lambda: nn.Conv2dTranspose(2, 2, 3, output_padding=1),
     r"Conv2dTranspose: output_padding 1 must be smaller than max\(stride, dilation\)"),
    (lambda: nn.MaxPool2d(2, pad_mode="full"), r"MaxPool2d: pad_mode must be one of"),
    (lambda: nn.BatchNorm2d(3)(Tensor(np.ones((2, 4, 2, 2), np.float32))),
     r"BatchNorm2d: input shape \(2, 4, 2, 2\) has 4 channels \(axis 1\), num_features is 3"),
    (lambda: nn.BatchNorm1d(3)(Tensor(np.ones((2, 3, 2, 2), np.float32))),
     r"BatchNorm1d: input shape \(2, 3, 2, 2\) must be 2-d \(N, C\) or 3-d"),
    (lambda: nn.LayerNorm((4,))(Tensor(np.ones((2, 3), np.float32))),
     r"LayerNorm: input shape \(2, 3\) .* must equal normalized_shape \(4,\)"),
    (lambda: nn.GroupNorm(3, 4), r"GroupNorm: num_groups 3 must divide num_channels 4"),
    (lambda: nn.LSTM(3, 4)(Tensor(np.ones((5, 2, 2), np.float32))),
     r"LSTM: input shape \(5, 2, 2\) must be \(T, N, input_size\) with input_size 3"),
    (lambda: nn.MultiheadAttention(8, 3), r"MultiheadAttention: embed_dim 8 must be divisible"),
    (lambda: nn.Dropout(p=1.0), r"Dropout: p must be a number in \[0, 1\), got 1.0"),
    (lambda: nn.Embedding(4, 2)(Tensor(np.ones((2,), np.float32))),
     r"Embedding: ids must be int32 or int64, got Float32"),
]


@pytest.mark.parametrize("call, message", ERROR_CASES)
def test_layer_errors_name_the_layer_and_shapes(call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call()


def test_dropout_only_in_training():
    drop = nn.Dropout(p=0.5)
    x = Tensor(np.ones((1000,), np.float32))
    assert drop(x) is x
    drop.set_train()
    set_seed(1)
    y = drop(x).asnumpy()
    assert set(np.unique(y)) == {0.0, 2.0}
    assert 400 < (y == 0).sum() < 600
    assert nn.Dropout(keep_prob=0.8).p == pytest.approx(0.2)


def test_batchnorm_training_updates_moving_stats_and_inference_uses_them():
    bn = nn.BatchNorm1d(2, momentum=0.9)
    x = np.array([[1.0, 2.0], [3.0, 6.0]], np.float32)
    bn.set_train()
    y = bn(Tensor(x)).asnumpy()
    np.testing.assert_allclose(y, [[-1, -1], [1, 1]], atol=1e-3)
    np.testing.assert_allclose(bn.moving_mean.asnumpy(), [0.2, 0.4], rtol=1e-6)
    # unbiased batch variance (2 and 8), momentum 0.9 keeps 90% of the old value 1
    np.testing.assert_allclose(bn.moving_variance.asnumpy(), [1.1, 1.7], rtol=1e-6)
    bn.set_train(False)
    mean, var = bn.moving_mean.asnumpy(), bn.moving_variance.asnumpy()
    np.testing.assert_allclose(bn(Tensor(x)).asnumpy(), (x - mean) / np.sqrt(var + 1e-5),
                               rtol=1e-5)
    np.testing.assert_allclose(bn.moving_mean.asnumpy(), mean)
    assert [n for n, p in bn.parameters_and_names() if not p.requires_grad] == \
        ["moving_mean", "moving_variance"]


def test_batchnorm_use_batch_statistics_overrides_mode():
    bn = nn.BatchNorm1d(2, use_batch_statistics=True)
    y = bn(Tensor(np.array([[1.0, 2.0], [3.0, 6.0]], np.float32))).asnumpy()
    np.testing.assert_allclose(y, [[-1, -1], [1, 1]], atol=1e-3)


def test_transformer_layer_dropout_only_in_training():
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.5)
    x = Tensor(_x(14, 3, 2, 8).astype(np.float32))
    np.testing.assert_array_equal(layer(x).asnumpy(), layer(x).asnumpy())
    layer.set_train()
    set_seed(2)
    assert not np.allclose(layer(x).asnumpy(), layer(x).asnumpy())


def test_lstm_parameter_names_follow_mindspore():
    names = [n for n, _ in nn.LSTM(3, 4, num_layers=2, bidirectional=True).parameters_and_names()]
    assert names[:4] == ["weight_ih_l0", "weight_ih_l0_reverse", "weight_ih_l1",
                         "weight_ih_l1_reverse"]
    assert names[-1] == "bias_hh_l1_reverse" and len(names) == 16
    assert len(list(nn.LSTM(3, 4, has_bias=False).parameters_and_names())) == 2


def test_lstm_seq_length_keeps_state_past_the_end():
    lstm = nn.LSTM(2, 3)
    x = _x(15, 4, 2, 2).astype(np.float32)
    out, (h, _) = lstm(Tensor(x), seq_length=Tensor(np.array([4, 2], np.int32)))
    short, (h_short, _) = lstm(Tensor(x[:2, 1:]))
    np.testing.assert_allclose(h.asnumpy()[0, 1], h_short.asnumpy()[0, 0], rtol=1e-6)
    np.testing.assert_array_equal(out.asnumpy()[2:, 1], 0)


def test_mha_need_weights_false_returns_one_tuple():
    mha = nn.MultiheadAttention(4, 2)
    q = Tensor(_x(16, 3, 4).astype(np.float32))  # unbatched (L, E)
    out = mha(q, q, q, need_weights=False)
    assert isinstance(out, tuple) and len(out) == 1 and out[0].shape == (3, 4)
