"""Samples for comparisons, predicates, logical and bitwise operators. None is
differentiable: the suite checks that their outputs are bool (or int for the bitwise
ones). The float samples include equal pairs so Equal/LessEqual see both answers."""

import numpy as np


def _compare(rng):
    x = rng.standard_normal((2, 3))
    y = x.copy()
    y[0, 1] += 0.5
    y[1, 2] -= 0.5
    yield (x, y), {}
    yield (x, x[1]), {}
    yield (rng.standard_normal((3,)), rng.standard_normal((2, 1))), {}


def _special(rng):
    yield (np.array([[0.0, np.nan, np.inf], [-np.inf, 1.5, -2.0]]),), {}
    yield (rng.standard_normal((4,)),), {}


def _not(rng):
    yield (rng.random((2, 3)) < 0.5,), {}


def _logical(rng):
    yield (rng.random((2, 3)) < 0.5, rng.random((2, 3)) < 0.5), {}
    yield (rng.random((3,)) < 0.5, rng.random((2, 1)) < 0.5), {}


def _bitwise(rng):
    yield (rng.integers(-8, 8, (2, 3)), rng.integers(-8, 8, (2, 3))), {}
    yield (rng.integers(0, 16, (3,)), rng.integers(0, 16, (2, 1))), {}


def _isclose(rng):
    x = rng.standard_normal((2, 3))
    y = x + np.array([0.0, 1e-9, 1e-3])
    y[1, 0] = x[1, 0] = np.nan
    yield (x, y), {}
    yield (x, y), {"rtol": 1e-2, "atol": 1e-4, "equal_nan": True}
    yield (x[0], y), {"equal_nan": False}


SAMPLES = {
    "Equal": _compare, "NotEqual": _compare, "Less": _compare, "LessEqual": _compare,
    "Greater": _compare, "GreaterEqual": _compare, "IsNan": _special, "IsInf": _special,
    "IsFinite": _special, "LogicalNot": _not, "LogicalAnd": _logical, "LogicalOr": _logical,
    "LogicalXor": _logical, "BitwiseAnd": _bitwise, "BitwiseOr": _bitwise,
    "BitwiseXor": _bitwise, "IsClose": _isclose,
}
