"""Samples for the arithmetic family: broadcasting shapes for every binary operator,
divisors and magnitudes kept away from zero, and quotients kept away from integers
(where FloorDiv, FloorMod and Mod jump)."""

import numpy as np

BROADCAST = [((2, 3), (2, 3)), ((2, 1, 3), (4, 1)), ((3,), (2, 3))]


def _signed(rng, shape, lo=0.3, hi=2.0):
    """Values with magnitude in [lo, hi] and a random sign: away from zero."""
    return rng.uniform(lo, hi, shape) * rng.choice([-1.0, 1.0], shape)


def _binary(rng):
    for xs, ys in BROADCAST:
        yield (rng.standard_normal(xs), rng.standard_normal(ys)), {}


def _nonzero_divisor(rng):
    for xs, ys in BROADCAST:
        yield (rng.standard_normal(xs), _signed(rng, ys)), {}


def _unary(rng):
    yield (rng.standard_normal((2, 3)),), {}
    yield (rng.standard_normal((4,)),), {}


def _unary_nonzero(rng):
    yield (_signed(rng, (2, 3)),), {}
    yield (_signed(rng, (4,)),), {}


def _between_multiples(rng):
    """x / y = k + f with f in [0.2, 0.8]: the quotient is never close to an integer.

    The broadcast side is derived from the other one (x = y * q or y = x / q)."""
    for xs, ys in [((2, 3), (2, 3)), ((2, 3), (3,)), ((3,), (2, 3))]:
        shape = np.broadcast_shapes(xs, ys)
        q = rng.integers(-3, 3, shape) + rng.uniform(0.2, 0.8, shape)
        if shape == xs:
            y = _signed(rng, ys, 0.5, 2.0)
            yield (y * q, y), {}
        else:
            x = _signed(rng, xs, 0.5, 2.0)
            yield (x, x / q), {}


def _pow(rng):
    for xs, ys in BROADCAST:
        yield (rng.uniform(0.5, 2.0, xs), rng.uniform(-2.0, 2.0, ys)), {}


def _apart(rng):
    """x and y at least 0.2 apart everywhere, so Maximum/Minimum pick one side (the
    broadcast side is derived from the other one)."""
    for xs, ys in [((2, 3), (2, 3)), ((2, 3), (3,)), ((3,), (2, 3))]:
        d = _signed(rng, np.broadcast_shapes(xs, ys), 0.2, 1.0)
        if d.shape == xs:
            y = rng.standard_normal(ys)
            yield (y + d, y), {}
        else:
            x = rng.standard_normal(xs)
            yield (x, x + d), {}


def _addc(rng, divide):
    x2 = (lambda s: _signed(rng, s, 0.5, 2.0)) if divide else rng.standard_normal
    yield (rng.standard_normal((2, 3)), rng.standard_normal((2, 3)), x2((2, 3)),
           rng.standard_normal((2, 3))), {}
    yield (rng.standard_normal((3,)), rng.standard_normal((2, 1)), x2((2, 3)),
           rng.standard_normal((1,))), {}


def _lerp(rng):
    yield (rng.standard_normal((2, 3)), rng.standard_normal((2, 3)),
           rng.uniform(0.0, 1.0, (2, 3))), {}
    yield (rng.standard_normal((3,)), rng.standard_normal((2, 3)),
           rng.uniform(0.0, 1.0, (2, 1))), {}


def _clamp(rng):
    """Values below, inside and above [min, max], none within 0.2 of a bound."""
    lo = np.array([-1.0, -0.5, 0.0])
    hi = lo + 1.5
    x = lo + np.array([[-0.6, 0.4, 1.9], [0.9, 2.1, -0.3]])
    yield (x, lo, hi), {}
    yield (x, np.array(-0.5), np.array([[1.0], [0.5]])), {}


SAMPLES = {
    "Add": _binary, "Sub": _binary, "Mul": _binary, "Div": _nonzero_divisor, "Neg": _unary,
    "FloorDiv": _between_multiples, "FloorMod": _between_multiples, "Mod": _between_multiples,
    "Pow": _pow, "Maximum": _apart, "Minimum": _apart, "SquaredDifference": _binary,
    "Square": _unary, "Reciprocal": _unary_nonzero, "Abs": _unary_nonzero,
    "Sign": _unary_nonzero, "Addcmul": lambda rng: _addc(rng, False),
    "Addcdiv": lambda rng: _addc(rng, True), "Lerp": _lerp, "ClampTensor": _clamp,
}
