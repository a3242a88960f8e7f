"""Samples for Argmax/Argmin and ArgMaxWithValue/ArgMinWithValue: distinct values (no
ties, where the index would jump), several axes, ``keep_dims`` both ways."""

import numpy as np


def _distinct(rng, shape):
    """A shuffled grid 0.3 apart plus small noise: no two values tie."""
    n = int(np.prod(shape))
    return (rng.permutation(n) * 0.3 + rng.uniform(-0.05, 0.05, n) - 0.15 * n).reshape(shape)


def _arg(rng):
    yield (_distinct(rng, (2, 3, 2)),), {}
    yield (_distinct(rng, (2, 3, 2)),), {"axis": 1}
    yield (_distinct(rng, (4,)),), {"axis": 0}


def _with_value(rng):
    yield (_distinct(rng, (2, 3, 2)),), {}
    yield (_distinct(rng, (2, 3, 2)),), {"axis": -1, "keep_dims": True}
    yield (_distinct(rng, (4,)),), {"axis": 0}


SAMPLES = {"Argmax": _arg, "Argmin": _arg, "ArgMaxWithValue": _with_value,
           "ArgMinWithValue": _with_value}
