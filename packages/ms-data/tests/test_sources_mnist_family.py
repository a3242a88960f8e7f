"""Fashion-MNIST, KMNIST and EMNIST: MNIST's IDX reader under their own names and files."""

import struct

import numpy as np
import pytest

from ms_data.sources.mnist_family import EMnistDataset, FashionMnistDataset, KMnistDataset


def idx_bytes(array):
    return struct.pack(">I", 0x0800 | array.ndim) + struct.pack(f">{array.ndim}I", *array.shape) \
        + array.astype(np.uint8).tobytes()


def write_mnist(folder):
    rng = np.random.default_rng(0)
    data = {}
    for part, prefix, n in (("train", "train", 5), ("test", "t10k", 3)):
        images = rng.integers(0, 256, (n, 28, 28), dtype=np.uint8)
        labels = rng.integers(0, 10, n, dtype=np.uint8)
        (folder / f"{prefix}-images-idx3-ubyte").write_bytes(idx_bytes(images))
        (folder / f"{prefix}-labels-idx1-ubyte").write_bytes(idx_bytes(labels))
        data[part] = images, labels
    return data


def rows(dataset):
    return list(dataset.create_dict_iterator(num_epochs=1, output_numpy=True))


@pytest.mark.parametrize("cls", [FashionMnistDataset, KMnistDataset])
def test_mnist_format_datasets(tmp_path, cls):
    data = write_mnist(tmp_path)
    got = rows(cls(str(tmp_path), usage="train", shuffle=False))
    assert len(got) == 5
    np.testing.assert_array_equal(got[2]["image"][..., 0], data["train"][0][2])
    assert got[2]["label"] == data["train"][1][2]
    assert cls(str(tmp_path)).get_dataset_size() == 8


def test_errors_name_the_dataset(tmp_path):
    with pytest.raises(FileNotFoundError, match="FashionMnistDataset: .*train-images"):
        FashionMnistDataset(str(tmp_path), usage="train")
    with pytest.raises(ValueError, match="KMnistDataset: usage must be"):
        KMnistDataset(str(tmp_path), usage="valid")


def test_emnist_reads_its_own_file_names(tmp_path):
    rng = np.random.default_rng(1)
    images = rng.integers(0, 256, (4, 28, 28), dtype=np.uint8)
    labels = np.array([1, 2, 3, 4], np.uint8)
    (tmp_path / "emnist-letters-test-images-idx3-ubyte").write_bytes(idx_bytes(images))
    (tmp_path / "emnist-letters-test-labels-idx1-ubyte").write_bytes(idx_bytes(labels))
    got = rows(EMnistDataset(str(tmp_path), "letters", usage="test", shuffle=False))
    assert [int(r["label"]) for r in got] == [1, 2, 3, 4]
    np.testing.assert_array_equal(got[0]["image"][..., 0], images[0])
    with pytest.raises(ValueError, match="EMnistDataset: name must be one of"):
        EMnistDataset(str(tmp_path), "words")
    with pytest.raises(FileNotFoundError, match="emnist-digits-train-images"):
        EMnistDataset(str(tmp_path), "digits", usage="train")
