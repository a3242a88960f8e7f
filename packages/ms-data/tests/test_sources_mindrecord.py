"""MindDataset on MindRecord files written by MindSpore 2.10 (tests/data/mindrecord, see its
README): the rows below are the ones MindSpore 2.10 reads from the same files."""

import gzip
import shutil
from pathlib import Path

import numpy as np
import pytest

import ms_data as ds
from ms_data.sources.mindrecord import _compressed_ints, is_mindrecord

DATA = Path(__file__).resolve().parent / "data" / "mindrecord"


@pytest.fixture
def files(tmp_path):
    for gz in DATA.glob("*.gz"):
        with gzip.open(gz) as src, open(tmp_path / gz.stem, "wb") as dst:
            shutil.copyfileobj(src, dst)
    return tmp_path


def rows(d):
    return list(d.create_dict_iterator(num_epochs=1, output_numpy=True))


def test_two_shards_from_the_first_path(files):
    d = ds.MindDataset(str(files / "ms210.mindrecord0"), shuffle=False)
    assert is_mindrecord(str(files / "ms210.mindrecord0"))
    assert d.get_col_names() == ["file_name", "image", "label", "mask", "score"]
    assert d.get_dataset_size() == 5
    got = rows(d)
    assert [str(r["file_name"]) for r in got] == [f"img_{i}.jpg" for i in range(5)]
    for i, r in enumerate(got):
        assert r["image"].dtype.kind == "S" and r["image"].shape == (1,)
        assert r["image"][0] == bytes(range(i, i + 5 + i))
        assert r["label"].dtype == np.int64 and int(r["label"]) == i - 2
        assert r["mask"].dtype == np.int32 and r["mask"].tolist() == \
            (np.arange(6).reshape(2, 3) * i).tolist()
        assert r["score"].dtype == np.float32 and float(r["score"]) == 0.5 * i


def test_columns_list_shards_and_one_file(files):
    d = ds.MindDataset(str(files / "ms210.mindrecord0"), columns_list=["score", "mask"],
                       shuffle=False)
    assert d.get_col_names() == ["score", "mask"]
    shard = rows(ds.MindDataset(str(files / "ms210.mindrecord0"), shuffle=False, num_shards=2,
                                shard_id=1))
    assert len(shard) == 3
    one = rows(ds.MindDataset([str(files / "ms210.mindrecord1")], shuffle=False))
    assert [int(r["label"]) for r in one] == [1, 2]
    with pytest.raises(ValueError, match="columns_list"):
        ds.MindDataset(str(files / "ms210.mindrecord0"), columns_list=["nope"])


def test_compressed_int_arrays_and_float64(files):
    (r,) = rows(ds.MindDataset(str(files / "c.mindrecord"), shuffle=False))
    assert r["a"].dtype == np.int64 and r["a"].tolist() == \
        [1, 300, -5, 70000, -2, 1 << 40, -300]
    assert r["b"].dtype == np.int32 and r["b"].tolist() == [-1, 127, 128, -129, 40000]
    assert r["c"].dtype == np.float64 and r["c"].tolist() == [0.5, -2.0]
    assert _compressed_ints(b"\x00\x00\x00\x01\x00") is None  # one value needs one byte more


def test_truncated_and_missing_shards(files):
    data = (files / "ms210.mindrecord0").read_bytes()
    (files / "ms210.mindrecord0").write_bytes(data[:len(data) - 50])
    with pytest.raises(Exception, match="truncated"):
        rows(ds.MindDataset([str(files / "ms210.mindrecord0")]))
    (files / "ms210.mindrecord1").unlink()
    with pytest.raises(FileNotFoundError, match="ms210.mindrecord1"):
        ds.MindDataset(str(files / "ms210.mindrecord0"))


def test_file_writer_mindrecord_format_round_trip(tmp_path):
    """FileWriter(file_format="mindrecord") writes what MindSpore 2.10's MindDataset reads
    (checked there: the same rows as from MindSpore's own FileWriter); here, read back."""
    path = tmp_path / "fw.mindrecord"
    w = ds.FileWriter(str(path), shard_num=2, file_format="mindrecord")
    w.add_schema({"label": {"type": "int32"}, "name": {"type": "string"},
                  "img": {"type": "bytes"}, "x": {"type": "float32", "shape": [2]},
                  "ids": {"type": "int64", "shape": [-1]}}, "fw")
    w.write_raw_data([{"label": i, "name": f"r{i}", "img": bytes([i + 1] * (i + 1)),
                       "x": np.array([i, -i], np.float32),
                       "ids": np.array([i, -300 * i, 1 << (8 * i)], np.int64)}
                      for i in range(5)])
    w.commit()
    assert is_mindrecord(str(tmp_path / "fw.mindrecord0"))
    assert (tmp_path / "fw.mindrecord1.db").is_file()
    got = rows(ds.MindDataset(str(tmp_path / "fw.mindrecord0"), shuffle=False))
    assert [str(r["name"]) for r in got] == [f"r{i}" for i in range(5)]
    assert [r["img"][0] for r in got] == [bytes([i + 1] * (i + 1)) for i in range(5)]
    assert got[3]["x"].tolist() == [3.0, -3.0] and got[3]["label"].dtype == np.int32
    assert got[4]["ids"].tolist() == [4, -1200, 1 << 32]
    with pytest.raises(ValueError, match="label"):
        w2 = ds.FileWriter(str(tmp_path / "bad.mindrecord"), file_format="mindrecord")
        w2.add_schema({"label": {"type": "int32"}})
        w2.write_raw_data([{"label": "x"}])
