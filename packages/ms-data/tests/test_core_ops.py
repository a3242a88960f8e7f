import numpy as np
import pytest

import ms_data as ds
from ms_data import config


@pytest.fixture(autouse=True)
def _seed():
    old = (config._seed, config._seed_set)
    ds.config.set_seed(7)
    yield
    config._seed, config._seed_set = old


def rows(dataset, column=0):
    return [r[column].tolist() for r in dataset.create_tuple_iterator(num_epochs=1,
                                                                      output_numpy=True)]


def slices(n=10, **kw):
    return ds.NumpySlicesDataset({"a": np.arange(n), "b": np.arange(2 * n).reshape(n, 2)},
                                 shuffle=False, **kw)


def test_map_places_outputs_like_mindspore():
    d = ds.NumpySlicesDataset({"a": [1, 2], "b": [10, 20], "d": [5, 6]}, shuffle=False)
    assert d.map(lambda b: (b, b + 1), "b", ["x", "y"]).get_col_names() == ["x", "y", "a", "d"]
    swapped = d.map(lambda d_, a: (a, d_), ["d", "a"], ["p", "q"])
    assert swapped.get_col_names() == ["q", "b", "p"]
    assert rows(swapped, 0) == [5, 6] and rows(swapped, 2) == [1, 2]
    merged = d.map(lambda a, b: a + b, ["a", "b"], ["c"])
    assert merged.get_col_names() == ["c", "d"] and rows(merged) == [11, 22]


def test_map_chains_operations_and_rejects_bad_columns():
    assert rows(slices(4).map([lambda a: a * 3, lambda a: a + 1], "a")) == [1, 4, 7, 10]
    with pytest.raises(ValueError, match=r"input_columns \['zz'\] not in"):
        slices().map(lambda x: x, "zz")
    with pytest.raises(ValueError, match="clash"):
        slices().map(lambda a: a, "a", "b")


def test_batch_sizes_drop_remainder_and_larger_than_dataset():
    assert [len(r) for r in rows(slices(7).batch(3))] == [3, 3, 1]
    assert [len(r) for r in rows(slices(7).batch(3, drop_remainder=True))] == [3, 3]
    assert rows(slices(3).batch(5)) == [[0, 1, 2]]
    assert rows(slices(3).batch(5, drop_remainder=True)) == []
    d = slices(7).batch(3, drop_remainder=True)
    assert d.get_dataset_size() == 2 and d.get_batch_size() == 3
    assert d.output_shapes() == [[3], [3, 2]]
    assert d.output_types() == [np.dtype("int64"), np.dtype("int64")]


def test_batch_across_chunks_and_variable_shapes():
    big = ds.NumpySlicesDataset(np.arange(600), shuffle=False).batch(250)
    assert [r[0] for r in rows(big)] == [0, 250, 500]

    def gen():
        for n in (1, 3, 2):
            yield (np.arange(n),)
    with pytest.raises(RuntimeError, match=r"inconsistent shapes in column 'x'.*\[1\].*\[3\]"):
        rows(ds.GeneratorDataset(gen, "x").batch(3))
    padded = ds.GeneratorDataset(gen, "x").batch(3, pad_info={"x": ([4], -1)})
    assert rows(padded) == [[[0, -1, -1, -1], [0, 1, 2, -1], [0, 1, -1, -1]]]


def test_batch_per_batch_map_and_callable_size():
    def double(a, info):
        return ([x * 2 for x in a],)
    assert rows(slices(5).batch(2, per_batch_map=double, input_columns=["a"])) == \
        [[0, 2], [4, 6], [8]]
    growing = slices(6).batch(lambda info: info.get_batch_num() + 1)
    assert rows(growing) == [[0], [1, 2], [3, 4, 5]]


def test_shuffle_is_a_seeded_permutation_that_changes_per_epoch():
    d = ds.NumpySlicesDataset(np.arange(50), shuffle=False).shuffle(8)
    it = d.create_tuple_iterator(num_epochs=2, output_numpy=True)
    first = [int(r[0]) for r in it]
    second = [int(r[0]) for r in it]
    assert sorted(first) == list(range(50)) and sorted(second) == list(range(50))
    assert first != list(range(50)) and first != second
    assert first == [int(r[0]) for r in d]  # same seed, same first epoch
    # a buffer of 8 can only delay a row, and moves it forward by at most 7
    assert all(first.index(i) >= i - 7 for i in range(50))
    with pytest.raises(ValueError, match="buffer_size"):
        d.shuffle(1)


def test_repeat_after_shuffle_reshuffles_each_repetition():
    d = ds.NumpySlicesDataset(np.arange(20), shuffle=False).shuffle(20).repeat(2)
    out = [int(r[0]) for r in d]
    assert sorted(out[:20]) == sorted(out[20:]) == list(range(20))
    assert out[:20] != out[20:]
    assert d.get_dataset_size() == 40 and d.get_repeat_count() == 2


def test_take_skip_repeat_sizes():
    d = slices(10)
    assert rows(d.take(3)) == [0, 1, 2] and rows(d.skip(8)) == [8, 9]
    assert rows(d.skip(8).repeat(2)) == [8, 9, 8, 9]
    assert rows(d.repeat().take(12))[-2:] == [0, 1]
    assert d.repeat().get_dataset_size() == -1 and d.take(20).get_dataset_size() == 10
    assert rows(d.take(0)) == [] and rows(d.skip(20)) == []
    with pytest.raises(ValueError, match="repeat: count"):
        d.repeat(0)


def test_zip_concat_project_rename():
    a = slices(5)
    c = ds.NumpySlicesDataset({"c": [7, 8, 9]}, shuffle=False)
    z = a.zip(c)
    assert z.get_col_names() == ["a", "b", "c"] and z.get_dataset_size() == 3
    assert rows(z, 2) == [7, 8, 9] and rows(z, 0) == [0, 1, 2]
    with pytest.raises(ValueError, match="column name 'a'"):
        a.zip(slices(3))
    joined = c + c.take(1)
    assert rows(joined) == [7, 8, 9, 7] and joined.get_dataset_size() == 4
    with pytest.raises(ValueError, match="concat"):
        a.concat(c)
    p = a.project(["b", "a"]).rename("b", "bb")
    assert p.get_col_names() == ["bb", "a"] and rows(p, 1) == [0, 1, 2, 3, 4]


def test_filter_keeps_matching_rows():
    f = slices(10).filter(lambda a: a % 3 == 0, input_columns="a")
    assert rows(f) == [0, 3, 6, 9] and f.get_dataset_size() == 4
    assert rows(slices(4).filter(lambda a, b: False)) == []


def test_split_by_counts_and_fractions():
    d = ds.NumpySlicesDataset(np.arange(10), shuffle=False)
    first, second = d.split([6, 4], randomize=False)
    assert rows(first) == [0, 1, 2, 3, 4, 5] and rows(second) == [6, 7, 8, 9]
    x, y = d.split([0.75, 0.25])
    assert sorted(rows(x) + rows(y)) == list(range(10))
    # sizes MindSpore 2.10 gives for 10 rows (rounded; the first split takes the rest)
    for fractions, sizes in (([0.75, 0.25], [8, 2]), ([0.45, 0.45, 0.1], [5, 4, 1]),
                             ([0.33, 0.33, 0.34], [4, 3, 3])):
        assert [p.get_dataset_size() for p in d.split(fractions)] == sizes
    with pytest.raises(RuntimeError, match="sum to 9"):
        d.split([5, 4])
    with pytest.raises(RuntimeError, match="randomize=True needs a mappable"):
        d.map(lambda x: x).split([5, 5])


def test_bucket_batch_by_length_groups_and_pads():
    def gen():
        for n in (1, 5, 2, 7, 3, 3, 8, 1):
            yield (np.arange(n),)
    d = ds.GeneratorDataset(gen, ["x"]).bucket_batch_by_length(
        ["x"], [3, 6], [2, 2, 2], pad_info={"x": (None, -1)})
    assert rows(d) == [[[0, -1], [0, 1]], [[0, 1, 2, 3, 4], [0, 1, 2, -1, -1]],
                       [[0, 1, 2, 3, 4, 5, 6, -1], list(range(8))], [[0]], [[0, 1, 2]]]


def test_consecutive_maps_on_one_column_run_as_one_fused_map():
    import ms_data as ds
    from ms_data import vision
    from ms_data.ops.map import MapDataset

    images = np.random.default_rng(0).integers(0, 256, (8, 28, 28, 1), dtype=np.uint8)
    base = ds.NumpySlicesDataset({"image": images}, shuffle=False)
    chained = base.map(vision.Resize((32, 32)), "image").map(vision.Rescale(1 / 255, 0), "image")
    chained = chained.map(vision.HWC2CHW(), "image")
    assert isinstance(chained, MapDataset) and chained.children[0] is base
    assert len(chained.operations) == 3
    one = base.map([vision.Resize((32, 32)), vision.Rescale(1 / 255, 0), vision.HWC2CHW()],
                   "image")
    a = np.stack([r[0] for r in chained.create_tuple_iterator(output_numpy=True)])
    b = np.stack([r[0] for r in one.create_tuple_iterator(output_numpy=True)])
    assert a.shape == (8, 1, 32, 32)
    np.testing.assert_array_equal(a, b)
