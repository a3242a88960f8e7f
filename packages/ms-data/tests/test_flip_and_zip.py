"""vision.HorizontalFlip / VerticalFlip (every image mirrored) and ``ds.zip``."""

import numpy as np
import pytest

import ms_data as ds
from ms_data import vision


@pytest.mark.parametrize("shape", [(4, 5), (4, 5, 3)])
def test_flips_mirror_every_image_and_batch(shape):
    img = np.arange(np.prod(shape), dtype=np.uint8).reshape(shape)
    np.testing.assert_array_equal(vision.HorizontalFlip()(img), img[:, ::-1])
    np.testing.assert_array_equal(vision.VerticalFlip()(img), img[::-1])
    batch = np.stack([img, img + 1])
    np.testing.assert_array_equal(vision.HorizontalFlip().batch_call(batch), batch[:, :, ::-1])
    assert not vision.HorizontalFlip().is_random


def test_flip_in_a_pipeline_and_bad_input():
    data = ds.NumpySlicesDataset({"image": np.arange(24, dtype=np.float32).reshape(2, 3, 4)},
                                 shuffle=False).map(vision.VerticalFlip(), "image")
    rows = [r["image"] for r in data.create_dict_iterator(output_numpy=True)]
    np.testing.assert_array_equal(rows[1], np.arange(12, 24).reshape(3, 4)[::-1])
    with pytest.raises((TypeError, ValueError), match="HorizontalFlip"):
        vision.HorizontalFlip()(np.zeros(3))


def test_zip_function_puts_rows_side_by_side():
    a = ds.NumpySlicesDataset({"x": np.arange(3)}, shuffle=False)
    b = ds.NumpySlicesDataset({"y": np.arange(4) * 10}, shuffle=False)
    rows = [(int(r["x"]), int(r["y"]))
            for r in ds.zip((a, b)).create_dict_iterator(output_numpy=True)]
    assert rows == [(0, 0), (1, 10), (2, 20)]
    with pytest.raises(ValueError, match="at least two datasets"):
        ds.zip((a,))
    with pytest.raises(TypeError, match="tuple of datasets"):
        ds.zip([a, b])
