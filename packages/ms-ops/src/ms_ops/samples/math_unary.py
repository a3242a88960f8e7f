"""Samples for the elementwise math functions: each inside its smooth domain (logs and
roots on positive values, asin/acos/atanh inside (-1, 1), acosh above 1), and the
rounding functions away from the points where they jump."""



def _uniform(lo, hi, shape=(2, 3)):
    def sample(rng):
        yield (rng.uniform(lo, hi, shape),), {}
        yield (rng.uniform(lo, hi, (4,)),), {}
    return sample


def _normal(rng):
    yield (rng.standard_normal((2, 3)),), {}
    yield (rng.standard_normal((4,)),), {}


def _atan2(rng):
    """x away from 0, so no point sits on the branch cut (x = 0, y < 0)."""
    def away(shape):
        return rng.uniform(0.3, 2.0, shape) * rng.choice([-1.0, 1.0], shape)
    yield (away((2, 3)), rng.standard_normal((2, 3))), {}
    yield (away((2, 1)), rng.standard_normal((3,))), {}
    yield (away((3,)), rng.standard_normal((2, 3))), {}


def _off_integers(rng):
    """k + f with f in [0.2, 0.8]: floor, ceil and trunc are flat there."""
    yield (rng.integers(-3, 3, (2, 3)) + rng.uniform(0.2, 0.8, (2, 3)),), {}
    yield (rng.integers(-3, 3, (4,)) + rng.uniform(0.2, 0.8, (4,)),), {}


def _round(rng):
    """Away from the half-way points where round jumps, at 0 and 1 decimals."""
    yield (rng.integers(-3, 3, (2, 3)) + rng.uniform(-0.3, 0.3, (2, 3)), 0), {}
    yield ((rng.integers(-30, 30, (4,)) + rng.uniform(-0.3, 0.3, (4,))) / 10, 1), {}


POSITIVE = _uniform(0.5, 2.0)
INSIDE_UNIT = _uniform(-0.8, 0.8)

SAMPLES = {
    "Exp": _normal, "Exp2": _normal, "Expm1": _normal, "Log": POSITIVE,
    "Log1p": _uniform(-0.5, 1.5), "Log2": POSITIVE, "Log10": POSITIVE, "Sqrt": POSITIVE,
    "Rsqrt": POSITIVE, "Sin": _normal, "Cos": _normal, "Tan": _uniform(-1.2, 1.2),
    "Asin": INSIDE_UNIT, "ACos": INSIDE_UNIT, "Atan": _normal, "Atan2": _atan2,
    "Sinh": _normal, "Cosh": _normal, "Asinh": _normal, "Acosh": _uniform(1.3, 3.0),
    "Atanh": INSIDE_UNIT, "Erf": _normal, "Erfc": _normal, "Floor": _off_integers,
    "Ceil": _off_integers, "Trunc": _off_integers, "Round": _round,
}
