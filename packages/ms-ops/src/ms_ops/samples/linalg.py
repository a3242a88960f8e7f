"""Samples for MatMul and BatchMatMul, every transpose combination."""

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


SAMPLES = {"MatMul": _matmul, "BatchMatMul": _batch_matmul}
