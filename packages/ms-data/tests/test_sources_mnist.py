import gzip
import struct

import numpy as np
import pytest

from ms_data.sources.mnist import MnistDataset, read_idx
from ms_data.workers import PipelineError

NAMES = {
    "train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
    "test": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"),
}


def idx_bytes(array, magic=None):
    magic = (0x0800 | array.ndim) if magic is None else magic
    return struct.pack(">I", magic) + struct.pack(f">{array.ndim}I", *array.shape) + \
        array.astype(np.uint8).tobytes()


def write_mnist(folder, n_train=5, n_test=3, gz=False):
    rng = np.random.default_rng(0)
    data = {}
    for part, n in (("train", n_train), ("test", n_test)):
        images = rng.integers(0, 256, (n, 28, 28), dtype=np.uint8)
        labels = rng.integers(0, 10, n, dtype=np.uint8)
        for name, array in zip(NAMES[part], (images, labels)):
            raw = idx_bytes(array)
            if gz:
                (folder / (name + ".gz")).write_bytes(gzip.compress(raw))
            else:
                (folder / name).write_bytes(raw)
        data[part] = images, labels
    return data


def rows(dataset):
    return list(dataset.create_dict_iterator(num_epochs=1, output_numpy=True))


@pytest.mark.parametrize("gz", [False, True])
def test_mnist_reads_images_and_labels(tmp_path, gz):
    data = write_mnist(tmp_path, gz=gz)
    got = rows(MnistDataset(str(tmp_path), usage="train", shuffle=False))
    images, labels = data["train"]
    assert len(got) == 5
    for row, image, label in zip(got, images, labels):
        assert row["image"].shape == (28, 28, 1) and row["image"].dtype == np.uint8
        np.testing.assert_array_equal(row["image"][..., 0], image)
        assert row["label"].dtype == np.uint32 and row["label"] == label


def test_mnist_all_is_test_then_train_like_mindspore(tmp_path):
    data = write_mnist(tmp_path)
    ds = MnistDataset(str(tmp_path), shuffle=False)
    assert ds.get_dataset_size() == 8
    labels = [int(r["label"]) for r in rows(ds)]
    assert labels == [*data["test"][1], *data["train"][1]]
    assert MnistDataset(str(tmp_path), usage="all").get_dataset_size() == 8


def test_mnist_options(tmp_path):
    write_mnist(tmp_path, n_train=10)
    assert len(rows(MnistDataset(str(tmp_path), "train", num_samples=4))) == 4
    first = [int(r["label"]) for r in rows(MnistDataset(str(tmp_path), "train", shuffle=True))]
    assert sorted(first) == sorted(int(r["label"]) for r in rows(MnistDataset(str(tmp_path),
                                                                                "train")))
    shards = [rows(MnistDataset(str(tmp_path), "train", num_shards=2, shard_id=i, shuffle=False))
              for i in range(2)]
    assert [len(s) for s in shards] == [5, 5]
    seen = np.concatenate([[r["image"] for r in s] for s in shards])
    assert len({im.tobytes() for im in seen}) == 10


def test_mnist_missing_file_is_named(tmp_path):
    write_mnist(tmp_path)
    (tmp_path / "train-labels-idx1-ubyte").unlink()
    with pytest.raises(FileNotFoundError, match="train-labels-idx1-ubyte"):
        MnistDataset(str(tmp_path), usage="train")
    MnistDataset(str(tmp_path), usage="test")  # the test files are all there


def test_mnist_missing_dir_and_bad_usage(tmp_path):
    with pytest.raises(ValueError, match="not a directory"):
        MnistDataset(str(tmp_path / "nope"))
    write_mnist(tmp_path)
    with pytest.raises(ValueError, match="usage"):
        MnistDataset(str(tmp_path), usage="valid")


def test_mnist_bad_magic_is_named(tmp_path):
    write_mnist(tmp_path)
    path = tmp_path / "train-images-idx3-ubyte"
    raw = bytearray(path.read_bytes())
    raw[3] = 0x01
    path.write_bytes(bytes(raw))
    with pytest.raises(ValueError, match=r"train-images-idx3-ubyte: bad magic number 2049.*2051"):
        MnistDataset(str(tmp_path), usage="train")


def test_mnist_truncated_images_fail_when_read(tmp_path):
    write_mnist(tmp_path)
    path = tmp_path / "train-images-idx3-ubyte"
    path.write_bytes(path.read_bytes()[:-100])
    ds = MnistDataset(str(tmp_path), usage="train")
    with pytest.raises((ValueError, PipelineError),
                       match=r"train-images-idx3-ubyte: truncated.*3920 bytes.*3820"):
        rows(ds)


def test_mnist_truncated_header(tmp_path):
    write_mnist(tmp_path)
    (tmp_path / "t10k-labels-idx1-ubyte").write_bytes(b"\x00\x00")
    with pytest.raises(ValueError, match="t10k-labels-idx1-ubyte: truncated"):
        MnistDataset(str(tmp_path), usage="test")


def test_mnist_count_mismatch(tmp_path):
    write_mnist(tmp_path)
    (tmp_path / "train-labels-idx1-ubyte").write_bytes(idx_bytes(np.zeros(4, np.uint8)))
    with pytest.raises(ValueError, match=r"holds 5 images but .*train-labels.* holds 4 labels"):
        MnistDataset(str(tmp_path), usage="train")


def test_read_idx_trailing_bytes(tmp_path):
    path = tmp_path / "x"
    path.write_bytes(idx_bytes(np.zeros(3, np.uint8)) + b"\x00")
    with pytest.raises(ValueError, match="trailing bytes"):
        read_idx(str(path), 2049)
    path.write_bytes(idx_bytes(np.arange(3, dtype=np.uint8)))
    np.testing.assert_array_equal(read_idx(str(path), 2049), [0, 1, 2])
