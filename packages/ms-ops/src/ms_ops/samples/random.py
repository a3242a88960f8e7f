"""Samples for the random operators (they are only run, with fixed seeds)."""

import numpy as np

from ms_tensor import dtype as mstype


def _sampler(rng):
    yield ((2, 3),), {"seed": 1, "seed2": 2}
    yield ((4,),), {}


def _uniform_int(rng):
    yield ((2, 3), np.array(1, np.int32), np.array(5, np.int32)), {"seed": 1}
    yield ((4,), np.array([-3], np.int32), np.array([3], np.int32)), {}


def _bernoulli(rng):
    yield (rng.standard_normal((2, 3)), rng.random((2, 3))), {"seed": 1}
    yield (rng.standard_normal((4,)), np.array(0.3)), {}


def _multinomial(rng):
    yield (rng.random((2, 4)) + 0.1, 3), {"seed": 1}
    yield (rng.random((5,)) + 0.1, 4), {"replacement": False, "dtype": mstype.int64}


def _categorical(rng):
    yield (rng.standard_normal((2, 4)), 3, 1), {}
    yield (rng.standard_normal((3, 2)), 5, 0), {"dtype": mstype.int32}


def _shuffle(rng):
    yield (rng.standard_normal((4, 2)),), {"seed": 1}
    yield (rng.standard_normal((5,)),), {}


def _randperm(rng):
    yield (5,), {"seed": 1}
    yield (3,), {"dtype": mstype.int32}


SAMPLES = {
    "StandardNormal": _sampler, "UniformReal": _sampler, "UniformInt": _uniform_int,
    "Bernoulli": _bernoulli, "Multinomial": _multinomial, "RandomCategorical": _categorical,
    "RandomShuffle": _shuffle, "RandpermV2": _randperm,
}
