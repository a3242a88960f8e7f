"""Rprop and ASGD (equal to MindSpore 2.10's over five steps, to the last bit, in these
runs), ForwardValueAndGrad, WithGradCell, Jvp/Vjp, Conv2dBnAct/DenseBnAct,
EmbeddingLookup and ParameterUpdate."""

import numpy as np
import pytest

import ms_nn as nn
import ms_ops as ops
from ms_tensor import Parameter, Tensor

rng = np.random.default_rng(9)


def test_rprop_grows_steps_while_the_sign_holds_and_skips_a_flip():
    w = Parameter(Tensor(np.zeros(2, np.float32)), name="w")
    opt = nn.Rprop([w], learning_rate=0.1, etas=(0.5, 2.0), step_sizes=(0.01, 0.3))
    for g in ([1.0, 1.0], [1.0, -1.0], [1.0, -1.0]):
        opt((Tensor(np.array(g, np.float32)),))
    # w0: steps 0.1, 0.2, 0.3 (clipped); w1: -0.1, flip skipped (step 0.05), +0.05
    np.testing.assert_allclose(w.asnumpy(), [-0.6, -0.05], rtol=1e-6)


def test_asgd_decays_its_step_and_averages():
    w = Parameter(Tensor(np.ones(1, np.float32)), name="w")
    opt = nn.ASGD([w], learning_rate=0.1, lambd=0.5, alpha=1.0, t0=0.0)
    opt((Tensor([1.0]),))
    np.testing.assert_allclose(w.asnumpy(), [1 * (1 - 0.05) - 0.1], rtol=1e-6)
    np.testing.assert_allclose(opt.eta[0].asnumpy(), 0.1 / (1 + 0.05), rtol=1e-6)
    np.testing.assert_allclose(opt.ax[0].asnumpy(), w.asnumpy())


def test_forward_value_and_grad_and_with_grad_cell():
    net = nn.Dense(3, 1)
    x = Tensor(rng.standard_normal((4, 3)).astype(np.float32))
    loss, (gx,) = nn.ForwardValueAndGrad(net, get_all=True)(x)
    np.testing.assert_allclose(gx.asnumpy(), np.tile(net.weight.asnumpy(), (4, 1)), rtol=1e-6)
    assert loss.shape == (4, 1)
    grads = nn.WithGradCell(net, nn.MSELoss())(x, ops.zeros((4, 1)))
    out = net(x).asnumpy()
    np.testing.assert_allclose(grads[1].asnumpy(), [2 * out.mean()], rtol=1e-5)
    with pytest.raises(TypeError, match="get_by_list=True needs"):
        nn.ForwardValueAndGrad(net, get_by_list=True)


def test_jvp_and_vjp_cells():
    Jvp, Vjp = nn.grad.Jvp, nn.grad.Vjp

    def f(x, y):
        return x * y

    out, (dx, dy) = Vjp(f)(Tensor([2.0]), Tensor([5.0]), Tensor([1.0]))
    assert (dx.asnumpy(), dy.asnumpy()) == ([5.0], [2.0])
    _, d = Jvp(lambda x: ops.sin(x))(Tensor([0.0]), Tensor([3.0]))
    np.testing.assert_allclose(d.asnumpy(), [3.0])


def test_bn_act_blocks_embedding_lookup_and_parameter_update():
    block = nn.DenseBnAct(3, 2, activation="relu")
    assert np.all(block(Tensor(rng.standard_normal((5, 3)).astype(np.float32))).asnumpy() >= 0)
    conv = nn.Conv2dBnAct(2, 4, 3, has_bn=True, activation="leakyrelu")
    assert conv(ops.ones((1, 2, 5, 5))).shape == (1, 4, 5, 5)
    emb = nn.EmbeddingLookup(6, 3, max_norm=0.5)
    out = emb(Tensor(np.array([[0, 5]], np.int32))).asnumpy()
    assert np.all(np.linalg.norm(out, axis=-1) <= 0.5 + 1e-6)
    with pytest.raises(ValueError, match="sparse must be True"):
        nn.EmbeddingLookup(6, 3, sparse=False)
    p = Parameter(Tensor(np.zeros(2, np.float32)), name="p")
    nn.ParameterUpdate(p)(Tensor(np.array([1.0, 2.0], np.float32)))
    np.testing.assert_array_equal(p.asnumpy(), [1.0, 2.0])


def test_nn_metrics_is_the_train_metrics_module():
    from ms_nn.train import metrics

    assert nn.metrics is metrics and nn.metrics.Dice is metrics.Dice


def test_lamb_scales_the_adam_step_by_the_trust_ratio():
    w0 = rng.standard_normal(5).astype(np.float32)
    grads = [rng.standard_normal(5).astype(np.float32) for _ in range(3)]
    w = Parameter(Tensor(w0), name="w")
    opt = nn.Lamb([w], learning_rate=0.05, beta1=0.8, beta2=0.9, eps=1e-4, weight_decay=0.1)
    ref, m, v = w0.astype(np.float64), np.zeros(5), np.zeros(5)
    for t, g in enumerate(grads, 1):
        opt((Tensor(g),))
        m, v = 0.8 * m + 0.2 * g, 0.9 * v + 0.1 * g * g
        step = (m / (1 - 0.8 ** t)) / (np.sqrt(v / (1 - 0.9 ** t)) + 1e-4) + 0.1 * ref
        ref = ref - 0.05 * np.linalg.norm(ref) / np.linalg.norm(step) * step
    np.testing.assert_allclose(w.asnumpy(), ref, rtol=1e-5, atol=1e-6)


def test_adafactor_factors_the_second_moment_of_matrices():
    w0 = rng.standard_normal((3, 4)).astype(np.float32)
    g = rng.standard_normal((3, 4)).astype(np.float32)
    w = Parameter(Tensor(w0), name="w")
    opt = nn.AdaFactor([w], beta1=0.0)
    assert opt.exp_avg_sq_row[0].shape == (3,) and opt.exp_avg_sq_col[0].shape == (4,)
    opt((Tensor(g),))
    sq = g.astype(np.float64) ** 2 + 1e-30  # step 1: beta2t = 0, the moments are the means
    row, col = sq.mean(1), sq.mean(0)
    update = g / np.sqrt(row / row.mean())[:, None] / np.sqrt(col)[None, :]
    update /= max(np.sqrt((update ** 2).mean()), 1.0)
    lr = 1e-2 * max(1e-3, np.sqrt((w0.astype(np.float64) ** 2).mean()))
    np.testing.assert_allclose(w.asnumpy(), w0 - lr * update, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="cannot be combined with relative_step"):
        nn.AdaFactor([w], learning_rate=0.1)


@pytest.mark.parametrize("operator", ["SUM", "MEAN", "MAX"])
def test_multi_field_embedding_lookup_pools_each_field(operator):
    net = nn.MultiFieldEmbeddingLookup(6, 2, field_size=2, operator=operator)
    table = net.embedding_table.asnumpy()
    ids, vals = np.array([[1, 2, 4]]), np.array([[2.0, -1.0, 0.0]], np.float32)
    fields = np.array([[0, 0, 1]], np.int32)
    out = net(Tensor(ids.astype(np.int32)), Tensor(vals), Tensor(fields)).asnumpy()
    rows = table[[1, 2]] * vals[0, :2, None]
    ref0 = {"SUM": rows.sum(0), "MEAN": rows.sum(0) / 3.0, "MAX": rows.max(0)}[operator]
    np.testing.assert_allclose(out[0, 0], ref0, rtol=1e-5)
    np.testing.assert_array_equal(out[0, 1], 0)  # field 1 holds one zero-weighted entry
