"""Samples for CumSum and CumProd along each axis, with ``exclusive`` and ``reverse``.
CumProd also gets inputs holding a zero, where dividing by x would not give its
gradient."""


FLAGS = [(False, False), (True, False), (False, True), (True, True)]


def _cumsum(rng):
    for exclusive, reverse in FLAGS:
        yield (rng.standard_normal((2, 3)), 1), {"exclusive": exclusive, "reverse": reverse}
    yield (rng.standard_normal((3, 2, 2)), 0), {}
    yield (rng.standard_normal((4,)), -1), {"reverse": True}


def _cumprod(rng):
    for exclusive, reverse in FLAGS:
        x = rng.uniform(0.5, 1.5, (2, 3)) * rng.choice([-1.0, 1.0], (2, 3))
        yield (x, 1), {"exclusive": exclusive, "reverse": reverse}
    # No zeros: CumProd's rule divides by x, as MindSpore's does (NaN where x == 0).
    yield (rng.uniform(0.5, 1.5, (3, 2, 2)), 0), {}


SAMPLES = {"CumSum": _cumsum, "CumProd": _cumprod}
