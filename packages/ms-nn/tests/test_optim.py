"""Optimizers against trajectories recorded from MindSpore 2.10 (CPU): the same
starting weights and gradients, three steps, final weights compared."""

import numpy as np
import pytest

from ms_nn.optim import (
    SGD,
    Adagrad,
    Adam,
    AdamW,
    AdamWeightDecay,
    CosineDecayLR,
    ExponentialDecayLR,
    Momentum,
    Optimizer,
    RMSProp,
)
from ms_tensor import Parameter, Tensor
from ms_tensor.context import PYNATIVE_MODE

# Every test here runs in PYNATIVE_MODE and in GRAPH_MODE (conftest.py's ``mode``).
pytestmark = pytest.mark.usefixtures("mode")

# the inputs MindSpore was given (regenerated: PCG64's normal stream is stable)
_rng = np.random.default_rng(0)
W0 = _rng.standard_normal((2, 3)).astype(np.float32)
B0 = _rng.standard_normal(3).astype(np.float32)
G0 = _rng.standard_normal(3).astype(np.float32)
GRADS = [[_rng.standard_normal(a.shape).astype(np.float32) for a in (W0, B0, G0)] for _ in range(3)]

# final (dense.weight, dense.bias, bn.gamma) after three steps in MindSpore 2.10, except
# 'adamw_torch' (PyTorch 2's AdamW, lr 0.01, weight_decay 0.1: MindSpore's nn has no AdamW)
EXPECTED = {
    "momentum": [
        [[0.649537, -0.077713, 1.040932], [0.329129, -0.175301, 0.254083]],
        [1.249688, 0.626172, -0.665095],
        [-1.707102, -0.629594, -0.31748],
    ],
    "sgd_plain": [
        [[0.333269, -0.106666, 0.760966], [0.120956, -0.309564, 0.219813]],
        [1.229211, 0.785616, -0.701405],
        [-1.42476, -0.724023, -0.225388],
    ],
    "sgd_momentum_dampening_wd": [
        [[0.66977, -0.070558, 0.988245], [0.314059, -0.21561, 0.294294]],
        [1.171715, 0.59576, -0.633521],
        [-1.685691, -0.573618, -0.238416],
    ],
    "sgd_nesterov": [
        [[0.804695, -0.057713, 1.121424], [0.322763, 0.014767, 0.123052]],
        [1.18033, 0.496798, -0.666629],
        [-1.822272, -0.729711, -0.548313],
    ],
    "adam": [
        [[0.143554, -0.113648, 0.663457], [0.124657, -0.50642, 0.366887]],
        [1.29552, 0.925012, -0.684062],
        [-1.289836, -0.61358, 0.013224],
    ],
    "adam_nesterov_wd": [
        [[0.150485, -0.103844, 0.670866], [0.133347, -0.488947, 0.363635]],
        [1.285076, 0.912883, -0.670928],
        [-1.298798, -0.612597, -0.005448],
    ],
    "adamweightdecay": [
        [[0.193138, -0.060564, 0.727841], [0.177396, -0.41421, 0.367883]],
        [1.272982, 0.85654, -0.629244],
        [-1.362113, -0.596032, -0.072893],
    ],
    "rmsprop": [
        [[0.153858, -0.12813, 0.664796], [0.117834, -0.505324, 0.348392]],
        [1.29885, 0.923882, -0.701794],
        [-1.293165, -0.629495, 0.010645],
    ],
    "rmsprop_centered": [
        [[0.154079, -0.127521, 0.662553], [0.117613, -0.502758, 0.346658]],
        [1.293399, 0.919842, -0.698529],
        [-1.293463, -0.629563, 0.010067],
    ],
    "adagrad": [
        [[0.214052, -0.06784, 0.740731], [0.194852, -0.305332, 0.293162]],
        [1.237195, 0.81266, -0.68127],
        [-1.378383, -0.649438, -0.188836],
    ],
    "groups": [
        [[0.382142, -0.101403, 0.821422], [0.21316, -0.341155, 0.297495]],
        [1.249688, 0.626172, -0.665095],
        [-1.707102, -0.629594, -0.31748],
    ],
    "groups_order": [
        [[0.634636, -0.071101, 0.999845], [0.319598, -0.148027, 0.232992]],
        [1.195376, 0.305263, -0.626455],
        [-2.148781, -0.635914, -0.676286],
    ],
    "groups_gc": [
        [[0.333269, -0.106666, 0.760966], [0.120956, -0.309564, 0.219813]],
        [1.229211, 0.785616, -0.701405],
        [-1.42476, -0.724023, -0.225388],
    ],
    "dynamic_list": [
        [[0.434926, -0.102858, 0.867198], [0.256458, -0.412747, 0.38189]],
        [1.287088, 0.792, -0.677307],
        [-1.503398, -0.548678, -0.05306],
    ],
    "schedule_cosine": [
        [[0.244079, -0.015336, 0.789087], [0.255348, -0.38465, 0.467288]],
        [1.225746, 0.820605, -0.553274],
        [-1.411263, -0.503059, -0.109997],
    ],
    "groups_dynamic": [
        [[0.460786, -0.099525, 0.880614], [0.255397, -0.381069, 0.360051]],
        [1.249688, 0.626172, -0.665095],
        [-1.707102, -0.629594, -0.31748],
    ],
    "adamw_torch": [
        [[0.143153, -0.113276, 0.661508], [0.124312, -0.504844, 0.365782]],
        [1.291627, 0.922199, -0.681983],
        [-1.286014, -0.611736, 0.01313],
    ],
}


CASES = {
    "momentum": lambda ps: Momentum(ps, 0.1, 0.9),
    "sgd_plain": lambda ps: SGD(ps, 0.1),
    "sgd_momentum_dampening_wd": lambda ps: SGD(
        ps, 0.1, momentum=0.9, dampening=0.3, weight_decay=0.1
    ),
    "sgd_nesterov": lambda ps: SGD(ps, 0.1, momentum=0.9, nesterov=True),
    "adam": lambda ps: Adam(ps, 0.01),
    "adam_nesterov_wd": lambda ps: Adam(ps, 0.01, use_nesterov=True, weight_decay=0.1),
    "adamweightdecay": lambda ps: AdamWeightDecay(ps, 0.01, weight_decay=0.1),
    "rmsprop": lambda ps: RMSProp(ps, 0.01, momentum=0.5),
    "rmsprop_centered": lambda ps: RMSProp(ps, 0.01, momentum=0.5, centered=True, weight_decay=0.1),
    "adagrad": lambda ps: Adagrad(ps, learning_rate=0.1),
    "groups": lambda ps: Momentum(
        [{"params": [ps[0]], "lr": 0.05, "weight_decay": 0.1}, {"params": ps[1:]}], 0.1, 0.9
    ),
    "groups_order": lambda ps: Momentum(
        [
            {"params": [ps[0]], "weight_decay": 0.1},
            {"params": ps[1:], "lr": 0.2},
            {"order_params": [ps[2], ps[0], ps[1]]},
        ],
        0.1,
        0.9,
    ),
    "groups_gc": lambda ps: SGD(
        [{"params": [ps[0]], "grad_centralization": True}, {"params": ps[1:]}], 0.1
    ),
    "dynamic_list": lambda ps: Momentum(ps, [0.1, 0.05, 0.01], 0.9),
    "schedule_cosine": lambda ps: Adam(ps, CosineDecayLR(0.001, 0.1, 2)),
    "groups_dynamic": lambda ps: Momentum(
        [{"params": [ps[0]], "lr": ExponentialDecayLR(0.1, 0.5, 1)}, {"params": ps[1:]}], 0.1, 0.9
    ),
    "adamw_torch": lambda ps: AdamW(ps, 0.01, weight_decay=0.1),
}


def _params():
    return [
        Parameter(Tensor(W0.copy()), name="dense.weight"),
        Parameter(Tensor(B0.copy()), name="dense.bias"),
        Parameter(Tensor(G0.copy()), name="bn.gamma"),
    ]


def _run(opt, params, steps=3, scale=1.0):
    for s in range(steps):
        grads = {id(p): g for p, g in zip(params, GRADS[s % 3])}
        assert opt(tuple(Tensor(grads[id(p)] * scale) for p in opt.parameters)) is True


@pytest.mark.parametrize("case", sorted(CASES))
def test_optimizer_matches_reference_trajectory(case):
    params = _params()
    _run(CASES[case](params), params)
    for p, want in zip(params, EXPECTED[case]):
        np.testing.assert_allclose(p.asnumpy(), want, atol=2e-6, err_msg=p.name)


def test_momentum_loss_scale_and_weight_decay_match_unscaled_run():
    plain, scaled = _params(), _params()
    _run(Momentum(plain, 0.1, 0.9, weight_decay=0.01), plain)
    _run(Momentum(scaled, 0.1, 0.9, weight_decay=0.01, loss_scale=4.0), scaled, scale=4.0)
    for a, b in zip(plain, scaled):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-6, atol=1e-7)


def test_momentum_nesterov_follows_the_documented_formula():
    # MindSpore's CPU kernel ignores use_nesterov; its documented update is this one
    params = _params()
    _run(Momentum(params, 0.1, 0.9, use_nesterov=True), params)
    for i, p in enumerate(params):
        w = (W0, B0, G0)[i].astype(np.float64)
        acc = np.zeros_like(w)
        for s in range(3):
            g = GRADS[s][i]
            acc = acc * 0.9 + g
            w = w - 0.1 * (g + 0.9 * acc)
        np.testing.assert_allclose(p.asnumpy(), w, rtol=1e-5, atol=1e-6)


def test_updates_in_place_and_names_state_like_mindspore():
    params = _params()
    buffers = [p._data for p in params]
    opt = Adam(params, 0.01)
    _run(opt, params, steps=1)
    assert all(p._data is b for p, b in zip(params, buffers))
    assert [m.name for m in opt.moment1] == [
        "moment1.dense.weight",
        "moment1.dense.bias",
        "moment1.bn.gamma",
    ]
    assert opt.moment2[0].name == "moment2.dense.weight"
    assert Momentum(_params(), 0.1, 0.9).moments[1].name == "moments.dense.bias"
    assert {"global_step", "beta1_power", "learning_rate"} <= {p.name for p in opt.get_parameters()}


def test_global_step_and_get_lr_follow_the_schedule(mode):
    params = _params()
    opt = Momentum(params, [0.1, 0.05, 0.01], 0.9)
    seen = []
    for s in range(3):
        seen.append(round(float(opt.get_lr()), 6))
        _run(opt, params, steps=1)
        assert int(opt.global_step.asnumpy()[0]) == s + 1
    assert seen == [0.1, 0.05, 0.01]
    # PyNative checks the step in Python; the compiled step (checked when it was
    # captured) finds the index out of range in its Gather
    error = (RuntimeError, "3 values but training reached step 3") if mode == PYNATIVE_MODE \
        else (IndexError, "Gather: index 3 is out of bounds for axis 0 with size 3")
    with pytest.raises(error[0], match=error[1]):
        _run(opt, params, steps=1)


def test_get_lr_parameter_per_group():
    ps = _params()
    opt = Momentum([{"params": [ps[0]], "lr": 0.05}, {"params": ps[1:]}], 0.1, 0.9)
    assert round(float(opt.get_lr_parameter(ps[0])), 6) == 0.05
    assert [round(float(x), 6) for x in opt.get_lr_parameter(ps[1:])] == [0.1, 0.1]
    assert opt.get_lr_parameter(ps[0]).name == "learning_rate_group_0"
    with pytest.raises(ValueError, match="not updated by this optimizer"):
        opt.get_lr_parameter(Parameter(Tensor([1.0]), name="other"))


def test_weight_decay_skips_beta_and_gamma_without_groups():
    ps = _params()
    opt = SGD(ps, 0.1, weight_decay=0.5)
    assert opt.decay_flags == (True, True, False)
    opt((Tensor(np.zeros_like(W0)), Tensor(np.zeros_like(B0)), Tensor(np.zeros_like(G0))))
    np.testing.assert_allclose(ps[0].asnumpy(), W0 * (1 - 0.05), rtol=1e-6)
    np.testing.assert_allclose(ps[1].asnumpy(), B0 * (1 - 0.05), rtol=1e-6)
    np.testing.assert_array_equal(ps[2].asnumpy(), G0)


def test_dynamic_weight_decay_cell():
    ps = _params()
    opt = Momentum(ps, 0.1, 0.0, weight_decay=ExponentialDecayLR(0.5, 0.5, 1))
    zeros = tuple(Tensor(np.zeros_like(a)) for a in (W0, B0, G0))
    opt(zeros)  # decay 0.5 at step 0
    opt(zeros)  # decay 0.25 at step 1
    np.testing.assert_allclose(ps[0].asnumpy(), W0 * 0.95 * 0.975, rtol=1e-6)


@pytest.mark.parametrize(
    "make, error, match",
    [
        (lambda ps: Momentum([], 0.1, 0.9), ValueError, "empty"),
        (lambda ps: Momentum(ps, "fast", 0.9), TypeError, "learning_rate must be"),
        (lambda ps: Momentum(ps, -0.1, 0.9), ValueError, "learning_rate must be >= 0"),
        (lambda ps: Momentum(ps, 0.1, 1), TypeError, "momentum must be a float"),
        (lambda ps: Momentum(ps, 0.1, 0.9, loss_scale=0.0), ValueError, "loss_scale"),
        (lambda ps: Momentum([{"params": ps, "lrate": 0.1}], 0.1, 0.9), KeyError, "lrate"),
        (
            lambda ps: Momentum([{"params": ps}, {"params": ps[:1]}], 0.1, 0.9),
            RuntimeError,
            "more than one group",
        ),
        (lambda ps: SGD(ps, 0.1, momentum=0.0, nesterov=True), ValueError, "nesterov"),
        (lambda ps: Adam(ps, 0.1, beta1=1.5), ValueError, "beta1"),
        (lambda ps: Adam(ps, 0.1, use_fancy=True), KeyError, "use_fancy"),
        (
            lambda ps: Momentum(ps, Tensor(np.ones((2, 2), np.float32)), 0.9),
            ValueError,
            "0-d or 1-D",
        ),
    ],
)
def test_bad_arguments_are_rejected(make, error, match):
    with pytest.raises(error, match=match):
        make(_params())


def test_gradient_count_must_match():
    opt = Momentum(_params(), 0.1, 0.9)
    with pytest.raises(ValueError, match="got 2 gradients for 3 parameters"):
        opt((Tensor(W0), Tensor(B0)))


def test_base_optimizer_needs_construct():
    opt = Optimizer(0.1, _params())
    with pytest.raises(NotImplementedError, match="construct"):
        opt(tuple(Tensor(g) for g in GRADS[0]))
