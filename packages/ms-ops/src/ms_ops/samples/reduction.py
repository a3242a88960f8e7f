"""Samples for ReduceSum/Mean/Prod/Max/Min/All/Any over several axes, with and without
``keep_dims``. ReduceMax/Min get distinct values (no ties), ReduceProd values away
from zero, ReduceAll/Any bool masks."""

import numpy as np

AXES = [((), False), (0, False), (1, True), ((0, 2), False), ((-1,), True)]


def _distinct(rng, shape):
    """A shuffled grid 0.3 apart plus small noise: no two values tie."""
    n = int(np.prod(shape))
    return (rng.permutation(n) * 0.3 + rng.uniform(-0.05, 0.05, n) - 0.15 * n).reshape(shape)


def _reduce(values):
    def sample(rng):
        for axis, keep in AXES:
            yield (values(rng, (2, 3, 2)), axis), {"keep_dims": keep}
        yield (values(rng, (4,)), ()), {}
    return sample


def _normal(rng, shape):
    return rng.standard_normal(shape)


def _nonzero(rng, shape):
    return rng.uniform(0.5, 1.5, shape) * rng.choice([-1.0, 1.0], shape)


def _mask(rng, shape):
    return rng.random(shape) < 0.7


SAMPLES = {
    "ReduceSum": _reduce(_normal), "ReduceMean": _reduce(_normal),
    "ReduceProd": _reduce(_nonzero), "ReduceMax": _reduce(_distinct),
    "ReduceMin": _reduce(_distinct), "ReduceAll": _reduce(_mask), "ReduceAny": _reduce(_mask),
}
