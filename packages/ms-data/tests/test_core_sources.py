from itertools import islice

import numpy as np
import pytest

import ms_data as ds
from ms_data import config
from ms_data.dataset import EpochContext


@pytest.fixture(autouse=True)
def _seed():
    old = (config._seed, config._seed_set)
    ds.config.set_seed(5)
    yield
    config._seed, config._seed_set = old


def ids(d):
    return [int(r[0]) for r in d.create_tuple_iterator(num_epochs=1, output_numpy=True)]


def test_numpy_slices_column_names_as_mindspore():
    assert ds.NumpySlicesDataset(np.ones((3, 2)), shuffle=False).get_col_names() == ["column_0"]
    pair = ds.NumpySlicesDataset((np.ones((3, 2)), np.ones(3)), shuffle=False)
    assert pair.get_col_names() == ["column_0", "column_1"]
    assert ds.NumpySlicesDataset([[1, 2], [3, 4]], shuffle=False).output_shapes() == [[2]]
    assert ds.NumpySlicesDataset([1.0, 2.0], shuffle=False).output_types() == [np.float64]
    named = ds.NumpySlicesDataset([1, 2], column_names=["n"], shuffle=False)
    assert named.get_col_names() == ["n"]
    with pytest.raises(ValueError, match="different lengths"):
        ds.NumpySlicesDataset({"a": [1, 2], "b": [1]})


def test_generator_function_iterable_and_num_samples():
    def gen():
        for i in range(5):
            yield np.array([i, i]), np.array(i * 1.5)
    d = ds.GeneratorDataset(gen, ["x", "y"])
    assert d.get_col_names() == ["x", "y"] and d.get_dataset_size() == 5
    assert d.output_shapes() == [[2], []] and d.output_types() == [np.int64, np.float64]
    assert ids(ds.GeneratorDataset(gen, ["x", "y"], num_samples=3).project("y")) == [0, 1, 3]
    assert ids(ds.GeneratorDataset([(1,), (2,)], "v", shuffle=False)) == [1, 2]
    cast = ds.GeneratorDataset(gen, ["x", "y"], column_types=[np.int32, np.float32])
    assert cast.output_types() == [np.int32, np.float32]


def test_random_access_source_shuffle_shards_and_sampler():
    class Source:
        def __getitem__(self, i):
            return (np.array(i),)

        def __len__(self):
            return 10
    assert ids(ds.GeneratorDataset(Source(), "i", shuffle=False)) == list(range(10))
    shuffled = ids(ds.GeneratorDataset(Source(), "i"))
    assert sorted(shuffled) == list(range(10)) and shuffled != list(range(10))
    shards = [ids(ds.GeneratorDataset(Source(), "i", shuffle=False, num_shards=3, shard_id=k))
              for k in range(3)]
    assert shards == [[0, 3, 6, 9], [1, 4, 7, 0], [2, 5, 8, 1]]
    picked = ds.GeneratorDataset(Source(), "i", sampler=ds.SubsetSampler([4, 1, 1]))
    assert ids(picked) == [4, 1, 1] and picked.get_dataset_size() == 3


@pytest.mark.parametrize("kwargs,error,match", [
    ({"sampler": ds.SequentialSampler(), "shuffle": True}, RuntimeError, "sampler and shuffle"),
    ({"sampler": ds.SequentialSampler(), "num_shards": 2, "shard_id": 0}, RuntimeError,
     "sampler and sharding"),
    ({"num_shards": 2}, RuntimeError, "requires shard_id"),
    ({"shard_id": 0}, RuntimeError, "num_shards is not"),
    ({"num_shards": 2, "shard_id": 2}, ValueError, r"\[0, 1\]"),
])
def test_source_option_conflicts(kwargs, error, match):
    with pytest.raises(error, match=match):
        ds.NumpySlicesDataset(np.arange(4), **kwargs)


def test_generator_without_random_access_rejects_samplers():
    with pytest.raises(ValueError, match="random-access"):
        ds.GeneratorDataset(lambda: iter([(1,)]), "x", shuffle=True)


def test_samplers():
    ctx = EpochContext(0, seed=1)
    assert ds.SequentialSampler(2, 3).indices(10, ctx).tolist() == [2, 3, 4]
    assert ds.SequentialSampler(8).get_num_samples(10) == 2
    perm = ds.RandomSampler().indices(10, ctx)
    assert sorted(perm.tolist()) == list(range(10))
    assert perm.tolist() == ds.RandomSampler().indices(10, EpochContext(0, seed=1)).tolist()
    assert perm.tolist() != ds.RandomSampler().indices(10, EpochContext(1, seed=1)).tolist()
    assert len(ds.RandomSampler(replacement=True, num_samples=25).indices(10, ctx)) == 25
    dist = ds.DistributedSampler(4, 1, shuffle=False)
    assert dist.indices(10, ctx).tolist() == [1, 5, 9] and dist.get_num_samples(10) == 3
    subset = ds.SubsetRandomSampler([3, 5, 7]).indices(10, ctx).tolist()
    assert sorted(subset) == [3, 5, 7]
    with pytest.raises(IndexError, match="index 12 out of range"):
        ds.SubsetSampler([1, 12]).indices(10, ctx)
    weighted = ds.WeightedRandomSampler([0, 0, 1], num_samples=3).indices(3, ctx)
    assert weighted.tolist() == [2, 2, 2]


def test_shuffled_shards_are_disjoint_without_a_seed():
    import ms_data as ds

    data = np.arange(12)
    rows = []
    for shard in range(3):
        shard_ds = ds.NumpySlicesDataset(data, column_names=["x"], shuffle=True,
                                         num_shards=3, shard_id=shard)
        rows += [int(r[0]) for r in shard_ds.create_tuple_iterator(output_numpy=True)]
    assert sorted(rows) == list(range(12))


class _Restarting:
    """An iterable source as tutorials write it: ``__iter__`` resets and returns self."""

    def __init__(self, n):
        self.n, self.i = n, 0

    def __iter__(self):
        self.i = 0
        return self

    def __next__(self):
        if self.i >= self.n:
            raise StopIteration
        self.i += 1
        return (np.array([self.i], np.float32),)

    def __len__(self):
        return self.n


def test_iterable_source_whose_iter_restarts_is_read_once_per_epoch():
    data = ds.GeneratorDataset(_Restarting(300), ["x"], shuffle=False)
    for _ in range(2):
        # at most one row more than there is: a source read again from its start would
        # otherwise never end
        rows = islice(data.create_tuple_iterator(output_numpy=True, num_epochs=1), 301)
        assert [int(r[0][0]) for r in rows] == list(range(1, 301))
    assert data.get_dataset_size() == 300
