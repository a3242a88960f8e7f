import numpy as np
import pytest

from ms_data.sources.cifar import RECORD_BYTES, Cifar10Dataset
from ms_data.workers import PipelineError

TRAIN = [f"data_batch_{i}.bin" for i in range(1, 6)]


def write_cifar(folder, per_file=2):
    rng = np.random.default_rng(1)
    out = {}
    for name in [*TRAIN, "test_batch.bin"]:
        labels = rng.integers(0, 10, per_file, dtype=np.uint8)
        chw = rng.integers(0, 256, (per_file, 3, 32, 32), dtype=np.uint8)
        records = np.concatenate([labels[:, None], chw.reshape(per_file, -1)], axis=1)
        (folder / name).write_bytes(records.tobytes())
        out[name] = labels, chw
    return out


def rows(dataset):
    return list(dataset.create_dict_iterator(num_epochs=1, output_numpy=True))


def test_cifar_test_rows_are_hwc_uint8_with_uint32_labels(tmp_path):
    data = write_cifar(tmp_path)
    got = rows(Cifar10Dataset(str(tmp_path), usage="test", shuffle=False))
    labels, chw = data["test_batch.bin"]
    assert len(got) == 2
    for row, label, image in zip(got, labels, chw):
        assert row["image"].shape == (32, 32, 3) and row["image"].dtype == np.uint8
        np.testing.assert_array_equal(row["image"], image.transpose(1, 2, 0))
        assert row["label"].dtype == np.uint32 and row["label"] == label


def test_cifar_usage_sizes_and_order(tmp_path):
    data = write_cifar(tmp_path, per_file=3)
    assert Cifar10Dataset(str(tmp_path), usage="train").get_dataset_size() == 15
    assert Cifar10Dataset(str(tmp_path)).get_dataset_size() == 18
    got = [int(r["label"]) for r in rows(Cifar10Dataset(str(tmp_path), usage="all",
                                                        shuffle=False))]
    assert got == [int(v) for name in [*TRAIN, "test_batch.bin"] for v in data[name][0]]


def test_cifar_options(tmp_path):
    write_cifar(tmp_path, per_file=4)
    assert len(rows(Cifar10Dataset(str(tmp_path), "train", num_samples=7))) == 7
    shards = [rows(Cifar10Dataset(str(tmp_path), "train", num_shards=3, shard_id=i))
              for i in range(3)]
    assert [len(s) for s in shards] == [7, 7, 7]  # 20 rows, padded to 21 like MindSpore


def test_cifar_missing_file_is_named(tmp_path):
    write_cifar(tmp_path)
    (tmp_path / "data_batch_3.bin").unlink()
    with pytest.raises(FileNotFoundError, match="data_batch_3.bin"):
        Cifar10Dataset(str(tmp_path), usage="train")
    assert Cifar10Dataset(str(tmp_path), usage="test").get_dataset_size() == 2


def test_cifar_truncated_file_is_named(tmp_path):
    write_cifar(tmp_path)
    path = tmp_path / "test_batch.bin"
    path.write_bytes(path.read_bytes()[:-10])
    with pytest.raises(ValueError, match=rf"test_batch.bin: truncated.*{RECORD_BYTES}"):
        Cifar10Dataset(str(tmp_path), usage="test")


def test_cifar_bad_label_is_named(tmp_path):
    write_cifar(tmp_path)
    path = tmp_path / "test_batch.bin"
    raw = bytearray(path.read_bytes())
    raw[RECORD_BYTES] = 200
    path.write_bytes(bytes(raw))
    with pytest.raises((ValueError, PipelineError), match="test_batch.bin: record 1 has label 200"):
        rows(Cifar10Dataset(str(tmp_path), usage="test"))


def test_cifar_bad_dir_and_usage(tmp_path):
    with pytest.raises(ValueError, match="not a directory"):
        Cifar10Dataset(str(tmp_path / "none"))
    with pytest.raises(ValueError, match="usage"):
        Cifar10Dataset(str(tmp_path), usage="eval")
