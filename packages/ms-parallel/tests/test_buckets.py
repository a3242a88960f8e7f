"""Bucket planning: every gradient once, one dtype per bucket, the size limit kept."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ms_parallel.buckets import plan_buckets

DTYPES = [np.float32, np.float64, np.float16]


@settings(deadline=None)  # CI's 2 shared cores: a slow example is not a failure
@given(st.lists(st.tuples(st.integers(1, 50), st.sampled_from(DTYPES)), min_size=1,
                max_size=12), st.sampled_from([None, 0, 64, 400]), st.sampled_from([None, 40]))
def test_partition_properties(specs, limit, first):
    grads = [np.zeros(n, dt) for n, dt in specs]
    buckets = plan_buckets(grads, limit, first_bytes=first)
    assert sorted(i for b in buckets for i in b) == list(range(len(grads)))
    for b in buckets:
        assert len({grads[i].dtype for i in b}) == 1
        assert b == sorted(b, reverse=True)  # the order a backward pass finishes them
        if limit is not None and len(b) > 1:
            assert sum(grads[i].nbytes for i in b) <= limit
    if first is not None and limit is not None:
        for dt in {g.dtype for g in grads}:
            head = next(b for b in buckets if grads[b[0]].dtype == dt)
            assert len(head) == 1 or sum(grads[i].nbytes for i in head) <= min(first, limit)
    if limit == 0:
        assert all(len(b) == 1 for b in buckets)
    if limit is None:
        assert len(buckets) == len({g.dtype for g in grads})


def test_fusion_indices_split_the_parameters():
    grads = [np.zeros(3, np.float32)] * 5
    assert plan_buckets(grads, split_indices=[2, 4]) == [[4], [3, 2], [1, 0]]


@settings(deadline=None)
@given(st.lists(st.tuples(st.integers(1, 50), st.integers(0, 3)), min_size=1, max_size=12),
       st.sampled_from([64, 400, 10_000]), st.sampled_from([None, 40]))
def test_layers_stay_together_and_the_first_is_alone(specs, limit, first):
    grads = [np.zeros(n, np.float32) for n, _ in specs]
    layers = [layer for _, layer in specs]
    buckets = plan_buckets(grads, limit, first_bytes=first, groups=layers)
    assert sorted(i for b in buckets for i in b) == list(range(len(grads)))
    for b in buckets:
        assert b == sorted(b, reverse=True)
        if len(b) > 1:
            assert sum(grads[i].nbytes for i in b) <= limit
    last = buckets[-1]
    assert 0 in last and all(layers[i] == layers[0] for i in last)
    # a layer whose gradients fit in one bucket is not split, unless a limit forced it
    if first is None and limit == 10_000:
        for layer in set(layers):
            where = {k for k, b in enumerate(buckets) for i in b if layers[i] == layer}
            runs = [i for i in range(len(layers)) if layers[i] == layer]
            if runs == list(range(runs[0], runs[-1] + 1)):
                assert len(where) == 1
