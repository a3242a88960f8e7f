"""Samples for Slice, StridedSlice (with each mask), Pad and PadV3."""


def _slice(rng):
    yield (rng.standard_normal((3, 4, 2)), (1, 0, 0), (2, -1, 1)), {}


def _strided_slice(rng):
    x = rng.standard_normal((4, 5))
    yield (x, (0, 1), (4, 5), (2, 2)), {}
    yield (x, (3, 4), (0, 0), (-1, -2)), {}  # negative strides
    yield (x, (1, 0), (3, 3), (1, 1)), {"begin_mask": 1, "end_mask": 2}
    yield (x, (2, 0), (3, 5), (1, 1)), {"shrink_axis_mask": 1}
    yield (x, (0, 0, 1), (1, 4, 4), (1, 1, 1)), {"new_axis_mask": 1}
    y = rng.standard_normal((2, 3, 4))
    yield (y, (0, 1), (1, 3), (1, 1)), {"ellipsis_mask": 1}


def _pad(rng):
    yield (rng.standard_normal((2, 3)),), {"paddings": ((1, 0), (2, 1))}


def _pad_v3(rng):
    x = rng.standard_normal((2, 3, 4))
    yield (x, (1, 2), 0), {}
    yield (x, (1, -1, 0, 2), 1.5), {}  # a negative padding crops
    yield (x, (1, 0, 2, 1), 0), {"paddings_contiguous": False}


SAMPLES = {"Slice": _slice, "StridedSlice": _strided_slice, "Pad": _pad, "PadV3": _pad_v3}
