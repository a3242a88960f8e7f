import os

import numpy as np

from ms_data.bundled import digits_dir
from ms_data.sources.mnist import IMAGES_MAGIC, LABELS_MAGIC, MnistDataset, read_idx


def test_bundled_digits_files_have_mnist_names():
    assert sorted(os.listdir(digits_dir())) == [
        "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte",
        "train-images-idx3-ubyte", "train-labels-idx1-ubyte",
    ]


def test_bundled_digits_counts_and_labels():
    train = MnistDataset(digits_dir(), usage="train")
    test = MnistDataset(digits_dir(), usage="test")
    assert (train.get_dataset_size(), test.get_dataset_size()) == (1500, 297)
    labels = read_idx(os.path.join(digits_dir(), "train-labels-idx1-ubyte"), LABELS_MAGIC)
    counts = np.bincount(labels, minlength=10)
    assert counts.sum() == 1500 and len(counts) == 10
    # scikit-learn's digits are balanced (about 180 per class); a shuffled 1500 keeps that.
    assert counts.min() >= 130 and counts.max() <= 170


def test_bundled_digits_pixels_look_like_digits():
    images = read_idx(os.path.join(digits_dir(), "t10k-images-idx3-ubyte"), IMAGES_MAGIC)
    assert images.shape == (297, 28, 28) and images.dtype == np.uint8
    assert images.min() == 0 and images.max() == 255
    # Dark background, bright strokes: border pixels are nearly all 0, the middle is not.
    assert images[:, :, 0].mean() < 5 and images[:, 10:18, 10:18].mean() > 60


def test_bundled_digits_read_through_the_dataset():
    ds = MnistDataset(digits_dir(), usage="test", shuffle=False, num_samples=3)
    got = list(ds.create_tuple_iterator(num_epochs=1, output_numpy=True))
    images = read_idx(os.path.join(digits_dir(), "t10k-images-idx3-ubyte"), IMAGES_MAGIC)
    assert len(got) == 3
    np.testing.assert_array_equal(got[2][0][..., 0], images[2])
