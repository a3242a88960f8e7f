"""Cifar100Dataset: columns, dtypes and order as MindSpore 2.10 gives them (checked there on
full-size files of random records: ``usage="all"`` reads test.bin first)."""

import numpy as np
import pytest

import ms_data as ds
from ms_data.errors import DatasetError
from ms_data.sources.cifar100 import RECORD_BYTES


def write_cifar100(folder, n_train=3, n_test=2):
    rng = np.random.default_rng(2)
    out = {}
    for name, n in (("train.bin", n_train), ("test.bin", n_test)):
        coarse = rng.integers(0, 20, n, dtype=np.uint8)
        fine = rng.integers(0, 100, n, dtype=np.uint8)
        chw = rng.integers(0, 256, (n, 3, 32, 32), dtype=np.uint8)
        records = np.concatenate([coarse[:, None], fine[:, None], chw.reshape(n, -1)], axis=1)
        (folder / name).write_bytes(records.tobytes())
        out[name] = coarse, fine, chw
    return out


def rows(dataset):
    return list(dataset.create_tuple_iterator(num_epochs=1, output_numpy=True))


def test_columns_dtypes_and_values(tmp_path):
    data = write_cifar100(tmp_path)
    d = ds.Cifar100Dataset(str(tmp_path), usage="train", shuffle=False)
    assert d.get_col_names() == ["image", "coarse_label", "fine_label"]
    assert d.output_types() == [np.uint8, np.uint32, np.uint32]
    assert d.output_shapes() == [[32, 32, 3], [], []]
    coarse, fine, chw = data["train.bin"]
    got = rows(d)
    assert len(got) == 3
    for (image, c, f), c0, f0, x in zip(got, coarse, fine, chw):
        np.testing.assert_array_equal(image, x.transpose(1, 2, 0))
        assert (c.dtype, int(c), f.dtype, int(f)) == (np.uint32, c0, np.uint32, f0)


def test_all_reads_test_then_train_and_options(tmp_path):
    data = write_cifar100(tmp_path)
    d = ds.Cifar100Dataset(str(tmp_path), shuffle=False)
    assert d.get_dataset_size() == 5
    fine = [int(r[2]) for r in rows(d)]
    assert fine == [*data["test.bin"][1], *data["train.bin"][1]]
    assert len(rows(ds.Cifar100Dataset(str(tmp_path), "train", num_samples=2))) == 2
    shards = [rows(ds.Cifar100Dataset(str(tmp_path), "all", num_shards=2, shard_id=i,
                                      shuffle=False)) for i in range(2)]
    assert [len(s) for s in shards] == [3, 3]  # 5 rows: the shards are padded to equal
    assert {int(r[2]) for s in shards for r in s} == set(fine)


def test_errors_name_the_file(tmp_path):
    with pytest.raises(ValueError, match="not a directory"):
        ds.Cifar100Dataset(str(tmp_path / "nope"))
    with pytest.raises(ValueError, match="usage"):
        ds.Cifar100Dataset(str(tmp_path), usage="valid")
    with pytest.raises(FileNotFoundError, match="train.bin"):
        ds.Cifar100Dataset(str(tmp_path), usage="train")
    (tmp_path / "train.bin").write_bytes(b"\0" * (RECORD_BYTES + 5))
    with pytest.raises(DatasetError, match="train.bin.*multiple"):
        ds.Cifar100Dataset(str(tmp_path), usage="train")
    bad = np.zeros((1, RECORD_BYTES), np.uint8)
    bad[0, 1] = 100
    (tmp_path / "train.bin").write_bytes(bad.tobytes())
    with pytest.raises(Exception, match="fine label 100"):
        rows(ds.Cifar100Dataset(str(tmp_path), usage="train"))
