"""Samples for LogSumExp and ReduceStd over several axes, ``keep_dims`` both ways, and
ReduceStd biased and unbiased."""


def _logsumexp(rng):
    yield (rng.standard_normal((2, 3, 2)), ()), {}
    yield (rng.standard_normal((2, 3, 2)), 1), {"keep_dims": True}
    yield (rng.standard_normal((2, 3, 2)), (0, 2)), {}
    yield (rng.standard_normal((4,)), ()), {}


def _std(rng):
    yield (rng.standard_normal((2, 3, 2)),), {}
    yield (rng.standard_normal((2, 3, 2)),), {"axis": 1, "unbiased": False, "keep_dims": True}
    yield (rng.standard_normal((2, 3, 2)),), {"axis": (0, 2)}
    yield (rng.standard_normal((4, 3)),), {"axis": -1, "unbiased": False}


SAMPLES = {"LogSumExp": _logsumexp, "ReduceStd": _std}
