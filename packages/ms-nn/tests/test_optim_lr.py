"""Learning-rate schedules and per-step lists against MindSpore 2.10's values."""

import numpy as np
import pytest

from ms_nn.optim import (
    CosineDecayLR,
    ExponentialDecayLR,
    InverseDecayLR,
    NaturalExpDecayLR,
    PolynomialDecayLR,
    WarmUpLR,
    cosine_decay_lr,
    exponential_decay_lr,
    inverse_decay_lr,
    natural_exp_decay_lr,
    piecewise_constant_lr,
    polynomial_decay_lr,
    warmup_lr,
)
from ms_tensor import Tensor

STEPS = [0, 1, 2, 3, 5, 10]
# values at STEPS recorded from MindSpore 2.10 (float32 rates as Python floats); the lists
# from its dynamic_lr functions
SCHEDULES = {
    "exp": [
        0.10000000149011612,
        0.09740037471055984,
        0.09486832469701767,
        0.09240210801362991,
        0.08766033500432968,
        0.07684334367513657,
    ],
    "exp_stair": [
        0.10000000149011612,
        0.10000000149011612,
        0.10000000149011612,
        0.10000000149011612,
        0.08999999612569809,
        0.08099999278783798,
    ],
    "natexp": [
        0.10000000149011612,
        0.10000000149011612,
        0.10000000149011612,
        0.10000000149011612,
        0.0027323728427290916,
        7.465861563105136e-05,
    ],
    "inverse": [
        0.10000000149011612,
        0.08888889104127884,
        0.08000000566244125,
        0.0727272778749466,
        0.061538465321063995,
        0.04444444552063942,
    ],
    "cosine": [
        0.10000000149011612,
        0.08681980520486832,
        0.054999999701976776,
        0.023180190473794937,
        0.009999999776482582,
        0.009999999776482582,
    ],
    "poly": [
        0.10000000149011612,
        0.08794228732585907,
        0.07363960891962051,
        0.054999999701976776,
        0.009999999776482582,
        0.009999999776482582,
    ],
    "poly_update": [
        0.10000000149011612,
        0.08794228732585907,
        0.07363960891962051,
        0.054999999701976776,
        0.06511352211236954,
        0.04674234986305237,
    ],
    "warmup": [
        0.0,
        0.02500000037252903,
        0.05000000074505806,
        0.07500000298023224,
        0.10000000149011612,
        0.10000000149011612,
    ],
}
DYNAMIC_LR = {
    "piecewise": [0.1, 0.1, 0.05, 0.05, 0.05, 0.01],
    "exp": [
        0.1,
        0.1,
        0.09000000000000001,
        0.09000000000000001,
        0.08100000000000002,
        0.08100000000000002,
    ],
    "exp_stair": [0.1, 0.1, 0.1, 0.1, 0.09000000000000001, 0.09000000000000001],
    "natexp": [0.1, 0.1, 0.1, 0.1, 0.016529888822158657, 0.016529888822158657],
    "inverse": [0.1, 0.1, 0.08, 0.08, 0.06666666666666667, 0.06666666666666667],
    "cosine": [0.1, 0.1, 0.05500000000000001, 0.05500000000000001, 0.01, 0.01],
    "poly": [0.1, 0.1, 0.07363961030678928, 0.07363961030678928, 0.01, 0.01],
    "poly_update": [0.1, 0.07363961030678928, 0.01, 0.05500000000000001, 0.01, 0.04674234614174767],
    "warmup": [0.0, 0.0, 0.05, 0.05, 0.1, 0.1],
}

MAKE = {
    "exp": lambda: ExponentialDecayLR(0.1, 0.9, 4),
    "exp_stair": lambda: ExponentialDecayLR(0.1, 0.9, 4, True),
    "natexp": lambda: NaturalExpDecayLR(0.1, 0.9, 4, True),
    "inverse": lambda: InverseDecayLR(0.1, 0.5, 4),
    "cosine": lambda: CosineDecayLR(0.01, 0.1, 4),
    "poly": lambda: PolynomialDecayLR(0.1, 0.01, 4, 0.5),
    "poly_update": lambda: PolynomialDecayLR(0.1, 0.01, 4, 0.5, update_decay_steps=True),
    "warmup": lambda: WarmUpLR(0.1, 4),
}
LISTS = {
    "piecewise": lambda: piecewise_constant_lr([2, 5, 6], [0.1, 0.05, 0.01]),
    "exp": lambda: exponential_decay_lr(0.1, 0.9, 6, 2, 1),
    "exp_stair": lambda: exponential_decay_lr(0.1, 0.9, 6, 2, 2, True),
    "natexp": lambda: natural_exp_decay_lr(0.1, 0.9, 6, 2, 2, True),
    "inverse": lambda: inverse_decay_lr(0.1, 0.5, 6, 2, 2),
    "cosine": lambda: cosine_decay_lr(0.01, 0.1, 6, 2, 2),
    "poly": lambda: polynomial_decay_lr(0.1, 0.01, 6, 2, 2, 0.5),
    "poly_update": lambda: polynomial_decay_lr(0.1, 0.01, 6, 1, 2, 0.5, True),
    "warmup": lambda: warmup_lr(0.1, 6, 2, 2),
}


@pytest.mark.parametrize("name", sorted(MAKE))
def test_schedule_matches_mindspore(name):
    sched = MAKE[name]()
    got = [float(sched(Tensor(np.array(s, np.int32))).asnumpy()) for s in STEPS]
    np.testing.assert_allclose(got, SCHEDULES[name], rtol=1e-6)


def test_schedule_accepts_the_optimizer_step_shape():
    out = WarmUpLR(0.1, 4)(Tensor(np.array([2], np.int32)))
    np.testing.assert_allclose(out.asnumpy(), [0.05], rtol=1e-6)


@pytest.mark.parametrize("name", sorted(LISTS))
def test_dynamic_lr_list_matches_mindspore(name):
    assert LISTS[name]() == pytest.approx(DYNAMIC_LR[name], rel=1e-12)


@pytest.mark.parametrize(
    "make, error, match",
    [
        (lambda: ExponentialDecayLR(0.1, 0.9, 0), ValueError, "decay_steps must be > 0"),
        (lambda: ExponentialDecayLR(1, 0.9, 4), TypeError, "learning_rate must be a float"),
        (lambda: CosineDecayLR(0.1, 0.01, 4), ValueError, "greater than min_lr"),
        (lambda: WarmUpLR(0.1, 2.5), TypeError, "warmup_steps must be an int"),
        (lambda: piecewise_constant_lr([2, 1], [0.1, 0.05]), ValueError, "must not decrease"),
        (lambda: piecewise_constant_lr([2], [0.1, 0.05]), ValueError, "same size"),
        (lambda: cosine_decay_lr(0.2, 0.1, 4, 1, 1), ValueError, "greater than min_lr"),
        (lambda: warmup_lr(0.1, 0, 1, 1), ValueError, "total_step must be > 0"),
    ],
)
def test_bad_schedule_arguments(make, error, match):
    with pytest.raises(error, match=match):
        make()
