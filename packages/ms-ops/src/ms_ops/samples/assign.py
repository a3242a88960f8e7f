"""Samples for the in-place assignments (they only need to run)."""


def _assign(rng):
    yield (rng.standard_normal((2, 3)), rng.standard_normal((2, 3))), {}
    yield (rng.standard_normal((2, 3)), rng.standard_normal((3,))), {}


SAMPLES = {"Assign": _assign, "AssignAdd": _assign, "AssignSub": _assign}
