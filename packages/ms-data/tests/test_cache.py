"""DatasetCache: later epochs and other pipelines of the session read the stored rows."""

import numpy as np
import pytest

import ms_data as ds

CALLS = []


def counted(x):
    CALLS.append(int(x.flat[0]))
    return x * 2


def _values(data, epochs=1):
    it = data.create_tuple_iterator(num_epochs=epochs, output_numpy=True)
    return [[int(r[0].flat[0]) for r in it] for _ in range(epochs)]


def test_map_cache_serves_later_epochs_and_other_pipelines():
    CALLS.clear()
    cache = ds.DatasetCache(session_id=101)
    data = ds.NumpySlicesDataset(np.arange(5), shuffle=False).map(
        counted, num_parallel_workers=1, cache=cache)
    assert _values(data, 2) == [[0, 2, 4, 6, 8]] * 2
    assert CALLS == [0, 1, 2, 3, 4]  # the second epoch came from the cache
    again = ds.NumpySlicesDataset(np.arange(5), shuffle=False).map(
        counted, num_parallel_workers=1, cache=ds.DatasetCache(session_id=101))
    assert _values(again) == [[0, 2, 4, 6, 8]] and CALLS == [0, 1, 2, 3, 4]
    other = ds.NumpySlicesDataset(np.arange(3), shuffle=False).map(
        counted, num_parallel_workers=1, cache=cache)
    assert _values(other) == [[0, 2, 4]] and CALLS == [0, 1, 2, 3, 4, 0, 1, 2]
    stat = cache.get_stat()
    assert (stat.num_mem_cached, stat.num_disk_cached) == (8, 0) and stat.avg_cache_sz > 0


def _big(session, spilling):
    rows = np.zeros((3, 400_000), np.uint8)  # 1.2 MB against a 1 MB cache
    return ds.NumpySlicesDataset(rows, shuffle=False).map(
        counted, num_parallel_workers=1, cache=ds.DatasetCache(session, size=1,
                                                               spilling=spilling))


def test_a_full_cache_recomputes_or_spills():
    CALLS.clear()
    assert _values(_big(102, False), 2) == [[0] * 3] * 2 and len(CALLS) == 6
    CALLS.clear()
    data = _big(103, True)
    assert _values(data, 2) == [[0] * 3] * 2 and len(CALLS) == 3
    stat = data.cache.get_stat()
    assert stat.num_disk_cached > 0 and stat.num_mem_cached + stat.num_disk_cached == 3


def test_source_cache_and_serialization():
    cache = ds.DatasetCache(session_id=104)
    data = ds.RandomDataset(total_rows=3, cache=cache)
    first = _values(data)
    assert _values(data) == first and cache.get_stat().num_mem_cached == 3
    again = ds.deserialize(input_dict=ds.serialize(data))
    assert _values(again) == first and again.cache.session_id == 104


def test_arguments_are_checked():
    with pytest.raises(ValueError, match="session_id"):
        ds.DatasetCache(0)
    with pytest.raises(ValueError, match="no cache server"):
        ds.DatasetCache(1, hostname="10.0.0.2")
    with pytest.raises(TypeError, match="DatasetCache"):
        ds.NumpySlicesDataset([1]).map(counted, cache="yes")
