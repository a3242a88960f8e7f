"""Losses against real MindSpore 2.10 (outputs stored in REF), plus gradients and errors.

Regenerate REF with ``/tmp/msenv/bin/python packages/ms-nn/tests/test_loss.py`` (pytest
must be importable there).
"""

import numpy as np
import pytest

# Every test here runs in PYNATIVE_MODE and in GRAPH_MODE (conftest.py's ``mode``).
pytestmark = pytest.mark.usefixtures("mode")


def _x(seed, *shape):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _p(seed, *shape):
    return np.random.default_rng(seed).uniform(0.05, 0.95, shape).astype(np.float32)


_LABELS = np.array([2, 0, 1, 2], np.int32)
_DENSE = np.eye(3, dtype=np.float32)[_LABELS] * 0.8 + 0.2 / 3

# id: (build(nn, tensor) -> loss Cell, logits, labels)
CASES = {
    "sce_dense_none": (lambda nn, t: nn.SoftmaxCrossEntropyWithLogits(), _x(1, 4, 3), _DENSE),
    "sce_dense_sum": (lambda nn, t: nn.SoftmaxCrossEntropyWithLogits(reduction="sum"),
                      _x(2, 4, 3), _DENSE),
    "sce_sparse_none": (lambda nn, t: nn.SoftmaxCrossEntropyWithLogits(sparse=True),
                        _x(3, 4, 3), _LABELS),
    "sce_sparse_mean": (lambda nn, t: nn.SoftmaxCrossEntropyWithLogits(sparse=True,
                                                                       reduction="mean"),
                        _x(4, 4, 3), _LABELS),
    "ce_weight_smoothing": (
        lambda nn, t: nn.CrossEntropyLoss(weight=t(np.array([0.2, 1.0, 3.0], np.float32)),
                                          label_smoothing=0.1),
        _x(5, 4, 3), _LABELS),
    "ce_ignore_none": (lambda nn, t: nn.CrossEntropyLoss(ignore_index=0, reduction="none"),
                       _x(6, 4, 3), _LABELS),
    "ce_probabilities": (lambda nn, t: nn.CrossEntropyLoss(), _x(7, 4, 3), _DENSE),
    "nll_weight_sum": (
        lambda nn, t: nn.NLLLoss(weight=t(np.array([0.5, 1.0, 2.0], np.float32)),
                                 reduction="sum"),
        _x(8, 4, 3), _LABELS),
    "nll_mean": (lambda nn, t: nn.NLLLoss(), _x(9, 4, 3), _LABELS),
    "mse_mean": (lambda nn, t: nn.MSELoss(), _x(10, 2, 3), _x(11, 2, 3)),
    "mse_broadcast_sum": (lambda nn, t: nn.MSELoss(reduction="sum"), _x(12, 2, 3), _x(13, 3)),
    "l1_none": (lambda nn, t: nn.L1Loss(reduction="none"), _x(14, 2, 3), _x(15, 2, 3)),
    "smooth_l1_beta_mean": (lambda nn, t: nn.SmoothL1Loss(beta=0.5, reduction="mean"),
                            _x(16, 2, 3), _x(17, 2, 3)),
    "smooth_l1_none": (lambda nn, t: nn.SmoothL1Loss(), _x(18, 2, 3), _x(19, 2, 3)),
    "bce_weight": (lambda nn, t: nn.BCELoss(weight=t(_p(20, 2, 3))), _p(21, 2, 3),
                   np.array([[0, 1, 1], [1, 0, 0]], np.float32)),
    "bce_none": (lambda nn, t: nn.BCELoss(reduction="none"), _p(22, 2, 3), _p(23, 2, 3)),
    "bce_logits_pos_weight": (
        lambda nn, t: nn.BCEWithLogitsLoss(weight=t(_p(24, 3)),
                                           pos_weight=t(np.array([1.0, 2.0, 0.5], np.float32))),
        _x(25, 2, 3), np.array([[0, 1, 1], [1, 0, 0]], np.float32)),
    "bce_logits_sum": (lambda nn, t: nn.BCEWithLogitsLoss(reduction="sum"), _x(26, 2, 3),
                       _p(27, 2, 3)),
}


def run_case(nn, tensor, case_id):
    build, logits, labels = CASES[case_id]
    return build(nn, tensor)(tensor(logits), tensor(labels)).asnumpy()


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_loss_matches_mindspore(case_id, mode, graph_runs):
    import ms_nn._layers_api as nn
    from ms_tensor import Tensor
    from ms_tensor.context import GRAPH_MODE

    got = run_case(nn, Tensor, case_id)
    assert graph_runs() == (mode == GRAPH_MODE)
    want = np.asarray(REF[case_id], np.float32)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


# get_loss computes in float32 (as MindSpore's does), so those losses need a coarser step
_GRAD_CASES = {"sce_dense_sum": 1e-3, "sce_sparse_none": 1e-3, "sce_sparse_mean": 1e-6,
               "ce_weight_smoothing": 1e-6, "nll_weight_sum": 1e-6, "mse_broadcast_sum": 1e-6,
               "smooth_l1_beta_mean": 1e-6, "bce_weight": 1e-6, "bce_logits_pos_weight": 1e-6}


@pytest.mark.parametrize("case_id", sorted(_GRAD_CASES))
def test_loss_gradient_matches_finite_differences(case_id):
    import ms_nn._layers_api as nn
    from ms_autodiff.testing import check_grad
    from ms_tensor import Tensor

    build, logits, labels = CASES[case_id]
    loss = build(nn, lambda a: Tensor(a.astype(np.float64)))
    labels = Tensor(labels if labels.dtype.kind == "i" else labels.astype(np.float64))
    eps = _GRAD_CASES[case_id]
    tol = {"rtol": 1e-3, "atol": 1e-4} if eps > 1e-6 else {"rtol": 1e-4, "atol": 1e-6}
    check_grad(lambda x: loss(x, labels), logits.astype(np.float64), eps=eps, **tol)


def test_loss_rejects_unknown_reduction():
    from ms_nn.loss import MSELoss

    with pytest.raises(ValueError, match="MSELoss: reduction must be 'mean', 'sum' or 'none', "
                                         "got 'avg'"):
        MSELoss(reduction="avg")


def test_sparse_softmax_cross_entropy_names_label_shape():
    from ms_nn.loss import SoftmaxCrossEntropyWithLogits
    from ms_tensor import Tensor

    loss = SoftmaxCrossEntropyWithLogits(sparse=True)
    with pytest.raises(ValueError, match=r"SoftmaxCrossEntropyWithLogits: sparse labels shape "
                                         r"\(4, 1\) must be \(4,\)"):
        loss(Tensor(_x(1, 4, 3)), Tensor(_LABELS.reshape(4, 1)))


def test_bce_names_both_shapes():
    from ms_nn.loss import BCELoss
    from ms_tensor import Tensor

    with pytest.raises(ValueError, match=r"BCELoss: logits shape \(2, 3\) and labels shape "
                                         r"\(3,\) must be equal"):
        BCELoss()(Tensor(_p(1, 2, 3)), Tensor(_p(2, 3)))


def test_get_loss_weights_and_keeps_dtype():
    from ms_nn.loss import LossBase
    from ms_tensor import Tensor

    x = Tensor(np.array([1.0, 3.0], np.float16))
    out = LossBase(reduction="sum").get_loss(x, Tensor(np.array([2.0, 0.5], np.float32)))
    assert out.asnumpy().dtype == np.float16
    assert float(out) == 3.5
    assert LossBase(reduction="none").get_loss(x).shape == (2,)


REF = {
    'sce_dense_none':
        [1.2608372, 2.4995573, 0.8461314, 0.9152645],
    'sce_dense_sum':
        7.8179865,
    'sce_sparse_none':
        [1.8113123, 1.2653018, 0.5295293, 3.7437639],
    'sce_sparse_mean':
        0.4055349,
    'ce_weight_smoothing':
        1.8085043,
    'ce_ignore_none':
        [4.7341022, 0.0, 0.5477287, 2.2595179],
    'ce_probabilities':
        1.0297393,
    'nll_weight_sum':
        2.1104815,
    'nll_mean':
        -0.1652789,
    'mse_mean':
        1.7834252,
    'mse_broadcast_sum':
        48.3804436,
    'l1_none':
        [[2.1263928, 0.0429265, 1.9674287], [2.4008839, 0.8788484, 0.4402828]],
    'smooth_l1_beta_mean':
        1.4212481,
    'smooth_l1_none':
        [[0.0019416, 1.6241755, 0.0332784], [0.119879, 0.8417747, 1.8741615]],
    'bce_weight':
        0.4158457,
    'bce_none':
        [[0.8086155, 1.0207787, 0.4544973], [0.9295144, 0.7160722, 0.5600187]],
    'bce_logits_pos_weight':
        0.4995452,
    'bce_logits_sum':
        6.1686974,
}


if __name__ == "__main__":
    import pprint

    import mindspore as ms
    import mindspore.nn as ms_nn

    print("REF = {")
    for cid in CASES:
        out = np.round(run_case(ms_nn, ms.Tensor, cid).astype(np.float64), 7).tolist()
        body = pprint.pformat(out, width=88, compact=True)
        print(f"    {cid!r}:\n" + "\n".join("        " + line for line in body.splitlines())
              + ",")
    print("}")
