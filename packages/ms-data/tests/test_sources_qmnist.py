"""QMnistDataset on small QMNIST files; the rows were compared with MindSpore 2.10's on the
same files (image sums and labels, compat True and False, every usage)."""

import struct

import numpy as np
import pytest

import ms_data as ds


def write(folder, prefix, n, rng):
    images = rng.integers(0, 256, (n, 28, 28), dtype=np.uint8)
    (folder / f"{prefix}-images-idx3-ubyte").write_bytes(
        struct.pack(">IIII", 0x0803, n, 28, 28) + images.tobytes())
    labels = rng.integers(0, 1000, (n, 8)).astype(">i4")
    labels[:, 0] = rng.integers(0, 10, n)
    (folder / f"{prefix}-labels-idx2-int").write_bytes(
        struct.pack(">III", 0x0C02, n, 8) + labels.tobytes())
    return images, labels.astype(np.int64)


@pytest.fixture
def qmnist(tmp_path):
    rng = np.random.default_rng(0)
    parts = {p: write(tmp_path, p, n, rng) for p, n in
             (("qmnist-train", 3), ("qmnist-test", 2), ("xnist", 2))}
    return str(tmp_path), parts


def rows(d):
    return list(d.create_tuple_iterator(num_epochs=1, output_numpy=True))


def test_compat_labels_and_usages(qmnist):
    path, parts = qmnist
    d = ds.QMnistDataset(path, usage="train", shuffle=False)
    assert d.get_col_names() == ["image", "label"]
    assert d.output_types() == [np.uint8, np.uint32] and d.output_shapes() == [[28, 28, 1], []]
    got = rows(d)
    images, labels = parts["qmnist-train"]
    np.testing.assert_array_equal(got[1][0][..., 0], images[1])
    assert [int(r[1]) for r in got] == labels[:, 0].tolist()
    full = rows(ds.QMnistDataset(path, usage="train", compat=False, shuffle=False))
    assert full[2][1].dtype == np.uint32 and full[2][1].tolist() == labels[2].tolist()
    every = [int(r[1]) for r in rows(ds.QMnistDataset(path, shuffle=False))]
    assert every == [int(v) for p in ("qmnist-train", "qmnist-test", "xnist")
                     for v in parts[p][1][:, 0]]
    assert ds.QMnistDataset(path, usage="nist").get_dataset_size() == 2
    assert ds.QMnistDataset(path, usage="test10k").get_dataset_size() == 2


def test_errors(qmnist, tmp_path):
    path, _ = qmnist
    with pytest.raises(ValueError, match="usage"):
        ds.QMnistDataset(path, usage="valid")
    (tmp_path / "xnist-labels-idx2-int").write_bytes(struct.pack(">III", 0x0C02, 3, 8))
    with pytest.raises(Exception, match="xnist.*2 images.*3 labels"):
        ds.QMnistDataset(path, usage="nist")
    (tmp_path / "qmnist-test-labels-idx2-int").unlink()
    with pytest.raises(FileNotFoundError, match="qmnist-test-labels"):
        ds.QMnistDataset(path, usage="test")
