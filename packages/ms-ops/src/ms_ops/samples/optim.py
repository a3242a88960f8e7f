"""Samples for the in-place optimizer updates (they are only run)."""

import numpy as np


def _gradient_descent(rng):
    yield (rng.standard_normal((2, 3)), np.array(0.1), rng.standard_normal((2, 3))), {}


def _momentum(rng):
    for nesterov in (False, True):
        yield (rng.standard_normal((2, 3)), rng.standard_normal((2, 3)), np.array(0.1),
               rng.standard_normal((2, 3)), np.array(0.9)), {"use_nesterov": nesterov}


def _adam(rng):
    for nesterov in (False, True):
        yield (rng.standard_normal((2, 3)), rng.standard_normal((2, 3)),
               rng.random((2, 3)), np.array(0.9 ** 3), np.array(0.999 ** 3), np.array(1e-3),
               np.array(0.9), np.array(0.999), np.array(1e-8),
               rng.standard_normal((2, 3))), {"use_nesterov": nesterov}


SAMPLES = {"ApplyGradientDescent": _gradient_descent, "ApplyMomentum": _momentum,
           "Adam": _adam}
