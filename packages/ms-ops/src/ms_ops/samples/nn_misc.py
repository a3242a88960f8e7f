"""Samples for Dropout, UnsortedSegmentSum, EmbeddingLookup and Embedding.

Dropout is seeded (``Seed0``/``Seed1``), so every call draws the same mask and finite
differences see one function.
"""

import numpy as np


def _dropout(rng):
    yield (rng.standard_normal((3, 4)),), {"keep_prob": 0.6, "Seed0": 1, "Seed1": 2}
    yield (rng.standard_normal((2, 3)),), {"keep_prob": 1.0, "Seed0": 3, "Seed1": 0}


def _segment_sum(rng):
    yield (rng.standard_normal((5, 2)), np.array([0, 2, 0, 1, 2]), 3), {}
    # 2-d ids; an id outside [0, num_segments) is dropped, segment 3 stays empty
    yield (rng.standard_normal((2, 3, 2)), np.array([[1, -1, 0], [4, 1, 2]]), 4), {}


def _embedding_lookup(rng):
    yield (rng.standard_normal((4, 3)), np.array([[0, 3], [1, 0]]), 0), {}
    # a shard holding rows 2..5: ids below 2 or above 5 read zeros
    yield (rng.standard_normal((4, 2)), np.array([1, 2, 5, 6, 3, 3]), 2), {}


def _embedding(rng):
    # Static inputs: padding_idx, max_norm, norm_type, scale_grad_by_freq. Those three
    # options make the rule differ from the derivative on purpose (MindSpore's rule: the
    # padding row gets no gradient, gradients are divided by counts, the max_norm rescale
    # is treated as an in-place update of weight). The samples run their code paths where
    # rule and derivative agree: padding_idx not looked up, distinct ids, norms below
    # max_norm.
    ids = np.array([[0, 3, 1], [3, 4, 3]])
    yield (ids, rng.standard_normal((5, 3)), None, None, 2.0, False), {}
    yield (ids, rng.standard_normal((5, 3)), 2, None, 2.0, False), {}
    yield (np.array([4, 0, 2]), rng.standard_normal((5, 3)), None, None, 2.0, True), {}
    yield (ids, 0.2 * rng.standard_normal((5, 3)), None, 1.0, 2.0, False), {}


SAMPLES = {"Dropout": _dropout, "UnsortedSegmentSum": _segment_sum,
           "EmbeddingLookup": _embedding_lookup, "Embedding": _embedding}
