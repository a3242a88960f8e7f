"""Samples for the activations: piecewise ones (ReLU, ReLU6, HSwish, shrinks, ...) get
values at least 0.2 away from their breakpoints; Softmax and LogSoftmax are sampled
along several axes; attributes that change the math get a second value."""

import numpy as np


def _away_from(breaks, lo=-4.0, hi=4.0, gap=0.2):
    """Uniform values in [lo, hi], redrawn until each is ``gap`` from every breakpoint."""
    def values(rng, shape):
        x = rng.uniform(lo, hi, shape)
        while True:
            near = np.min(np.abs(x[..., None] - np.asarray(breaks)), axis=-1) < gap
            if not near.any():
                return x
            x = np.where(near, rng.uniform(lo, hi, shape), x)
    return values


def _unary(values, attrs_list=({},)):
    def sample(rng):
        for attrs in attrs_list:
            yield (values(rng, (2, 3)),), dict(attrs)
            yield (values(rng, (4,)),), dict(attrs)
    return sample


def _normal(rng, shape):
    return rng.standard_normal(shape)


def _relu_grad(rng):
    x = _away_from([0.0])(rng, (2, 3))
    yield (rng.standard_normal((2, 3)), x), {}


def _softmax(rng):
    yield (rng.standard_normal((2, 3)),), {}
    yield (rng.standard_normal((2, 3)),), {"axis": 0}
    yield (rng.standard_normal((2, 3, 2)),), {"axis": 1}
    yield (rng.standard_normal((2, 3, 2)),), {"axis": (0, 2)}


def _log_softmax(rng):
    yield (rng.standard_normal((2, 3)),), {}
    yield (rng.standard_normal((2, 3)),), {"axis": 0}
    yield (rng.standard_normal((2, 3, 2)),), {"axis": 1}


def _softplus(rng):
    """The default, and beta=2, threshold=3: beta * x jumps to x above 3 (x > 1.5)."""
    yield (rng.standard_normal((2, 3)) * 2,), {}
    yield (_away_from([1.5], -3.0, 3.0)(rng, (2, 3)),), {"beta": 2, "threshold": 3}


def _prelu(rng):
    values = _away_from([0.0], -2.0, 2.0)
    yield (values(rng, (2, 3, 2)), rng.uniform(0.05, 0.5, (3,))), {}
    yield (values(rng, (2, 3)), rng.uniform(0.05, 0.5, (1,))), {}
    yield (values(rng, (4,)), rng.uniform(0.05, 0.5, (1,))), {}


SMOOTH = _unary(_normal)
AWAY_FROM_0 = _away_from([0.0])
SHRINK = [{"lambd": 0.5}, {"lambd": 1.0}]

SAMPLES = {
    "ReLU": _unary(AWAY_FROM_0), "ReLU6": _unary(_away_from([0.0, 6.0], -2.0, 8.0)),
    "ReluGrad": _relu_grad, "Sigmoid": SMOOTH, "Tanh": SMOOTH, "SiLU": SMOOTH,
    "FastGeLU": SMOOTH,
    "GeLU": _unary(_normal, [{"approximate": "tanh"}, {"approximate": "none"}]),
    "Softsign": SMOOTH,
    "HSwish": _unary(_away_from([-3.0, 3.0], -5.0, 5.0)),
    "HSigmoid": _unary(_away_from([-3.0, 3.0], -5.0, 5.0)),
    "Softmax": _softmax, "LogSoftmax": _log_softmax,
    "Elu": _unary(AWAY_FROM_0, [{}, {"alpha": 0.5}]),
    "LeakyReLU": _unary(AWAY_FROM_0, [{}, {"alpha": 0.01}]),
    "Softplus": _softplus,
    "HShrink": _unary(_away_from([-1.0, -0.5, 0.5, 1.0], -2.0, 2.0), SHRINK),
    "SoftShrink": _unary(_away_from([-1.0, -0.5, 0.5, 1.0], -2.0, 2.0), SHRINK),
    "PReLU": _prelu,
}
