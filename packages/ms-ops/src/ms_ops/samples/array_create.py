"""Samples for the creation operators (Fill, Zeros, Range, Eye, OneHot, ...)."""

import numpy as np

from ms_tensor import dtype as mstype


def _fill(rng):
    yield (mstype.float64, (2, 3), rng.standard_normal(())), {}
    yield (mstype.float64, (4,), rng.standard_normal((1,))), {}


def _constant(rng):
    yield ((2, 3), mstype.float32), {}
    yield ((4,), None), {}


def _like(rng):
    yield (rng.standard_normal((2, 3)),), {}


def _range(rng):
    yield (0, 5, 1), {}
    yield (0.5, 2.0, 0.25), {}
    yield (4, -3, -2), {}


def _eye(rng):
    yield (3, 4, mstype.float32), {}
    yield (2, 2, mstype.int32), {}


def _one_hot(rng):
    indices = rng.integers(0, 4, (2, 3))
    for axis in (-1, 0):
        yield (indices, 4, np.array(rng.standard_normal()), np.array(rng.standard_normal())), \
            {"axis": axis}


SAMPLES = {
    "Fill": _fill, "Zeros": _constant, "Ones": _constant, "ZerosLike": _like,
    "OnesLike": _like, "Range": _range, "Eye": _eye, "OneHot": _one_hot,
}
