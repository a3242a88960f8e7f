"""FakeImageDataset: columns, dtypes, shapes, sizes and errors as MindSpore 2.10; the same
rows for the same seed, whatever the sampler."""

import numpy as np
import pytest

import ms_data as ds


def rows(d):
    return list(d.create_dict_iterator(num_epochs=1, output_numpy=True))


def test_columns_and_determinism():
    d = ds.FakeImageDataset(num_images=4, image_size=(5, 6, 3), num_classes=3, base_seed=1,
                            shuffle=False)
    assert d.get_col_names() == ["image", "label"] and d.get_dataset_size() == 4
    assert d.output_types() == [np.uint8, np.uint32] and d.output_shapes() == [[5, 6, 3], []]
    a = rows(d)
    assert all(0 <= int(r["label"]) < 3 for r in a)
    b = rows(ds.FakeImageDataset(num_images=4, image_size=(5, 6, 3), num_classes=3,
                                 base_seed=1, sampler=[3, 0]))
    np.testing.assert_array_equal(b[0]["image"], a[3]["image"])
    c = rows(ds.FakeImageDataset(num_images=4, image_size=(5, 6, 3), base_seed=2,
                                 shuffle=False))
    assert not np.array_equal(c[0]["image"], a[0]["image"])
    assert ds.FakeImageDataset(num_images=4, num_samples=2).get_dataset_size() == 2


def test_errors():
    with pytest.raises(ValueError, match="num_images"):
        ds.FakeImageDataset(num_images=0)
    with pytest.raises(ValueError, match="length 3"):
        ds.FakeImageDataset(image_size=(5, 6))
    with pytest.raises(ValueError, match="base_seed"):
        ds.FakeImageDataset(base_seed=-1)
