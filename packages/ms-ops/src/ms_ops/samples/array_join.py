"""Samples for Concat, Unstack, Split and SplitV."""


def _concat(rng):
    yield (rng.standard_normal((2, 3)), rng.standard_normal((1, 3))), {"axis": 0}
    yield (rng.standard_normal((2, 2)), rng.standard_normal((2, 3))), {"axis": -1}


def _unstack(rng):
    yield (rng.standard_normal((3, 2, 2)),), {"axis": 0}
    yield (rng.standard_normal((3, 2, 2)),), {"axis": -1, "num": 2}


def _split(rng):
    yield (rng.standard_normal((4, 3)),), {"axis": 0, "output_num": 2}
    yield (rng.standard_normal((2, 3)),), {"axis": 1, "output_num": 3}


def _split_v(rng):
    yield (rng.standard_normal((5, 2)),), {"size_splits": (2, -1), "split_dim": 0,
                                           "num_split": 2}
    yield (rng.standard_normal((2, 6)),), {"size_splits": (1, 2, 3), "split_dim": -1,
                                           "num_split": 3}


SAMPLES = {"Concat": _concat, "Unstack": _unstack, "Split": _split, "SplitV": _split_v}
