"""Samples for the shape and layout operators (Reshape, Transpose, Tile, Select, ...)."""

import numpy as np

from ms_tensor import dtype as mstype


def _reshape(rng):
    yield (rng.standard_normal((2, 3, 4)), (4, -1)), {}
    yield (rng.standard_normal((6,)), (2, 1, 3)), {}


def _broadcast_to(rng):
    yield (rng.standard_normal((3, 1)),), {"shape": (2, 3, 4)}
    yield (rng.standard_normal((1, 4)),), {"shape": (3, -1)}


def _cast(rng):
    # float64 -> float64 only: a narrower float would drown finite differences in rounding.
    yield (rng.standard_normal((2, 3)), mstype.float64), {}


def _transpose(rng):
    yield (rng.standard_normal((2, 3, 4)), (2, 0, 1)), {}
    yield (rng.standard_normal((3, 4)), (1, 0)), {}


def _expand_dims(rng):
    yield (rng.standard_normal((2, 3)), 1), {}
    yield (rng.standard_normal((2, 3)), -1), {}


def _squeeze(rng):
    yield (rng.standard_normal((2, 1, 3, 1)),), {"axis": ()}
    yield (rng.standard_normal((2, 1, 3, 1)),), {"axis": (1,)}


def _flatten(rng):
    yield (rng.standard_normal((2, 3, 2)),), {}


def _tile(rng):
    yield (rng.standard_normal((2, 3)), (2, 1, 2)), {}
    yield (rng.standard_normal((3,)), (3,)), {}


def _reverse(rng):
    yield (rng.standard_normal((2, 3, 4)),), {"axis": (0, 2)}
    yield (rng.standard_normal((5,)),), {"axis": (-1,)}


def _roll(rng):
    yield (rng.standard_normal((3, 4)),), {"shifts": 1, "dims": None}
    yield (rng.standard_normal((3, 4)),), {"shifts": (1, -2), "dims": (0, 1)}


def _identity(rng):
    yield (rng.standard_normal((2, 3)),), {}


def _select(rng):
    yield (rng.random((2, 3)) < 0.5, rng.standard_normal((2, 3)),
           rng.standard_normal((2, 3))), {}
    # condition, x and y broadcast against each other
    yield (rng.random((1, 3)) < 0.5, rng.standard_normal((2, 1)),
           rng.standard_normal((3,))), {}
    yield (np.array([True, False, True]), rng.standard_normal((2, 3)),
           rng.standard_normal((1,))), {}


SAMPLES = {
    "Reshape": _reshape, "BroadcastTo": _broadcast_to, "Cast": _cast, "Transpose": _transpose,
    "ExpandDims": _expand_dims, "Squeeze": _squeeze, "Flatten": _flatten, "Tile": _tile,
    "ReverseV2": _reverse, "Roll": _roll, "Identity": _identity, "Select": _select,
}
