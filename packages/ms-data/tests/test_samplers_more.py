"""BuiltinSampler/Sampler/IterSampler/PKSampler, chained samplers and the base classes
(expected values from MindSpore 2.10 on the same inputs)."""

import numpy as np
import pytest
from PIL import Image

import ms_data as ds


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    root = tmp_path_factory.mktemp("pk")
    for cls, n in [("a", 5), ("b", 2), ("c", 4)]:
        (root / cls).mkdir()
        for i in range(n):
            Image.fromarray(np.full((4, 4, 3), i, np.uint8)).save(root / cls / f"{i}.png")
    return str(root)


def _rows(data):
    return [(int(x["label"]), int(x["image"][0, 0, 0]))
            for x in data.create_dict_iterator(num_epochs=1, output_numpy=True)]


@pytest.mark.parametrize("shuffle", [False, True])
def test_pk_sampler_takes_k_rows_of_every_class(folder, shuffle):
    data = ds.ImageFolderDataset(folder, sampler=ds.PKSampler(3, shuffle=shuffle), decode=True)
    rows = _rows(data)
    assert data.get_dataset_size() == 9 and len(rows) == 9
    labels = [lab for lab, _ in rows]
    assert sorted(labels) == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    if not shuffle:
        assert labels == sorted(labels)
    sizes = {0: 5, 1: 2, 2: 4}  # image values are the file index within the class
    assert all(0 <= v < sizes[lab] for lab, v in rows)


def test_pk_sampler_errors_like_mindspore():
    with pytest.raises(TypeError, match="num_val must be integer"):
        ds.PKSampler(2.0)
    with pytest.raises(TypeError, match="class_column"):
        ds.PKSampler(2, class_column=3)
    with pytest.raises(NotImplementedError, match="num_class"):
        ds.PKSampler(2, num_class=2)
    with pytest.raises(ValueError, match="doesn't support PKSampler"):
        list(ds.NumpySlicesDataset({"label": [1, 1, 2]}, sampler=ds.PKSampler(2)))


def _values(data):
    return [int(x[0]) for x in data.create_tuple_iterator(num_epochs=1, output_numpy=True)]


def test_iter_sampler_and_user_sampler():
    data = ds.NumpySlicesDataset([10, 11, 12, 13], sampler=ds.IterSampler([3, 1, 2]))
    assert _values(data) == [13, 11, 12] and data.get_dataset_size() == 3
    data = ds.NumpySlicesDataset([10, 11, 12, 13], sampler=ds.IterSampler([3, 1, 2], 2))
    assert _values(data) == [13, 11] and data.get_dataset_size() == 2

    class Backwards(ds.Sampler):
        def __iter__(self):
            yield from range(self.dataset_size - 1, -1, -2)

    assert _values(ds.NumpySlicesDataset(list(range(10, 15)), sampler=Backwards())) == \
        [14, 12, 10]
    assert _values(ds.NumpySlicesDataset(list(range(10, 15)), sampler=Backwards(2))) == [14, 12]
    assert not isinstance(ds.SequentialSampler(), ds.Sampler)
    assert isinstance(ds.SequentialSampler(), ds.BuiltinSampler)
    assert isinstance(ds.IterSampler([1]), ds.Sampler)


def test_chained_samplers_and_mappable_methods():
    parent = ds.SequentialSampler(1, 3)
    parent.add_child(ds.SubsetSampler([5, 4, 3, 2, 1]))
    data = ds.NumpySlicesDataset(list(range(10, 20)), sampler=parent)
    assert _values(data) == [14, 13, 12] and data.get_dataset_size() == 3
    with pytest.raises(RuntimeError, match="already has a child"):
        parent.add_child(ds.SequentialSampler())
    data = ds.NumpySlicesDataset(list(range(10, 20)), shuffle=False)
    data.add_sampler(ds.SequentialSampler(0, 2))
    assert _values(data) == [10, 11] and not data.is_shuffled() and not data.is_sharded()
    data = ds.NumpySlicesDataset(list(range(10, 20)), num_shards=2, shard_id=1)
    assert data.is_shuffled() and data.is_sharded()
    data.use_sampler(ds.SequentialSampler(num_samples=2))
    assert _values(data) == [10, 11] and not data.is_shuffled()


BASES = ["SourceDataset", "MappableDataset", "VisionBaseDataset", "TextBaseDataset",
         "AudioBaseDataset", "UnionBaseDataset"]


def test_base_classes_follow_mindspore(folder):
    def flags(d):
        return [isinstance(d, getattr(ds, c)) for c in BASES]

    assert flags(ds.NumpySlicesDataset([1])) == [True] * 6
    assert flags(ds.NumpySlicesDataset([1]).batch(1)) == [False, False, True, True, True, True]
    assert flags(ds.ImageFolderDataset(folder)) == [True, True, True, False, False, False]
