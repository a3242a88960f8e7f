"""Samples for MatMul and BatchMatMul (every transpose combination) and Dense (with and
without bias, 1-d to 3-d inputs)."""

FLAGS = [(False, False), (False, True), (True, False), (True, True)]


def _matmul(rng):
    for ta, tb in FLAGS:
        x = rng.standard_normal((4, 3) if ta else (3, 4))
        y = rng.standard_normal((5, 4) if tb else (4, 5))
        yield (x, y), {"transpose_a": ta, "transpose_b": tb}


def _batch_matmul(rng):
    for ta, tb in FLAGS:
        x = rng.standard_normal((2, 1, 4, 3) if ta else (2, 1, 3, 4))
        y = rng.standard_normal((3, 5, 4) if tb else (3, 4, 5))
        yield (x, y), {"transpose_a": ta, "transpose_b": tb}


def _dense(rng):
    w, b = rng.standard_normal((5, 4)), rng.standard_normal(5)
    for shape in ((3, 4), (4,), (2, 3, 4)):
        x = rng.standard_normal(shape)
        yield (x, w, b), {}
        yield (x, w), {}


SAMPLES = {"MatMul": _matmul, "BatchMatMul": _batch_matmul, "Dense": _dense}
